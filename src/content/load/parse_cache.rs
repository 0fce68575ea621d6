//! Parsed items kept between loads of one project, by file, so that a long-running server
//! parses again only the files that changed: the stamp that tells one version of a file from
//! another, and the cache of stamps and items.

use std::collections::HashMap;

use super::{Item, snapshot};
use crate::confined_fs::ProjectDir;

/// The facts that tell one version of a file from another: size, modification and
/// status-change times, and inode. A file whose facts all match was not written since (the
/// status-change time moves on every write, rename and `touch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Stamp {
    /// Size in bytes.
    pub(super) len: u64,
    /// Modification time as (seconds, nanoseconds) since the epoch.
    pub(super) modified: (i64, i64),
    /// Status-change time as (seconds, nanoseconds) since the epoch.
    pub(super) changed: (i64, i64),
    pub(super) inode: u64,
}

impl Stamp {
    /// Whether a file with this stamp had not changed for 2 s when the load began at
    /// `loaded_at` (seconds, nanoseconds since the epoch), so its parse may be remembered; a
    /// file changed later is parsed again by the next load (see [`crate::file_times`]).
    pub(super) fn is_settled_at(&self, loaded_at: (i64, i64)) -> bool {
        crate::file_times::is_settled(self.modified, self.changed, loaded_at)
    }

    pub(super) fn of(info: &crate::confined_fs::Info) -> Self {
        Self {
            len: info.len,
            modified: info.modified,
            changed: info.changed,
            inode: info.inode,
        }
    }
}

/// Parsed items remembered by file (see [`Stamp`]), so reloading a tree after an edit re-reads
/// only the files that changed (the MCP server keeps one per project).
///
/// A load records each file's stamp; the items themselves come back through
/// [`ParseCache::keep_items`] when the tree they were served from is dropped, and the next load
/// takes them over instead of parsing again. Copying every item into the cache while loading
/// doubled the memory of a first load (100,000 rules: several hundred MB) for a reload that
/// may never come. The first load of a cache starts from the project's snapshot of parsed
/// items ([`snapshot`]) when there is one, and a load that parsed many files leaves a new
/// snapshot to write ([`ParseCache::take_pending_snapshot`]).
#[derive(Debug, Default)]
pub(crate) struct ParseCache {
    /// Per file the last loads parsed, by the path its item shows (project-relative, or
    /// `include:<name>/...`).
    pub(super) stamps: HashMap<String, Stamp>,
    /// The items handed back, by the path they show; the next load takes those whose file
    /// still has its stamp and drops the rest.
    pub(super) kept: HashMap<String, Item>,
    /// Whether a load already looked for the project's snapshot (only the first one does).
    pub(super) snapshot_read: bool,
    /// The snapshot the last load asks to be written, if it parsed enough files.
    pub(super) pending_snapshot: Option<snapshot::PendingSnapshot>,
}

impl ParseCache {
    /// Hands back the items of the last load (as loaded, in any order) for the next load to
    /// take over; items of files whose stamp is unknown or changed are parsed again.
    pub(crate) fn keep_items(&mut self, items: Vec<Item>) {
        self.kept = items
            .into_iter()
            .map(|item| (item.source_path.clone(), item))
            .collect();
    }

    /// The snapshot of parsed items the last load asks to be written: it parsed at least
    /// [`snapshot::LEAST_PARSED`] files of a project with a config folder. Write it with the
    /// items that load returned.
    pub(crate) fn take_pending_snapshot(&mut self) -> Option<snapshot::PendingSnapshot> {
        self.pending_snapshot.take()
    }

    /// Fills an empty cache from the snapshot of the project at `root` (absolute) whose config
    /// folder is `config_dir_relative`, before that project is loaded (the MCP server decodes
    /// it while its file watcher starts); the load then does not look for it again. Nothing
    /// happens for a root `ai-rulez.toml` (it has no snapshot), for a cache already filled, or
    /// when the root cannot be opened (the load reports that).
    pub(crate) fn start_from_snapshot_of(
        &mut self,
        root: &std::path::Path,
        config_dir_relative: &str,
    ) {
        if config_dir_relative.is_empty() || self.snapshot_read {
            return;
        }
        let Ok(dir) = ProjectDir::open(root) else {
            return;
        };
        self.start_from_snapshot(&dir, &snapshot::path_in(config_dir_relative));
    }

    /// Fills an empty cache from the snapshot at `path`, once per cache.
    pub(super) fn start_from_snapshot(&mut self, dir: &ProjectDir, path: &str) {
        if std::mem::replace(&mut self.snapshot_read, true)
            || !self.stamps.is_empty()
            || !self.kept.is_empty()
        {
            return;
        }
        let items = snapshot::read(dir, path).unwrap_or_default();
        self.stamps.reserve(items.len());
        self.kept.reserve(items.len());
        for (stamp, item) in items {
            self.stamps.insert(item.source_path.clone(), stamp);
            self.kept.insert(item.source_path.clone(), item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(modified: (i64, i64), changed: (i64, i64)) -> Stamp {
        Stamp {
            len: 10,
            modified,
            changed,
            inode: 7,
        }
    }

    #[test]
    fn only_files_settled_two_seconds_before_the_load_are_remembered() {
        let loaded_at = (1_000, 500);
        assert!(stamp((997, 0), (998, 400)).is_settled_at(loaded_at));
        // Changed 1.9 s before the load began: an edit in the same tick could follow.
        assert!(!stamp((997, 0), (998, 600)).is_settled_at(loaded_at));
        assert!(!stamp((999, 0), (997, 0)).is_settled_at(loaded_at));
    }
}
