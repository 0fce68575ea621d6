//! Writing the included folder of one fetched commit into the cache, so the content loader
//! reads it through the confined file layer exactly as it reads a local include.
//!
//! The folder is built under a temporary name and renamed into place, so a checkout is either
//! whole or absent; its digest (the lock's include digest: [`crate::lock::digest::item_digest`]
//! of kind `include` over every regular file, paths relative to the folder) is stored next to it
//! and checked on every use, so a checkout edited or damaged on disk is rebuilt from the
//! repository's objects instead of being read. Symlinks of the commit are written as symlinks
//! (their target as committed, never followed; the loader refuses them like any symlink) and
//! are not part of the digest; submodules are left out.

use std::path::{Path, PathBuf};

use gix::ObjectId;
use gix::object::tree::EntryKind;

use super::cache::RepositoryCache;
use crate::lock::digest::{FileEntry, item_digest};

/// Most entries (files, folders, links) one checkout may hold.
const MAX_ENTRIES: usize = 100_000;

/// The folder an include reads from inside a checkout.
const TREE_FOLDER: &str = "tree";
/// The file holding a checkout's digest.
const DIGEST_FILE: &str = "digest";

/// A checkout ready to be read.
#[derive(Debug, Clone)]
pub(crate) struct Checkout {
    /// The folder holding the included files.
    pub tree: PathBuf,
    /// `sha256:<hex>` of its regular files.
    pub digest: String,
}

/// Why a checkout cannot be made.
#[derive(Debug)]
pub(crate) enum CheckoutError {
    /// `path` names nothing in the commit.
    PathMissing,
    /// `path` names a file, not a folder.
    PathNotFolder,
    /// The commit cannot be read or holds something that cannot be written safely.
    Invalid(String),
}

impl From<std::io::Error> for CheckoutError {
    fn from(error: std::io::Error) -> Self {
        Self::Invalid(error.to_string())
    }
}

/// The checkout of `path` (`/`-separated, relative to the repository root, `""` for the whole
/// tree) at `commit`: reused when it exists and its files still match its digest, else written
/// from `repository`. When the folder named by `path` holds a `.ai-rulez` folder, only that
/// folder is written (the loader reads an include from there).
///
/// Errors: [`CheckoutError::PathMissing`], [`CheckoutError::PathNotFolder`], or
/// [`CheckoutError::Invalid`] for unreadable objects, unsafe entry names (`..`, `.git`, a `/`),
/// more than 100,000 entries or 512 MiB, folders nested deeper than 32 levels, and I/O errors.
pub(crate) fn checkout(
    repository: &gix::Repository,
    cache: &RepositoryCache,
    commit: ObjectId,
    path: &str,
) -> Result<Checkout, CheckoutError> {
    let folder = cache.checkout(&commit.to_string(), path);
    if let Some(existing) = intact(&folder) {
        return Ok(existing);
    }
    if folder.exists() {
        discard(&folder)?;
    }
    let root = included_tree(repository, commit, path)?;
    let trees = folder
        .parent()
        .map_or_else(|| folder.clone(), Path::to_path_buf);
    super::cache::create_private_folder(&trees)
        .map_err(|error| CheckoutError::Invalid(error.to_string()))?;
    let building = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(&trees)?;
    let mut writer = Writer {
        repository,
        files: Vec::new(),
        entries: 0,
        bytes: 0,
    };
    let tree_folder = building.path().join(TREE_FOLDER);
    fs_err::create_dir(&tree_folder)?;
    writer.write_tree(root, &tree_folder, "", 0)?;
    let digest = item_digest("include", &writer.files).ok_or_else(|| {
        CheckoutError::Invalid("two files of the included folder have the same path".to_owned())
    })?;
    fs_err::write(building.path().join(DIGEST_FILE), format!("{digest}\n"))?;
    let built = building.keep();
    if fs_err::rename(&built, &folder).is_err() {
        // Another process finished the same checkout first; its copy is as good as ours.
        fs_err::remove_dir_all(&built)?;
    }
    Ok(Checkout {
        tree: folder.join(TREE_FOLDER),
        digest,
    })
}

/// The tree to write: the folder `path` names in `commit`, or its `.ai-rulez` folder when it
/// has one.
fn included_tree(
    repository: &gix::Repository,
    commit: ObjectId,
    path: &str,
) -> Result<ObjectId, CheckoutError> {
    let invalid = |error: &dyn std::fmt::Display| CheckoutError::Invalid(error.to_string());
    let commit = repository
        .find_commit(commit)
        .map_err(|error| invalid(&error))?;
    let tree = commit.tree().map_err(|error| invalid(&error))?;
    let mut root = tree.id;
    if !path.is_empty() {
        let entry = tree
            .lookup_entry(path.split('/').map(str::as_bytes))
            .map_err(|error| invalid(&error))?
            .ok_or(CheckoutError::PathMissing)?;
        if entry.mode().kind() != EntryKind::Tree {
            return Err(CheckoutError::PathNotFolder);
        }
        root = entry.object_id();
    }
    let wrapped = repository
        .find_tree(root)
        .map_err(|error| invalid(&error))?
        .lookup_entry([b".ai-rulez".as_slice()])
        .map_err(|error| invalid(&error))?;
    Ok(match wrapped {
        Some(entry) if entry.mode().kind() == EntryKind::Tree => entry.object_id(),
        _ => root,
    })
}

/// The checkout in `folder` when it is complete and its files match its recorded digest.
fn intact(folder: &Path) -> Option<Checkout> {
    let recorded = fs_err::read_to_string(folder.join(DIGEST_FILE)).ok()?;
    let recorded = recorded.trim().to_owned();
    let tree = folder.join(TREE_FOLDER);
    let mut files = Vec::new();
    read_files(&tree, "", &mut files, 0).ok()?;
    let on_disk = item_digest("include", &files)?;
    (on_disk == recorded).then_some(Checkout {
        tree,
        digest: recorded,
    })
}

/// Moves a damaged checkout aside and deletes it (the cache is ai-rulez's own).
fn discard(folder: &Path) -> Result<(), CheckoutError> {
    let trees = folder.parent().unwrap_or(folder);
    let aside = tempfile::Builder::new()
        .prefix(".discarded-")
        .tempdir_in(trees)?
        .keep();
    let target = aside.join("checkout");
    fs_err::rename(folder, &target)?;
    fs_err::remove_dir_all(&aside)?;
    Ok(())
}

/// Appends every regular file below `folder` to `files` (paths relative to the checkout, with
/// `prefix` before them), without following symlinks (which are skipped, as when writing).
fn read_files(
    folder: &Path,
    prefix: &str,
    files: &mut Vec<FileEntry>,
    depth: usize,
) -> std::io::Result<()> {
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return Err(std::io::Error::other("folders nested too deep"));
    }
    for entry in fs_err::read_dir(folder)? {
        let entry = entry?;
        let name = entry
            .file_name()
            .into_string()
            .map_err(|_| std::io::Error::other("a file name is not UTF-8"))?;
        let relative = join(prefix, &name);
        let metadata = fs_err::symlink_metadata(entry.path())?;
        if metadata.is_dir() {
            read_files(&entry.path(), &relative, files, depth + 1)?;
        } else if metadata.is_file() {
            files.push(FileEntry {
                path: relative,
                executable: is_executable(&metadata),
                data: fs_err::read(entry.path())?,
            });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    std::os::unix::fs::PermissionsExt::mode(&metadata.permissions()) & 0o111 != 0
}

/// Without permission bits, an executable file is one written from an executable blob; the
/// checkout's digest then cannot tell, so it trusts the file name alone.
#[cfg(not(unix))]
fn is_executable(_metadata: &std::fs::Metadata) -> bool {
    false
}

/// Writes the objects of one tree to disk and collects its regular files for the digest.
struct Writer<'repo> {
    repository: &'repo gix::Repository,
    files: Vec<FileEntry>,
    entries: usize,
    bytes: u64,
}

impl Writer<'_> {
    /// Writes the tree `id` into the existing folder `folder`; `prefix` is its path inside the
    /// checkout (`""` at the top).
    fn write_tree(
        &mut self,
        id: ObjectId,
        folder: &Path,
        prefix: &str,
        depth: usize,
    ) -> Result<(), CheckoutError> {
        if depth > crate::limits::MAX_FOLDER_DEPTH {
            return Err(CheckoutError::Invalid(format!(
                "`{prefix}` nests folders deeper than {} levels",
                crate::limits::MAX_FOLDER_DEPTH
            )));
        }
        let tree = self
            .repository
            .find_tree(id)
            .map_err(|error| CheckoutError::Invalid(error.to_string()))?;
        let decoded = tree
            .decode()
            .map_err(|error| CheckoutError::Invalid(error.to_string()))?;
        let entries: Vec<(Vec<u8>, EntryKind, ObjectId)> = decoded
            .entries
            .iter()
            .map(|entry| {
                (
                    entry.filename.to_vec(),
                    entry.mode.kind(),
                    entry.oid.to_owned(),
                )
            })
            .collect();
        for (name, kind, oid) in entries {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                return Err(CheckoutError::Invalid(format!(
                    "the included folder holds more than {MAX_ENTRIES} entries; include a smaller folder with `path`"
                )));
            }
            let name = safe_name(&name, prefix)?;
            let relative = join(prefix, &name);
            let target = folder.join(&name);
            match kind {
                EntryKind::Tree => {
                    fs_err::create_dir(&target)?;
                    self.write_tree(oid, &target, &relative, depth + 1)?;
                }
                EntryKind::Blob | EntryKind::BlobExecutable => {
                    let data = self.blob(oid)?;
                    let executable = kind == EntryKind::BlobExecutable;
                    write_new_file(&target, &data, executable)?;
                    self.files.push(FileEntry {
                        path: relative,
                        executable,
                        data,
                    });
                }
                EntryKind::Link => {
                    let link_target = self.blob(oid)?;
                    write_symlink(&target, &link_target, &relative)?;
                }
                // A submodule's content lives in another repository, which is not fetched.
                EntryKind::Commit => {}
            }
        }
        Ok(())
    }

    fn blob(&mut self, id: ObjectId) -> Result<Vec<u8>, CheckoutError> {
        let blob = self
            .repository
            .find_blob(id)
            .map_err(|error| CheckoutError::Invalid(error.to_string()))?;
        self.bytes = self.bytes.saturating_add(blob.data.len() as u64);
        if self.bytes > crate::limits::MAX_TREE_BYTES {
            return Err(CheckoutError::Invalid(format!(
                "the included folder holds more than {} MiB; include a smaller folder with `path`",
                crate::limits::MAX_TREE_BYTES / (1024 * 1024)
            )));
        }
        Ok(blob.data.clone())
    }
}

/// `name` (one tree entry's name, as committed) when it can be written as exactly one entry of
/// its folder: UTF-8, not empty, not `.` or `..`, no `/`, `\` or NUL, and not `.git` (in any
/// case), which git itself refuses to check out.
fn safe_name(name: &[u8], prefix: &str) -> Result<String, CheckoutError> {
    let shown = String::from_utf8_lossy(name);
    let unsafe_name = || {
        CheckoutError::Invalid(format!(
            "the entry `{}` in `{}` cannot be written safely (an empty name, `.`, `..`, `.git`, or a name with `/`, `\\` or NUL); fix the included repository",
            shown.escape_debug(),
            if prefix.is_empty() { "." } else { prefix }
        ))
    };
    let Ok(name) = std::str::from_utf8(name) else {
        return Err(CheckoutError::Invalid(format!(
            "the entry `{}` in `{}` is not a UTF-8 name; rename it in the included repository",
            shown.escape_debug(),
            if prefix.is_empty() { "." } else { prefix }
        )));
    };
    if name.is_empty()
        || name == "."
        || name == ".."
        || name.eq_ignore_ascii_case(".git")
        || name.contains(['/', '\\', '\0'])
    {
        return Err(unsafe_name());
    }
    Ok(name.to_owned())
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}/{name}")
    }
}

/// Creates `path` (which must not exist: two entries whose names differ only in case on a
/// case-insensitive disk are an error, not an overwrite) holding `data`.
fn write_new_file(path: &Path, data: &[u8], executable: bool) -> Result<(), CheckoutError> {
    use std::io::Write as _;
    let mut file = fs_err::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(data)?;
    #[cfg(unix)]
    if executable {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    #[cfg(not(unix))]
    let _ = executable;
    Ok(())
}

/// Writes a symlink whose target is `link_target` as committed. It is never followed: the
/// loader refuses any symlink it meets, with the same message as in a project's own tree.
#[cfg(unix)]
fn write_symlink(path: &Path, link_target: &[u8], _relative: &str) -> Result<(), CheckoutError> {
    use std::os::unix::ffi::OsStrExt as _;
    fs_err::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(link_target), path)?;
    Ok(())
}

#[cfg(not(unix))]
fn write_symlink(_path: &Path, _link_target: &[u8], relative: &str) -> Result<(), CheckoutError> {
    Err(CheckoutError::Invalid(format!(
        "`{relative}` is a symlink; ai-rulez never follows symlinks and cannot write one here, so replace it with the real file in the included repository"
    )))
}
