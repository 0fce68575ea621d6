//! Safe edits of a project's `.ai-rulez/` tree for the MCP authoring tools: create, read, update,
//! delete and list items; domains; profiles and config keys. Names are validated, every read,
//! write and delete goes through the confined file layer (atomic, never through a symlink),
//! untrusted text is screened, and every change holds the project's writer lock across
//! read-compare-write, so an `expected_hash` holds across processes (no lost updates) and of two
//! creations of one item exactly one succeeds.

use std::path::Path;

use serde::Serialize;
use toml_edit::{Array, DocumentMut, Item as TomlItem, Value as TomlValue};

use crate::confined_fs::{EntryKind, ProjectDir};
use crate::content::{self, Kind, Layer};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::hash::sha256_tagged;
use crate::project::Project;

/// Longest item, domain or profile name, in characters.
pub(crate) const MAX_NAME_CHARS: usize = 64;

/// Where an item lives.
#[derive(Debug, Clone)]
pub(crate) struct ItemLocation {
    /// Kind of item.
    pub kind: Kind,
    /// Item name (file stem or skill folder).
    pub name: String,
    /// Domain, if any.
    pub domain: Option<String>,
    /// Machine-local (`.ai-rulez/local/`).
    pub local: bool,
}

/// An item file as read or written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ItemRecord {
    /// Item name.
    pub name: String,
    /// Project-relative path of the file.
    pub path: String,
    /// Full file text (frontmatter and body).
    pub content: String,
    /// `sha256:<hex>` of the file bytes; pass it as `expected_hash` to update safely.
    pub hash: String,
}

/// One item in a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ItemSummary {
    /// Item name.
    pub name: String,
    /// Domain, empty for the root.
    pub domain: String,
    /// Project-relative path.
    pub path: String,
    /// Priority name.
    pub priority: String,
    /// Title.
    pub title: String,
    /// Description, if any.
    pub description: Option<String>,
    /// Whether it is not active (pending or rejected: not generated, not served).
    pub pending: bool,
}

/// Checks a name the caller chose: 1–64 characters of ASCII letters, digits, `.`, `_` and `-`,
/// not starting with `.` or `-`, no `..`, no path separators or control characters.
///
/// Errors: [`Error::Usage`] saying what is wrong.
pub(crate) fn validate_name(what: &str, name: &str) -> Result<()> {
    let problem = if name.is_empty() {
        Some("is empty".to_owned())
    } else if name.chars().count() > MAX_NAME_CHARS {
        Some(format!("is longer than {MAX_NAME_CHARS} characters"))
    } else if name.starts_with(['.', '-']) {
        Some("starts with `.` or `-`".to_owned())
    } else if name.contains("..") {
        Some("contains `..`".to_owned())
    } else if let Some(bad) = name
        .chars()
        .find(|character| !(character.is_ascii_alphanumeric() || "._-".contains(*character)))
    {
        Some(format!(
            "contains {bad:?}; use letters, digits, `.`, `_` and `-` only"
        ))
    } else if name.to_ascii_lowercase().ends_with(".md") {
        Some("ends with `.md`; give the name without the extension".to_owned())
    } else {
        None
    };
    match problem {
        Some(problem) => Err(Error::Usage(format!(
            "invalid {what} name {name:?}: it {problem}"
        ))),
        None => Ok(()),
    }
}

/// The project-relative path of an item's file.
///
/// Errors: invalid item or domain name.
pub(crate) fn item_path(project: &Project, location: &ItemLocation) -> Result<String> {
    validate_name(location.kind.noun(), &location.name)?;
    let mut base = project.config_dir_relative.clone();
    if base.is_empty() {
        return Err(Error::Usage("this project keeps its config in a root ai-rulez.toml and has no .ai-rulez/ folder for items".to_owned()));
    }
    if location.local {
        base.push_str("/local");
    }
    if let Some(domain) = &location.domain {
        validate_name("domain", domain)?;
        base.push_str("/domains/");
        base.push_str(domain);
    }
    Ok(match location.kind {
        Kind::Skill => format!("{base}/skills/{}/SKILL.md", location.name),
        kind => format!("{base}/{}/{}.md", kind.folder(), location.name),
    })
}

/// Adds `priority`/`targets` to the frontmatter of `content` (replacing existing keys).
fn with_metadata(content: &str, priority: Option<&str>, targets: Option<&[String]>) -> String {
    if priority.is_none() && targets.is_none() {
        return content.to_owned();
    }
    let mut lines = Vec::new();
    if let Some(priority) = priority {
        lines.push(format!("priority: {}", frontmatter::yaml_string(priority)));
    }
    if let Some(targets) = targets {
        let quoted: Vec<String> = targets
            .iter()
            .map(|target| serde_json::to_string(target).unwrap_or_default())
            .collect();
        lines.push(format!("targets: [{}]", quoted.join(", ")));
    }
    let normalised = content.replace("\r\n", "\n");
    match normalised.strip_prefix("---\n").and_then(|rest| {
        rest.split_once("\n---\n")
            .map(|(yaml, body)| (format!("{yaml}\n"), body.to_owned()))
    }) {
        Some((yaml, body)) => {
            let yaml = frontmatter::rewrite_top_level(&yaml, &["priority", "targets"], &lines);
            format!("---\n{yaml}---\n{body}")
        }
        None => format!("---\n{}\n---\n{normalised}", lines.join("\n")),
    }
}

/// Validates text an agent wants to save: screening for hidden characters, instruction-like
/// comments and other unsafe content, then parsing as the item kind would be loaded; a text
/// with no body (empty, blank, or frontmatter only) is refused.
fn check_content(path: &str, location: &ItemLocation, content: &str) -> Result<()> {
    let problems = crate::lint::screen::untrusted_refusals(
        content,
        crate::lint::screen::ScreenKind::of(location.kind),
    );
    if !problems.is_empty() {
        return Err(Error::refused(
            path,
            format!("Not saved: {}", problems.join("; ")),
        ));
    }
    let document = frontmatter::parse(path, content.as_bytes())?;
    // An item without a body would be generated as an empty rule (or context, skill, ...) that
    // every assistant is told to follow, and would read as the agent's work being saved.
    if document.body.trim().is_empty() {
        let noun = location.kind.noun();
        return Err(Error::refused(
            path,
            format!(
                "Not saved: the {noun} has no text (the content is empty, or frontmatter only); write the {noun}'s Markdown after the frontmatter"
            ),
        ));
    }
    content::check(location.kind, &location.name, path, document)?;
    Ok(())
}

/// Refuses `content` for the item at `path` when it links to a host that no active rule or
/// context of `project`, nor `already` (the text it replaces), links to: an item an agent writes
/// is served to every agent at once, so a new address goes through review instead (the
/// learning loop saves such a rule pending, see [`crate::learning::risk`]).
///
/// Errors: [`Error::Refused`] naming the hosts and the two ways to add them.
fn check_links(project: &Project, path: &str, content: &str, already: &str) -> Result<()> {
    let hosts = crate::learning::risk::unknown_hosts(project, content, already);
    if hosts.is_empty() {
        return Ok(());
    }
    Err(Error::refused(
        path,
        format!(
            "Not saved: it links to {}, which no active rule or context of this project mentions, and an agent's new link is read by every agent before anyone checks it; send the rule to propose_rules, which saves it pending until a person approves it, or leave the link to a person",
            hosts.join(", ")
        ),
    ))
}

/// Refuses a name for a new file or folder that Windows cannot check out
/// ([`crate::portable::windows_problem`]: `CON`, `aux`, `com1`, `x.`). Only creation refuses:
/// an existing item of such a name can still be read, updated and deleted, which is how it is
/// renamed.
///
/// Errors: [`Error::Usage`] saying why.
fn check_portable(what: &str, name: &str) -> Result<()> {
    match crate::portable::windows_problem(name) {
        Some(problem) => Err(Error::Usage(format!(
            "invalid {what} name {name:?}: it {problem}"
        ))),
        None => Ok(()),
    }
}

/// Creates an item; fails when it exists. An item of a domain goes into an existing domain
/// only: a misspelled domain would otherwise become a new one in silence.
///
/// Errors: invalid or unportable names, a domain that does not exist (the message names the
/// known domains and `create_domain`), refused content, an existing item, symlinks, I/O.
pub(crate) fn create_item(
    project: &Project,
    location: &ItemLocation,
    content: &str,
    priority: Option<&str>,
    targets: Option<&[String]>,
) -> Result<ItemRecord> {
    let path = item_path(project, location)?;
    check_portable(location.kind.noun(), &location.name)?;
    if let Some(domain) = &location.domain {
        check_portable("domain", domain)?;
    }
    let content = with_metadata(content, priority, targets);
    check_content(&path, location, &content)?;
    check_links(project, &path, &content, "")?;
    if location.kind == Kind::Rule {
        crate::learning::guard::check_agent_create(&path, &content)?;
    }
    let _lock = project.dir.lock()?;
    if let Some(domain) = &location.domain {
        check_domain_exists(project, domain)?;
    }
    if project.dir.info(&path)?.is_some() {
        return Err(Error::refused(
            &path,
            format!(
                "{} `{}` already exists; use update_{} to change it",
                location.kind.noun(),
                location.name,
                location.kind.noun()
            ),
        ));
    }
    check_unique(project, location, &path)?;
    // No-clobber even under the lock: a person's editor may create the file meanwhile.
    project.dir.create_new(&path, content.as_bytes(), 0o644)?;
    Ok(record(&location.name, &path, content))
}

/// Reads an item.
///
/// Errors: invalid names; the item does not exist.
pub(crate) fn read_item(project: &Project, location: &ItemLocation) -> Result<ItemRecord> {
    let path = item_path(project, location)?;
    let (bytes, _) = read_existing(project, &path, location)?;
    let content =
        String::from_utf8(bytes).map_err(|_| Error::invalid(&path, None, "is not valid UTF-8"))?;
    Ok(record(&location.name, &path, content))
}

/// Replaces an item's text; with `expected_hash`, only if the file still has that hash.
///
/// Errors: the item does not exist, the hash is stale (the message gives the current hash),
/// refused content, I/O.
pub(crate) fn update_item(
    project: &Project,
    location: &ItemLocation,
    content: &str,
    priority: Option<&str>,
    targets: Option<&[String]>,
    expected_hash: Option<&str>,
) -> Result<ItemRecord> {
    let path = item_path(project, location)?;
    let content = with_metadata(content, priority, targets);
    check_content(&path, location, &content)?;
    let _lock = project.dir.lock()?;
    let (current, mode) = read_existing(project, &path, location)?;
    check_expected_hash(&path, &current, expected_hash)?;
    check_links(project, &path, &content, &String::from_utf8_lossy(&current))?;
    // A file that is not UTF-8 does not load, so it is served nowhere and an agent may repair it.
    if location.kind == Kind::Rule
        && let Ok(current) = std::str::from_utf8(&current)
    {
        crate::learning::guard::check_agent_update(&path, current, &content)?;
    }
    // The file keeps its permission bits (a 0600 rule stays private).
    project.dir.write(&path, content.as_bytes(), mode)?;
    Ok(record(&location.name, &path, content))
}

/// Deletes an item (a skill's whole folder); with `expected_hash`, only if the file still has
/// that hash.
///
/// Errors: the item does not exist; the hash is stale; a skill folder holding a symlink; I/O.
pub(crate) fn delete_item(
    project: &Project,
    location: &ItemLocation,
    expected_hash: Option<&str>,
) -> Result<ItemRecord> {
    let path = item_path(project, location)?;
    let _lock = project.dir.lock()?;
    let (bytes, _) = read_existing(project, &path, location)?;
    check_expected_hash(&path, &bytes, expected_hash)?;
    if location.kind == Kind::Rule
        && let Ok(current) = std::str::from_utf8(&bytes)
    {
        crate::learning::guard::check_agent_delete(&path, current)?;
    }
    match location.kind {
        // The whole skill folder goes; links inside are removed as links, never followed.
        Kind::Skill => project
            .dir
            .remove_tree(path.trim_end_matches("/SKILL.md"))?,
        _ => {
            project.dir.remove_file(&path)?;
        }
    }
    Ok(record(
        &location.name,
        &path,
        String::from_utf8_lossy(&bytes).into_owned(),
    ))
}

/// Refuses when the caller's `expected_hash` is not the hash of `current` (a lost update).
fn check_expected_hash(path: &str, current: &[u8], expected_hash: Option<&str>) -> Result<()> {
    let current_hash = sha256_tagged(current);
    match expected_hash {
        Some(expected) if expected != current_hash => Err(Error::refused(
            path,
            format!(
                "changed since you read it (expected_hash {expected}, current hash {current_hash}); read it again, merge your change, and retry with the current hash"
            ),
        )),
        _ => Ok(()),
    }
}

/// Largest item file read, in bytes (8 MiB, as when loading).
const MAX_ITEM_BYTES: u64 = 8 * 1024 * 1024;

/// The item's bytes and permission bits.
fn read_existing(project: &Project, path: &str, location: &ItemLocation) -> Result<(Vec<u8>, u32)> {
    match project.dir.read(path, MAX_ITEM_BYTES)? {
        Some(found) => Ok(found),
        None => Err(Error::refused(
            path,
            format!(
                "{} `{}` does not exist; use create_{} to add it",
                location.kind.noun(),
                location.name,
                location.kind.noun()
            ),
        )),
    }
}

fn record(name: &str, path: &str, content: String) -> ItemRecord {
    ItemRecord {
        name: name.to_owned(),
        path: path.to_owned(),
        hash: sha256_tagged(content.as_bytes()),
        content,
    }
}

/// Lists items of `kind` (all domains, or one), sorted by priority then name.
#[must_use]
pub(crate) fn list_items(project: &Project, kind: Kind, domain: Option<&str>) -> Vec<ItemSummary> {
    let mut items: Vec<&content::Item> = project
        .tree
        .items
        .iter()
        .filter(|item| item.kind == kind)
        .filter(|item| match (domain, &item.layer) {
            (None, _) => true,
            (Some(wanted), Layer::Domain(found)) => wanted == found,
            (Some(_), _) => false,
        })
        .collect();
    items.sort_by(|left, right| (left.priority, &left.id).cmp(&(right.priority, &right.id)));
    items
        .into_iter()
        .map(|item| ItemSummary {
            name: item.id.clone(),
            domain: match &item.layer {
                Layer::Domain(domain) => domain.clone(),
                _ => String::new(),
            },
            path: item.source_path.clone(),
            priority: item.priority.name().to_owned(),
            title: item.title.clone(),
            description: item.description.clone(),
            pending: !item.is_active(),
        })
        .collect()
}

/// Creates `domains/<name>/rules/` so the domain exists.
///
/// Errors: invalid or unportable name, an existing domain, I/O.
pub(crate) fn create_domain(project: &Project, name: &str) -> Result<String> {
    validate_name("domain", name)?;
    check_portable("domain", name)?;
    let path = format!("{}/domains/{name}", project.config_dir_relative);
    let _lock = project.dir.lock()?;
    if project.dir.info(&path)?.is_some() {
        return Err(Error::refused(
            &path,
            format!("domain `{name}` already exists"),
        ));
    }
    project
        .dir
        .create_new(&format!("{path}/rules/.gitkeep"), b"", 0o644)?;
    Ok(path)
}

/// Refuses `domain` unless its folder `domains/<domain>/` exists (checked on disk, under the
/// writer lock, so a domain created a moment ago by another call counts).
///
/// Errors: [`Error::Refused`] naming the known domains and how to create this one.
fn check_domain_exists(project: &Project, domain: &str) -> Result<()> {
    let path = format!("{}/domains/{domain}", project.config_dir_relative);
    if project.dir.info(&path)?.map(|info| info.kind) == Some(EntryKind::Folder) {
        return Ok(());
    }
    let known = if project.tree.domains.is_empty() {
        "the project has no domains yet".to_owned()
    } else {
        format!("known domains: {}", project.tree.domains.join(", "))
    };
    let hint =
        crate::suggest::did_you_mean(domain, project.tree.domains.iter().map(String::as_str));
    Err(Error::refused(
        &path,
        format!(
            "domain `{domain}` does not exist ({known}{hint}); create it first with create_domain {{\"name\": \"{domain}\"}}, or leave `domain` out"
        ),
    ))
}

/// Deletes an empty domain folder (only `.gitkeep` files left).
///
/// Errors: invalid name, missing domain, a domain that still holds items.
pub(crate) fn delete_domain(project: &Project, name: &str) -> Result<String> {
    validate_name("domain", name)?;
    let path = format!("{}/domains/{name}", project.config_dir_relative);
    let _lock = project.dir.lock()?;
    if project.dir.info(&path)?.map(|info| info.kind) != Some(EntryKind::Folder) {
        return Err(Error::refused(
            &path,
            format!("domain `{name}` does not exist"),
        ));
    }
    if holds_items(&project.dir, &path, 0)? {
        return Err(Error::refused(
            &path,
            format!("domain `{name}` still holds items; delete them first"),
        ));
    }
    project.dir.remove_tree(&path)?;
    Ok(path)
}

/// Whether the folder holds anything but folders and `.gitkeep` files (symlinks count).
fn holds_items(dir: &ProjectDir, folder: &str, depth: usize) -> Result<bool> {
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return Ok(true);
    }
    for entry in dir.list(folder)?.unwrap_or_default() {
        let inner = format!("{folder}/{}", entry.name);
        let holds = match entry.kind {
            EntryKind::Folder => holds_items(dir, &inner, depth + 1)?,
            EntryKind::File => entry.name != ".gitkeep",
            EntryKind::Symlink | EntryKind::Other => true,
        };
        if holds {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Edits the config with `toml_edit` (comments and key order survive) and writes it atomically.
///
/// Errors: a v3 YAML config (not editable here), unparsable TOML, I/O.
pub(crate) fn edit_config(
    project: &Project,
    edit: impl FnOnce(&mut DocumentMut) -> Result<()>,
) -> Result<()> {
    let path = &project.config_relative;
    if Path::new(path)
        .extension()
        .is_none_or(|extension| extension != "toml")
    {
        return Err(Error::refused(
            path,
            "v3 YAML configs are read-only here; convert to config.toml first",
        ));
    }
    let _lock = project.dir.lock()?;
    let (bytes, mode) = project
        .dir
        .read(path, MAX_ITEM_BYTES)?
        .ok_or_else(|| Error::invalid(path, None, "does not exist any more; run again"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::invalid(path, None, "is not valid UTF-8; fix it by hand"))?;
    let mut document: DocumentMut = text.parse().map_err(|error: toml_edit::TomlError| {
        Error::invalid(path, None, format!("invalid TOML: {}", error.message()))
    })?;
    edit(&mut document)?;
    let new_text = document.to_string();
    // The result must still load, so an edit can never leave a broken config behind.
    crate::config::parse(path, &new_text, false, &mut Vec::new())?;
    project.dir.write(path, new_text.as_bytes(), mode)
}

/// Sets `[profiles] <name> = [domains]`.
///
/// Errors: invalid names; as [`edit_config`].
pub(crate) fn set_profile(project: &Project, name: &str, domains: &[String]) -> Result<()> {
    validate_name("profile", name)?;
    for domain in domains {
        validate_name("domain", domain)?;
    }
    edit_config(project, |document| {
        let profiles = document.entry("profiles").or_insert_with(toml_edit::table);
        let Some(table) = profiles.as_table_like_mut() else {
            return Err(Error::Usage(
                "`profiles` in the config is not a table".to_owned(),
            ));
        };
        let array: Array = domains.iter().map(String::as_str).collect();
        table.insert(name, TomlItem::Value(TomlValue::Array(array)));
        Ok(())
    })
}

/// Removes a profile (and `default` when it named it).
///
/// Errors: unknown profile; as [`edit_config`].
pub(crate) fn remove_profile(project: &Project, name: &str) -> Result<()> {
    if !project.config.profiles.contains_key(name) {
        return Err(Error::Usage(format!("profile `{name}` does not exist")));
    }
    edit_config(project, |document| {
        if let Some(table) = document
            .get_mut("profiles")
            .and_then(TomlItem::as_table_like_mut)
        {
            table.remove(name);
        }
        if document.get("default").and_then(TomlItem::as_str) == Some(name) {
            document.remove("default");
        }
        Ok(())
    })
}

/// Sets `default = "<name>"`.
///
/// Errors: unknown profile; as [`edit_config`].
pub(crate) fn set_default_profile(project: &Project, name: &str) -> Result<()> {
    for part in name.split(',') {
        if !project.config.profiles.contains_key(part.trim()) {
            return Err(Error::Usage(format!(
                "profile `{}` does not exist; add it first",
                part.trim()
            )));
        }
    }
    edit_config(project, |document| {
        document.insert("default", toml_edit::value(name));
        Ok(())
    })
}

/// Checks a project `name` or `description` an agent wants to set: it is rendered into every
/// root file, so it gets the same screening as item text, and a name must be one line.
///
/// Errors: [`Error::Refused`] with the reasons (`Not saved: ...`).
pub(crate) fn check_project_text(key: &str, value: &str) -> Result<()> {
    let mut problems =
        crate::lint::screen::untrusted_refusals(value, crate::lint::screen::ScreenKind::Rule);
    if key == "name" && value.chars().any(char::is_control) {
        problems.push("a project name must be one line without control characters".to_owned());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Error::refused(
            format!("config `{key}`"),
            format!("Not saved: {}", problems.join("; ")),
        ))
    }
}

/// Refuses a new item whose id another layer of the default selection already uses: both would
/// load together and `generate` would stop on the clash.
fn check_unique(project: &Project, location: &ItemLocation, path: &str) -> Result<()> {
    let clash = project.tree.items.iter().find(|item| {
        item.kind == location.kind
            && item.id == location.name
            && item.layer.rank() == item_rank(location)
    });
    match clash {
        Some(item) => Err(Error::refused(
            path,
            format!(
                "{} `{}` already exists at {}; pick another name (items with one id in two domains clash)",
                location.kind.noun(),
                location.name,
                item.source_path
            ),
        )),
        None => Ok(()),
    }
}

fn item_rank(location: &ItemLocation) -> u8 {
    if location.local {
        Layer::Local.rank()
    } else if let Some(domain) = &location.domain {
        Layer::Domain(domain.clone()).rank()
    } else {
        Layer::Root.rank()
    }
}
