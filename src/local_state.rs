//! The machine-local folder `<config folder>/local/`: usage counts, the review ledger, the
//! activity log, the writer's output stats, the memo of the last no-op `generate`, and the MCP
//! server's snapshot of parsed items, stored relevance index and remembered skill screening
//! describe one machine and must never reach git. This module names the folder's files, writes
//! its caches in the background, and makes the folder ignore itself with its own `.gitignore`,
//! so it stays out of git even when the managed `.gitignore` block is off (the default).

use std::sync::{Mutex, OnceLock};

use crate::confined_fs::ProjectDir;
use crate::error::Result;
use crate::project::Project;

/// The name of the ignore file inside the machine-local folder.
pub(crate) const IGNORE_FILE: &str = ".gitignore";

/// What the folder's ignore file holds: a comment saying why, and `*` (git then ignores every
/// file in the folder, the ignore file included).
const IGNORE_TEXT: &str =
    "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n";

/// The project-relative path of the file `name` in the machine-local folder: `.ai-rulez/local/`
/// for a project configured by a root `ai-rulez.toml` too.
#[must_use]
pub(crate) fn path(project: &Project, name: &str) -> String {
    format!("{}/local/{name}", crate::memory::base_folder(project))
}

/// Makes sure the machine-local folder holds its ignore file; a file already there (ours or a
/// person's) is kept as it is. Call before writing any file of the folder.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O.
pub(crate) fn keep_out_of_git(project: &Project) -> Result<()> {
    let folder = path(project, "");
    keep_folder_out_of_git(&project.dir, folder.trim_end_matches('/'))
}

/// Makes sure the machine-local folder `local_folder` (project-relative, e.g.
/// `.ai-rulez/local`) holds its ignore file, for writers that have the project's folder but no
/// loaded project (`ai-rulez import`); a file already there is kept as it is.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O.
pub(crate) fn keep_folder_out_of_git(dir: &ProjectDir, local_folder: &str) -> Result<()> {
    let ignore = format!("{local_folder}/{IGNORE_FILE}");
    if dir.info(&ignore)?.is_some() {
        return Ok(());
    }
    match dir.create_new(&ignore, IGNORE_TEXT.as_bytes(), 0o644) {
        Ok(()) => Ok(()),
        // Another process created it between the look and the write: it is there, as wanted.
        Err(_) if dir.info(&ignore)?.is_some() => Ok(()),
        Err(error) => Err(error),
    }
}

/// What names the running binary in the machine-local caches (the snapshot of parsed items,
/// the stored relevance index): its version, and the size, modification and status-change
/// times and inode of its executable, so a cache written by any other build (whose parser or
/// index may differ) is never taken for this one's. Looked at once, on first use (`run` asks at
/// start, before a later upgrade in place could change what the path names); on Linux through
/// `/proc/self/exe`, which names the running file even after it was replaced. `None` when the
/// executable cannot be looked at (then no cache is read or written).
pub(crate) fn binary_identity() -> Option<&'static str> {
    static IDENTITY: OnceLock<Option<String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            #[cfg(target_os = "linux")]
            let executable = std::path::PathBuf::from("/proc/self/exe");
            #[cfg(not(target_os = "linux"))]
            let executable = std::env::current_exe().ok()?;
            let metadata = fs_err::metadata(executable).ok()?;
            let since_epoch = |time: std::io::Result<std::time::SystemTime>| {
                let elapsed = time.ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
                Some(format!(
                    "{}.{:09}",
                    elapsed.as_secs(),
                    elapsed.subsec_nanos()
                ))
            };
            let modified = since_epoch(metadata.modified())?;
            #[cfg(unix)]
            let (changed, inode) = {
                use std::os::unix::fs::MetadataExt as _;
                (
                    format!("{}.{:09}", metadata.ctime(), metadata.ctime_nsec()),
                    metadata.ino(),
                )
            };
            #[cfg(not(unix))]
            let (changed, inode) = (String::from("-"), 0);
            Some(format!(
                "{} {} {modified} {changed} {inode}",
                env!("CARGO_PKG_VERSION"),
                metadata.len(),
            ))
        })
        .as_deref()
}

/// A checksum of `bytes` (16 hex digits) for the machine-local caches, so that damage (a
/// flipped bit, a cut, an edit) makes a cache be ignored rather than trusted. Quick (foldhash,
/// several GB/s), not a defence against a forger, and stable only within one build, which is
/// enough: a cache names the build that wrote it ([`binary_identity`]).
pub(crate) fn checksum(bytes: &[u8]) -> String {
    use std::hash::BuildHasher as _;
    let state = foldhash::quality::FixedState::with_seed(0x6169_2d72_756c_657a);
    format!("{:016x}", state.hash_one(bytes))
}

/// The bytes of a machine-local cache file of `kind` (such as `parsed items`) holding `body`:
/// the header line `ai-rulez <kind> 1 <binary identity> [<key> ]<checksum of body>`, then
/// `body`. `key` (no blanks or line breaks; empty for none) says what the body is for, such as
/// the digest of the items an index covers. `None` when the running executable cannot be
/// looked at (then no cache is written).
pub(crate) fn framed(kind: &str, key: &str, body: &[u8]) -> Option<Vec<u8>> {
    let identity = binary_identity()?;
    let key = if key.is_empty() {
        String::new()
    } else {
        format!("{key} ")
    };
    let header = format!("ai-rulez {kind} 1 {identity} {key}{}\n", checksum(body));
    let mut bytes = Vec::with_capacity(header.len() + body.len());
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(body);
    Some(bytes)
}

/// The key and body of `bytes`, a cache file of `kind` that [`framed`] made in this build;
/// `None` when it was written by another build, is of another kind, or its body does not have
/// the checksum its header names (cut, damaged or edited).
pub(crate) fn unframed<'b>(kind: &str, bytes: &'b [u8]) -> Option<(&'b str, &'b [u8])> {
    let start = format!("ai-rulez {kind} 1 {} ", binary_identity()?);
    let rest = bytes.strip_prefix(start.as_bytes())?;
    let newline = rest.iter().position(|byte| *byte == b'\n')?;
    let fields = std::str::from_utf8(&rest[..newline]).ok()?;
    let (key, sum) = fields.rsplit_once(' ').unwrap_or(("", fields));
    let body = &rest[newline + 1..];
    (sum == checksum(body)).then_some((key, body))
}

/// Cache writers still running (see [`write_in_background`]), each with the path it writes.
static BACKGROUND_WRITERS: Mutex<Vec<(String, std::thread::JoinHandle<()>)>> =
    Mutex::new(Vec::new());

/// Runs `write`, which writes the machine-local cache file `path`, on a thread of its own at
/// the lowest scheduling priority, so the call that needed the cached work is answered first.
/// A writer of the same path still running is waited for first (by the new thread), so two
/// writers of one file never share its temporary file. [`finish_background_writes`] waits for
/// it.
pub(crate) fn write_in_background(path: &str, write: impl FnOnce() + Send + 'static) {
    let mut writers = BACKGROUND_WRITERS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    writers.retain(|(_, writer)| !writer.is_finished());
    let previous = writers
        .iter()
        .position(|(writing, _)| writing == path)
        .map(|position| writers.swap_remove(position).1);
    let name = path.rsplit('/').next().unwrap_or(path).to_owned();
    let spawned = std::thread::Builder::new().name(name).spawn(move || {
        lower_this_threads_priority();
        if let Some(previous) = previous {
            previous.join().ok();
        }
        write();
    });
    if let Ok(handle) = spawned {
        writers.push((path.to_owned(), handle));
    }
}

/// Waits for the writers [`write_in_background`] started, so a server whose input ends leaves
/// complete caches (each is written to a temporary file and renamed, so exiting without waiting
/// would leave none, never a torn one).
pub(crate) fn finish_background_writes() {
    let writers = std::mem::take(
        &mut *BACKGROUND_WRITERS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner),
    );
    for (_, writer) in writers {
        writer.join().ok();
    }
}

/// The project-relative path of the file `name` in the machine-local folder of the project
/// whose config folder is `config_dir` (project-relative, e.g. `.ai-rulez`).
pub(crate) fn path_in(config_dir: &str, name: &str) -> String {
    format!("{config_dir}/local/{name}")
}

/// Writes the machine-local file `path` (project-relative, directly in a machine-local folder)
/// atomically, after making its folder ignore itself.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O.
pub(crate) fn write_file(dir: &ProjectDir, path: &str, bytes: &[u8]) -> Result<()> {
    let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
    keep_folder_out_of_git(dir, folder)?;
    dir.write(path, bytes, 0o644)
}

/// Gives the calling thread the lowest scheduling priority (Linux: `setpriority` on the
/// thread id, which affects that thread only); elsewhere it runs as it is.
pub(crate) fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19).ok();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cache_write_removes_only_temporaries_too_old_to_belong_to_a_write_in_progress() {
        let root = tempfile::tempdir().expect("temporary folder");
        let local = root.path().join(".ai-rulez/local");
        fs_err::create_dir_all(&local).expect("create local folder");
        let old = crate::confined_fs::temporary::fresh_name("snapshot.jsonl");
        let young = crate::confined_fs::temporary::fresh_name("snapshot.jsonl");
        for name in [old.as_str(), young.as_str(), "notes.tmp"] {
            fs_err::write(local.join(name), b"half").expect("write");
        }
        let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_hours(1);
        for name in [old.as_str(), "notes.tmp"] {
            std::fs::File::options()
                .write(true)
                .open(local.join(name))
                .and_then(|file| file.set_modified(an_hour_ago))
                .expect("age the file");
        }
        let dir = ProjectDir::open(root.path()).expect("open");
        write_file(&dir, ".ai-rulez/local/snapshot.jsonl", b"whole\n").expect("write");
        let names: Vec<String> = dir
            .list(".ai-rulez/local")
            .expect("list")
            .expect("the folder is there")
            .into_iter()
            .map(|entry| entry.name)
            .collect();
        let mut expected = vec![
            ".gitignore".to_owned(),
            young,
            "notes.tmp".to_owned(),
            "snapshot.jsonl".to_owned(),
        ];
        expected.sort();
        assert_eq!(names, expected);
    }
}
