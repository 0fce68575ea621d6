//! The machine-local memo of the last no-op `generate` (`.ai-rulez/local/generate-memo`): every
//! fact the run read through the confined file layer (each file's size, times, inode and mode,
//! each folder's entries, each path found absent), the environment variables it looked up (by
//! digest of their values), the binary that ran it, and what it printed. A later `generate`
//! with the same arguments that finds every one of those facts still true can only reach the
//! same result, so it prints that result without reading, parsing or rendering anything: a
//! project of 100,000 rules otherwise reads 300,000 files to learn that nothing changed.
//!
//! Correctness first. A run is remembered only when it wrote and removed nothing, did nothing
//! the record cannot describe (a git query, a file-layer error, a write; see
//! [`crate::confined_fs::record`]), used no `[[includes]]` (read from outside the project), and
//! every file it read was last changed at least [`SETTLED`](crate::file_times::SETTLED) before the run began: an edit in the
//! same clock tick as the read (git's "racily clean" case) would otherwise keep its old size and
//! times and go unseen. The status-change time moves on every write, rename and `touch`, and no
//! program can set it back. Any doubt (a missing, damaged or foreign memo, another binary, a
//! fact that differs, a fact that cannot be checked) means the full run, which writes a fresh
//! memo. The memo lives in `.ai-rulez/local/`, which is never committed (an inode means nothing
//! on another machine).
//!
//! Format: a header line `ai-rulez generate memo 2`, then tab-separated lines: `binary`,
//! `root`, `config`, `profile`, `env`, `warning`, `unchanged` and (when the run said the lock is
//! stale) `lock` lines for the run, then per
//! folder a `folder <path>` line followed by its entries (`absent <name>`, `dir <name>`,
//! `file <name> <kind> <size> <mtime s> <mtime ns> <ctime s> <ctime ns> <inode> <mode>`,
//! `list <name> <kind:name>/...`), and a last line `end <number of entries>`. Text values that
//! may hold tabs or line breaks (paths, warnings) are JSON strings.

use std::collections::BTreeMap;
use std::path::Path;
#[cfg(test)]
use std::path::PathBuf;

use crate::confined_fs::record::{Fact, Recording};
use crate::confined_fs::{EntryKind, Info, ProjectDir};
use crate::project::Project;

/// The memo's file name in the machine-local folder.
pub(crate) const FILE_NAME: &str = "generate-memo";

/// Fewest outputs for which a no-op run is remembered (as for the writer's output stats): a
/// smaller project runs in full in about the time reading the memo takes.
pub(crate) const LEAST_OUTPUTS: usize = 512;

/// The header line that names the format.
const HEADER: &str = "ai-rulez generate memo 2";

/// Largest memo read (512 MiB: several million facts).
const MAX_BYTES: u64 = 512 * 1024 * 1024;

/// What a remembered run printed: its warnings (in order), the number of unchanged outputs and
/// what it said of the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Memo {
    /// The warnings the run printed, in order.
    pub warnings: Vec<String>,
    /// Outputs it found up to date.
    pub unchanged: usize,
    /// The sentence saying the project's lock is stale or unreadable
    /// ([`crate::lock::pin::stale_lock_notice`]); `None` when there is no lock or it matched.
    /// The lock check's reads are part of the run's facts, so the sentence holds while they do.
    pub lock_notice: Option<String>,
}

/// What must be the same for a memo to apply besides the files: the project root, its config
/// file (project-relative) and the `--profile` given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key<'a> {
    /// The project root (absolute, canonical).
    pub root: &'a Path,
    /// The config file, relative to `root`.
    pub config: &'a str,
    /// `--profile`, when given.
    pub profile: Option<&'a str>,
}

/// One remembered fact, by path relative to the project root.
type Facts = BTreeMap<String, Fact>;

/// The memo's project-relative path for a project whose config folder is `config_dir` (e.g.
/// `.ai-rulez`); `None` for a project configured by a root `ai-rulez.toml`.
fn memo_path(config_dir: &str) -> Option<String> {
    (!config_dir.is_empty()).then(|| format!("{config_dir}/local/{FILE_NAME}"))
}

/// The folder holding the memo (and the writer's output stats), whose listing leaves them out.
fn local_folder(config_dir: &str) -> String {
    format!("{config_dir}/local")
}

/// Whether `name` is one of the machine-local hint files (or a temporary file of one), left
/// out of the listing of the local folder: writing them must not make the memo stale.
fn is_hint(name: &str) -> bool {
    let stats = crate::write::OUTPUT_STATS_FILE;
    name == FILE_NAME
        || name == stats
        || crate::confined_fs::temporary::is_temporary_of(name, FILE_NAME)
        || crate::confined_fs::temporary::is_temporary_of(name, stats)
}

/// What the memo of the project `key` names says, when every fact it holds is still true and
/// it was written by this very binary; `None` on any doubt (then the caller runs in full).
pub(crate) fn recall(dir: &ProjectDir, key: Key<'_>) -> Option<Memo> {
    let config_dir = key.config.rsplit_once('/')?.0;
    let path = memo_path(config_dir)?;
    let (bytes, _) = dir.read(&path, MAX_BYTES).ok()??;
    let text = String::from_utf8(bytes).ok()?;
    let parsed = parse(&text)?;
    if parsed.head != head_lines(key, &parsed.environment)? {
        return None;
    }
    let local = local_folder(config_dir);
    let all_true = crate::parallel::map_in_order(&parsed.groups, |(folder, entries)| {
        folder_still_true(dir, folder, entries, *folder == local)
    });
    all_true
        .into_iter()
        .all(|still| still)
        .then_some(parsed.memo)
}

/// Whether every fact of `entries` (names inside the project-relative `folder`, `.` for the
/// root) still holds. `is_local_folder`: whether `folder` is the machine-local folder, whose
/// listing leaves the hint files out (see [`is_hint`]).
fn folder_still_true(
    dir: &ProjectDir,
    folder: &str,
    entries: &[(&str, Fact)],
    is_local_folder: bool,
) -> bool {
    let opened;
    let handle = if folder == "." {
        dir
    } else {
        match dir.folder(folder) {
            Ok(Some(found)) => {
                opened = found;
                &opened
            }
            // The folder is gone: only absences still hold.
            Ok(None) => return entries.iter().all(|(_, fact)| *fact == Fact::Absent),
            Err(_) => return false,
        }
    };
    entries.iter().all(|(name, fact)| {
        if let Fact::Listing(recorded) = fact {
            let listed = if *name == "." {
                handle.list("")
            } else {
                handle.list(name)
            };
            let Ok(Some(listed)) = listed else {
                return false;
            };
            let leave_hints_out = is_local_folder && *name == ".";
            let current = listed
                .into_iter()
                .filter(|entry| !(leave_hints_out && is_hint(&entry.name)))
                .map(|entry| (entry.name, entry.kind));
            return current.eq(recorded.iter().cloned());
        }
        if *name == "." {
            return *fact == Fact::Folder;
        }
        handle.info(name).is_ok_and(|info| Fact::of(info) == *fact)
    })
}

/// Facts grouped by folder: the project-relative folder (`.` for the root) and, in name
/// order, (name, fact); a folder's own facts (its listing) have the name `.` and are kept in
/// the folder's group.
fn group(facts: &Facts) -> Vec<(&str, Vec<(&str, &Fact)>)> {
    let mut groups: BTreeMap<&str, Vec<(&str, &Fact)>> = BTreeMap::new();
    for (key, fact) in facts {
        // Keys of listings end in `\0list` (see `fact_key`).
        let path = key.trim_end_matches("\0list");
        let (folder, name) = split(path, fact);
        groups.entry(folder).or_default().push((name, fact));
    }
    groups.into_iter().collect()
}

/// The folder and name a fact about `path` is kept under: a listing under the listed folder
/// itself (name `.`), anything else under its parent.
fn split<'p>(path: &'p str, fact: &Fact) -> (&'p str, &'p str) {
    if path.is_empty() {
        return (".", ".");
    }
    if matches!(fact, Fact::Listing(_)) {
        return (path, ".");
    }
    path.rsplit_once('/').unwrap_or((".", path))
}

/// The key under which a fact is kept: listings apart from looks at the same path.
fn fact_key(path: &str, fact: &Fact) -> String {
    if matches!(fact, Fact::Listing(_)) {
        format!("{path}\0list")
    } else {
        path.to_owned()
    }
}

/// Writes the memo of a run of `project` (with `key`) that read what `recording` holds and
/// printed `memo`, when that run may be remembered (see the module comment); began: the clock
/// when the run started (seconds, nanoseconds since the epoch). A memo that cannot be written
/// costs the next run time, not correctness, so nothing here fails the run; an old memo is
/// removed when this run may not be remembered.
pub(crate) fn remember(
    project: &Project,
    key: Key<'_>,
    recording: Recording,
    memo: &Memo,
    began: (i64, i64),
) {
    let Some(path) = memo_path(&project.config_dir_relative) else {
        return;
    };
    let text = memo_text(project, key, recording, memo, began);
    // The folder ignores itself in git before anything of it is written.
    let written = match text {
        Some(text) => crate::local_state::keep_out_of_git(project)
            .and_then(|()| project.dir.write(&path, text.as_bytes(), 0o644)),
        None => project.dir.remove_file(&path).map(|_| ()),
    };
    written.ok();
}

/// The memo's text, or `None` when the run may not be remembered.
fn memo_text(
    project: &Project,
    key: Key<'_>,
    recording: Recording,
    memo: &Memo,
    began: (i64, i64),
) -> Option<String> {
    if recording.tainted
        || !project.config.includes.is_empty()
        || !project.config.git_includes.is_empty()
    {
        return None;
    }
    let local = local_folder(&project.config_dir_relative);
    let mut facts = Facts::new();
    for (absolute, mut fact) in recording.facts {
        let relative = relative_to(&absolute, key.root)?;
        if relative.contains(['\t', '\n', '\r']) {
            return None;
        }
        match &mut fact {
            Fact::Present(info) => {
                if !crate::file_times::is_settled(info.modified, info.changed, began) {
                    return None;
                }
            }
            Fact::Listing(entries) => {
                if relative == local {
                    entries.retain(|(name, _)| !is_hint(name));
                }
                if entries
                    .iter()
                    .any(|(name, _)| name.contains(['\t', '\n', '\r', '/']))
                {
                    return None;
                }
            }
            Fact::Absent | Fact::Folder => {}
        }
        // The same path seen twice with different facts changed during the run.
        let key = fact_key(&relative, &fact);
        match facts.get(&key) {
            Some(earlier) if *earlier != fact => return None,
            Some(_) => {}
            None => {
                facts.insert(key, fact);
            }
        }
    }
    let mut environment: Vec<(String, Option<String>)> = recording.environment;
    environment.sort();
    environment.dedup();
    // One name looked up twice with two values: the environment changed during the run.
    if environment.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return None;
    }
    let mut text = String::with_capacity(64 + facts.len() * 80);
    text.push_str(HEADER);
    text.push('\n');
    let lookups: Vec<(String, String)> = environment
        .iter()
        .map(|(name, value)| (name.clone(), value_digest(value.as_deref())))
        .collect();
    for line in head_lines(key, &lookups)? {
        text.push_str(&line);
        text.push('\n');
    }
    for warning in &memo.warnings {
        text.push_str(&format!("warning\t{}\n", json_string(warning)));
    }
    text.push_str(&format!("unchanged\t{}\n", memo.unchanged));
    if let Some(notice) = &memo.lock_notice {
        text.push_str(&format!("lock\t{}\n", json_string(notice)));
    }
    let mut count = 0usize;
    let groups = group(&facts);
    for (folder, entries) in groups {
        text.push_str(&format!("folder\t{folder}\n"));
        for (name, fact) in entries {
            count += 1;
            match fact {
                Fact::Absent => text.push_str(&format!("absent\t{name}\n")),
                Fact::Folder => text.push_str(&format!("dir\t{name}\n")),
                Fact::Present(info) => text.push_str(&format!(
                    "file\t{name}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    kind_letter(info.kind),
                    info.len,
                    info.modified.0,
                    info.modified.1,
                    info.changed.0,
                    info.changed.1,
                    info.inode,
                    info.mode
                )),
                Fact::Listing(entries) => {
                    let listed: Vec<String> = entries
                        .iter()
                        .map(|(entry, kind)| format!("{}:{entry}", kind_letter(*kind)))
                        .collect();
                    text.push_str(&format!("list\t{name}\t{}\n", listed.join("/")));
                }
            }
        }
    }
    text.push_str(&format!("end\t{count}\n"));
    Some(text)
}

/// `absolute` relative to `root`, `/`-separated; `None` when it lies outside or is not UTF-8.
fn relative_to(absolute: &Path, root: &Path) -> Option<String> {
    let inside = absolute.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = inside
        .components()
        .map(|component| match component {
            std::path::Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    Some(parts?.join("/"))
}

/// The lines that say which run a memo is of: binary, root, config, profile and the
/// environment lookups (name and digest of the value, sorted). `None` when this binary cannot
/// be identified.
fn head_lines(key: Key<'_>, environment: &[(String, String)]) -> Option<Vec<String>> {
    let mut lines = vec![
        format!("binary\t{}", binary_identity()?),
        format!("root\t{}", json_string(key.root.to_str()?)),
        format!("config\t{}", json_string(key.config)),
        format!(
            "profile\t{}",
            key.profile.map_or_else(|| "-".to_owned(), json_string)
        ),
    ];
    for (name, digest) in environment {
        let current = value_digest(std::env::var(name).ok().as_deref());
        // A memo read back carries the recorded digest; a memo being written, the current
        // one (the same, checked by the caller's lookup during the run).
        if *digest != current {
            return None;
        }
        lines.push(format!("env\t{}\t{digest}", json_string(name)));
    }
    Some(lines)
}

/// The version of this binary and the facts of its file (size, times, inode): a rebuilt or
/// reinstalled binary is another binary, whose rendering may differ.
fn binary_identity() -> Option<String> {
    use std::os::unix::fs::MetadataExt as _;
    let exe = std::env::current_exe().ok()?;
    let metadata = fs_err::metadata(&exe).ok()?;
    Some(format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}",
        env!("CARGO_PKG_VERSION"),
        metadata.len(),
        metadata.mtime(),
        metadata.mtime_nsec(),
        metadata.ctime(),
        metadata.ctime_nsec(),
        metadata.ino()
    ))
}

/// A digest of an environment variable's value (`-` when unset): the memo must notice a
/// changed value without keeping it (it may be a secret).
fn value_digest(value: Option<&str>) -> String {
    value.map_or_else(
        || "-".to_owned(),
        |value| blake3::hash(value.as_bytes()).to_hex().to_string(),
    )
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

fn kind_letter(kind: EntryKind) -> char {
    match kind {
        EntryKind::File => 'f',
        EntryKind::Folder => 'd',
        EntryKind::Symlink => 'l',
        EntryKind::Other => 'o',
    }
}

fn kind_of_letter(letter: &str) -> Option<EntryKind> {
    Some(match letter {
        "f" => EntryKind::File,
        "d" => EntryKind::Folder,
        "l" => EntryKind::Symlink,
        "o" => EntryKind::Other,
        _ => return None,
    })
}

/// A memo read back: its head lines (to compare with this run's), environment lookups, what
/// the run printed and its facts.
struct Parsed<'t> {
    head: Vec<String>,
    environment: Vec<(String, String)>,
    memo: Memo,
    /// Facts by folder (`.` for the root), as written: (name, fact), `.` naming the folder.
    groups: Vec<(&'t str, Vec<(&'t str, Fact)>)>,
}

/// The memo in `text`; `None` when it is not one this binary wrote whole.
fn parse(text: &str) -> Option<Parsed<'_>> {
    let mut lines = text.lines();
    if lines.next()? != HEADER {
        return None;
    }
    let mut head = Vec::new();
    let mut environment = Vec::new();
    let mut warnings = Vec::new();
    let mut unchanged = None;
    let mut lock_notice = None;
    let mut groups: Vec<(&str, Vec<(&str, Fact)>)> = Vec::new();
    let mut count = 0usize;
    for line in lines {
        let (tag, rest) = line.split_once('\t')?;
        match tag {
            "binary" | "root" | "config" | "profile" => head.push(line.to_owned()),
            "env" => {
                let (name, digest) = rest.split_once('\t')?;
                head.push(line.to_owned());
                environment.push((serde_json::from_str(name).ok()?, digest.to_owned()));
            }
            "warning" => warnings.push(serde_json::from_str(rest).ok()?),
            "unchanged" => unchanged = Some(rest.parse().ok()?),
            "lock" => lock_notice = Some(serde_json::from_str(rest).ok()?),
            "folder" => groups.push((rest, Vec::new())),
            "end" => {
                // Anything after the last line, or a count that differs, is not this format.
                return (rest.parse::<usize>().ok()? == count).then_some(Parsed {
                    head,
                    environment,
                    memo: Memo {
                        warnings,
                        unchanged: unchanged?,
                        lock_notice,
                    },
                    groups,
                });
            }
            _ => {
                let (_, entries) = groups.last_mut()?;
                entries.push(parse_fact(tag, rest)?);
                count += 1;
            }
        }
    }
    // No `end` line: cut short.
    None
}

fn parse_fact<'t>(tag: &str, rest: &'t str) -> Option<(&'t str, Fact)> {
    let mut fields = rest.split('\t');
    let name = fields.next()?;
    let fact = match tag {
        "absent" => Fact::Absent,
        "dir" => Fact::Folder,
        "file" => {
            let kind = kind_of_letter(fields.next()?)?;
            let mut number = || fields.next()?.parse::<i64>().ok();
            let len = u64::try_from(number()?).ok()?;
            let modified = (number()?, number()?);
            let changed = (number()?, number()?);
            let inode = u64::try_from(number()?).ok()?;
            let mode = u32::try_from(number()?).ok()?;
            Fact::Present(Info {
                kind,
                len,
                mode,
                modified,
                changed,
                inode,
            })
        }
        "list" => {
            let listed = fields.next()?;
            let entries = if listed.is_empty() {
                Vec::new()
            } else {
                listed
                    .split('/')
                    .map(|entry| {
                        let (kind, name) = entry.split_once(':')?;
                        Some((name.to_owned(), kind_of_letter(kind)?))
                    })
                    .collect::<Option<Vec<_>>>()?
            };
            Fact::Listing(entries)
        }
        _ => return None,
    };
    if fields.next().is_some() {
        return None;
    }
    Some((name, fact))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::confined_fs::record;
    use crate::generate::{Options, Outcome, generate};
    use crate::write::{Mode, Status};

    const FILES: [(&str, &str); 4] = [
        // The machine-local folder is there already, as in a large project (its output
        // stats); a memo that creates it changes the listing it records, and the next run
        // remembers again.
        (".ai-rulez/local/.gitignore", "*\n"),
        (
            ".ai-rulez/config.toml",
            "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\", \"cursor\"]\n",
        ),
        (".ai-rulez/rules/alpha.md", "# Alpha\n\nUse retries.\n"),
        (
            ".ai-rulez/domains/api/rules/beta.md",
            "---\npaths: [\"api/**\"]\n---\n# Beta\n\nLog errors.\n",
        ),
    ];

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let folder = tempfile::tempdir().expect("temporary folder");
        for (relative, text) in files {
            let path = folder.path().join(relative);
            fs_err::create_dir_all(path.parent().expect("a parent folder")).expect("folder");
            fs_err::write(&path, text).expect("file written");
        }
        folder
    }

    /// A write run of the project in `folder`, recorded.
    fn recorded_run(folder: &Path) -> (Outcome, Recording) {
        record::start();
        let outcome = generate(
            folder,
            None,
            Mode::Write,
            Options::default(),
            &mut Vec::new(),
        );
        let recording = record::finish().expect("a record");
        (outcome.expect("generates"), recording)
    }

    fn key(outcome: &Outcome) -> Key<'_> {
        Key {
            root: &outcome.root,
            config: &outcome.project.config_relative,
            profile: None,
        }
    }

    /// Generates, then remembers a recorded no-op run as if it had begun `later` seconds from
    /// now (files written by the test are only settled for a run that begins 2 s after them).
    fn remembered(folder: &Path, later: i64) -> Outcome {
        generate(
            folder,
            None,
            Mode::Write,
            Options::default(),
            &mut Vec::new(),
        )
        .expect("generates");
        let (outcome, recording) = recorded_run(folder);
        assert!(
            outcome
                .report
                .changes
                .iter()
                .all(|change| change.status == Status::Unchanged)
        );
        assert!(!recording.tainted);
        let memo = Memo {
            warnings: vec!["said before".to_owned()],
            unchanged: outcome.report.changes.len(),
            lock_notice: Some(LOCK_NOTICE.to_owned()),
        };
        let began = crate::file_times::now();
        remember(
            &outcome.project,
            key(&outcome),
            recording,
            &memo,
            (began.0 + later, began.1),
        );
        outcome
    }

    fn recalled(outcome: &Outcome) -> Option<Memo> {
        recall(&outcome.project.dir, key(outcome))
    }

    const MEMO: &str = ".ai-rulez/local/generate-memo";

    /// A notice with a tab and a line break, which the memo must carry as written.
    const LOCK_NOTICE: &str = "ai-rulez.lock is now stale (2 difference(s))\tsee\nbelow";

    #[test]
    fn a_no_op_run_is_recalled_until_a_source_changes_even_within_the_same_second() {
        let folder = project(&FILES);
        let outcome = remembered(folder.path(), 3);
        let expected = Memo {
            warnings: vec!["said before".to_owned()],
            // CLAUDE.md, .claude/rules/{alpha,beta}.md, .cursor/rules/{alpha,beta}.mdc and
            // the manifest.
            unchanged: 6,
            lock_notice: Some(LOCK_NOTICE.to_owned()),
        };
        assert_eq!(recalled(&outcome), Some(expected.clone()));
        // Rewriting a file with bytes of the same size at once (same second, same size) still
        // moves its status-change time.
        let rule = folder.path().join(".ai-rulez/rules/alpha.md");
        fs_err::write(&rule, "# Alpha\n\nUse retries!\n").expect("edit");
        assert_eq!(recalled(&outcome), None);
        // Back to the old bytes: the file is still another file than the one remembered.
        fs_err::write(&rule, "# Alpha\n\nUse retries.\n").expect("edit");
        assert_eq!(recalled(&outcome), None);
        // A new file in an item folder changes its listing.
        let outcome = remembered(folder.path(), 3);
        assert_eq!(recalled(&outcome), Some(expected.clone()));
        fs_err::write(folder.path().join(".ai-rulez/rules/gamma.md"), "# G\n").expect("new");
        assert_eq!(recalled(&outcome), None);
        fs_err::remove_file(folder.path().join(".ai-rulez/rules/gamma.md")).expect("gone");
        // A changed output is seen as well.
        let outcome = remembered(folder.path(), 3);
        assert_eq!(recalled(&outcome), Some(expected));
        fs_err::write(folder.path().join("CLAUDE.md"), "hand edit\n").expect("edit");
        assert_eq!(recalled(&outcome), None);
    }

    #[test]
    fn a_run_that_read_files_changed_within_two_seconds_is_not_remembered() {
        let folder = project(&FILES);
        let outcome = remembered(folder.path(), 3);
        assert!(folder.path().join(MEMO).exists());
        // Begun now: the files were written less than 2 s before, so a same-tick edit could
        // follow unseen; the old memo is dropped as well.
        let outcome_now = remembered(folder.path(), 0);
        assert!(!folder.path().join(MEMO).exists());
        assert_eq!(recalled(&outcome), None);
        assert_eq!(recalled(&outcome_now), None);
    }

    #[test]
    fn a_damaged_foreign_or_old_memo_is_not_used() {
        let folder = project(&FILES);
        let outcome = remembered(folder.path(), 3);
        let path = folder.path().join(MEMO);
        let text = fs_err::read_to_string(&path).expect("memo");
        assert!(recalled(&outcome).is_some());
        let cut = text
            .trim_end()
            .rsplit_once('\n')
            .expect("lines")
            .0
            .to_owned()
            + "\n";
        let older = text.replacen("memo 2", "memo 1", 1);
        let (binary_line, _) = text
            .lines()
            .nth(1)
            .and_then(|line| line.rsplit_once('\t'))
            .expect("binary line");
        let other_binary = text.replacen(
            &text.lines().nth(1).expect("line").to_owned(),
            &format!("{binary_line}\t1"),
            1,
        );
        let other_profile = text.replacen("profile\t-", "profile\t\"ci\"", 1);
        let extra_fact = text.replacen("\nend\t", "\nabsent\tx\nend\t", 1);
        for damaged in [
            String::new(),
            "garbage\n".to_owned(),
            cut,
            older,
            other_binary,
            other_profile,
            extra_fact,
        ] {
            fs_err::write(&path, &damaged).expect("write");
            assert_eq!(recalled(&outcome), None, "{damaged:.80}");
        }
        fs_err::write(&path, [0xff, 0xfe, 0x00]).expect("write");
        assert_eq!(recalled(&outcome), None);
        // The full run still works, and writes a fresh memo that is used.
        let outcome = remembered(folder.path(), 3);
        assert!(recalled(&outcome).is_some());
    }

    #[test]
    fn what_the_record_cannot_describe_is_never_remembered() {
        let folder = project(&FILES);
        let outcome = remembered(folder.path(), 3);
        let (_, mut recording) = recorded_run(folder.path());
        // A variable read during the run whose value is another now.
        recording.environment.push((
            "AI_RULEZ_TEST_UNSET_VARIABLE".to_owned(),
            Some("x".to_owned()),
        ));
        let memo = Memo {
            warnings: Vec::new(),
            unchanged: 3,
            lock_notice: None,
        };
        let later = (crate::file_times::now().0 + 3, 0);
        assert_eq!(
            memo_text(&outcome.project, key(&outcome), recording, &memo, later),
            None
        );
        // A file read outside the project.
        let (_, mut recording) = recorded_run(folder.path());
        recording
            .facts
            .push((PathBuf::from("/elsewhere/file"), Fact::Absent));
        assert_eq!(
            memo_text(&outcome.project, key(&outcome), recording, &memo, later),
            None
        );
        // A git query, a write or a file-layer error.
        let (_, mut recording) = recorded_run(folder.path());
        recording.tainted = true;
        assert_eq!(
            memo_text(&outcome.project, key(&outcome), recording, &memo, later),
            None
        );
        // An unset variable that is still unset is fine.
        let (_, mut recording) = recorded_run(folder.path());
        recording
            .environment
            .push(("AI_RULEZ_TEST_UNSET_VARIABLE".to_owned(), None));
        assert!(memo_text(&outcome.project, key(&outcome), recording, &memo, later).is_some());
    }
}
