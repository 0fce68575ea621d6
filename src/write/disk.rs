//! The disk side of the writer: symlink refusal, reads that tolerate absent files, atomic
//! writes (temporary file and rename) and applying the computed operations.

use std::collections::HashSet;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::manifest::Manifest;

use super::{Operation, Settings};

/// Reads the manifest of the last run. Entries naming paths no preset writes (a hand-edited or
/// hostile manifest) are dropped with a warning, so they can never lead to a read or a delete.
pub(super) fn read_manifest(settings: &Settings<'_>) -> Result<(Manifest, Vec<String>)> {
    refuse_symlinks(settings.root, &settings.manifest_path)?;
    let mut manifest = match read_optional(&settings.root.join(&settings.manifest_path))? {
        None => return Ok((Manifest::default(), Vec::new())),
        Some(bytes) => Manifest::parse(&settings.manifest_path, &String::from_utf8_lossy(&bytes))?,
    };
    let mut dropped: Vec<String> = Vec::new();
    let mut keep = |path: &String| {
        let valid = crate::presets::is_output_path(path);
        if !valid {
            dropped.push(path.clone());
        }
        valid
    };
    manifest.files.retain(|path, _| keep(path));
    manifest.sections.retain(|path, _| keep(path));
    manifest.merged.retain(|path, _| keep(path));
    let warnings = dropped
        .into_iter()
        .map(|path| {
            format!(
                "{}: lists `{}`, which no preset generates; the entry is ignored (nothing there is read or deleted)",
                settings.manifest_path,
                path.escape_debug()
            )
        })
        .collect();
    Ok((manifest, warnings))
}

/// Largest file ai-rulez reads at an output path (64 MiB): nothing it generates comes close, and
/// the cap keeps a stray device or huge file from exhausting memory.
pub(super) const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a regular file that may be absent.
///
/// Errors: [`Error::Refused`] when something other than a regular file (a folder, a pipe, a
/// device) or a file over [`MAX_OUTPUT_BYTES`] is at the path; other I/O errors.
pub(super) fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::symlink_metadata(path) {
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(error) => {
            return Err(Error::Io(std::io::Error::new(
                error.kind(),
                format!("reading {}: {error}", path.display()),
            )));
        }
        Ok(metadata) => check_regular(path, &metadata)?,
    }
    Ok(Some(fs_err::read(path)?))
}

/// Refuses anything at an output path that ai-rulez could not have written.
pub(super) fn check_regular(path: &Path, metadata: &std::fs::Metadata) -> Result<()> {
    let shown = path.display().to_string();
    if !metadata.file_type().is_file() {
        return Err(Error::refused(
            shown,
            "is not a regular file (a folder, a pipe or a device); ai-rulez only writes regular files, so move it away",
        ));
    }
    if metadata.len() > MAX_OUTPUT_BYTES {
        return Err(Error::refused(
            shown,
            format!(
                "is {} bytes, larger than anything ai-rulez generates; move it away",
                metadata.len()
            ),
        ));
    }
    Ok(())
}

pub(super) fn current_mode(path: &Path) -> Option<u32> {
    std::fs::metadata(path)
        .ok()
        .map(|metadata| metadata.permissions().mode() & 0o777)
}

/// Refuses a path that is a symlink or lies inside a symlinked folder of the project.
pub(super) fn refuse_symlinks(root: &Path, relative: &str) -> Result<()> {
    let mut current = root.to_path_buf();
    for component in relative.split('/') {
        if component.is_empty() || component == "." || component == ".." {
            return Err(Error::refused(
                relative,
                "is not a plain project-relative path",
            ));
        }
        current.push(component);
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(Error::refused(
                    relative,
                    "is (or is inside) a symlink; ai-rulez never writes through symlinks, so replace the link with a real file or folder",
                ));
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// Applies every operation: folders first (each created once), then file writes spread over two
/// threads (the work is mostly system calls), then deletions in order.
pub(super) fn perform_all(
    root: &Path,
    operations: &[Operation<'_>],
    dirs: &DirCache,
) -> Result<()> {
    let mut created: HashSet<PathBuf> = HashSet::new();
    let mut writes = Vec::new();
    for operation in operations {
        if let Operation::Write { path, bytes, mode } = operation {
            dirs.check(root, path)?;
            let parent = root
                .join(path)
                .parent()
                .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
            if !created.contains(&parent) {
                fs_err::create_dir_all(&parent)?;
                created.insert(parent);
            }
            writes.push((path.as_str(), bytes.as_ref(), *mode));
        }
    }
    let half = writes.len().div_ceil(2);
    let (first, second) = writes.split_at(half);
    std::thread::scope(|scope| -> Result<()> {
        let worker = scope.spawn(|| -> Result<()> {
            for (path, bytes, mode) in second {
                write_new_bytes(root, path, bytes, *mode)?;
            }
            Ok(())
        });
        for (path, bytes, mode) in first {
            write_new_bytes(root, path, bytes, *mode)?;
        }
        worker.join().unwrap_or_else(|_| {
            Err(Error::Usage(
                "a writer thread stopped unexpectedly".to_owned(),
            ))
        })
    })?;
    for operation in operations {
        if let Operation::Delete { path } = operation {
            dirs.check(root, path)?;
            let absolute = root.join(path);
            fs_err::remove_file(&absolute)?;
            remove_empty_parents(root, &absolute);
        }
    }
    Ok(())
}

/// Folders already known to be real (not symlinks) or absent, so one run looks at each folder
/// once instead of once per file below it.
#[derive(Default)]
pub(super) struct DirCache {
    real: Mutex<HashSet<PathBuf>>,
    absent: Mutex<HashSet<PathBuf>>,
}

impl DirCache {
    /// Refuses a path that is, or lies inside, a symlink. Returns whether its folder exists.
    /// Refuses a path that is, or lies inside, a symlink. Returns the metadata of the path itself
    /// when it exists (`None` when it or a folder above it is absent).
    fn check(&self, root: &Path, relative: &str) -> Result<Option<std::fs::Metadata>> {
        let components: Vec<&str> = relative.split('/').collect();
        if components
            .iter()
            .any(|component| component.is_empty() || *component == "." || *component == "..")
        {
            return Err(Error::refused(
                relative,
                "is not a plain project-relative path",
            ));
        }
        let mut current = root.to_path_buf();
        for (index, component) in components.iter().enumerate() {
            current.push(component);
            let is_folder = index + 1 < components.len();
            if is_folder {
                if self.real.lock().is_ok_and(|real| real.contains(&current)) {
                    continue;
                }
                if self
                    .absent
                    .lock()
                    .is_ok_and(|absent| absent.contains(&current))
                {
                    return Ok(None);
                }
            }
            match std::fs::symlink_metadata(&current) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    return Err(Error::refused(
                        relative,
                        "is (or is inside) a symlink; ai-rulez never writes through symlinks, so replace the link with a real file or folder",
                    ));
                }
                Ok(_) if is_folder => {
                    if let Ok(mut real) = self.real.lock() {
                        real.insert(current.clone());
                    }
                }
                Ok(metadata) => return Ok(Some(metadata)),
                Err(_) if is_folder => {
                    if let Ok(mut absent) = self.absent.lock() {
                        absent.insert(current.clone());
                    }
                    return Ok(None);
                }
                Err(_) => return Ok(None),
            }
        }
        Ok(None)
    }

    /// Reads a project file that may be absent: (bytes, permission bits).
    pub(super) fn read(&self, root: &Path, relative: &str) -> Result<Option<(Vec<u8>, u32)>> {
        let Some(metadata) = self.check(root, relative)? else {
            return Ok(None);
        };
        let path = root.join(relative);
        // Checked before opening: opening a pipe would block, and a device could be endless.
        check_regular(&path, &metadata)?;
        let mode = metadata.permissions().mode() & 0o777;
        Ok(Some((fs_err::read(&path)?, mode)))
    }
}

/// Writes a file ai-rulez owns outright (the lock, a hook) atomically with mode 0644.
///
/// Errors: a symlink on the way, or I/O errors.
pub fn write_file(root: &Path, relative: &str, bytes: &[u8]) -> Result<()> {
    write_atomic(root, relative, bytes, 0o644)
}

/// Writes `bytes` to `root/relative` through a temporary file in the same folder and a rename,
/// so readers never see half a file.
fn write_atomic(root: &Path, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
    refuse_symlinks(root, relative)?;
    let target = root.join(relative);
    fs_err::create_dir_all(target.parent().unwrap_or(root))?;
    write_new_bytes(root, relative, bytes, mode)
}

/// The temporary-file-and-rename step of [`write_atomic`]; the folder must exist and be checked.
fn write_new_bytes(root: &Path, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
    let target = root.join(relative);
    let parent = target.parent().unwrap_or(root);
    let mut temporary = tempfile::Builder::new()
        .prefix(".ai-rulez-")
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|error| {
            Error::Io(std::io::Error::new(
                error.kind(),
                format!("creating a temporary file in {}: {error}", parent.display()),
            ))
        })?;
    temporary.write_all(bytes)?;
    temporary
        .as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    temporary.persist(&target).map_err(|error| {
        Error::Io(std::io::Error::new(
            error.error.kind(),
            format!("replacing {}: {}", target.display(), error.error),
        ))
    })?;
    Ok(())
}

fn remove_empty_parents(root: &Path, file: &Path) {
    let mut directory = file.parent();
    while let Some(current) = directory {
        if current == root || !current.starts_with(root) {
            break;
        }
        if std::fs::remove_dir(current).is_err() {
            break;
        }
        directory = current.parent();
    }
}
