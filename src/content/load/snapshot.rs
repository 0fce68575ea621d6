//! The machine-local snapshot of parsed items (`.ai-rulez/local/parsed-items`): every item the
//! MCP server parsed, with the facts of the file it came from. A server started on an unchanged
//! tree takes those items over instead of reading and parsing every file again, which at
//! 100,000 rules is most of the time before its first reply.
//!
//! Correctness first, as for the output stats (`crate::write::stat_cache`):
//! - an item is taken over only while its file's size, modification and status-change times and
//!   inode all match what was recorded (no program can set the status-change time back);
//! - a file is recorded only when it last changed at least [`SETTLED`] before the load that read
//!   it began, so an edit in the same tick of a coarse file-system clock (git's "racily clean"
//!   case) cannot go unseen: such a file is parsed again by the next server;
//! - the header names the binary that wrote the snapshot (its version, size and modification
//!   time), so any other build, whose parser may differ, ignores it;
//! - a missing, damaged or foreign snapshot is ignored, and then every file is read.
//!
//! It lives in `.ai-rulez/local/`, which is never committed (an inode means nothing on another
//! machine).
//!
//! Format: the header line `ai-rulez parsed items 1 <version> <binary bytes> <binary mtime s>
//! <binary mtime ns>`, then one JSON object per item and line: `{"stamp":{...},"item":{...}}`.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::{Item, Stamp};
use crate::confined_fs::ProjectDir;
use crate::error::Result;

/// The snapshot's file name in the machine-local folder.
pub(crate) const FILE_NAME: &str = "parsed-items";

/// Fewest files a load must have parsed for the server to write a snapshot: below it, parsing
/// them again at the next start costs less than writing the whole snapshot.
pub(crate) const LEAST_PARSED: usize = 512;

/// Largest snapshot read (1 GiB), so a stray file cannot exhaust memory.
const MAX_BYTES: u64 = 1024 * 1024 * 1024;

/// How long before the load began a file must have last changed to be recorded (2 s: the
/// coarsest common file-system clock, FAT's, ticks every 2 seconds).
const SETTLED: (i64, i64) = (2, 0);

/// One line of the snapshot as written.
#[derive(Serialize)]
struct LineOut<'a> {
    stamp: &'a Stamp,
    item: &'a Item,
}

/// One line of the snapshot as read.
#[derive(Deserialize)]
struct LineIn {
    stamp: Stamp,
    item: Item,
}

/// The project-relative path of the snapshot of the project whose config folder is
/// `config_dir` (project-relative, e.g. `.ai-rulez`).
pub(super) fn path_in(config_dir: &str) -> String {
    format!("{config_dir}/local/{FILE_NAME}")
}

/// The header line this binary writes and accepts; `None` when the running executable cannot
/// be looked at (then no snapshot is read or written).
fn header() -> Option<&'static str> {
    static HEADER: OnceLock<Option<String>> = OnceLock::new();
    HEADER
        .get_or_init(|| {
            crate::local_state::binary_identity()
                .map(|identity| format!("ai-rulez parsed items 1 {identity}"))
        })
        .as_deref()
}

/// The items recorded in the snapshot at `path` (project-relative), with the stamp of the file
/// each came from, in the order written; `None` when there is no snapshot, or it is unreadable,
/// damaged, or written by another build. Lines are decoded on every core.
pub(super) fn read(dir: &ProjectDir, path: &str) -> Option<Vec<(Stamp, Item)>> {
    let header = header()?;
    let (bytes, _) = dir.read(path, MAX_BYTES).ok()??;
    let text = std::str::from_utf8(&bytes).ok()?;
    let mut lines = text.lines();
    if lines.next()? != header {
        return None;
    }
    let lines: Vec<&str> = lines.collect();
    let decoded =
        crate::parallel::map_in_order(&lines, |line| serde_json::from_str::<LineIn>(line).ok());
    decoded
        .into_iter()
        .map(|line| line.map(|line| (line.stamp, line.item)))
        .collect()
}

/// What a load leaves for the snapshot writer: where the snapshot goes and the stamps, by the
/// path each item shows, of the files settled enough to be recorded.
#[derive(Debug)]
pub(crate) struct PendingSnapshot {
    pub(super) path: String,
    pub(super) stamps: HashMap<String, Stamp>,
}

impl PendingSnapshot {
    /// The stamps of `stamps` that may be recorded for a load that began at `loaded_at`
    /// (seconds, nanoseconds since the epoch): files last changed at least [`SETTLED`] before.
    pub(super) fn settled(
        path: String,
        stamps: &HashMap<String, Stamp>,
        loaded_at: (i64, i64),
    ) -> Self {
        let settled_before = (loaded_at.0 - SETTLED.0, loaded_at.1);
        let stamps = stamps
            .iter()
            .filter(|(_, stamp)| stamp.modified < settled_before && stamp.changed < settled_before)
            .map(|(shown, stamp)| (shown.clone(), *stamp))
            .collect();
        Self { path, stamps }
    }

    /// Writes the snapshot of those of `items` (as loaded) whose file has a settled stamp,
    /// atomically, into the machine-local folder of the project behind `dir` (made to ignore
    /// itself first). Returns the number of items recorded.
    ///
    /// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O. Without a header
    /// (the running executable cannot be looked at) nothing is written and 0 is returned.
    pub(crate) fn write(&self, dir: &ProjectDir, items: &[Item]) -> Result<usize> {
        let Some(header) = header() else {
            return Ok(0);
        };
        let mut text = String::with_capacity(items.len() * 1024);
        text.push_str(header);
        text.push('\n');
        let mut recorded = 0;
        for item in items {
            let Some(stamp) = self.stamps.get(&item.source_path) else {
                continue;
            };
            let line = LineOut { stamp, item };
            // Every field is a string, number, list or map with string keys, so this cannot
            // fail; an item that somehow did is left out rather than failing the snapshot.
            let Ok(json) = serde_json::to_string(&line) else {
                continue;
            };
            text.push_str(&json);
            text.push('\n');
            recorded += 1;
        }
        let folder = self.path.rsplit_once('/').map_or("", |(folder, _)| folder);
        crate::local_state::keep_folder_out_of_git(dir, folder)?;
        dir.write(&self.path, text.as_bytes(), 0o644)?;
        Ok(recorded)
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
    fn only_files_settled_two_seconds_before_the_load_are_recorded() {
        let stamps: HashMap<String, Stamp> = [
            ("old.md", stamp((997, 0), (998, 400))),
            // Changed 1.9 s before the load began: an edit in the same tick could follow.
            ("recent-change.md", stamp((997, 0), (998, 600))),
            ("recent-write.md", stamp((999, 0), (997, 0))),
        ]
        .into_iter()
        .map(|(path, stamp)| (path.to_owned(), stamp))
        .collect();
        let pending = PendingSnapshot::settled("x".to_owned(), &stamps, (1_000, 500));
        let recorded: Vec<&str> = pending.stamps.keys().map(String::as_str).collect();
        assert_eq!(recorded, ["old.md"]);
    }
}
