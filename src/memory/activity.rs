//! The activity log: what agents did where (`edited`, `reviewed`, ...), one JSON object per line
//! in `.ai-rulez/local/activity.jsonl`. It describes one machine's sessions, so it lives in the
//! machine-local folder the managed `.gitignore` block keeps out of git. Each entry is appended
//! with one write (no rewrite of the log), and the log is cut to its newest half once it grows
//! past [`MAX_LOG_BYTES`].
//!
//! Line format (written here): `{"at":"2026-12-01T04:30:00Z","action":"edited",
//! "paths":["src/db/pool.rs"],"summary":"pool size from config"}`.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::project::Project;

/// Size past which the log is cut to its newest half, in bytes (4 MiB).
pub(crate) const MAX_LOG_BYTES: u64 = 4 * 1024 * 1024;

/// Longest action, in characters.
const MAX_ACTION_CHARS: usize = 40;

/// Longest path of an entry, in characters (Linux paths are at most 4,096 bytes).
const MAX_PATH_CHARS: usize = 4_096;

/// Longest summary, in characters.
const MAX_SUMMARY_CHARS: usize = 500;

/// Most paths in one entry.
const MAX_PATHS: usize = 50;

/// Most entries `recent_activity` returns.
pub(crate) const MAX_RECENT: usize = 200;

/// One entry of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ActivityEntry {
    /// When, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub at: String,
    /// What was done (`edited`, `reviewed`, `refactored`, ...).
    pub action: String,
    /// Project-relative paths it touched, sorted.
    pub paths: Vec<String>,
    /// One line saying what and why.
    pub summary: String,
}

/// The project-relative path of the log.
#[must_use]
pub(crate) fn path(project: &Project) -> String {
    crate::local_state::path(project, "activity.jsonl")
}

/// What `log_activity` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct Logged {
    /// The entry as written.
    pub entry: ActivityEntry,
    /// Project-relative path of the log.
    pub log: String,
    /// Set when git would commit the log (the project is in a repository whose ignore rules do
    /// not cover it): what to do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Appends one entry, stamped now (or at `SOURCE_DATE_EPOCH`), to the log; cuts the log to its
/// newest half when it has grown past [`MAX_LOG_BYTES`].
///
/// Errors: [`Error::Usage`] for an empty or overlong action or summary, too many paths, a path
/// outside the project, overlong or holding a character a reader would not see, or a summary the screening refuses (credentials, hidden characters);
/// [`Error::Busy`]; I/O.
pub(crate) fn log_activity(
    project: &Project,
    action: &str,
    paths: &[String],
    summary: &str,
) -> Result<Logged> {
    let action = action.trim();
    if action.is_empty()
        || action.chars().count() > MAX_ACTION_CHARS
        || action
            .chars()
            .any(|character| character.is_whitespace() || character.is_control())
    {
        return Err(Error::Usage(format!(
            "`action` must be one word of at most {MAX_ACTION_CHARS} characters (edited, reviewed, refactored, ...)"
        )));
    }
    let summary = summary.split_whitespace().collect::<Vec<_>>().join(" ");
    if summary.is_empty() || summary.chars().count() > MAX_SUMMARY_CHARS {
        return Err(Error::Usage(format!(
            "`summary` must say what was done in 1 to {MAX_SUMMARY_CHARS} characters"
        )));
    }
    let refusals = crate::learning::risk::judge(project, &summary).refusals;
    if !refusals.is_empty() {
        return Err(Error::Usage(format!(
            "the entry was not logged: {}",
            refusals.join("; ")
        )));
    }
    if paths.len() > MAX_PATHS {
        return Err(Error::Usage(format!(
            "`paths` names {} paths; at most {MAX_PATHS}",
            paths.len()
        )));
    }
    let mut relative_paths = Vec::with_capacity(paths.len());
    for given in paths {
        // Every later agent reads these paths back: one it could not read as written (a bidi
        // control, a zero-width space, a line break) or of no real file's length is refused.
        if given.chars().count() > MAX_PATH_CHARS {
            return Err(Error::Usage(format!(
                "`paths`: a path of {} characters; name each file in at most {MAX_PATH_CHARS}",
                given.chars().count()
            )));
        }
        let escaped = crate::lint::screen::escape_unreadable(given);
        if escaped != *given {
            return Err(Error::Usage(format!(
                "`paths`: `{escaped}` holds a character a reader would not see, or a line break; name the file as it is spelt"
            )));
        }
        let relative =
            crate::retrieval::project_relative(&project.root, given).ok_or_else(|| {
                Error::Usage(format!(
                    "`paths`: {given} is not inside the project; pass project-relative paths"
                ))
            })?;
        relative_paths.push(if relative.is_empty() {
            ".".to_owned()
        } else {
            relative
        });
    }
    relative_paths.sort();
    relative_paths.dedup();
    let entry = ActivityEntry {
        at: now(),
        action: action.to_owned(),
        paths: relative_paths,
        summary,
    };
    let log = path(project);
    let mut line = serde_json::to_string(&entry).unwrap_or_default();
    line.push('\n');
    let _lock = project.dir.lock()?;
    crate::local_state::keep_out_of_git(project)?;
    project.dir.append_line(&log, line.as_bytes())?;
    if project
        .dir
        .info(&log)?
        .is_some_and(|info| info.len > MAX_LOG_BYTES)
    {
        keep_newest_half(project, &log)?;
    }
    let warning = tracked_warning(project, &log);
    Ok(Logged {
        entry,
        log,
        warning,
    })
}

/// Rewrites the log (atomically) with its newest half of lines. The caller holds the lock.
fn keep_newest_half(project: &Project, log: &str) -> Result<()> {
    let Some((bytes, mode)) = project.dir.read(log, 2 * MAX_LOG_BYTES)? else {
        return Ok(());
    };
    let lines: Vec<&[u8]> = bytes.split_inclusive(|byte| *byte == b'\n').collect();
    let kept: Vec<u8> = lines[lines.len() / 2..].concat();
    project.dir.write(log, &kept, mode)
}

/// A warning when the project is in a git repository that would commit the log.
fn tracked_warning(project: &Project, log: &str) -> Option<String> {
    gix::discover(&project.root).ok()?;
    match crate::git::is_ignored(&project.root, log) {
        Ok(true) => None,
        _ => Some(format!(
            "git does not ignore {log}, which describes this machine only; a rule in a .gitignore overrides the `*` of .ai-rulez/local/.gitignore, so remove that rule"
        )),
    }
}

/// What `recent_activity` returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct RecentActivity {
    /// Entries, newest first.
    pub entries: Vec<ActivityEntry>,
    /// Lines of the log that are not entries ai-rulez wrote (a cut last line after a crash, a
    /// hand edit); they are skipped.
    pub skipped_lines: usize,
}

/// The newest `limit` entries (at most [`MAX_RECENT`]), newest first; with `path`
/// (project-relative, empty for all), only entries naming a path at or below it.
///
/// Errors: the log is a symlink or not a regular file; I/O.
pub(crate) fn recent_activity(
    project: &Project,
    path: Option<&str>,
    limit: usize,
) -> Result<RecentActivity> {
    let limit = limit.clamp(1, MAX_RECENT);
    let wanted = path.unwrap_or_default().trim_end_matches('/');
    let Some((bytes, _)) = project.dir.read(&self::path(project), 2 * MAX_LOG_BYTES)? else {
        return Ok(RecentActivity {
            entries: Vec::new(),
            skipped_lines: 0,
        });
    };
    let mut entries = Vec::new();
    let mut skipped_lines = 0;
    for line in bytes.split(|byte| *byte == b'\n').rev() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<ActivityEntry>(line) else {
            skipped_lines += 1;
            continue;
        };
        if entries.len() < limit && touches(&entry, wanted) {
            entries.push(entry);
        }
    }
    Ok(RecentActivity {
        entries,
        skipped_lines,
    })
}

/// Whether `entry` names a path at or below `wanted` (empty: every entry).
fn touches(entry: &ActivityEntry, wanted: &str) -> bool {
    wanted.is_empty()
        || entry.paths.iter().any(|path| {
            path == wanted
                || path
                    .strip_prefix(wanted)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

/// Now (or `SOURCE_DATE_EPOCH`, as for dates) as `YYYY-MM-DDTHH:MM:SSZ`.
fn now() -> String {
    let seconds = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|text| text.trim().parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| {
                    i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
                })
        });
    let of_day = seconds.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        crate::learning::day::format(seconds.div_euclid(86_400)),
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

/// Entries as text for people: `at action paths: summary`, one per line.
#[must_use]
pub(crate) fn entries_text(entries: &[ActivityEntry]) -> String {
    let mut text = String::new();
    for entry in entries {
        text.push_str(&format!(
            "{} {} {}: {}\n",
            entry.at,
            entry.action,
            if entry.paths.is_empty() {
                "-".to_owned()
            } else {
                entry.paths.join(", ")
            },
            entry.summary
        ));
    }
    text
}
