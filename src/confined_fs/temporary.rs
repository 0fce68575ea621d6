//! Names of the temporary files an atomic write creates next to its target. Each write gets a
//! name of its own (`.ai-rulez-<target>-<writer>.tmp`), so two processes replacing one file at
//! once (two MCP servers refreshing a machine-local cache, which hold no project lock) can never
//! remove or install each other's half-written file: the last complete rename wins. The
//! `<target>` part (16 hex digits of the BLAKE3 hash of the target's name) lets a later run find
//! the leftovers of an interrupted write of a given file; the `<writer>` part (8 hex digits) is
//! new for every write.
//!
//! A write that is killed between creating its temporary file and renaming it leaves the file
//! behind. The first write of a process into a folder removes the temporaries there that are
//! older than [`STALE_SECONDS`] ([`sweep_stale_once`]); `generate`, which holds the project
//! lock, also reports and removes the younger ones next to its outputs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fd::OwnedFd;
use rustix::fs::AtFlags;

use super::{EntryKind, TEMP_PREFIX, TEMP_SUFFIX};

/// How old (seconds since its last write) a temporary file must be before a writer takes it
/// for the leftover of an interrupted write: some writers (the machine-local caches) hold no
/// project lock, so a younger one may belong to another process writing right now.
pub(crate) const STALE_SECONDS: i64 = 600;

/// The folders (absolute) this process has swept already.
static SWEPT_FOLDERS: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// Hex digits of the target part and of the writer part of a temporary file name.
const TARGET_DIGITS: usize = 16;
const WRITER_DIGITS: usize = 8;

/// Counts the temporary names this process made, so two names it makes never repeat.
static NAMES_MADE: AtomicU64 = AtomicU64::new(0);

/// The target part of the temporary file names of the file `name` (a bare file name): 16 hex
/// digits of the BLAKE3 hash of the name.
#[must_use]
pub(crate) fn target_part_of(name: &str) -> String {
    let digest = blake3::hash(name.as_bytes());
    digest.to_hex().as_str()[..TARGET_DIGITS].to_owned()
}

/// A fresh temporary file name for one write of the file `name` (a bare file name):
/// `.ai-rulez-<16 hex of the target>-<8 hex unique to this write>.tmp`, 39 bytes. The writer
/// part mixes the process id, the clock and a per-process counter, so writers in other
/// processes, in other pid namespaces sharing the folder, and on other threads all differ.
#[must_use]
pub(crate) fn fresh_name(name: &str) -> String {
    let made = NAMES_MADE.fetch_add(1, Ordering::Relaxed);
    let clock = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos());
    let mut hasher = blake3::Hasher::new();
    hasher.update(&std::process::id().to_le_bytes());
    hasher.update(&clock.to_le_bytes());
    hasher.update(&made.to_le_bytes());
    let writer = hasher.finalize();
    format!(
        "{TEMP_PREFIX}{}-{}{TEMP_SUFFIX}",
        target_part_of(name),
        &writer.to_hex().as_str()[..WRITER_DIGITS]
    )
}

/// Whether `entry` (a bare file name) is the name of a temporary file of some write of the
/// file `name` in the same folder.
#[must_use]
pub(crate) fn is_temporary_of(entry: &str, name: &str) -> bool {
    target_part(entry).is_some_and(|target| target == target_part_of(name))
}

/// Whether `entry` (a bare file name) has the shape of any ai-rulez temporary file name.
#[must_use]
pub(crate) fn is_temporary(entry: &str) -> bool {
    target_part(entry).is_some()
}

/// Removes, the first time this process writes into the folder `parent` (at the absolute
/// `folder`), the regular files there whose names are ai-rulez temporaries and that are older
/// than [`STALE_SECONDS`]. One listing per folder and process, and a `stat` only for names of
/// the temporary shape. Best effort: what cannot be listed or removed stays.
pub(super) fn sweep_stale_once(parent: &OwnedFd, folder: &Path) {
    {
        let mut swept = SWEPT_FOLDERS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !swept.get_or_insert_default().insert(folder.to_path_buf()) {
            return;
        }
    }
    let Ok(reader) = rustix::fs::Dir::read_from(parent) else {
        return;
    };
    let now = crate::file_times::now().0;
    for entry in reader.flatten() {
        let is_temporary_name =
            std::str::from_utf8(entry.file_name().to_bytes()).is_ok_and(is_temporary);
        if !is_temporary_name {
            continue;
        }
        let Ok(stat) = rustix::fs::statat(parent, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
        else {
            continue;
        };
        let info = super::info_of(&stat);
        if info.kind == EntryKind::File && now.saturating_sub(info.modified.0) > STALE_SECONDS {
            rustix::fs::unlinkat(parent, entry.file_name(), AtFlags::empty()).ok();
        }
    }
}

/// The target part of the temporary file name `entry`, or `None` when `entry` is not one. Both
/// shapes count: `.ai-rulez-<16 hex>-<8 hex>.tmp` and the older `.ai-rulez-<16 hex>.tmp` of
/// versions that gave every write of a file the same name. The hex digits are lower-case, as
/// ai-rulez writes them: a name with upper-case ones is someone else's file.
#[must_use]
pub(crate) fn target_part(entry: &str) -> Option<&str> {
    let middle = entry
        .strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))?;
    let (target, writer) = middle.split_once('-').unwrap_or((middle, ""));
    let hex = |part: &str, digits: usize| {
        part.len() == digits
            && part
                .bytes()
                .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
    };
    (hex(target, TARGET_DIGITS) && (writer.is_empty() || hex(writer, WRITER_DIGITS)))
        .then_some(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_write_gets_its_own_name_and_each_is_known_as_a_temporary_of_its_target() {
        let first = fresh_name("CLAUDE.md");
        let second = fresh_name("CLAUDE.md");
        assert_ne!(first, second);
        assert_eq!(first.len(), 39);
        assert!(is_temporary_of(&first, "CLAUDE.md"));
        assert!(is_temporary_of(&second, "CLAUDE.md"));
        assert!(!is_temporary_of(&first, "AGENTS.md"));
        assert!(is_temporary(&first));
        // The one name older versions gave every write of a file is still known as its own.
        let old_shape = format!(".ai-rulez-{}.tmp", target_part_of("CLAUDE.md"));
        assert!(is_temporary_of(&old_shape, "CLAUDE.md"));
        assert!(!is_temporary_of(&old_shape, "AGENTS.md"));
    }

    #[test]
    fn only_names_of_the_exact_shape_count_as_temporaries() {
        assert!(is_temporary(".ai-rulez-0123456789abcdef.tmp"));
        assert!(is_temporary(".ai-rulez-0123456789abcdef-89abcdef.tmp"));
        assert!(!is_temporary(".ai-rulez-0123456789abcdef-89abcdef.md"));
        assert!(!is_temporary(".ai-rulez-notes.tmp"));
        assert!(!is_temporary(".ai-rulez-0123456789abcdef-short.tmp"));
        assert!(!is_temporary("ai-rulez-0123456789abcdef.tmp"));
        assert!(!is_temporary(".ai-rulez-0123456789abcdef-0123ABCD.tmp"));
        assert!(!is_temporary(".ai-rulez-0123456789ABCDEF-22222222.tmp"));
    }
}
