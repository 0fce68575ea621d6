//! The machine-local record of generated files whose bytes a run has compared
//! (`.ai-rulez/local/output-stats`): for each, the size, modification and status-change times
//! and inode it had, and the digest of what it held. A later run that finds a file with exactly
//! those facts, and plans exactly those bytes for it, knows the file is unchanged without
//! reading it; a project of 100,000 rules would otherwise read 200,000 files on every no-op run.
//!
//! Correctness first. A file is trusted only while every fact matches, and the status-change
//! time moves on every write, rename and `touch` (no program can set it back). A fact is only
//! recorded when the file was last changed at least [`SETTLED`](crate::file_times::SETTLED) before it was observed, so an
//! edit in the same clock tick as the observation (git's "racily clean" case, on a file system
//! whose times are whole seconds) cannot go unseen: such a file is compared byte for byte again
//! on the next run, and recorded then. The record is a hint: a missing, damaged or foreign file
//! is ignored (every output is read), and it lives in `.ai-rulez/local/`, which is never
//! committed (an inode means nothing on another machine).
//!
//! Format, one line per file after a header line `ai-rulez output stats 1`, fields separated by
//! tabs, the path last: `sha256:<hex> size mtime_s mtime_ns ctime_s ctime_ns inode path`.

use std::borrow::Cow;

use crate::confined_fs::{EntryKind, Info, ProjectDir};

/// Fewest outputs for which the record is kept: reading a few hundred files takes a few
/// milliseconds, less than reading and writing the record, and a small project is spared a file
/// it does not need.
pub(super) const LEAST_OUTPUTS: usize = 512;

/// The header line that names the format.
const HEADER: &str = "ai-rulez output stats 1";

/// Largest record read (256 MiB: about a million outputs).
const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// What a file was when its content was last compared. The digest borrows from the record's
/// text when it was read from there, so a run over 200,000 unchanged outputs allocates nothing
/// for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Observed<'t> {
    /// `sha256:<hex>` of the bytes it held, as read (before any line-end normalisation).
    pub digest: Cow<'t, str>,
    pub len: u64,
    pub modified: (i64, i64),
    pub changed: (i64, i64),
    pub inode: u64,
}

impl Observed<'_> {
    /// The facts of `info` for a file that held bytes with `digest`, when they may be recorded:
    /// a regular file last changed at least [`SETTLED`](crate::file_times::SETTLED) before `now` (seconds, nanoseconds since
    /// the epoch); `None` otherwise.
    pub(super) fn of(info: &Info, digest: String, now: (i64, i64)) -> Option<Self> {
        let old_enough = crate::file_times::is_settled(info.modified, info.changed, now);
        (info.kind == EntryKind::File && old_enough).then_some(Self {
            digest: Cow::Owned(digest),
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

/// The record's entries, (project-relative output path, facts), sorted by path (byte order,
/// as the plan orders outputs), borrowing from the record's text.
pub(super) type Stats<'t> = Vec<(&'t str, Observed<'t>)>;

/// The text of the record at `path` (project-relative); empty when there is none or it cannot
/// be read (it is only a hint, so it never fails a run).
pub(super) fn read(dir: &ProjectDir, path: &str) -> String {
    match dir.read(path, MAX_BYTES) {
        Ok(Some((bytes, _))) => String::from_utf8(bytes).unwrap_or_default(),
        _ => String::new(),
    }
}

/// The entries of a record's `text`; empty when it is not in this format. Lines that do not
/// parse are left out, and the entries are sorted by path (a record this tool wrote already is).
pub(super) fn parse(text: &str) -> Stats<'_> {
    let mut lines = text.lines();
    if lines.next() != Some(HEADER) {
        return Stats::new();
    }
    let mut stats: Stats<'_> = lines.filter_map(parse_line).collect();
    if !stats.is_sorted_by(|left, right| left.0 < right.0) {
        stats.sort_by(|left, right| left.0.cmp(right.0));
        stats.dedup_by(|right, left| left.0 == right.0);
    }
    stats
}

fn parse_line(line: &str) -> Option<(&str, Observed<'_>)> {
    let mut fields = line.splitn(8, '\t');
    let mut next = || fields.next();
    let digest = next()?;
    let len = next()?.parse().ok()?;
    let modified = (next()?.parse().ok()?, next()?.parse().ok()?);
    let changed = (next()?.parse().ok()?, next()?.parse().ok()?);
    let inode = next()?.parse().ok()?;
    let path = next()?;
    Some((
        path,
        Observed {
            digest: Cow::Borrowed(digest),
            len,
            modified,
            changed,
            inode,
        },
    ))
}

/// The text of a record of `entries` (sorted by path; paths holding a line break are left
/// out).
pub(super) fn to_text<'e, 'o: 'e>(
    entries: impl ExactSizeIterator<Item = (&'e str, &'e Observed<'o>)>,
) -> String {
    let mut text = String::with_capacity(64 + entries.len() * 160);
    text.push_str(HEADER);
    text.push('\n');
    for (path, seen) in entries {
        if path.contains('\n') {
            continue;
        }
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

/// A walk along the sorted record in the order of sorted output paths: each lookup moves
/// forward, so looking up every output of a sorted run costs one comparison or two per output.
pub(super) struct Cursor<'s, 't> {
    stats: &'s Stats<'t>,
    next: usize,
}

impl<'s, 't> Cursor<'s, 't> {
    /// A walk of `stats` starting at the first entry not before `path`.
    pub(super) fn starting_at(stats: &'s Stats<'t>, path: &str) -> Self {
        Self {
            stats,
            next: stats.partition_point(|(recorded, _)| *recorded < path),
        }
    }

    /// The entry for `path`, which must not sort before the paths looked up earlier.
    pub(super) fn find(&mut self, path: &str) -> Option<&'s Observed<'t>> {
        while let Some((recorded, _)) = self.stats.get(self.next)
            && *recorded < path
        {
            self.next += 1;
        }
        match self.stats.get(self.next) {
            Some((recorded, seen)) if *recorded == path => Some(seen),
            _ => None,
        }
    }
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
        let entries = [
            (".claude/rules/a b.md", &seen),
            (".cursor/rules/c.mdc", &seen),
        ];
        let text = to_text(entries.into_iter());
        assert_eq!(
            text,
            "ai-rulez output stats 1\nsha256:ab\t10\t5\t1\t6\t2\t7\t.claude/rules/a b.md\nsha256:ab\t10\t5\t1\t6\t2\t7\t.cursor/rules/c.mdc\n"
        );
        let parsed = parse(&text);
        assert_eq!(
            parsed,
            vec![
                (".claude/rules/a b.md", seen.clone()),
                (".cursor/rules/c.mdc", seen.clone())
            ]
        );
        let mut cursor = Cursor::starting_at(&parsed, ".a");
        assert_eq!(cursor.find(".b"), None);
        assert_eq!(cursor.find(".claude/rules/a b.md"), Some(&seen));
        assert_eq!(cursor.find(".cursor/rules/b.mdc"), None);
        assert_eq!(cursor.find(".cursor/rules/c.mdc"), Some(&seen));
        assert_eq!(cursor.find(".d"), None);
        assert!(parse("something else\n").is_empty());
        let dir = tempfile::tempdir().expect("temp");
        fs_err::write(dir.path().join("stats"), &text).expect("write");
        let project = ProjectDir::open(dir.path()).expect("open");
        assert_eq!(read(&project, "stats"), text);
        assert_eq!(read(&project, "missing"), "");
    }
}
