//! The machine-local record of generated files whose bytes a run has compared
//! (`.ai-rulez/local/output-stats`): for each, the size, modification and status-change times
//! and inode it had, and the digest of what it held. A later run that finds a file with exactly
//! those facts, and plans exactly those bytes for it, knows the file is unchanged without
//! reading it; a project of 100,000 rules would otherwise read 200,000 files on every no-op run.
//!
//! Correctness first. A file is trusted only while every fact matches, and the status-change
//! time moves on every write, rename and `touch` (no program can set it back). A fact is only
//! recorded when the file was last changed at least [`SETTLED`] before it was observed, so an
//! edit in the same clock tick as the observation (git's "racily clean" case, on a file system
//! whose times are whole seconds) cannot go unseen: such a file is compared byte for byte again
//! on the next run, and recorded then. The record is a hint: a missing, damaged or foreign file
//! is ignored (every output is read), and it lives in `.ai-rulez/local/`, which is never
//! committed (an inode means nothing on another machine).
//!
//! Format, one line per file after a header line `ai-rulez output stats 1`, fields separated by
//! tabs, the path last: `sha256:<hex> size mtime_s mtime_ns ctime_s ctime_ns inode path`.

use std::collections::HashMap;

use crate::confined_fs::{EntryKind, Info, ProjectDir};

/// Fewest outputs for which the record is kept: reading a few hundred files takes a few
/// milliseconds, less than reading and writing the record, and a small project is spared a file
/// it does not need.
pub(super) const LEAST_OUTPUTS: usize = 512;

/// The header line that names the format.
const HEADER: &str = "ai-rulez output stats 1";

/// Largest record read (256 MiB: about a million outputs).
const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// How long before its observation a file must have last changed for its facts to be recorded
/// (2 s: the coarsest common file-system clock, FAT's, ticks every 2 seconds).
const SETTLED: (i64, i64) = (2, 0);

/// What a file was when its content was last compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Observed {
    /// `sha256:<hex>` of the bytes it held, as read (before any line-end normalisation).
    pub digest: String,
    pub len: u64,
    pub modified: (i64, i64),
    pub changed: (i64, i64),
    pub inode: u64,
}

impl Observed {
    /// The facts of `info` for a file that held bytes with `digest`, when they may be recorded:
    /// a regular file last changed at least [`SETTLED`] before `now` (seconds, nanoseconds since
    /// the epoch); `None` otherwise.
    pub(super) fn of(info: &Info, digest: String, now: (i64, i64)) -> Option<Self> {
        let settled_before = (now.0 - SETTLED.0, now.1);
        let old_enough = info.modified < settled_before && info.changed < settled_before;
        (info.kind == EntryKind::File && old_enough).then_some(Self {
            digest,
            len: info.len,
            modified: info.modified,
            changed: info.changed,
            inode: info.inode,
        })
    }

    /// Whether the file described by `info` still is this one.
    pub(super) fn matches(&self, info: &Info) -> bool {
        info.kind == EntryKind::File
            && info.len == self.len
            && info.modified == self.modified
            && info.changed == self.changed
            && info.inode == self.inode
    }
}

/// The record, by project-relative output path.
pub(super) type Stats = HashMap<String, Observed>;

/// The record at `path` (project-relative); empty when there is none, or it cannot be read or
/// is not in this format (it is only a hint, so it never fails a run).
pub(super) fn load(dir: &ProjectDir, path: &str) -> Stats {
    let Ok(Some((bytes, _))) = dir.read(path, MAX_BYTES) else {
        return Stats::new();
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Stats::new();
    };
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Stats::new();
    }
    lines.filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<(String, Observed)> {
    let mut fields = line.splitn(8, '\t');
    let mut next = || fields.next();
    let digest = next()?.to_owned();
    let len = next()?.parse().ok()?;
    let modified = (next()?.parse().ok()?, next()?.parse().ok()?);
    let changed = (next()?.parse().ok()?, next()?.parse().ok()?);
    let inode = next()?.parse().ok()?;
    let path = next()?.to_owned();
    Some((
        path,
        Observed {
            digest,
            len,
            modified,
            changed,
            inode,
        },
    ))
}

/// The text of `stats`, lines sorted by path (paths holding a line break are left out).
pub(super) fn to_text(stats: &Stats) -> String {
    let mut paths: Vec<&String> = stats.keys().filter(|path| !path.contains('\n')).collect();
    paths.sort();
    let mut text = String::with_capacity(64 + stats.len() * 140);
    text.push_str(HEADER);
    text.push('\n');
    for path in paths {
        let seen = &stats[path];
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{path}\n",
            seen.digest,
            seen.len,
            seen.modified.0,
            seen.modified.1,
            seen.changed.0,
            seen.changed.1,
            seen.inode
        ));
    }
    text
}

/// Where the record of a project whose manifest is `manifest_path` lives: in the machine-local
/// folder beside the manifest (`.ai-rulez/local/output-stats`); `None` for a project without a
/// config folder (a root `ai-rulez.toml`), which has no machine-local folder.
pub(super) fn path_for(manifest_path: &str) -> Option<String> {
    manifest_path
        .strip_suffix("/.generated-manifest.json")
        .map(|folder| format!("{folder}/local/{FILE_NAME}"))
}

/// The record's file name in the machine-local folder.
pub(crate) const FILE_NAME: &str = "output-stats";

/// Seconds and nanoseconds since the epoch by the system clock (the clock file times come
/// from on a local file system).
pub(super) fn now() -> (i64, i64) {
    let elapsed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    (
        i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX),
        i64::from(elapsed.subsec_nanos()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(modified: (i64, i64), changed: (i64, i64)) -> Info {
        Info {
            kind: EntryKind::File,
            len: 10,
            mode: 0o644,
            modified,
            changed,
            inode: 7,
        }
    }

    #[test]
    fn only_files_settled_for_two_seconds_are_recorded() {
        let now = (1_000, 500);
        let digest = || "sha256:ab".to_owned();
        assert!(Observed::of(&info((997, 0), (998, 400)), digest(), now).is_some());
        // Changed 1.9 s before: an edit in the same tick of a coarse clock could follow.
        assert!(Observed::of(&info((997, 0), (998, 600)), digest(), now).is_none());
        assert!(Observed::of(&info((999, 0), (997, 0)), digest(), now).is_none());
    }

    #[test]
    fn every_fact_must_match_and_the_text_reads_back() {
        let seen =
            Observed::of(&info((5, 1), (6, 2)), "sha256:ab".to_owned(), (100, 0)).expect("settled");
        assert!(seen.matches(&info((5, 1), (6, 2))));
        assert!(!seen.matches(&info((5, 2), (6, 2))));
        assert!(!seen.matches(&info((5, 1), (6, 3))));
        assert!(!seen.matches(&Info {
            inode: 8,
            ..info((5, 1), (6, 2))
        }));
        let mut stats = Stats::new();
        stats.insert(".claude/rules/a b.md".to_owned(), seen.clone());
        let text = to_text(&stats);
        assert_eq!(
            text,
            "ai-rulez output stats 1\nsha256:ab\t10\t5\t1\t6\t2\t7\t.claude/rules/a b.md\n"
        );
        let dir = tempfile::tempdir().expect("temp");
        fs_err::write(dir.path().join("stats"), &text).expect("write");
        let project = ProjectDir::open(dir.path()).expect("open");
        assert_eq!(load(&project, "stats"), stats);
        fs_err::write(dir.path().join("stats"), "something else\n").expect("write");
        assert!(load(&project, "stats").is_empty());
    }
}
