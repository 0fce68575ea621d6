//! Memories: short Markdown notes agents and people attach to a folder of the repository, stored
//! as `.ai-rulez/memories/<node path>/<slug>.md` with a frontmatter of `id`, `title`, `source`,
//! `created` and `updated` (calendar days, `YYYY-MM-DD`). They are read from disk on every call
//! (never cached), written with optimistic concurrency (the version id is the digest of the
//! file, compared under the project's writer lock), and deleted softly into
//! `.ai-rulez/memories/.trash/`, from where they can be restored.

use super::node::{self, MemoryId, NodeError, NodePath, TRASH_FOLDER};
use super::record::{MAX_MEMORY_FILE_BYTES, check_content, check_title, parse_record, render};
pub(crate) use super::record::{MemoryRecord, Source};
use super::today;
use crate::confined_fs::{EntryKind, ProjectDir};
use crate::error::Error;
use crate::project::Project;

/// Why a memory call failed. Each message names the memory or node and what to do.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MemoryError {
    /// A node path or id that is refused.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// No live memory has this id.
    #[error("no memory `{id}`; list_memories (`ai-rulez memory list`) shows the ids of a path")]
    NotFound {
        /// The id asked for.
        id: String,
    },
    /// The memory was deleted: it is in the trash.
    #[error(
        "no memory `{id}` (it was deleted and is in the trash; restore_memory or `ai-rulez memory restore` brings it back)"
    )]
    InTrash {
        /// The id asked for.
        id: String,
    },
    /// `restore_memory` found no deleted memory with this id.
    #[error("no memory `{id}` in the trash; only deleted memories can be restored")]
    NotInTrash {
        /// The id asked for.
        id: String,
    },
    /// The node already holds a memory of this title.
    #[error(
        "`{node}` already has a memory titled \"{title}\" (`{existing}`); update that one (update_memory, `ai-rulez memory edit`), or allow a duplicate (allow_duplicate: true, `--allow-duplicate`) to keep both"
    )]
    DuplicateTitle {
        /// The node path.
        node: String,
        /// The title.
        title: String,
        /// The id of the memory that has it.
        existing: String,
    },
    /// The memory changed since the caller read it; the current state is carried so the caller
    /// can merge.
    #[error(
        "`{id}` changed since you read it (expected_version_id {expected}, current version_id {current_version_id}); nothing was saved. Merge your change into the current content below and call again with expected_version_id {current_version_id}.\ncurrent content:\n{current_content}"
    )]
    Conflict {
        /// The memory id.
        id: String,
        /// The version the caller expected.
        expected: String,
        /// The version on disk now.
        current_version_id: String,
        /// The memory text on disk now (without frontmatter).
        current_content: String,
    },
    /// An argument that cannot be saved (empty or overlong title or text, unsafe text, an edit
    /// whose `old` text is not found exactly once, a restore onto a live memory).
    #[error("{0}")]
    Refused(String),
    /// A project file could not be read or written.
    #[error(transparent)]
    Project(#[from] Error),
}

/// Result type of this module.
pub(crate) type Result<T> = std::result::Result<T, MemoryError>;

/// The memories folder of one project, reached through its confined file layer.
pub(crate) struct Store<'project> {
    dir: &'project ProjectDir,
    /// Project-relative folder holding the memories (`.ai-rulez/memories`).
    base: String,
}

/// What `update_memory` changes in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    /// The whole new text.
    Replace(String),
    /// Replace the one occurrence of `old` by `new`.
    Edit {
        /// Text that must occur exactly once.
        old: String,
        /// Its replacement.
        new: String,
    },
    /// Keep the text (only a move).
    Keep,
}

impl<'project> Store<'project> {
    /// The memories folder of `project`: `<config folder>/memories`, or `.ai-rulez/memories`
    /// for a project configured by a root `ai-rulez.toml`.
    #[must_use]
    pub(crate) fn of(project: &'project Project) -> Self {
        Self {
            dir: &project.dir,
            base: format!(
                "{}/{}",
                super::base_folder_of(&project.config_dir_relative),
                super::MEMORIES_FOLDER
            ),
        }
    }

    /// The project-relative memories folder.
    #[must_use]
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// The project's confined file layer.
    #[must_use]
    pub(crate) fn dir(&self) -> &ProjectDir {
        self.dir
    }

    /// Project-relative folder of a node's live memories.
    #[must_use]
    pub(crate) fn node_folder(&self, node: &NodePath) -> String {
        format!("{}/{}", self.base, node.shown())
    }

    fn live_path(&self, id: &MemoryId) -> String {
        format!("{}/{}/{}.md", self.base, id.node.shown(), id.slug)
    }

    fn trash_path(&self, id: &MemoryId) -> String {
        format!(
            "{}/{TRASH_FOLDER}/{}/{}.md",
            self.base,
            id.node.shown(),
            id.slug
        )
    }

    /// Reads the memory file at `path` as memory `id`; `None` when absent.
    fn read_file(&self, id: &MemoryId, path: &str) -> Result<Option<MemoryRecord>> {
        let Some((bytes, _)) = self.dir.read(path, MAX_MEMORY_FILE_BYTES)? else {
            return Ok(None);
        };
        Ok(Some(parse_record(id, path, &bytes)?))
    }

    /// The live memories of one node, by title then id; files that do not parse are named in
    /// `problems` and left out.
    ///
    /// Errors: a symlink in the memories folder; I/O.
    pub(crate) fn memories_at(
        &self,
        node: &NodePath,
        problems: &mut Vec<String>,
    ) -> Result<Vec<MemoryRecord>> {
        let folder = self.node_folder(node);
        let Some(entries) = self.dir.list(&folder)? else {
            return Ok(Vec::new());
        };
        let mut records = Vec::new();
        for entry in entries {
            let Some(slug) = entry.name.strip_suffix(".md") else {
                continue;
            };
            if entry.kind != EntryKind::File || !node::is_slug(slug) {
                continue;
            }
            let id = MemoryId {
                node: node.clone(),
                slug: slug.to_owned(),
            };
            let path = format!("{folder}/{}", entry.name);
            match self.read_file(&id, &path) {
                Ok(Some(record)) => records.push(record),
                Ok(None) => {}
                Err(error) => problems.push(error.to_string()),
            }
        }
        records.sort_by(|left, right| (&left.title, &left.id).cmp(&(&right.title, &right.id)));
        Ok(records)
    }
}

/// What `write_memory` saves.
#[derive(Debug, Clone)]
pub(crate) struct NewMemory {
    /// Node path as given (`_`, `src/api`).
    pub(crate) node_path: String,
    /// Title (one line).
    pub(crate) title: String,
    /// Markdown text.
    pub(crate) content: String,
    /// Keep a second memory of the same title at the node.
    pub(crate) allow_duplicate: bool,
    /// Who saves it.
    pub(crate) source: Source,
}

/// Reads the live memory `id`.
///
/// Errors: a malformed id; [`MemoryError::NotFound`], or [`MemoryError::InTrash`]; a file
/// that does not parse.
pub(crate) fn read_memory(store: &Store<'_>, id: &str) -> Result<MemoryRecord> {
    let id = node::parse_id(id)?;
    live_or_not_found(store, &id)
}

fn live_or_not_found(store: &Store<'_>, id: &MemoryId) -> Result<MemoryRecord> {
    if let Some(record) = store.read_file(id, &store.live_path(id))? {
        return Ok(record);
    }
    if store.dir.info(&store.trash_path(id))?.is_some() {
        return Err(MemoryError::InTrash { id: id.to_string() });
    }
    Err(MemoryError::NotFound { id: id.to_string() })
}

/// Saves a new memory at a node, creating its folders; never replaces a file. Holds the
/// project's writer lock across the duplicate check and the write.
///
/// Errors: a refused node path or a node that is not a folder of the repository; a bad title or
/// text; [`MemoryError::DuplicateTitle`] unless `allow_duplicate`; a busy lock; I/O.
pub(crate) fn write_memory(store: &Store<'_>, new: &NewMemory) -> Result<MemoryRecord> {
    let node = node::parse_node(&new.node_path)?;
    node::check_folder(store.dir, &node)?;
    let title = check_title(&new.title)?;
    check_content(node.shown(), &new.content)?;
    let _lock = store.dir.lock()?;
    let mut problems = Vec::new();
    let existing = store.memories_at(&node, &mut problems)?;
    if !new.allow_duplicate
        && let Some(same) = existing
            .iter()
            .find(|record| record.title.eq_ignore_ascii_case(&title))
    {
        return Err(MemoryError::DuplicateTitle {
            node: node.shown().to_owned(),
            title,
            existing: same.id.clone(),
        });
    }
    let base_slug = node::slug_of(&title);
    let day = today();
    // A taken slug (another title with the same letters, or an allowed duplicate) gets the first
    // free number; a file in the trash with the same id keeps its slug reserved, so a restore
    // never collides.
    for number in 1..=1000_u32 {
        let slug = if number == 1 {
            base_slug.clone()
        } else {
            let suffix = format!("-{number}");
            let keep = base_slug.len().min(node::MAX_SLUG_BYTES - suffix.len());
            format!("{}{suffix}", base_slug[..keep].trim_end_matches('-'))
        };
        let id = MemoryId {
            node: node.clone(),
            slug,
        };
        let path = store.live_path(&id);
        if store.dir.info(&path)?.is_some() || store.dir.info(&store.trash_path(&id))?.is_some() {
            continue;
        }
        let text = render(&id, &title, new.source.name(), &day, &day, &new.content);
        store.dir.create_new(&path, text.as_bytes(), 0o644)?;
        return parse_record(&id, &path, text.as_bytes());
    }
    Err(MemoryError::Refused(format!(
        "`{}` already holds 1000 memories named like \"{title}\"; give this one another title",
        node.shown()
    )))
}

/// Changes a memory's text and/or moves it to another node. With `expected_version_id`, only if
/// the file is still that version; the check and the write happen under the project's writer
/// lock, so of two writers holding the same version exactly one succeeds.
///
/// Errors: as [`read_memory`]; [`MemoryError::Conflict`] with the current version and text;
/// an `old` text not found exactly once; a refused `move_to`, or one onto an existing or trashed memory of
/// the same slug or title; a bad text; a busy lock; I/O.
pub(crate) fn update_memory(
    store: &Store<'_>,
    id: &str,
    change: &Change,
    move_to: Option<&str>,
    expected_version_id: Option<&str>,
    source: Source,
) -> Result<MemoryRecord> {
    let id = node::parse_id(id)?;
    let target_node = match move_to {
        Some(text) => {
            let node = node::parse_node(text)?;
            node::check_folder(store.dir, &node)?;
            Some(node)
        }
        None => None,
    };
    let _lock = store.dir.lock()?;
    let current = live_or_not_found(store, &id)?;
    check_version(&current, expected_version_id)?;
    let content = match change {
        Change::Replace(content) => content.clone(),
        Change::Keep => current.content.clone(),
        Change::Edit { old, new } => apply_edit(&current, old, new)?,
    };
    check_content(&current.id, &content)?;
    let day = today();
    let target = MemoryId {
        node: target_node.unwrap_or_else(|| id.node.clone()),
        slug: id.slug.clone(),
    };
    let text = render(
        &target,
        &current.title,
        source.name(),
        &current.created,
        &day,
        &content,
    );
    let path = store.live_path(&target);
    if target == id {
        store.dir.write(&path, text.as_bytes(), 0o644)?;
    } else {
        let mut problems = Vec::new();
        if let Some(same) = store
            .memories_at(&target.node, &mut problems)?
            .into_iter()
            .find(|record| record.title.eq_ignore_ascii_case(&current.title))
        {
            return Err(MemoryError::DuplicateTitle {
                node: target.node.shown().to_owned(),
                title: current.title,
                existing: same.id,
            });
        }
        if store.dir.info(&store.trash_path(&target))?.is_some() {
            return Err(MemoryError::Refused(format!(
                "`{target}` is the id of a deleted memory in the trash; restore or delete that one for good first, or move this memory elsewhere"
            )));
        }
        // The new file is created before the old one is removed: a crash in between leaves
        // both, never neither.
        store.dir.create_new(&path, text.as_bytes(), 0o644)?;
        store.dir.remove_file(&current.path)?;
        store.dir.remove_empty_parents(&current.path);
    }
    parse_record(&target, &path, text.as_bytes())
}

/// Refuses when `expected` is given and differs from the record's version.
fn check_version(current: &MemoryRecord, expected: Option<&str>) -> Result<()> {
    match expected {
        Some(expected) if expected != current.version_id => Err(MemoryError::Conflict {
            id: current.id.clone(),
            expected: expected.to_owned(),
            current_version_id: current.version_id.clone(),
            current_content: current.content.clone(),
        }),
        _ => Ok(()),
    }
}

/// The text with the one occurrence of `old` replaced by `new`.
fn apply_edit(current: &MemoryRecord, old: &str, new: &str) -> Result<String> {
    let count = if old.is_empty() {
        0
    } else {
        current.content.matches(old).count()
    };
    match count {
        1 => Ok(current.content.replacen(old, new, 1)),
        0 => Err(MemoryError::Refused(format!(
            "`{}`: the edit's `old` text does not occur in the memory; read_memory shows its current text",
            current.id
        ))),
        count => Err(MemoryError::Refused(format!(
            "`{}`: the edit's `old` text occurs {count} times; include more of the surrounding text so it occurs once",
            current.id
        ))),
    }
}

/// Moves a memory into the trash (`.trash/<node>/<slug>.md`); with `expected_version_id`, only
/// if it is still that version. Returns the memory as it was.
///
/// Errors: as [`read_memory`]; [`MemoryError::Conflict`]; a deleted copy with the same id
/// already in the trash (never replaced); a busy lock; I/O.
pub(crate) fn delete_memory(
    store: &Store<'_>,
    id: &str,
    expected_version_id: Option<&str>,
) -> Result<MemoryRecord> {
    let id = node::parse_id(id)?;
    let _lock = store.dir.lock()?;
    let current = live_or_not_found(store, &id)?;
    check_version(&current, expected_version_id)?;
    let (bytes, _) = store
        .dir
        .read(&current.path, MAX_MEMORY_FILE_BYTES)?
        .unwrap_or_default();
    let trash = store.trash_path(&id);
    // An older deleted copy with this id is never replaced (new memories and moves never take a
    // trashed id, so only a hand-made file gets here).
    if store.dir.info(&trash)?.is_some() {
        return Err(MemoryError::Refused(format!(
            "`{id}`: the trash already holds a deleted memory with this id ({trash}); restore it or delete it for good with `ai-rulez memory rm --hard {id}` first"
        )));
    }
    store.dir.create_new(&trash, &bytes, 0o644)?;
    store.dir.remove_file(&current.path)?;
    store.dir.remove_empty_parents(&current.path);
    Ok(current)
}

/// Brings a memory back from the trash to its node. Returns it as restored.
///
/// Errors: a malformed id; [`MemoryError::NotInTrash`] when the trash has no such memory; a live
/// memory with the same id (refused, nothing replaced); a busy lock; I/O.
pub(crate) fn restore_memory(store: &Store<'_>, id: &str) -> Result<MemoryRecord> {
    let id = node::parse_id(id)?;
    let _lock = store.dir.lock()?;
    let trash = store.trash_path(&id);
    let Some((bytes, _)) = store.dir.read(&trash, MAX_MEMORY_FILE_BYTES)? else {
        return Err(MemoryError::NotInTrash { id: id.to_string() });
    };
    let live = store.live_path(&id);
    if store.dir.info(&live)?.is_some() {
        return Err(MemoryError::Refused(format!(
            "`{id}` exists again (a new memory took its name); move or delete that one first, then restore"
        )));
    }
    store.dir.create_new(&live, &bytes, 0o644)?;
    store.dir.remove_file(&trash)?;
    store.dir.remove_empty_parents(&trash);
    parse_record(&id, &live, &bytes)
}

/// Deletes a memory for good: the live file, else its copy in the trash (the CLI's
/// `memory rm --hard`; agents only delete softly). Returns the deleted file's path.
///
/// Errors: a malformed id; [`MemoryError::NotFound`] when neither exists; a busy lock; I/O.
pub(crate) fn hard_delete_memory(store: &Store<'_>, id: &str) -> Result<String> {
    let id = node::parse_id(id)?;
    let _lock = store.dir.lock()?;
    for path in [store.live_path(&id), store.trash_path(&id)] {
        if store.dir.remove_file(&path)? {
            store.dir.remove_empty_parents(&path);
            return Ok(path);
        }
    }
    Err(MemoryError::NotFound { id: id.to_string() })
}
