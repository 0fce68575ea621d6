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
    /// The git index of the repository holding the project: staged path → (executable, bytes).
    Index(BTreeMap<String, (bool, Vec<u8>)>),
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
            let blob = repository
                .find_object(entry.id)
                .map_err(|error| failure(&error))?;
            files.insert(relative.to_owned(), (executable, blob.data.clone()));
        }
        Ok(Snapshot::Index(files))
    }

    /// Reads one project-relative file: (executable, bytes), or `None` when absent.
    ///
    /// Errors: I/O errors other than "not found".
    pub(crate) fn read(&self, relative: &str) -> Result<Option<(bool, Vec<u8>)>> {
        match self {
            Snapshot::Index(files) => Ok(files.get(relative).cloned()),
            // Only regular files of a sane size are read: a pipe would block, a device never end.
            Snapshot::WorkTree(dir) => Ok(dir
                .read(relative, MAX_READ_BYTES)?
                .map(|(bytes, mode)| (mode & 0o111 != 0, bytes))),
        }
    }

    /// Every file below the project-relative folder `prefix` (no trailing slash), as sorted
    /// project-relative paths.
    fn files_under(&self, prefix: &str) -> Vec<String> {
        match self {
            Snapshot::Index(files) => {
                let start = format!("{prefix}/");
                files
                    .range(start.clone()..)
                    .take_while(|(path, _)| path.starts_with(&start))
                    .map(|(path, _)| path.clone())
                    .collect()
            }
            Snapshot::WorkTree(dir) => {
                let mut paths = Vec::new();
                collect_files(dir, prefix, &mut paths);
                paths
            }
        }
    }
}

/// Appends every non-folder entry below `folder` (depth first, in name order) to `paths`;
/// symlinks are listed without being followed, so reading them later is refused by name.
fn collect_files(dir: &crate::confined_fs::ProjectDir, folder: &str, paths: &mut Vec<String>) {
    let Ok(Some(entries)) = dir.list(folder) else {
        return;
    };
    for entry in entries {
        let path = format!("{folder}/{}", entry.name);
        if entry.kind == crate::confined_fs::EntryKind::Folder {
            collect_files(dir, &path, paths);
        } else {
            paths.push(path);
        }
    }
}

/// One pinned source item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceItem {
    /// `rule`, `context`, `skill`, `agent`, `command` or `config`.
    pub kind: String,
    /// Domain name; empty for the root layer.
    pub domain: String,
    /// Item id (file stem or skill folder name; the file name for `config`).
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

/// Finds and digests every source item under the config folder `config_dir` (project-relative),
/// plus the config file `config_file`. Sorted by (kind, domain, id).
///
/// Errors: read failures, or two files of one item with the same path.
pub(crate) fn collect(
    snapshot: &Snapshot,
    config_dir: &str,
    config_file: &str,
) -> Result<Vec<SourceItem>> {
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
        return Ok(items);
    }
    let all = snapshot.files_under(config_dir);
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
        let Some((folder, name)) = rest.split_once('/') else {
            continue;
        };
        if folder == "skills" {
            let Some((skill, file)) = name.split_once('/') else {
                continue;
            };
            let Some((executable, data)) = snapshot.read(path)? else {
                continue;
            };
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
    Ok(items)
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
