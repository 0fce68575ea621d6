//! The machine-local snapshot of parsed items (`.ai-rulez/local/parsed-items`): after a load
//! of the MCP server that parsed at least [`LEAST_PARSED`] files, every item of that load whose
//! parse the cache remembers, with the facts of its file. A server started on an unchanged tree
//! takes those items over instead of reading and parsing every file again, which at 100,000
//! rules is most of the time before its first reply.
//!
//! Correctness first, as for the output stats (`crate::write::stat_cache`):
//! - an item is taken over only while its file's size, modification and status-change times and
//!   inode all match what was recorded (no program can set the status-change time back);
//! - the parse cache remembers a file only when it last changed at least 2 s before the load
//!   that parsed it began (`Stamp::is_settled_at`), so an edit in the same tick of a coarse
//!   file-system clock (git's "racily clean" case) cannot go unseen: such a file is parsed again;
//! - the header names the binary that wrote the snapshot
//!   ([`crate::local_state::binary_identity`]), so any other build, whose parser may differ,
//!   ignores it;
//! - a missing, cut, damaged (its checksum differs) or foreign snapshot is ignored, and then
//!   every file is read.
//!
//! The items are trusted as this build made them: the checksum catches damage, not a forger.
//! Interpreting each record again would run every frontmatter check once more (compiling every
//! glob) and cost about half a second at 100,000 rules; whoever can write this file can write
//! the rule files beside it.
//!
//! It lives in `.ai-rulez/local/`, which is never committed (an inode means nothing on another
//! machine).
//!
//! Format: the header line `ai-rulez parsed items 1 <binary identity> <checksum of the rest>`
//! ([`crate::local_state::framed`]), then one JSON object per item and line:
//! `{"stamp":{...},"item":{...}}`.

use std::collections::HashMap;

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

/// One line of the snapshot as written: the item as loaded (skill resources left out), with
/// the stamp of its file.
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
    crate::local_state::path_in(config_dir, FILE_NAME)
}

/// The kind of cache the header line names.
const KIND: &str = "parsed items";

/// Records decoded at once (on every core); a damaged line stops the read after at most this
/// many, so a file of millions of bad lines costs no memory.
const LINES_PER_BATCH: usize = 32_768;

/// The items recorded in the snapshot at `path` (project-relative), with the stamp of the file
/// each came from, in the order written; `None` when there is no snapshot, or it is unreadable,
/// damaged (its checksum does not match, or a line is not a record), holds more file bytes than
/// a load may read ([`crate::limits::MAX_TREE_BYTES`]), or was written by another build. Lines
/// are decoded on every core.
pub(super) fn read(dir: &ProjectDir, path: &str) -> Option<Vec<(Stamp, Item)>> {
    let (bytes, _) = dir.read(path, MAX_BYTES).ok()??;
    let (_, body) = crate::local_state::unframed(KIND, &bytes)?;
    let body = std::str::from_utf8(body).ok()?;
    let mut items = Vec::new();
    let mut file_bytes: u64 = 0;
    let mut lines = body.lines().peekable();
    while lines.peek().is_some() {
        let batch: Vec<&str> = lines.by_ref().take(LINES_PER_BATCH).collect();
        let decoded =
            crate::parallel::map_in_order(&batch, |line| serde_json::from_str::<LineIn>(line).ok());
        for record in decoded {
            let LineIn { stamp, item } = record?;
            file_bytes = file_bytes.saturating_add(stamp.len);
            if file_bytes > crate::limits::MAX_TREE_BYTES {
                return None;
            }
            items.push((stamp, item));
        }
    }
    Some(items)
}

/// What a load leaves for the snapshot writer: where the snapshot goes and the stamps, by the
/// path each item shows, of the files whose parses the cache remembers.
#[derive(Debug)]
pub(crate) struct PendingSnapshot {
    pub(super) path: String,
    pub(super) stamps: HashMap<String, Stamp>,
}

impl PendingSnapshot {
    /// The project-relative path the snapshot is written to.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The snapshot at `path` of the items whose files have `stamps` (by shown path; the parse
    /// cache remembers only settled stamps, see [`Stamp::is_settled_at`]).
    pub(super) fn of(path: String, stamps: &HashMap<String, Stamp>) -> Self {
        Self {
            path,
            stamps: stamps.clone(),
        }
    }

    /// Writes the snapshot of those of `items` (as loaded) whose file has a settled stamp,
    /// atomically, into the machine-local folder of the project behind `dir` (made to ignore
    /// itself first). Returns the number of items recorded.
    ///
    /// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O. Without a header
    /// (the running executable cannot be looked at) nothing is written and 0 is returned.
    pub(crate) fn write(&self, dir: &ProjectDir, items: &[Item]) -> Result<usize> {
        let mut text = String::with_capacity(items.len() * 1024);
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
        let Some(bytes) = crate::local_state::framed(KIND, "", text.as_bytes()) else {
            return Ok(0);
        };
        crate::local_state::write_file(dir, &self.path, &bytes)?;
        Ok(recorded)
    }
}
