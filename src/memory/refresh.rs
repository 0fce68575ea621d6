//! The refresh queue: an agent or a person flags an item of team memory (a learning, a rule, a
//! memory) as stale, contradictory, duplicated, too narrow or unclear, and someone later
//! resolves the request as applied or rejected. Each request is one file in
//! `.ai-rulez/refresh-requests/<id>.md`, so the team sees it in the pull request that adds it,
//! and `ai-rulez review` lists the open ones.
//!
//! File format (written here):
//!
//! ```text
//! ---
//! item: pool-is-global
//! reason: stale
//! status: open                  (open, applied or rejected)
//! created: 2026-12-01
//! resolved: 2026-12-02          (when resolved)
//! resolution_note: rewrote it   (when resolved with a note)
//! ---
//! What the requester noticed.
//! ```

use serde::{Deserialize, Serialize};

use super::learnings::create_in_folder;
use super::{base_folder, check_id, today};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::project::Project;

/// Why an item should be refreshed, as the request records it.
pub(crate) const REASONS: [&str; 5] = [
    "stale",
    "contradictory",
    "duplicate",
    "too_narrow",
    "unclear",
];

/// Longest note, in characters.
const MAX_NOTE_CHARS: usize = 2000;

/// Longest item id accepted, in characters.
const MAX_ITEM_CHARS: usize = 200;

/// Largest request file read, in bytes.
const MAX_REQUEST_BYTES: u64 = 64 * 1024;

/// The frontmatter keys of a request file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestKeys {
    item: String,
    reason: String,
    status: String,
    #[serde(default)]
    created: Option<String>,
    #[serde(default)]
    resolved: Option<String>,
    #[serde(default)]
    resolution_note: Option<String>,
}

/// One refresh request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct RefreshRequest {
    /// Id (file stem).
    pub id: String,
    /// Project-relative path of the request file.
    pub path: String,
    /// The id of the item to refresh.
    pub item: String,
    /// `stale`, `contradictory`, `duplicate`, `too_narrow` or `unclear`.
    pub reason: String,
    /// `open`, `applied` or `rejected`.
    pub status: String,
    /// What the requester noticed.
    pub note: String,
    /// `created` (`YYYY-MM-DD`), when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// When it was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// The note given when resolving.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution_note: Option<String>,
    #[serde(skip)]
    yaml: String,
}

/// The project-relative folder of request files (`.ai-rulez/refresh-requests`).
#[must_use]
pub(crate) fn folder(project: &Project) -> String {
    format!("{}/{}", base_folder(project), super::REFRESH_FOLDER)
}

/// Parses the request file at `path`.
///
/// Errors: [`Error::Invalid`] naming the file when keys are missing, unknown, or hold a value
/// other than the known reasons and statuses.
fn parse(path: &str, bytes: &[u8]) -> Result<RefreshRequest> {
    let document = frontmatter::parse(path, bytes)?;
    let invalid = |message: String| Error::invalid(path, None, message);
    let values = serde_json::Value::Object(document.values.into_iter().collect());
    let keys: RequestKeys = serde_json::from_value(values).map_err(|error| {
        invalid(format!(
            "is not a refresh request: {error}; a request has `item`, `reason`, `status` and optional `created`, `resolved`, `resolution_note`"
        ))
    })?;
    if !REASONS.contains(&keys.reason.as_str()) {
        return Err(invalid(format!(
            "has reason `{}`; write one of {}",
            keys.reason,
            REASONS.join(", ")
        )));
    }
    if !["open", "applied", "rejected"].contains(&keys.status.as_str()) {
        return Err(invalid(format!(
            "has status `{}`; write open, applied or rejected",
            keys.status
        )));
    }
    let id = path
        .rsplit('/')
        .next()
        .and_then(|name| name.strip_suffix(".md"))
        .unwrap_or(path)
        .to_owned();
    Ok(RefreshRequest {
        id,
        path: path.to_owned(),
        item: keys.item,
        reason: keys.reason,
        status: keys.status,
        note: document.body.trim().to_owned(),
        created: keys.created,
        resolved: keys.resolved,
        resolution_note: keys.resolution_note,
        yaml: document.yaml.unwrap_or_default(),
    })
}

/// What `request_refresh` is asked to file.
#[derive(Debug, Clone)]
pub(crate) struct NewRequest {
    /// The id of the item to refresh (a learning, a rule or other item, a memory).
    pub item: String,
    /// One of [`REASONS`].
    pub reason: String,
    /// What the requester noticed.
    pub note: String,
}

/// Files a refresh request as a new file (never replacing one), open.
///
/// Errors: [`Error::Usage`] for an empty or overlong item id, an id that names no item,
/// learning or memory, an unknown reason, an empty or
/// overlong note, or a note the screening refuses (credentials, hidden characters);
/// [`Error::Busy`]; I/O.
pub(crate) fn request_refresh(project: &Project, request: &NewRequest) -> Result<RefreshRequest> {
    let item = request.item.trim();
    if item.is_empty()
        || item.chars().count() > MAX_ITEM_CHARS
        || item.chars().any(char::is_control)
    {
        return Err(Error::Usage(format!(
            "`item_id` must be the id of a learning, item or memory (1 to {MAX_ITEM_CHARS} characters, one line)"
        )));
    }
    if !REASONS.contains(&request.reason.as_str()) {
        return Err(Error::Usage(format!(
            "`reason` `{}` is not known; use one of {}",
            request.reason,
            REASONS.join(", ")
        )));
    }
    if !names_something_known(project, item) {
        return Err(Error::Usage(format!(
            "no learning, item or memory has the id `{}`, so there is nothing to refresh; review_learnings, list_items and list_memories list the ids (resolve finds one by name)",
            item.escape_debug()
        )));
    }
    let note = request.note.trim();
    if note.is_empty() || note.chars().count() > MAX_NOTE_CHARS {
        return Err(Error::Usage(format!(
            "`note` must say what is wrong with the item (1 to {MAX_NOTE_CHARS} characters)"
        )));
    }
    let refusals = crate::learning::risk::judge(project, note).refusals;
    if !refusals.is_empty() {
        return Err(Error::Usage(format!(
            "the note was not saved: {}",
            refusals.join("; ")
        )));
    }
    let created = today();
    let text = format!(
        "---\nitem: {}\nreason: {}\nstatus: open\ncreated: {created}\n---\n{note}\n",
        frontmatter::yaml_string(item),
        request.reason
    );
    let mut base = crate::content::slug(item);
    base.truncate(60);
    let base = format!(
        "{}-{}",
        base.trim_end_matches('-'),
        request.reason.replace('_', "-")
    );
    let base = base.trim_start_matches('-').to_owned();
    let _lock = project.dir.lock()?;
    let (_, path) = create_in_folder(project, &folder(project), &base, &text)?;
    parse(&path, text.as_bytes())
}

/// Whether `item` is the id of something a refresh request can be about: an item of any kind
/// (rule, context, skill, agent, command) in any layer, bare or as `kind:id`; a learning; or a
/// memory. A request for nothing would wait in the queue for an item no one can find.
fn names_something_known(project: &Project, item: &str) -> bool {
    let (wanted_kind, id) = match item.split_once(':') {
        Some((noun, id)) => match crate::content::Kind::ALL
            .into_iter()
            .find(|kind| kind.noun() == noun)
        {
            Some(kind) => (Some(kind), id),
            None => (None, item),
        },
        None => (None, item),
    };
    let is_an_item = project.tree.items.iter().any(|candidate| {
        candidate.id == id && wanted_kind.is_none_or(|kind| candidate.kind == kind)
    });
    if is_an_item {
        return true;
    }
    if wanted_kind.is_some() {
        return false;
    }
    // The id checks come first, so a path such as `../../x` is never looked up as a file.
    let is_a_learning = check_id(item).is_ok()
        && matches!(
            project.dir.info(&format!(
                "{}/{item}.md",
                super::learning_file::folder(project)
            )),
            Ok(Some(_))
        );
    if is_a_learning {
        return true;
    }
    super::node::parse_id(item).is_ok()
        && super::memories::read_memory(&super::memories::Store::of(project), item).is_ok()
}

/// Every refresh request, sorted by id (open ones only unless `all`), and the request files
/// that could not be read (each naming the file and the fix).
///
/// Errors: the folder is a symlink or cannot be listed.
pub(crate) fn list_requests(
    project: &Project,
    all: bool,
) -> Result<(Vec<RefreshRequest>, Vec<String>)> {
    let folder = folder(project);
    let mut requests = Vec::new();
    let mut problems = Vec::new();
    let Some(entries) = project.dir.list(&folder)? else {
        return Ok((requests, problems));
    };
    for entry in entries {
        let Some(stem) = entry.name.strip_suffix(".md") else {
            continue;
        };
        if !entry.exact_name || stem.starts_with('.') {
            continue;
        }
        match read_request(project, &format!("{folder}/{}", entry.name)) {
            Ok(request) if all || request.status == "open" => requests.push(request),
            Ok(_) => {}
            Err(error) => problems.push(error.to_string()),
        }
    }
    // File names sort `a-2.md` before `a.md`; ids sort `a` first.
    requests.sort_by(|left, right| left.id.cmp(&right.id));
    Ok((requests, problems))
}

fn read_request(project: &Project, path: &str) -> Result<RefreshRequest> {
    let (bytes, _) = project.dir.read(path, MAX_REQUEST_BYTES)?.ok_or_else(|| {
        Error::Usage(format!(
            "no refresh request at {path}; list_refresh_requests lists them"
        ))
    })?;
    parse(path, &bytes)
}

/// Resolves the open request `id` as `applied` or `rejected`, with an optional note; the file
/// stays (its `status` changes) so the decision shows in the pull request.
///
/// Errors: [`Error::Usage`] for an unknown id or outcome, or a request already resolved;
/// [`Error::Busy`]; I/O.
pub(crate) fn resolve_refresh(
    project: &Project,
    id: &str,
    outcome: &str,
    note: Option<&str>,
) -> Result<RefreshRequest> {
    check_id(id)?;
    if !["applied", "rejected"].contains(&outcome) {
        return Err(Error::Usage(format!(
            "`outcome` `{outcome}` is not known; use applied or rejected"
        )));
    }
    let note = note.map(str::trim).filter(|note| !note.is_empty());
    if let Some(note) = note {
        if note.chars().count() > MAX_NOTE_CHARS || note.contains('\n') {
            return Err(Error::Usage(format!(
                "`note` must be one line of at most {MAX_NOTE_CHARS} characters"
            )));
        }
        let refusals = crate::learning::risk::judge(project, note).refusals;
        if !refusals.is_empty() {
            return Err(Error::Usage(format!(
                "the note was not saved: {}",
                refusals.join("; ")
            )));
        }
    }
    let _lock = project.dir.lock()?;
    let request = read_request(project, &format!("{}/{id}.md", folder(project)))?;
    if request.status != "open" {
        return Err(Error::Usage(format!(
            "refresh request `{id}` is already {} ({}); file a new request if the item needs another look",
            request.status,
            request.resolved.as_deref().unwrap_or("date not recorded")
        )));
    }
    let mut add = vec![
        format!("status: {outcome}"),
        format!("resolved: {}", today()),
    ];
    if let Some(note) = note {
        add.push(format!(
            "resolution_note: {}",
            frontmatter::yaml_string(note)
        ));
    }
    let yaml = frontmatter::rewrite_top_level(
        &request.yaml,
        &["status", "resolved", "resolution_note"],
        &add,
    );
    let text = format!("---\n{yaml}---\n{}\n", request.note);
    // Checked before writing, so a hand-edited file never turns into one that does not parse.
    let resolved = parse(&request.path, text.as_bytes())?;
    project.dir.write(&request.path, text.as_bytes(), 0o644)?;
    Ok(resolved)
}

/// One line per request for people: `- id [reason] item: note`.
#[must_use]
pub(crate) fn requests_text(requests: &[RefreshRequest]) -> String {
    let mut text = String::new();
    for request in requests {
        text.push_str(&format!(
            "- {} [{}] {}: {}",
            request.id,
            request.reason,
            request.item,
            request.note.replace('\n', " ")
        ));
        if request.status != "open" {
            text.push_str(&format!(" ({})", request.status));
        }
        text.push('\n');
    }
    text
}
