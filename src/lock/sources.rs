//! Reads what the lock pins from one snapshot of the repository: the working tree, or the git
//! index (what a commit will contain). Items are found by path alone, without parsing, so a
//! pre-commit check stays fast and works even when a source has a syntax error.

use std::collections::BTreeMap;
use std::path::Path;

use super::digest::{FileEntry, item_digest};
use crate::error::{Error, Result};

/// Largest file read for the lock, in bytes (64 MiB).
const MAX_READ_BYTES: u64 = 64 * 1024 * 1024;

/// Where file contents come from.
pub(crate) enum Snapshot {
    /// The working tree under this project root, read through the confined file layer.
    WorkTree(crate::confined_fs::ProjectDir),
    /// The git index of the repository holding the project: staged path → (executable, blob
    /// id). Blobs are read only when asked for, so a pre-commit check costs what the project's
    /// own files cost, however large the rest of the staged tree is.
    Index {
        /// The repository the blobs are read from.
        repository: Box<gix::Repository>,
        /// Staged paths (project-relative) with their executable bit and blob id.
        files: BTreeMap<String, (bool, gix::ObjectId)>,
    },
}

impl Snapshot {
    /// Reads the git index of the repository around `project_root`; paths are made relative to
    /// the project root (entries outside it are dropped).
    ///
    /// Errors: [`Error::Usage`] when there is no repository or the index or a blob cannot be read.
    pub(crate) fn from_index(project_root: &Path) -> Result<Self> {
        let failure = |error: &dyn std::fmt::Display| {
            Error::Usage(format!("cannot read the git index: {error}"))
        };
        let repository = gix::discover(project_root).map_err(|error| failure(&error))?;
        let prefix = crate::git::index_prefix(&repository, project_root).ok_or_else(|| {
            Error::Usage(
                "`--staged` needs a repository with a work tree that holds the project".to_owned(),
            )
        })?;
        let index = repository
            .index_or_empty()
            .map_err(|error| failure(&error))?;
        let mut files = BTreeMap::new();
        for entry in index.entries() {
            let path = entry.path(&index).to_string();
            let Some(relative) = path.strip_prefix(&prefix) else {
                continue;
            };
            let executable = entry.mode == gix::index::entry::Mode::FILE_EXECUTABLE;
            files.insert(relative.to_owned(), (executable, entry.id));
        }
        Ok(Snapshot::Index {
            repository: Box::new(repository),
            files,
        })
    }

    /// Reads one project-relative file: (executable, bytes), or `None` when absent.
    ///
    /// Errors: I/O errors other than "not found".
    pub(crate) fn read(&self, relative: &str) -> Result<Option<(bool, Vec<u8>)>> {
        match self {
            Snapshot::Index { repository, files } => {
                let Some((executable, id)) = files.get(relative) else {
                    return Ok(None);
                };
                let blob = repository.find_object(*id).map_err(|error| {
                    Error::Usage(format!("cannot read the staged {relative}: {error}"))
                })?;
                Ok(Some((*executable, blob.data.clone())))
            }
            // Only regular files of a sane size are read: a pipe would block, a device never end.
            Snapshot::WorkTree(dir) => Ok(dir
                .read(relative, MAX_READ_BYTES)?
                .map(|(bytes, mode)| (mode & 0o111 != 0, bytes))),
        }
    }

    /// The files below the config folder `config_dir` (project-relative, not empty) that can be
    /// item files: in the working tree those of its item folders and of its domains' (see
    /// [`collect_layer_files`]); in the index every staged file below it (the caller keeps the
    /// item files by path). Sorted project-relative paths.
    ///
    /// Errors: in the working tree, a symlink at or below an item folder, a domain or the
    /// domains folder; listing failures.
    pub(crate) fn item_files_under(&self, config_dir: &str) -> Result<Vec<String>> {
        match self {
            Snapshot::Index { .. } => self.files_under(config_dir),
            Snapshot::WorkTree(dir) => {
                let mut paths = Vec::new();
                collect_layer_files(dir, config_dir, true, &mut paths)?;
                Ok(paths)
            }
        }
    }

    /// Every file below the project-relative folder `prefix` (no trailing slash), as sorted
    /// project-relative paths.
    ///
    /// Errors: in the working tree, a symlink anywhere below `prefix` (or `prefix` itself being
    /// one), so a linked folder is never mistaken for removed sources; listing failures.
    pub(crate) fn files_under(&self, prefix: &str) -> Result<Vec<String>> {
        match self {
            Snapshot::Index { files, .. } => {
                let start = format!("{prefix}/");
                Ok(files
                    .range(start.clone()..)
                    .take_while(|(path, _)| path.starts_with(&start))
                    .map(|(path, _)| path.clone())
                    .collect())
            }
            Snapshot::WorkTree(dir) => {
                let mut paths = Vec::new();
                collect_files(dir, prefix, &mut paths, 0)?;
                Ok(paths)
            }
        }
    }
}

/// The folders of a layer (the config folder or one domain) whose files the lock pins.
const ITEM_FOLDERS: [&str; 5] = ["rules", "context", "agents", "commands", "skills"];

/// Appends, in name order, every file of the item folders of the layer at `layer` (the config
/// folder, or one of its domains; `memories` only for the config folder) to `paths`. Other
/// entries of the layer (the machine-local `local/` folder, a person's notes) are never
/// listed: no item lives there, so a symlink there is none of the lock's business.
///
/// Errors: as [`collect_files`], for a symlink at or below an item folder.
fn collect_layer_files(
    dir: &crate::confined_fs::ProjectDir,
    layer: &str,
    is_config_folder: bool,
    paths: &mut Vec<String>,
) -> Result<()> {
    use crate::confined_fs::EntryKind;
    let Some(entries) = dir.list(layer)? else {
        return Ok(());
    };
    for entry in entries {
        let holds_items = ITEM_FOLDERS.contains(&entry.name.as_str())
            || (is_config_folder && entry.name == "memories");
        let path = format!("{layer}/{}", entry.name);
        if holds_items {
            collect_files(dir, &path, paths, 1)?;
            continue;
        }
        if !is_config_folder || entry.name != "domains" {
            continue;
        }
        match entry.kind {
            EntryKind::Folder => {}
            // A linked domains folder must not read as every domain removed.
            EntryKind::Symlink => {
                return Err(Error::refused(path, crate::confined_fs::SYMLINK_REFUSAL));
            }
            EntryKind::File | EntryKind::Other => continue,
        }
        // The loader skips domains whose names start with `.`, so the lock does too.
        for domain in dir.list(&path)?.unwrap_or_default() {
            if domain.name.starts_with('.') {
                continue;
            }
            let domain_path = format!("{path}/{}", domain.name);
            match domain.kind {
                EntryKind::Folder => collect_layer_files(dir, &domain_path, false, paths)?,
                EntryKind::Symlink => {
                    return Err(Error::refused(
                        domain_path,
                        crate::confined_fs::SYMLINK_REFUSAL,
                    ));
                }
                EntryKind::File | EntryKind::Other => {}
            }
        }
    }
    Ok(())
}

/// Appends every file below `folder` (depth first, in name order) to `paths`.
///
/// Errors: a symlink (never followed) below or at `folder`; listing failures.
fn collect_files(
    dir: &crate::confined_fs::ProjectDir,
    folder: &str,
    paths: &mut Vec<String>,
    depth: usize,
) -> Result<()> {
    use crate::confined_fs::EntryKind;
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return Err(Error::refused(
            folder,
            format!(
                "nests folders deeper than {} levels; flatten it",
                crate::limits::MAX_FOLDER_DEPTH
            ),
        ));
    }
    let Some(entries) = dir.list(folder)? else {
        return Ok(());
    };
    for entry in entries {
        let path = format!("{folder}/{}", entry.name);
        match entry.kind {
            EntryKind::Folder => collect_files(dir, &path, paths, depth + 1)?,
            EntryKind::Symlink => {
                return Err(Error::refused(path, crate::confined_fs::SYMLINK_REFUSAL));
            }
            EntryKind::File | EntryKind::Other => paths.push(path),
        }
    }
    Ok(())
}

/// One pinned source item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceItem {
    /// `rule`, `context`, `skill`, `agent`, `command`, `memory` or `config`.
    pub kind: String,
    /// Domain name; empty for the root layer.
    pub domain: String,
    /// Item id (file stem or skill folder name; the memory id for `memory`; the file name for
    /// `config`).
    pub id: String,
    /// Project-relative path of the file (or the skill folder).
    pub path: String,
    /// Item digest (`sha256:<hex>`).
    pub digest: String,
}

const FILE_KINDS: [(&str, &str); 4] = [
    ("rules", "rule"),
    ("context", "context"),
    ("agents", "agent"),
    ("commands", "command"),
];

/// One item file as read: (project-relative path, bytes).
pub(crate) type ItemFile = (String, Vec<u8>);

/// Finds and digests every source item under the config folder `config_dir` (project-relative),
/// plus the config file `config_file`. Sorted by (kind, domain, id).
///
/// Errors: read failures, or two files of one item with the same path.
pub(crate) fn collect(
    snapshot: &Snapshot,
    config_dir: &str,
    config_file: &str,
) -> Result<Vec<SourceItem>> {
    collect_with_files(snapshot, config_dir, config_file).map(|(items, _)| items)
}

/// As [`collect`], and also every item file read on the way (rule, context, agent and command
/// files, and every file of a skill) as (project-relative path, bytes), in path order, so a
/// check can screen them without reading them twice.
///
/// Errors: as [`collect`].
pub(crate) fn collect_with_files(
    snapshot: &Snapshot,
    config_dir: &str,
    config_file: &str,
) -> Result<(Vec<SourceItem>, Vec<ItemFile>)> {
    let mut item_files = Vec::new();
    let mut items = Vec::new();
    if let Some((executable, data)) = snapshot.read(config_file)? {
        let name = config_file
            .rsplit('/')
            .next()
            .unwrap_or(config_file)
            .to_owned();
        items.push(pin(
            "config",
            "",
            &name,
            config_file,
            &[FileEntry {
                path: name.clone(),
                executable,
                data,
            }],
        )?);
    }
    if config_dir.is_empty() {
        return Ok((items, item_files));
    }
    let all = snapshot.item_files_under(config_dir)?;
    let mut skills: BTreeMap<(String, String), (String, Vec<FileEntry>)> = BTreeMap::new();
    for path in &all {
        let inside = &path[config_dir.len() + 1..];
        let (domain, rest) = match inside
            .strip_prefix("domains/")
            .and_then(|rest| rest.split_once('/'))
        {
            Some((domain, rest)) => (domain, rest),
            None => ("", inside),
        };
        if domain.starts_with('.') {
            continue;
        }
        let Some((folder, name)) = rest.split_once('/') else {
            continue;
        };
        if domain.is_empty() && folder == "memories" {
            if let Some(memory) = pin_memory(snapshot, path, name)? {
                items.push(memory);
            }
            continue;
        }
        if folder == "skills" {
            let Some((skill, file)) = name.split_once('/') else {
                continue;
            };
            let Some((executable, data)) = snapshot.read(path)? else {
                continue;
            };
            item_files.push((path.clone(), data.clone()));
            let skill_path = format!("{}/{skill}", &path[..path.len() - name.len() - 1]);
            skills
                .entry((domain.to_owned(), skill.to_owned()))
                .or_insert_with(|| (skill_path, Vec::new()))
                .1
                .push(FileEntry {
                    path: file.to_owned(),
                    executable,
                    data,
                });
            continue;
        }
        let Some((_, kind)) = FILE_KINDS.iter().find(|(known, _)| *known == folder) else {
            continue;
        };
        let Some(id) = name.strip_suffix(".md").filter(|id| !id.contains('/')) else {
            continue;
        };
        let Some((executable, data)) = snapshot.read(path)? else {
            continue;
        };
        item_files.push((path.clone(), data.clone()));
        items.push(pin(
            kind,
            domain,
            id,
            path,
            &[FileEntry {
                path: name.to_owned(),
                executable,
                data,
            }],
        )?);
    }
    for ((domain, id), (path, files)) in skills {
        items.push(pin("skill", &domain, &id, &path, &files)?);
    }
    items.sort_by(|left, right| {
        (&left.kind, &left.domain, &left.id).cmp(&(&right.kind, &right.domain, &right.id))
    });
    Ok((items, item_files))
}

/// Pins one file below the memories folder (`name` is its path inside it) as a `memory` item
/// whose id is the memory id (`src/api/retry-policy`). Memories in the trash, and files that are
/// not memories (temporary files, other extensions), are not pinned. Memory files are not
/// screened here: they are never generated into assistant files, and every save screens them.
///
/// Errors: read failures.
fn pin_memory(snapshot: &Snapshot, path: &str, name: &str) -> Result<Option<SourceItem>> {
    if name.starts_with(&format!("{}/", crate::memory::node::TRASH_FOLDER)) {
        return Ok(None);
    }
    let Some(id) = name.strip_suffix(".md") else {
        return Ok(None);
    };
    let slug = id.rsplit('/').next().unwrap_or(id);
    if !id.contains('/') || !crate::memory::node::is_slug(slug) {
        return Ok(None);
    }
    let Some((executable, data)) = snapshot.read(path)? else {
        return Ok(None);
    };
    let file_name = name.rsplit('/').next().unwrap_or(name).to_owned();
    let file = FileEntry {
        path: file_name,
        executable,
        data,
    };
    pin("memory", "", id, path, &[file]).map(Some)
}

fn pin(kind: &str, domain: &str, id: &str, path: &str, files: &[FileEntry]) -> Result<SourceItem> {
    let digest = item_digest(kind, files)
        .ok_or_else(|| Error::invalid(path, None, "two files of this item have the same path"))?;
    Ok(SourceItem {
        kind: kind.to_owned(),
        domain: domain.to_owned(),
        id: id.to_owned(),
        path: path.to_owned(),
        digest,
    })
}
