//! `ai-rulez.lock`: pins what a reviewed commit contains (every source item, every generated
//! output, the config's MCP servers) so a pre-commit check can refuse a commit whose sources
//! and generated files no longer agree. The digest scheme is in [`digest`]; reading the
//! working tree or the git index is in [`sources`].

pub(crate) mod diff;
pub(crate) mod digest;
pub(crate) mod includes;
pub(crate) mod pin;
pub(crate) mod sources;

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::hash::Provenance;
use crate::mcp_config::{self, DocumentShape, McpServer};
use crate::plan::{Content, Plan};
use crate::write;
use digest::{file_leaf, top_digest};
use sources::{Snapshot, SourceItem};

/// Lock format version this build writes and reads.
pub(crate) const LOCK_VERSION: u32 = 1;
/// File name inside the config folder.
pub(crate) const LOCK_FILE: &str = "ai-rulez.lock";
/// Largest lock file read, in bytes (64 MiB).
pub(crate) const MAX_LOCK_BYTES: u64 = 64 * 1024 * 1024;

/// The project-relative path of the lock beside `file_in_config_folder` (the config file or the
/// manifest, project-relative): `.ai-rulez/config.toml` gives `.ai-rulez/ai-rulez.lock`, and a
/// root `ai-rulez.toml` gives `ai-rulez.lock`.
#[must_use]
pub(crate) fn path_beside(file_in_config_folder: &str) -> String {
    match file_in_config_folder.rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/{LOCK_FILE}"),
        None => LOCK_FILE.to_owned(),
    }
}
const HEADER: &str = "# Written by `ai-rulez lock`; do not edit. It pins the sources and generated files of this commit.\n# Check it with `ai-rulez lock --check`; the digest scheme is described in docs/lockfile.md.\n";

/// A generated output as pinned: a whole file, one entry of a settings document, or a managed
/// section in a hand-written file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PinnedOutput {
    /// Project-relative path.
    pub path: String,
    /// Key path of the owned entry inside a settings document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entry: Option<Vec<String>>,
    /// Whether this pins the managed section of a hand-written file.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub section: bool,
    /// `sha256:<hex>`.
    pub digest: String,
}

impl PinnedOutput {
    fn key(&self) -> String {
        match (&self.entry, self.section) {
            (Some(entry), _) => format!("{}#{}", self.path, entry.join("/")),
            (None, true) => format!("{}#section", self.path),
            (None, false) => self.path.clone(),
        }
    }

    /// Human label: the path, plus the entry or section it pins.
    #[must_use]
    pub(crate) fn label(&self) -> String {
        match (&self.entry, self.section) {
            (Some(entry), _) => format!("{} ({})", self.path, entry.join(".")),
            (None, true) => format!("{} (ai-rulez section)", self.path),
            (None, false) => self.path.clone(),
        }
    }
}

/// An MCP server entry of the config, pinned with its placeholders unresolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PinnedServer {
    /// Server name.
    pub name: String,
    /// `sha256:<hex>` of its compact JSON.
    pub digest: String,
}

/// Stored item row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredItem {
    kind: String,
    domain: String,
    id: String,
    path: String,
    digest: String,
}

/// The lock file contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LockFile {
    /// Format version.
    pub version: u32,
    /// Top digest over everything below.
    pub tree: String,
    #[serde(default, rename = "item")]
    items: Vec<StoredItem>,
    /// Pinned outputs, sorted by key.
    #[serde(default, rename = "output")]
    pub outputs: Vec<PinnedOutput>,
    /// Pinned MCP servers, sorted by name.
    #[serde(default, rename = "mcp_server")]
    pub mcp_servers: Vec<PinnedServer>,
    /// Pinned git includes, sorted by name; not part of `tree` (see [`includes`]).
    #[serde(default, rename = "include", skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<includes::PinnedInclude>,
}

impl LockFile {
    /// Builds a lock from its parts (sorted here) and computes the top digest.
    #[must_use]
    pub(crate) fn new(
        mut items: Vec<SourceItem>,
        mut outputs: Vec<PinnedOutput>,
        mut mcp_servers: Vec<PinnedServer>,
        mut includes: Vec<includes::PinnedInclude>,
    ) -> Self {
        includes.sort_by(|left, right| left.name.cmp(&right.name));
        items.sort_by(|left, right| {
            (&left.kind, &left.domain, &left.id).cmp(&(&right.kind, &right.domain, &right.id))
        });
        outputs.sort_by_key(PinnedOutput::key);
        mcp_servers.sort_by(|left, right| left.name.cmp(&right.name));
        let items: Vec<StoredItem> = items
            .into_iter()
            .map(|item| StoredItem {
                kind: item.kind,
                domain: item.domain,
                id: item.id,
                path: item.path,
                digest: item.digest,
            })
            .collect();
        let mut lock = Self {
            version: LOCK_VERSION,
            tree: String::new(),
            items,
            outputs,
            mcp_servers,
            includes,
        };
        lock.tree = lock.compute_tree();
        lock
    }

    fn compute_tree(&self) -> String {
        let mut entries = Vec::new();
        for item in &self.items {
            entries.push((
                format!("item/{}", item.kind),
                format!("{}\0{}", item.domain, item.id),
                item.digest.clone(),
            ));
        }
        for output in &self.outputs {
            entries.push(("output".to_owned(), output.key(), output.digest.clone()));
        }
        for server in &self.mcp_servers {
            entries.push((
                "mcp-server".to_owned(),
                server.name.clone(),
                server.digest.clone(),
            ));
        }
        top_digest(&entries)
    }

    /// This lock with its `[[include]]` rows replaced by `includes` (sorted here); the `tree`
    /// does not cover them, so it stays as it is.
    #[must_use]
    pub(crate) fn with_includes(mut self, mut includes: Vec<includes::PinnedInclude>) -> Self {
        includes.sort_by(|left, right| left.name.cmp(&right.name));
        self.includes = includes;
        self
    }

    /// Source items as pinned.
    #[must_use]
    pub(crate) fn items(&self) -> Vec<SourceItem> {
        self.items
            .iter()
            .map(|item| SourceItem {
                kind: item.kind.clone(),
                domain: item.domain.clone(),
                id: item.id.clone(),
                path: item.path.clone(),
                digest: item.digest.clone(),
            })
            .collect()
    }

    /// Deterministic TOML text: header comment, sorted tables, LF, trailing newline.
    #[must_use]
    pub(crate) fn to_text(&self) -> String {
        let body = toml_edit::ser::to_string_pretty(self).unwrap_or_default();
        format!("{HEADER}{}\n", body.trim_end())
    }

    /// Parses lock text; `path` is used in messages.
    ///
    /// Errors: [`Error::Invalid`] for unparsable text, a newer version, or a `tree` that does not
    /// match the entries (a hand-edited or damaged lock).
    pub(crate) fn parse(path: &str, text: &str) -> Result<Self> {
        let version_hint: Option<i64> = text.lines().find_map(|line| {
            line.strip_prefix("version = ")
                .and_then(|value| value.trim().parse().ok())
        });
        if let Some(version) = version_hint
            && version > i64::from(LOCK_VERSION)
        {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "lock version {version} was written by a newer ai-rulez (this one reads version {LOCK_VERSION}); upgrade ai-rulez"
                ),
            ));
        }
        let lock: LockFile = toml_edit::de::from_str(text).map_err(|error| {
            Error::invalid(
                path,
                None,
                format!(
                    "damaged lock ({}); run `ai-rulez lock` to rewrite it",
                    error.message().trim()
                ),
            )
        })?;
        if lock.version != LOCK_VERSION {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "unsupported lock version {}; run `ai-rulez lock`",
                    lock.version
                ),
            ));
        }
        // Only paths ai-rulez writes (outputs) or reads (sources) may appear: a forged lock must
        // not make `lock --check` read anything else, inside or outside the project.
        if let Some(output) = lock
            .outputs
            .iter()
            .find(|output| !crate::presets::is_output_path(&output.path))
        {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "damaged lock: `{}` is not a file any preset generates; run `ai-rulez lock` to rewrite it",
                    output.path.escape_debug()
                ),
            ));
        }
        if let Some(item) = lock
            .items
            .iter()
            .find(|item| !crate::presets::is_plain_relative(&item.path))
        {
            return Err(Error::invalid(
                path,
                None,
                format!(
                    "damaged lock: `{}` is not a project-relative path; run `ai-rulez lock` to rewrite it",
                    item.path.escape_debug()
                ),
            ));
        }
        if lock.compute_tree() != lock.tree {
            return Err(Error::invalid(
                path,
                None,
                "damaged lock: its `tree` digest does not match its entries (edited by hand?); run `ai-rulez lock` to rewrite it",
            ));
        }
        Ok(lock)
    }
}

/// Digest of one MCP server as configured (placeholders unresolved).
#[must_use]
pub(crate) fn server_digest(server: &McpServer) -> String {
    crate::hash::sha256_tagged(&serde_json::to_vec(server).unwrap_or_default())
}

/// The outputs of `plan` as pinned. Entries that would hold a resolved secret are not pinned
/// (their digest could only be checked with the secret at hand).
#[must_use]
pub(crate) fn pinned_outputs(plan: &Plan, sections: &[String]) -> Vec<PinnedOutput> {
    let mut outputs = Vec::new();
    for output in plan.outputs.values() {
        match &output.content {
            Content::Markdown(markdown) if sections.contains(&output.path) => {
                outputs.push(PinnedOutput {
                    path: output.path.clone(),
                    entry: None,
                    section: true,
                    digest: crate::hash::sha256_tagged(markdown.body()),
                });
            }
            Content::Markdown(markdown) => outputs.push(PinnedOutput {
                path: output.path.clone(),
                entry: None,
                section: false,
                digest: leaf_digest(&output.path, false, &markdown.bytes),
            }),
            Content::Verbatim { bytes, executable } => outputs.push(PinnedOutput {
                path: output.path.clone(),
                entry: None,
                section: false,
                digest: leaf_digest(&output.path, *executable, bytes),
            }),
            Content::Entries { entries, .. } => {
                for entry in entries.iter().filter(|entry| !entry.holds_resolved_secret) {
                    outputs.push(PinnedOutput {
                        path: output.path.clone(),
                        entry: Some(entry.key.clone()),
                        section: false,
                        digest: mcp_config::entry_digest(entry),
                    });
                }
            }
        }
    }
    outputs
}

pub(crate) fn leaf_digest(path: &str, executable: bool, data: &[u8]) -> String {
    format!("sha256:{}", hex::encode(file_leaf(path, executable, data)))
}

/// One difference between the lock and a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[expect(
    clippy::struct_field_names,
    reason = "`change` is a key of the JSON drift report; renaming it would change the output"
)]
pub struct Change {
    /// `source`, `output`, `mcp-server` or `include`.
    pub scope: &'static str,
    /// `added`, `changed`, `removed` or `missing`.
    pub change: &'static str,
    /// Item kind (sources), `include` (includes), empty otherwise.
    pub kind: String,
    /// Item id, server name, output label, or include name.
    pub id: String,
    /// Domain (sources), empty otherwise.
    pub domain: String,
    /// Project-relative path; for an include, its source with credentials masked.
    pub path: String,
    /// Digest in the lock (for an include, the pinned commit).
    pub old: Option<String>,
    /// Digest now.
    pub new: Option<String>,
    /// With `--diff`: the unified diff from the pinned content to the current one, where the
    /// pinned content can be known (see [`diff::diff_lock`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// With `--diff`: what differs, in a sentence, where there is no content diff.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// For a generated file edited by hand (its banner's hash no longer matches): the source
    /// its banner names, where the edit belongs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edited_from: Option<String>,
}

impl Change {
    /// The line `lock --check` prints.
    #[must_use]
    pub fn line(&self) -> String {
        match self.scope {
            "source" => format!(
                "source {} {} {} ({})",
                self.change, self.kind, self.id, self.path
            ),
            "output" => format!("output {} {}", self.change, self.id),
            "include" => format!("include {} {} ({})", self.change, self.id, self.path),
            _ => format!("mcp-server {} {}", self.change, self.id),
        }
    }
}

/// Compares source items (and MCP servers) of `snapshot` with the lock. Sorted, deterministic.
#[must_use]
pub(crate) fn source_changes(
    lock: &LockFile,
    current: &[SourceItem],
    servers: Option<&[PinnedServer]>,
) -> Vec<Change> {
    let mut changes = Vec::new();
    let key = |item: &SourceItem| (item.kind.clone(), item.domain.clone(), item.id.clone());
    let locked: BTreeMap<_, SourceItem> = lock
        .items()
        .into_iter()
        .map(|item| (key(&item), item))
        .collect();
    let now: BTreeMap<_, &SourceItem> = current.iter().map(|item| (key(item), item)).collect();
    let source_change =
        |change: &'static str, item: &SourceItem, old: Option<&str>, new: Option<&str>| Change {
            scope: "source",
            change,
            kind: item.kind.clone(),
            id: item.id.clone(),
            domain: item.domain.clone(),
            path: item.path.clone(),
            old: old.map(str::to_owned),
            new: new.map(str::to_owned),
            diff: None,
            detail: None,
            edited_from: None,
        };
    for (item_key, item) in &now {
        match locked.get(item_key) {
            None => changes.push(source_change("added", item, None, Some(&item.digest))),
            Some(pinned) if pinned.digest != item.digest => {
                changes.push(source_change(
                    "changed",
                    item,
                    Some(&pinned.digest),
                    Some(&item.digest),
                ));
            }
            Some(_) => {}
        }
    }
    for (item_key, pinned) in &locked {
        if !now.contains_key(item_key) {
            changes.push(source_change("removed", pinned, Some(&pinned.digest), None));
        }
    }
    if let Some(servers) = servers {
        let locked: BTreeMap<&str, &str> = lock
            .mcp_servers
            .iter()
            .map(|server| (server.name.as_str(), server.digest.as_str()))
            .collect();
        let now: BTreeMap<&str, &str> = servers
            .iter()
            .map(|server| (server.name.as_str(), server.digest.as_str()))
            .collect();
        let server_change =
            |change: &'static str, name: &str, old: Option<&str>, new: Option<&str>| Change {
                scope: "mcp-server",
                change,
                kind: String::new(),
                id: name.to_owned(),
                domain: String::new(),
                path: String::new(),
                old: old.map(str::to_owned),
                new: new.map(str::to_owned),
                diff: None,
                detail: None,
                edited_from: None,
            };
        for (name, digest) in &now {
            match locked.get(name) {
                None => changes.push(server_change("added", name, None, Some(digest))),
                Some(old) if old != digest => {
                    changes.push(server_change("changed", name, Some(old), Some(digest)));
                }
                Some(_) => {}
            }
        }
        for (name, digest) in &locked {
            if !now.contains_key(name) {
                changes.push(server_change("removed", name, Some(digest), None));
            }
        }
    }
    changes
}

/// Compares every pinned output with `snapshot`. In the index, outputs that git ignores
/// (`ignored` answers for all absent paths at once) are expected to be absent.
///
/// Errors: read failures, or `ignored` failing; an unparsable settings document is reported as
/// `changed`.
pub(crate) fn output_changes(
    lock: &LockFile,
    snapshot: &Snapshot,
    ignored: &dyn Fn(&[&str]) -> Result<BTreeSet<String>>,
) -> Result<Vec<Change>> {
    let mut changes = Vec::new();
    let mut cache: BTreeMap<&str, Option<(bool, Vec<u8>)>> = BTreeMap::new();
    for output in &lock.outputs {
        if !cache.contains_key(output.path.as_str()) {
            cache.insert(&output.path, snapshot.read(&output.path)?);
        }
        let current = cache
            .get(output.path.as_str())
            .and_then(Option::as_ref)
            .map(|(executable, data)| current_digest(output, *executable, data));
        let change = match &current {
            None => "missing",
            Some(digest) if *digest != output.digest => "changed",
            Some(_) => continue,
        };
        let edited_from = cache
            .get(output.path.as_str())
            .and_then(Option::as_ref)
            .filter(|_| output.entry.is_none() && !output.section)
            .filter(|(_, data)| crate::hash::banner_provenance(data) == Provenance::Edited)
            .and_then(|(_, data)| crate::hash::banner_source(data));
        changes.push(Change {
            scope: "output",
            change,
            kind: String::new(),
            id: output.label(),
            domain: String::new(),
            path: output.path.clone(),
            old: Some(output.digest.clone()),
            new: current,
            diff: None,
            detail: None,
            edited_from,
        });
    }
    // A git-ignored output is never committed, so the index cannot hold it.
    if matches!(snapshot, Snapshot::Index { .. }) {
        let missing: Vec<&str> = changes
            .iter()
            .filter(|change| change.change == "missing")
            .map(|change| change.path.as_str())
            .collect();
        let ignored_paths = ignored(&missing)?;
        changes
            .retain(|change| change.change != "missing" || !ignored_paths.contains(&change.path));
    }
    Ok(changes)
}

fn current_digest(output: &PinnedOutput, executable: bool, data: &[u8]) -> String {
    if let Some(entry) = &output.entry {
        let shape = DocumentShape::ALL
            .into_iter()
            .find(|shape| shape.default_path() == output.path);
        let text = String::from_utf8_lossy(data);
        return shape
            .and_then(|shape| {
                mcp_config::disk_entry_digest(shape, &text, entry, None)
                    .ok()
                    .flatten()
            })
            .unwrap_or_else(|| "unreadable".to_owned());
    }
    if output.section {
        let text = String::from_utf8_lossy(&crate::hash::lf_line_ends(data)).into_owned();
        return write::section_body(&text).map_or_else(
            || "missing section".to_owned(),
            |body| crate::hash::sha256_tagged(body.as_bytes()),
        );
    }
    leaf_digest(&output.path, executable, data)
}
