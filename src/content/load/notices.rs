//! What the loader says about entries of the project tree it does not read, or that a teammate
//! could not check out: folders no item kind reads (`.ai-rulez/rule/`), files in an item folder
//! that are not Markdown (`rules/notes.txt`), nested folders, and names Windows refuses.

use super::{Loader, Tree, join};
use crate::confined_fs::{Entry, EntryKind};
use crate::content::Kind;

impl Loader<'_> {
    /// Warns when `name` (the last component of `relative`) cannot be checked out on Windows
    /// ([`crate::portable::windows_problem`]); the item is still read, since it works here, but
    /// a teammate on Windows could not clone the repository.
    pub(super) fn unportable_name(&mut self, tree: &Tree<'_>, relative: &str, name: &str) {
        if let Some(problem) = crate::portable::windows_problem(name) {
            self.warnings.push(format!(
                "{}: the name `{name}` {problem}",
                tree.shown(relative)
            ));
        }
    }

    /// Warns about each folder directly under a layer's `base` that no item kind reads
    /// (`.ai-rulez/rule/`), with the closest folder name that would be read; `domains/`,
    /// `local/` and `memories/` (team memory) are read at the project's root layer only. Names starting with `.` are left
    /// alone (tool folders such as `.cache`).
    pub(super) fn unread_folders(&mut self, tree: &Tree<'_>, base: &str, root_layer: bool) {
        let Ok(Some(entries)) = tree.dir.list(base) else {
            return;
        };
        let mut read: Vec<&str> = Kind::ALL.iter().map(|kind| kind.folder()).collect();
        if root_layer {
            read.extend(["domains", "local", "memories"]);
        }
        // Team memory kept beside the items (see `crate::memory`): read by its own tools, not
        // by the loader, so not offered as a folder name to use.
        let memory = ["learnings", "refresh-requests"];
        for entry in entries {
            if entry.kind != EntryKind::Folder
                || entry.name.starts_with('.')
                || read.contains(&entry.name.as_str())
                || (root_layer && memory.contains(&entry.name.as_str()))
            {
                continue;
            }
            self.warnings.push(format!(
                "{}/: ai-rulez reads no folder of this name, so nothing in it is used{} (read here: {})",
                tree.shown(&join(base, &entry.name)),
                crate::suggest::did_you_mean(&entry.name, read.iter().copied()),
                read.join(", ")
            ));
        }
    }

    /// Warns about an entry of an item folder that is not read: a file not ending in `.md`
    /// (`rules/notes.txt`) or a sub-folder (items are read only directly inside the folder).
    /// Hidden names (`.gitkeep`) are left alone.
    pub(super) fn unread_entry(
        &mut self,
        tree: &Tree<'_>,
        kind: Kind,
        folder: &str,
        entry: &Entry,
    ) {
        if entry.name.starts_with('.') {
            return;
        }
        let shown = tree.shown(&join(folder, &entry.name));
        match entry.kind {
            EntryKind::File => self.warnings.push(format!(
                "{shown}: not read; {} files are Markdown files ending in `.md`, so rename it or move it out of {}/",
                kind.noun(),
                tree.shown(folder)
            )),
            EntryKind::Folder => self.warnings.push(format!(
                "{shown}/: not read; {} files are read only directly inside {}/, so move its files up (or into `domains/<name>/{}/` for a domain)",
                kind.noun(),
                tree.shown(folder),
                kind.folder()
            )),
            EntryKind::Symlink | EntryKind::Other => {}
        }
    }
}
