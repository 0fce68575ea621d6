//! The disk side of the writer, on the confined file layer: reading outputs and the manifest,
//! and applying the computed operations in an order that a crash at any instant cannot turn into
//! a lost file or a forgotten one (see [`perform_all`]).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use crate::confined_fs::{self, Info, ProjectDir};
use crate::error::{Error, Result};
use crate::hash::sha256_tagged;
use crate::manifest::Manifest;
use crate::plan::Content;

use super::stat_cache::{Cursor, Observed, Stats};
use super::{Operation, Settings};

/// Largest file ai-rulez reads at an output path (64 MiB): nothing it generates comes close, and
/// the cap keeps a stray device or huge file from exhausting memory.
pub(super) const MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Reads the manifest of the last run, merged with the journal an interrupted run left (every
/// digest either recorded counts as ours). Entries naming paths no preset writes (a hand-edited
/// or hostile manifest) are dropped with a warning, so they can never lead to a read or a delete.
///
/// Returns (records, warnings, whether a journal was found).
pub(super) fn read_manifest(settings: &Settings<'_>) -> Result<(Manifest, Vec<String>, bool)> {
    let mut manifest = match read_text(settings.dir, &settings.manifest_path)? {
        None => Manifest::default(),
        Some(text) => Manifest::parse(&settings.manifest_path, &text)?,
    };
    let journal_path = journal_path(&settings.manifest_path);
    let journal = read_text(settings.dir, &journal_path)?;
    let interrupted = journal.is_some();
    if let Some(text) = journal {
        // A journal that does not parse was cut by a crash of its own write's rename, which
        // cannot happen (the rename is atomic), or was edited; either way it adds nothing.
        if let Ok(pending) = Manifest::parse(&journal_path, &text) {
            manifest.absorb(pending);
        }
    }
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
    manifest.sections_unterminated.retain(|path| keep(path));
    manifest.merged.retain(|path, _| keep(path));
    manifest.alternates.retain(|path, _| keep(path));
    dropped.sort();
    dropped.dedup();
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
    Ok((manifest, warnings, interrupted))
}

/// The journal of a run in progress, next to the manifest: `.generated-manifest.json` →
/// `.generated-manifest.pending.json`.
pub(super) fn journal_path(manifest_path: &str) -> String {
    match manifest_path.strip_suffix(".json") {
        Some(stem) => format!("{stem}.pending.json"),
        None => format!("{manifest_path}.pending"),
    }
}

fn read_text(dir: &ProjectDir, relative: &str) -> Result<Option<String>> {
    Ok(dir
        .read(relative, MAX_OUTPUT_BYTES)?
        .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned()))
}

/// Reads a project file that may be absent: (bytes, permission bits).
///
/// Errors: [`Error::Refused`] for a symlink on the way or at the path, for anything but a
/// regular file, or for a file over [`MAX_OUTPUT_BYTES`]; other I/O errors.
pub(super) fn read_output(dir: &ProjectDir, relative: &str) -> Result<Option<(Vec<u8>, u32)>> {
    dir.read(relative, MAX_OUTPUT_BYTES)
}

/// What a run knows of one output path.
pub(super) struct Seen<'a, 'r> {
    /// (bytes, permission bits) on disk, `None` when absent. For a file the stat record
    /// proves to hold exactly the planned bytes, those bytes (borrowed from the plan) stand for
    /// the file, which is not read.
    pub found: Result<Option<(Cow<'a, [u8]>, u32)>>,
    /// What to record for the file, when it holds exactly the planned bytes and has settled:
    /// the recorded facts themselves (borrowed) when they still hold, else new ones.
    pub observed: Option<Observed<'r>>,
    /// `sha256:<hex>` of the planned bytes of a whole-file output (taken here, on the reading
    /// threads, once: the record and the manifest both need it), `None` for merged entries.
    pub planned_digest: Option<String>,
}

/// What is on disk at every output path, on two threads: the work is system calls, and a large
/// project has hundreds of thousands of outputs. A whole-file output whose entry in `stats`
/// still matches the file (see [`super::stat_cache`]) and names the planned bytes is not read.
/// `outputs` and `stats` are sorted by path. `now` is the clock when the run started (seconds,
/// nanoseconds). Results are in the order of `outputs`.
pub(super) fn read_outputs<'a, 'r>(
    dir: &ProjectDir,
    outputs: &[&'a crate::plan::Output],
    stats: &Stats<'r>,
    now: (i64, i64),
) -> Vec<Seen<'a, 'r>> {
    crate::parallel::map_runs_in_order(outputs, |run| {
        // Outputs come sorted by path, so a run visits each folder once: its handle is opened
        // once for all the files in it that only need a look at their stats, and the record
        // is walked alongside.
        let mut folder: Option<(&str, Option<ProjectDir>)> = None;
        let mut cursor = run
            .first()
            .map(|first| Cursor::starting_at(stats, &first.path));
        run.iter()
            .map(|output| {
                let recorded = cursor.as_mut().and_then(|cursor| cursor.find(&output.path));
                see_output(dir, output, recorded, now, &mut folder)
            })
            .collect()
    })
}

/// The facts of the output at `path`, looked up through `folder` (the handle of the last
/// folder visited, replaced when `path` lies in another); `None` when they cannot be had (the
/// caller then reads the file, which reports any problem).
fn output_info<'p>(
    dir: &ProjectDir,
    path: &'p str,
    folder: &mut Option<(&'p str, Option<ProjectDir>)>,
) -> Option<Info> {
    let Some((parent, name)) = path.rsplit_once('/') else {
        return dir.info(path).ok().flatten();
    };
    if folder.as_ref().is_none_or(|(open, _)| *open != parent) {
        *folder = Some((parent, dir.folder(parent).ok().flatten()));
    }
    let (_, handle) = folder.as_ref()?;
    handle.as_ref()?.info(name).ok().flatten()
}

fn see_output<'a, 'r>(
    dir: &ProjectDir,
    output: &'a crate::plan::Output,
    recorded: Option<&Observed<'r>>,
    now: (i64, i64),
    folder: &mut Option<(&'a str, Option<ProjectDir>)>,
) -> Seen<'a, 'r> {
    let planned: Option<&'a [u8]> = match &output.content {
        Content::Markdown(markdown) => Some(&markdown.bytes),
        Content::Verbatim { bytes, .. } => Some(bytes),
        Content::Entries { .. } => None,
    };
    let planned_digest = planned.map(sha256_tagged);
    if let (Some(planned), Some(digest), Some(recorded)) =
        (planned, planned_digest.as_deref(), recorded)
        && *recorded.digest == *digest
        && let Some(info) = output_info(dir, &output.path, folder)
        && recorded.matches(&info)
    {
        return Seen {
            found: Ok(Some((Cow::Borrowed(planned), info.mode))),
            observed: Some(recorded.clone()),
            planned_digest,
        };
    }
    match dir.read_with_info(&output.path, MAX_OUTPUT_BYTES) {
        Ok(Some((bytes, info))) => {
            let observed = planned
                .zip(planned_digest.as_ref())
                .filter(|(planned, _)| *planned == bytes.as_slice())
                .and_then(|(_, digest)| Observed::of(&info, digest.clone(), now));
            Seen {
                found: Ok(Some((Cow::Owned(bytes), info.mode))),
                observed,
                planned_digest,
            }
        }
        Ok(None) => Seen {
            found: Ok(None),
            observed: None,
            planned_digest,
        },
        Err(error) => Seen {
            found: Err(error),
            observed: None,
            planned_digest,
        },
    }
}

/// The permission bits of a file, if one is there.
pub(super) fn current_mode(dir: &ProjectDir, relative: &str) -> Option<u32> {
    dir.info(relative).ok().flatten().map(|info| info.mode)
}

/// Writes a file ai-rulez owns outright (the lock, a hook) atomically with mode 0644.
///
/// Errors: a symlink on the way, or I/O errors.
pub(crate) fn write_file(dir: &ProjectDir, relative: &str, bytes: &[u8]) -> Result<()> {
    dir.write(relative, bytes, 0o644)
}

/// Applies every operation so that a `kill -9` at any instant leaves a state the next run
/// repairs to the exact clean result:
///
/// 1. the journal (every file and entry of the old manifest and of the new one) is installed
///    first, so from then on every file this run may touch is provably ours; then the copies
///    `--force` makes of files it replaces (`<path>.orig`) are created, never over a file;
/// 2. outputs are written (temporary file + rename each, on two threads);
/// 3. orphans are deleted — before the new manifest is installed, which no longer lists them;
/// 4. `.gitignore` and the new manifest are installed;
/// 5. the journal is removed.
///
/// `journal` is the text of step 1, `None` when nothing is to be done.
pub(super) fn perform_all(
    settings: &Settings<'_>,
    operations: &[Operation<'_>],
    journal: Option<&str>,
) -> Result<()> {
    let journal_path = journal_path(&settings.manifest_path);
    // What would stop the run partway (a name too long, a folder it may not write in) stops it
    // here instead, before the first write. A run with nothing to do writes nothing, so a
    // read-only checkout that is up to date still passes.
    if !operations.is_empty() {
        check_writable(settings, operations)?;
    }
    let done = std::sync::Mutex::new(Vec::new());
    let applied = apply_in_order(settings, operations, journal, &journal_path, &done);
    applied.map_err(|cause| {
        let done = done
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if done.is_empty() {
            return cause;
        }
        Error::PartlyApplied {
            cause: Box::new(cause),
            done,
        }
    })
}

/// Checks that every path `operations` touch (and the journal) could be written, as
/// [`ProjectDir::check_writable`] does: [`perform_all`] calls it before the first write, and a
/// dry run calls it so it refuses what the real run would.
///
/// Errors: [`Error::Refused`] naming the first path that could not be written.
pub(super) fn check_writable(settings: &Settings<'_>, operations: &[Operation<'_>]) -> Result<()> {
    let journal_path = journal_path(&settings.manifest_path);
    let touched = operations.iter().map(|operation| match operation {
        Operation::Write { path, .. }
        | Operation::Delete { path }
        | Operation::SaveOriginal { path, .. } => path.as_str(),
    });
    settings
        .dir
        .check_writable(std::iter::once(journal_path.as_str()).chain(touched))
}

/// The steps of [`perform_all`], each output path written or deleted added to `done`.
fn apply_in_order(
    settings: &Settings<'_>,
    operations: &[Operation<'_>],
    journal: Option<&str>,
    journal_path: &str,
    done: &std::sync::Mutex<Vec<String>>,
) -> Result<()> {
    let dir = settings.dir;
    let note_done = |path: &str| {
        done.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(path.to_owned());
    };
    if let Some(journal) = journal {
        dir.write(journal_path, journal.as_bytes(), 0o644)?;
    }
    // Copies of files `--force` replaces come first, created only where nothing exists, so a
    // failure here stops the run before anything is overwritten.
    for operation in operations {
        if let Operation::SaveOriginal { path, bytes, mode } = operation {
            dir.create_new(path, bytes, *mode)?;
            note_done(path);
        }
    }
    let bookkeeping = |path: &str| path == settings.manifest_path || path == ".gitignore";
    let writes: Vec<(&str, &[u8], u32)> = operations
        .iter()
        .filter_map(|operation| match operation {
            Operation::Write { path, bytes, mode } if !bookkeeping(path) => {
                Some((path.as_str(), bytes.as_ref(), *mode))
            }
            _ => None,
        })
        .collect();
    write_on_two_threads(dir, &writes, &note_done)?;
    for operation in operations {
        if let Operation::Delete { path } = operation
            && !bookkeeping(path)
        {
            dir.remove_file(path)?;
            dir.remove_empty_parents(path);
            note_done(path);
        }
    }
    for name in [".gitignore", settings.manifest_path.as_str()] {
        for operation in operations {
            match operation {
                Operation::Write { path, bytes, mode } if path == name => {
                    dir.write(path, bytes, *mode)?;
                    note_done(path);
                }
                Operation::Delete { path } if path == name => {
                    dir.remove_file(path)?;
                    note_done(path);
                }
                _ => {}
            }
        }
    }
    if journal.is_some() || dir.info(journal_path)?.is_some() {
        dir.remove_file(journal_path)?;
    }
    Ok(())
}

fn write_on_two_threads(
    dir: &ProjectDir,
    writes: &[(&str, &[u8], u32)],
    note_done: &(dyn Fn(&str) + Sync),
) -> Result<()> {
    let half = writes.len().div_ceil(2);
    let (first, second) = writes.split_at(half);
    let record = confined_fs::record::current();
    std::thread::scope(|scope| -> Result<()> {
        let worker = scope.spawn(|| -> Result<()> {
            confined_fs::record::carry(record, || {
                for (path, bytes, mode) in second {
                    dir.write(path, bytes, *mode)?;
                    note_done(path);
                }
                Ok(())
            })
        });
        for (path, bytes, mode) in first {
            dir.write(path, bytes, *mode)?;
            note_done(path);
        }
        worker.join().unwrap_or_else(|_| {
            Err(Error::Usage(
                "a writer thread stopped unexpectedly".to_owned(),
            ))
        })
    })
}

/// Temporary files an interrupted run may have left next to `paths` (see
/// [`confined_fs::temporary_path`]) that are still there, as sorted project-relative paths.
/// Each folder of `paths` is listed once; its entries that are temporary files of one of the
/// named files count. Callers hold the project lock, which every writer of these files takes,
/// so none of them belongs to a write in progress.
///
/// Errors: I/O errors other than absence.
pub(super) fn leftover_temporaries<'a>(
    dir: &ProjectDir,
    paths: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>> {
    let mut targets_by_folder: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for path in paths {
        let (folder, name) = path.rsplit_once('/').unwrap_or(("", path));
        targets_by_folder
            .entry(folder)
            .or_default()
            .insert(confined_fs::temporary::target_part_of(name));
    }
    let mut found = Vec::new();
    for (folder, targets) in targets_by_folder {
        let entries = match dir.list(folder) {
            Ok(Some(entries)) => entries,
            Ok(None) | Err(Error::Refused { .. }) => continue,
            Err(error) => return Err(error),
        };
        for entry in entries {
            let is_leftover = entry.kind == confined_fs::EntryKind::File
                && entry.exact_name
                && confined_fs::temporary::target_part(&entry.name)
                    .is_some_and(|target| targets.contains(target));
            if is_leftover {
                found.push(if folder.is_empty() {
                    entry.name
                } else {
                    format!("{folder}/{}", entry.name)
                });
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Checks, for an output about to be created at `path`, that each of its folders that exists
/// is a folder (see [`ProjectDir::not_a_folder_on_the_way`]): finding a file in the way only
/// when writing would leave the run half done.
///
/// Errors: [`Error::Refused`] naming the output and the file in the way; I/O errors.
pub(super) fn check_folders_of(
    dir: &ProjectDir,
    path: &str,
    seen: &mut std::collections::HashSet<String>,
) -> Result<()> {
    match dir.not_a_folder_on_the_way(path, seen)? {
        None => Ok(()),
        Some(folder) => Err(Error::refused(
            path,
            format!(
                "{folder} is a file where this output needs a folder; nothing was written. Move {folder} away, or change what puts an output under it"
            ),
        )),
    }
}
