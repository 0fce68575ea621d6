//! Finding and reading the code to learn from: a walk with the `ignore` crate (so `.gitignore`,
//! `.ignore` and `.git/info/exclude` are honoured) that leaves out `.ai-rulez/`, hidden folders
//! (where generated assistant files live), dependency and build folders, generated files,
//! binary files and files over 1 MiB; files are read through [`ProjectDir`] and observed on
//! all cores.

use std::collections::BTreeMap;
use std::path::Path;

use super::language::{Language, TOOLCHAIN_FILES};
use super::observe::{FileObservations, observe_file};
use crate::confined_fs::{EntryKind, ProjectDir, normalise_relative};
use crate::error::{Error, Result};

/// The largest file read, in bytes; larger files are generated or data, not conventions.
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Folders never walked: dependencies, vendored code and build outputs, which follow someone
/// else's conventions (names from npm, pip, Go modules, Cargo and common build tools).
const SKIPPED_FOLDERS: &[&str] = &[
    "node_modules",
    "bower_components",
    "vendor",
    "third_party",
    "target",
    "dist",
    "build",
    "out",
    "coverage",
    "__pycache__",
    "site-packages",
    "venv",
];

/// One observed source file.
#[derive(Debug)]
pub(super) struct ScannedFile {
    /// Project-relative path, `/`-separated.
    pub(super) relative: String,
    /// Its language.
    pub(super) language: Language,
    /// What it shows.
    pub(super) observations: FileObservations,
}

/// What the walk found: observed files sorted by path, lockfile and toolchain file paths by
/// file name (sorted), and how many source files were left out (generated, binary, too large
/// or unreadable).
#[derive(Debug, Default)]
pub(super) struct Scan {
    /// Observed source files, sorted by path.
    pub(super) files: Vec<ScannedFile>,
    /// Toolchain file name → the paths where it was found, sorted.
    pub(super) toolchain: BTreeMap<&'static str, Vec<String>>,
    /// Source files left out.
    pub(super) skipped: usize,
}

/// Walks `paths` (relative to `root`, or absolute inside it; empty: the whole project) under
/// `root` and observes every source file.
///
/// Errors: [`Error::Usage`] for a path that is not a plain relative path inside the project or
/// that does not exist; [`Error::Refused`] for one that is or passes through a symlink; I/O
/// errors opening the root.
pub(super) fn scan(root: &Path, paths: &[String]) -> Result<Scan> {
    let project = ProjectDir::open(root)?;
    let mut starts = Vec::new();
    for path in paths {
        // An absolute path names a place inside the project by its full path.
        let as_given = match Path::new(path).strip_prefix(root) {
            Ok(inside) => inside.to_str().unwrap_or(path),
            Err(_) if Path::new(path).is_absolute() => "..",
            Err(_) => path,
        };
        let relative = normalise_relative(as_given).ok_or_else(|| {
            Error::Usage(format!(
                "`{path}` is not a path inside the project; pass folders or files relative to the project root {}",
                root.display()
            ))
        })?;
        if !relative.is_empty() {
            match project.info(&relative)? {
                Some(info) if matches!(info.kind, EntryKind::File | EntryKind::Folder) => {}
                Some(info) if info.kind == EntryKind::Symlink => {
                    return Err(Error::refused(
                        relative,
                        crate::confined_fs::SYMLINK_REFUSAL,
                    ));
                }
                Some(_) => {
                    return Err(Error::refused(
                        relative,
                        "is a pipe, socket or device, not a folder or file; pass folders or files",
                    ));
                }
                None => {
                    return Err(Error::Usage(format!(
                        "`{path}` does not exist under the project root {}; pass folders or files relative to it",
                        root.display()
                    )));
                }
            }
        }
        starts.push(root.join(&relative));
    }
    if starts.is_empty() {
        starts.push(root.to_path_buf());
    }
    let mut builder = ignore::WalkBuilder::new(&starts[0]);
    for start in &starts[1..] {
        builder.add(start);
    }
    builder
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let is_folder = entry.file_type().is_some_and(|kind| kind.is_dir());
            let name = entry.file_name().to_str().unwrap_or("");
            !(is_folder
                && entry.depth() > 0
                && (name.starts_with('.') || SKIPPED_FOLDERS.contains(&name)))
        });
    let mut scan = Scan::default();
    let mut candidates: Vec<(String, Language)> = Vec::new();
    for entry in builder.build().flatten() {
        if !entry.file_type().is_some_and(|kind| kind.is_file()) {
            continue;
        }
        let Some(relative) = entry
            .path()
            .strip_prefix(root)
            .ok()
            .and_then(Path::to_str)
            .map(str::to_owned)
        else {
            continue;
        };
        let file_name = relative.rsplit('/').next().unwrap_or(&relative);
        if let Some((name, _, _)) = TOOLCHAIN_FILES
            .iter()
            .find(|(name, _, _)| *name == file_name)
        {
            scan.toolchain
                .entry(name)
                .or_default()
                .push(relative.clone());
            continue;
        }
        let Some(language) = Language::of_file_name(file_name) else {
            continue;
        };
        if entry
            .metadata()
            .is_ok_and(|metadata| metadata.len() > MAX_FILE_BYTES)
        {
            scan.skipped += 1;
            continue;
        }
        candidates.push((relative, language));
    }
    candidates.sort();
    candidates.dedup();
    for paths in scan.toolchain.values_mut() {
        paths.sort();
        paths.dedup();
    }
    let observed = observe_in_parallel(&project, &candidates);
    for (file, (relative, language)) in observed.into_iter().zip(candidates) {
        match file {
            Some(observations) => scan.files.push(ScannedFile {
                relative,
                language,
                observations,
            }),
            None => scan.skipped += 1,
        }
    }
    Ok(scan)
}

/// Reads and observes `candidates` on all available cores; each result is `None` when the file
/// was left out (unreadable, binary, not UTF-8, generated). Results keep the input order.
fn observe_in_parallel(
    project: &ProjectDir,
    candidates: &[(String, Language)],
) -> Vec<Option<FileObservations>> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let chunk = candidates.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = candidates
            .chunks(chunk)
            .map(|slice| {
                let worker = scope.spawn(move || {
                    slice
                        .iter()
                        .map(|(relative, language)| read_and_observe(project, relative, *language))
                        .collect::<Vec<_>>()
                });
                (worker, slice.len())
            })
            .collect();
        // A worker that panicked leaves its files out rather than shifting the others' results.
        workers
            .into_iter()
            .flat_map(|(worker, length)| {
                worker
                    .join()
                    .unwrap_or_else(|_| std::iter::repeat_with(|| None).take(length).collect())
            })
            .collect()
    })
}

fn read_and_observe(
    project: &ProjectDir,
    relative: &str,
    language: Language,
) -> Option<FileObservations> {
    let (bytes, _) = project.read(relative, MAX_FILE_BYTES).ok()??;
    if bytes[..bytes.len().min(8000)].contains(&0) {
        return None;
    }
    let source = std::str::from_utf8(&bytes).ok()?;
    if is_generated(source) {
        return None;
    }
    Some(observe_file(language, relative, source))
}

/// Whether the file says it is generated in its first five lines (`@generated`, Go's
/// `Code generated … DO NOT EDIT.`).
fn is_generated(source: &str) -> bool {
    source
        .lines()
        .take(5)
        .any(|line| line.contains("@generated") || line.contains("DO NOT EDIT"))
}
