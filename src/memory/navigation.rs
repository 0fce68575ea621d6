//! Finding team memory: the memories of a path and its enclosing folders (`list_memories`,
//! `get_context`), the folders that carry memories with counts (`get_tree`), what a name or a
//! path stands for (`resolve`), and reading several items at once (`read_items`). Everything is
//! read from disk through the confined file layer on each call, so a memory saved a moment ago
//! (by this server, another process or a person) is always seen.

use serde::Serialize;

use super::memories::{MemoryError, MemoryRecord, Result, Store};
use super::node::{self, NodePath, PROJECT_NODE, TRASH_FOLDER};
use crate::confined_fs::EntryKind;
use crate::retrieval::Catalog;

/// Most memories `list_memories` returns when the caller sets no limit.
pub(crate) const DEFAULT_LIST_LIMIT: usize = 50;
/// Most ids `read_items` reads in one call.
pub(crate) const MAX_READ_ITEMS: usize = 20;
/// Most matches `resolve` returns.
const MAX_MATCHES: usize = 20;

/// One memory in a listing: enough to decide whether to read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct MemorySummary {
    /// `<node path>/<slug>`, for `read_memory`.
    pub(crate) id: String,
    /// The folder it belongs to (`_`: the whole project).
    pub(crate) node: String,
    /// Its title.
    pub(crate) title: String,
    /// Its first line.
    pub(crate) preview: String,
    /// Day it was last changed.
    pub(crate) updated: String,
}

impl From<&MemoryRecord> for MemorySummary {
    fn from(record: &MemoryRecord) -> Self {
        Self {
            id: record.id.clone(),
            node: record.node.clone(),
            title: record.title.clone(),
            preview: record.preview(),
            updated: record.updated.clone(),
        }
    }
}

/// The reply of `list_memories`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct MemoryList {
    /// Memories, nearest node first (with a path), else by node path; each node's by title.
    pub(crate) memories: Vec<MemorySummary>,
    /// How many memories there are in all (more than listed when the limit cut).
    pub(crate) total: usize,
    /// The nodes looked at, nearest first (with a path); empty for the whole project.
    pub(crate) nodes: Vec<String>,
    /// Memory files that could not be read; they are left out.
    pub(crate) problems: Vec<String>,
}

/// The node a project-relative `path` belongs to: the path itself when it is a folder, else its
/// folder; the whole project for an empty path.
///
/// Errors: the lexical refusals of [`node::parse_node`].
pub(crate) fn node_of_path(store: &Store<'_>, path: &str) -> Result<NodePath> {
    let path = path.trim_end_matches('/');
    if path.is_empty() || path == PROJECT_NODE || path == "." {
        return Ok(NodePath::project());
    }
    let parsed = node::parse_node(path)?;
    let is_folder = store
        .dir()
        .info(parsed.folder())
        .ok()
        .flatten()
        .is_some_and(|info| info.kind == EntryKind::Folder);
    if is_folder {
        return Ok(parsed);
    }
    Ok(match parsed.folder().rsplit_once('/') {
        Some((parent, _)) => node::parse_node(parent)?,
        None => NodePath::project(),
    })
}

/// The memories of the node of `path` and of every enclosing folder up to the whole project,
/// nearest first (each node's by title); without a path, every memory of the project by node.
/// At most `limit` are listed; `total` counts all.
///
/// Errors: a refused path; a symlink in the memories folder; I/O.
pub(crate) fn list_memories(
    store: &Store<'_>,
    path: Option<&str>,
    limit: usize,
) -> Result<MemoryList> {
    let mut problems = Vec::new();
    let (records, nodes) = if let Some(path) = path {
        let chain = node_of_path(store, path)?.with_ancestors();
        let mut records = Vec::new();
        for node in &chain {
            records.extend(store.memories_at(node, &mut problems)?);
        }
        let shown = chain.iter().map(|node| node.shown().to_owned()).collect();
        (records, shown)
    } else {
        let mut records = Vec::new();
        for (node, _) in memory_nodes(store, &NodePath::project(), usize::MAX)? {
            records.extend(store.memories_at(&node, &mut problems)?);
        }
        (records, Vec::new())
    };
    Ok(MemoryList {
        total: records.len(),
        memories: records
            .iter()
            .take(limit)
            .map(MemorySummary::from)
            .collect(),
        nodes,
        problems,
    })
}

/// The memories `get_context` adds for the project-relative `path`: those of its node and every
/// enclosing folder, nearest first. Memory files that cannot be read are left out, since the
/// rest of the context must still arrive.
#[must_use]
pub(crate) fn memories_for_context(store: &Store<'_>, path: &str) -> Vec<MemoryRecord> {
    let Ok(node) = node_of_path(store, path) else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    node.with_ancestors()
        .iter()
        .filter_map(|node| store.memories_at(node, &mut problems).ok())
        .flatten()
        .collect()
}

/// Every node at or below `start` that has a folder in the memories folder, with the number of
/// memory files directly in it, sorted by node path (the whole project first); `max_depth`
/// counts folders below `start`. The trash is skipped.
///
/// Errors: a symlink in the memories folder; I/O.
fn memory_nodes(
    store: &Store<'_>,
    start: &NodePath,
    max_depth: usize,
) -> Result<Vec<(NodePath, usize)>> {
    let mut found = Vec::new();
    if start.folder().is_empty() {
        let own = count_memories(store, &store.node_folder(start))?;
        if own > 0 {
            found.push((NodePath::project(), own));
        }
        let Some(entries) = store.dir().list(store.base())? else {
            return Ok(found);
        };
        for entry in entries {
            if entry.kind != EntryKind::Folder
                || entry.name == PROJECT_NODE
                || entry.name == TRASH_FOLDER
            {
                continue;
            }
            if let Ok(child) = node::parse_node(&entry.name) {
                walk(store, &child, 1, max_depth, &mut found)?;
            }
        }
    } else {
        walk(store, start, 0, max_depth, &mut found)?;
    }
    found.sort_by(|left, right| left.0.cmp(&right.0));
    Ok(found)
}

/// Adds `node` (when it has memories) and, within `max_depth`, its descendants to `found`.
fn walk(
    store: &Store<'_>,
    node: &NodePath,
    depth: usize,
    max_depth: usize,
    found: &mut Vec<(NodePath, usize)>,
) -> Result<()> {
    if depth > max_depth {
        return Ok(());
    }
    let folder = store.node_folder(node);
    let Some(entries) = store.dir().list(&folder)? else {
        return Ok(());
    };
    let own = entries.iter().filter(|entry| is_memory_file(entry)).count();
    if own > 0 {
        found.push((node.clone(), own));
    }
    for entry in entries
        .iter()
        .filter(|entry| entry.kind == EntryKind::Folder)
    {
        if let Ok(child) = node::parse_node(&format!("{}/{}", node.folder(), entry.name)) {
            walk(store, &child, depth + 1, max_depth, found)?;
        }
    }
    Ok(())
}

fn is_memory_file(entry: &crate::confined_fs::Entry) -> bool {
    entry.kind == EntryKind::File && entry.name.strip_suffix(".md").is_some_and(node::is_slug)
}

fn count_memories(store: &Store<'_>, folder: &str) -> Result<usize> {
    Ok(store
        .dir()
        .list(folder)?
        .unwrap_or_default()
        .iter()
        .filter(|entry| is_memory_file(entry))
        .count())
}

/// One folder of `get_tree`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct TreeNode {
    /// The node path (`_`: the whole project).
    pub(crate) node: String,
    /// Folders below the tree's start (0: the start itself).
    pub(crate) depth: usize,
    /// Memories attached to this folder itself.
    pub(crate) memories: usize,
    /// Memories of this folder and every folder below it (also below the depth shown).
    pub(crate) total: usize,
}

/// The reply of `get_tree`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct TreeReply {
    /// The node the tree starts at.
    pub(crate) start: String,
    /// Folders that carry memories (themselves or below), by node path.
    pub(crate) nodes: Vec<TreeNode>,
    /// Memories at or below the start.
    pub(crate) total: usize,
}

/// The folders at or below the node of `path` (default: the whole project) that carry memories,
/// down to `depth` folders below it, each with its own count and the count of its whole subtree.
///
/// Errors: a refused path; a symlink in the memories folder; I/O.
pub(crate) fn get_tree(store: &Store<'_>, path: Option<&str>, depth: usize) -> Result<TreeReply> {
    let start = node_of_path(store, path.unwrap_or(""))?;
    let all = memory_nodes(store, &start, usize::MAX)?;
    let base_depth = start.depth();
    // Keyed by node path with the whole project as the empty key, so it sorts first.
    let mut nodes: std::collections::BTreeMap<String, TreeNode> = std::collections::BTreeMap::new();
    for (node, own) in &all {
        // The node and each enclosing folder within `depth` below the start count it in their
        // total; only the node itself counts it as its own.
        for ancestor in node.with_ancestors() {
            let Some(relative) = ancestor.depth().checked_sub(base_depth) else {
                continue;
            };
            if relative > depth || !is_within(&ancestor, &start) {
                continue;
            }
            let entry = nodes
                .entry(ancestor.folder().to_owned())
                .or_insert_with(|| TreeNode {
                    node: ancestor.shown().to_owned(),
                    depth: relative,
                    memories: 0,
                    total: 0,
                });
            entry.total += own;
            if ancestor == *node {
                entry.memories += own;
            }
        }
    }
    Ok(TreeReply {
        start: start.shown().to_owned(),
        total: all.iter().map(|(_, own)| own).sum(),
        nodes: nodes.into_values().collect(),
    })
}

fn is_within(node: &NodePath, start: &NodePath) -> bool {
    start.folder().is_empty()
        || node.folder() == start.folder()
        || node.folder().starts_with(&format!("{}/", start.folder()))
}

/// One thing `resolve` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Resolved {
    /// `memory`, `deleted memory`, `node`, or an item kind (`rule`, `context`, `skill`, `agent`, `command`).
    pub(crate) kind: String,
    /// The id (memory or item) or node path.
    pub(crate) id: String,
    /// Title (for a node: how many memories apply to it).
    pub(crate) title: String,
    /// Why it matched.
    pub(crate) why: String,
}

/// The reply of `resolve`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ResolveReply {
    /// What was asked (its first 500 characters, trimmed).
    pub(crate) query: String,
    /// Matches: exact ids and paths first, then titles containing the query (at most 20).
    pub(crate) matches: Vec<Resolved>,
}

/// What `query` stands for: a memory id (live or in the trash), a path of the project (its node
/// and how many memories apply there), an item id, and memories whose title or slug contains it
/// (case-insensitive), in that order.
///
/// Errors: a symlink in the memories folder; I/O.
pub(crate) fn resolve(catalog: &Catalog, query: &str) -> Result<ResolveReply> {
    let store = Store::of(&catalog.project);
    let query = query.trim();
    let mut matches = Vec::new();
    if let Ok(id) = node::parse_id(query) {
        match super::memories::read_memory(&store, query) {
            Ok(record) => matches.push(Resolved {
                kind: "memory".to_owned(),
                id: record.id,
                title: record.title,
                why: "memory id".to_owned(),
            }),
            Err(MemoryError::InTrash { .. }) => {
                matches.push(Resolved {
                    kind: "deleted memory".to_owned(),
                    id: id.to_string(),
                    title: String::new(),
                    why: "memory id of a deleted memory; restore_memory brings it back".to_owned(),
                });
            }
            Err(_) => {}
        }
    }
    let relative = crate::retrieval::project_relative(&catalog.project.root, query);
    if let Some(relative) =
        relative.filter(|relative| !relative.is_empty() || query == PROJECT_NODE)
        && let Ok(parsed) = node::parse_node(if relative.is_empty() {
            PROJECT_NODE
        } else {
            &relative
        })
        && (parsed.folder().is_empty()
            || store.dir().info(parsed.folder()).ok().flatten().is_some())
    {
        let node = node_of_path(&store, parsed.folder())?;
        let count = memories_for_context(&store, node.folder()).len();
        matches.push(Resolved {
            kind: "node".to_owned(),
            id: node.shown().to_owned(),
            title: format!("{count} memories apply here (this folder and the enclosing ones)"),
            why: if node.folder() == parsed.folder() {
                "a folder of the project".to_owned()
            } else {
                format!("the folder of the file `{}`", parsed.folder())
            },
        });
    }
    for item in catalog
        .view_items()
        .filter(|item| item.id.eq_ignore_ascii_case(query))
    {
        matches.push(Resolved {
            kind: item.kind.noun().to_owned(),
            id: item.id.clone(),
            title: item.title.clone(),
            why: format!("{} id ({})", item.kind.noun(), item.source_path),
        });
    }
    let needle = query.to_lowercase();
    if !needle.is_empty() {
        let mut problems = Vec::new();
        for (node, _) in memory_nodes(&store, &NodePath::project(), usize::MAX)? {
            for record in store.memories_at(&node, &mut problems)? {
                let slug = record.id.rsplit('/').next().unwrap_or("");
                let hit = record.title.to_lowercase().contains(&needle) || slug.contains(&needle);
                if hit && !matches.iter().any(|found| found.id == record.id) {
                    matches.push(Resolved {
                        kind: "memory".to_owned(),
                        id: record.id,
                        title: record.title,
                        why: "title contains the query".to_owned(),
                    });
                }
            }
        }
    }
    matches.truncate(MAX_MATCHES);
    Ok(ResolveReply {
        // A query of megabytes would otherwise be echoed whole.
        query: crate::retrieval::ranked_part(query),
        matches,
    })
}

/// One entry of `read_items`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ReadItem {
    /// The id asked for.
    pub(crate) id: String,
    /// `memory` or the item kind; empty when not found.
    pub(crate) kind: String,
    /// Whether it was found.
    pub(crate) found: bool,
    /// Title.
    pub(crate) title: String,
    /// Full text (a memory's text, an item's body).
    pub(crate) content: String,
    /// For a memory: its version id, for `update_memory` and `delete_memory`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) version_id: Option<String>,
    /// Why it was not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<String>,
}

/// The reply of `read_items`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ReadItemsReply {
    /// One entry per id asked for, in the order asked.
    pub(crate) items: Vec<ReadItem>,
}

/// Reads up to 20 memories or items by id, in the order given: a memory id first, else an item
/// of the project's default view with that id. An id that is found nowhere is reported in its
/// entry, not as a failure of the call.
///
/// Errors: more than 20 ids.
pub(crate) fn read_items(catalog: &Catalog, ids: &[String]) -> Result<ReadItemsReply> {
    if ids.len() > MAX_READ_ITEMS {
        return Err(MemoryError::Refused(format!(
            "read_items reads at most {MAX_READ_ITEMS} ids per call ({} given); split the list",
            ids.len()
        )));
    }
    let store = Store::of(&catalog.project);
    let items = ids
        .iter()
        .map(|id| {
            let memory = node::parse_id(id)
                .ok()
                .map(|_| super::memories::read_memory(&store, id));
            if let Some(Ok(record)) = memory {
                return ReadItem {
                    id: id.clone(),
                    kind: "memory".to_owned(),
                    found: true,
                    title: record.title,
                    content: record.content,
                    version_id: Some(record.version_id),
                    error: None,
                };
            }
            if let Some(item) = catalog.view_items().find(|item| item.id == *id) {
                return ReadItem {
                    id: id.clone(),
                    kind: item.kind.noun().to_owned(),
                    found: true,
                    title: item.title.clone(),
                    content: item.body.trim().to_owned(),
                    version_id: None,
                    error: None,
                };
            }
            let error = match memory {
                Some(Err(error)) => error.to_string(),
                _ => format!("no memory or item has the id `{id}`; resolve finds ids by name"),
            };
            ReadItem {
                id: id.clone(),
                kind: String::new(),
                found: false,
                title: String::new(),
                content: String::new(),
                version_id: None,
                error: Some(error),
            }
        })
        .collect();
    Ok(ReadItemsReply { items })
}
