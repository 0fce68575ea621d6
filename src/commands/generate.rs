//! `ai-rulez generate`: render the plan and write it, check it (`--check`) or list it
//! (`--dry-run`).

use serde_json::json;

use super::{Global, err, is_json, out, print_diff, print_json, print_warnings};
use crate::cli::{Format, GenerateArgs};
use crate::write::{Mode, Status};

/// Resolved `generate` settings.
#[derive(Debug, Clone)]
pub(crate) struct GenerateConfig {
    /// What to do.
    pub mode: Mode,
    /// Overwrite unprovable files (saving edited ones as `.orig`) and attach diffs.
    pub options: crate::generate::Options,
    /// Profile expression.
    pub profile: Option<String>,
    /// Refuse when sources drift from the lock.
    pub locked: bool,
    /// Output format.
    pub format: Format,
}

impl GenerateConfig {
    /// Resolves typed arguments.
    #[must_use]
    pub(crate) fn from_args(args: &GenerateArgs) -> Self {
        let mode = if args.check {
            Mode::Check
        } else if args.dry_run {
            Mode::DryRun
        } else {
            Mode::Write
        };
        Self {
            mode,
            options: crate::generate::Options {
                force: args.force,
                diffs: args.diff,
                git_includes: if args.locked {
                    crate::git_include::GitIncludes::CacheOnly
                } else {
                    crate::git_include::GitIncludes::Fetch
                },
            },
            profile: args.profile.clone(),
            locked: args.locked,
            format: args.format,
        }
    }
}

/// Runs `generate`; returns the exit code (0 ok, 2 drift in check mode).
///
/// Errors: anything that stops the run (exit 1).
pub(crate) fn run(global: &Global, config: &GenerateConfig) -> anyhow::Result<u8> {
    if config.locked {
        let drift =
            crate::lock::pin::check_lock(&global.start, crate::lock::pin::Against::WorkTree, true)?;
        if !drift.is_empty() {
            for change in &drift {
                out(&change.line());
            }
            err(
                "the sources differ from .ai-rulez/ai-rulez.lock; review the change and run `ai-rulez lock`, or drop `--locked`",
            );
            return Ok(2);
        }
    }
    let memo_applies = config.mode == Mode::Write
        && !config.options.force
        && !config.options.diffs
        && !is_json(config.format);
    if memo_applies && let Some((root, memo)) = recall(global, config) {
        print_warnings(global, &memo.warnings);
        print_project(global, &root);
        print_summary(0, memo.unchanged, 0, memo.lock_notice.as_deref());
        return Ok(0);
    }
    let mut warnings = Vec::new();
    let began = crate::file_times::now();
    if memo_applies {
        crate::confined_fs::record::start();
    }
    let generated = crate::generate::generate(
        &global.start,
        config.profile.as_deref(),
        config.mode,
        config.options,
        &mut warnings,
    );
    // A write run ends by saying whether the lock is now stale. That check reads the lock, the
    // sources and the outputs through the same file layer, so its reads join the run's facts and
    // a remembered no-op run remembers what it said: without that, a recalled run in a project
    // with a lock still paid a full check (about 1.8 s in all at 40,000 rules, against 0.1 s).
    let lock_notice = match (&generated, config.mode) {
        (Ok(_), Mode::Write) => crate::lock::pin::stale_lock_notice(&global.start),
        _ => Ok(None),
    };
    let recording = crate::confined_fs::record::finish();
    // The warnings of a failed run often say why it failed (an unknown key or preset), so
    // they are printed before the error.
    let outcome = match generated {
        Ok(outcome) => outcome,
        Err(error) => {
            print_warnings(global, &warnings);
            return Err(error.into());
        }
    };
    let report = outcome.report;
    let root = outcome.root;
    if let Some(recording) = recording {
        warnings.extend(report.warnings.iter().cloned());
        // A small project runs in full in a few milliseconds, about what reading a memo costs,
        // and is spared the file.
        let no_op = report.changes.len() >= crate::run_memo::LEAST_OUTPUTS
            && report
                .changes
                .iter()
                .all(|change| change.status == Status::Unchanged);
        let memo = crate::run_memo::Memo {
            warnings: warnings.clone(),
            unchanged: report.changes.len(),
            lock_notice: lock_notice.as_ref().ok().cloned().flatten(),
        };
        let mut recording = recording;
        // A run that changed something is not a no-op to remember, nor one whose lock check
        // failed; its memo is dropped.
        recording.tainted |= !no_op || lock_notice.is_err();
        crate::run_memo::remember(
            &outcome.project,
            crate::run_memo::Key {
                root: &root,
                config: &outcome.project.config_relative,
                profile: config.profile.as_deref(),
            },
            recording,
            &memo,
            began,
        );
        warnings.truncate(warnings.len() - report.warnings.len());
    }
    // The process ends after this command, and the plan and the project of a large project
    // hold hundreds of thousands of allocations (100,000 rules: about a tenth of a no-op run
    // went to freeing them one by one); the system takes the memory back at once instead.
    std::mem::forget(outcome.plan);
    std::mem::forget(outcome.project);
    let lock_notice = lock_notice?;
    warnings.extend(report.warnings.iter().cloned());
    print_warnings(global, &warnings);
    let drift = config.mode == Mode::Check && report.has_drift();
    if is_json(config.format) {
        let changes: Vec<serde_json::Value> = report
            .changes
            .iter()
            .map(|change| {
                let mut entry = json!({"path": change.path, "status": status_name(config.mode, change.status), "detail": change.detail});
                if let Some(saved_as) = &change.saved_as {
                    entry["saved_as"] = json!(saved_as);
                }
                if let Some(diff) = &change.diff {
                    entry["diff"] = json!(diff);
                }
                if change.section {
                    entry["section"] = json!(true);
                }
                entry
            })
            .collect();
        print_json(&json!({
            "status": if drift { "drift" } else { "ok" },
            "mode": match config.mode { Mode::Write => "write", Mode::Check => "check", Mode::DryRun => "dry-run" },
            "changes": changes,
            "lock_stale": lock_notice,
            "warnings": warnings,
        }));
        return Ok(if drift { 2 } else { 0 });
    }
    match config.mode {
        Mode::Check => {
            for change in &report.changes {
                if let Some(word) = change.status.check_word() {
                    out(&format!("{word}: {}", change.shown_path()));
                    print_diff(change.diff.as_deref().unwrap_or_default());
                }
            }
            let differing = report
                .changes
                .iter()
                .filter(|change| change.status.check_word().is_some())
                .count();
            let in_the_way_count = report
                .changes
                .iter()
                .filter(|change| matches!(change.status, Status::Edited | Status::Blocked))
                .count();
            if differing == 0 {
                err("generated files are up to date");
            } else if in_the_way_count == 0 {
                err(&format!(
                    "{differing} generated file(s) differ from their sources; run `ai-rulez generate` and commit the result"
                ));
            } else {
                // `generate` refuses while these are there, so telling the user to run it would
                // send them in a circle: say how to settle each one first.
                let then = if differing > in_the_way_count {
                    ", then run `ai-rulez generate` and commit the result"
                } else {
                    ""
                };
                err(&format!(
                    "{in_the_way_count} file(s) hold changes ai-rulez did not make; keep or drop each as said below{then}"
                ));
                print_ways_out(&report);
            }
        }
        Mode::DryRun => {
            for change in &report.changes {
                out(&change_line(change));
                print_saved(change);
                print_diff(change.diff.as_deref().unwrap_or_default());
            }
            // The dry run predicts the real run: it would refuse, so say so and exit 1.
            if in_the_way(&report) && !config.options.force {
                print_ways_out(&report);
                return Ok(1);
            }
        }
        Mode::Write => {
            print_project(global, &root);
            for change in report
                .changes
                .iter()
                .filter(|change| !matches!(change.status, Status::Unchanged | Status::Kept))
            {
                out(&change_line(change));
                print_saved(change);
                print_diff(change.diff.as_deref().unwrap_or_default());
            }
            let written = report
                .changes
                .iter()
                .filter(|change| matches!(change.status, Status::Create | Status::Update))
                .count();
            let unchanged = report
                .changes
                .iter()
                .filter(|change| change.status == Status::Unchanged)
                .count();
            let deleted = report
                .changes
                .iter()
                .filter(|change| change.status == Status::Orphan)
                .count();
            print_summary(written, unchanged, deleted, lock_notice.as_deref());
        }
    }
    Ok(if drift { 2 } else { 0 })
}

/// The line a dry run or a write prints for `change`: `update: CLAUDE.md`, with the writer's
/// note on an update when it has one (a file adopted after an import says so).
fn change_line(change: &crate::write::Change) -> String {
    let line = format!("{}: {}", change.status.action_word(), change.shown_path());
    // A forced update is followed by its `save:` line, which says enough.
    match (&change.detail, change.status, &change.saved_as) {
        (Some(detail), Status::Update, None) => format!("{line} ({detail})"),
        _ => line,
    }
}

/// The result of the last no-op run of this project with these arguments, when nothing it read
/// has changed since (see [`crate::run_memo`]): the project root and what the run printed.
fn recall(
    global: &Global,
    config: &GenerateConfig,
) -> Option<(std::path::PathBuf, crate::run_memo::Memo)> {
    let (root, config_relative, _) = crate::project::discover(&global.start).ok()?;
    let dir = crate::confined_fs::ProjectDir::open(&root).ok()?;
    // Held while the facts are compared, so a writer cannot change them half way.
    let _lock = dir.lock().ok()?;
    let memo = crate::run_memo::recall(
        &dir,
        crate::run_memo::Key {
            root: &root,
            config: config_relative,
            profile: config.profile.as_deref(),
        },
    )?;
    Some((root, memo))
}

/// Says where the project is when it is not where the command ran, so files written in a
/// parent folder never come as a surprise.
fn print_project(global: &Global, root: &std::path::Path) {
    if fs_err::canonicalize(&global.start).is_ok_and(|start| start != root) {
        err(&format!("project: {}", root.display()));
    }
}

/// Prints the end of a write run: the counts, and `lock_notice` when the lock is now stale.
fn print_summary(written: usize, unchanged: usize, deleted: usize, lock_notice: Option<&str>) {
    err(&format!(
        "{written} written, {unchanged} unchanged, {deleted} removed"
    ));
    // A lock that no longer matches fails the pre-commit hook: say so now, not there.
    if let Some(notice) = lock_notice {
        err(notice);
    }
}

/// Prints, for every `edited:` and `blocked:` path, how to keep or drop what is there (the
/// writer's detail: the source item to copy an edit into, or `generate --force` and the `.orig`
/// copy it saves), one `path: detail` line each on stderr.
fn print_ways_out(report: &crate::write::Report) {
    for change in &report.changes {
        if matches!(change.status, Status::Edited | Status::Blocked) {
            err(&format!(
                "{}: {}",
                change.path,
                change.detail.as_deref().unwrap_or_default()
            ));
        }
    }
}

/// Prints `save: <path>.orig` when `--force` saves the file it replaces.
fn print_saved(change: &crate::write::Change) {
    if let Some(saved_as) = &change.saved_as {
        out(&format!("save: {saved_as}"));
    }
}

/// Whether hand edits or hand-written files block a write run.
fn in_the_way(report: &crate::write::Report) -> bool {
    report
        .changes
        .iter()
        .any(|change| matches!(change.status, Status::Edited | Status::Blocked))
}

fn status_name(mode: Mode, status: Status) -> &'static str {
    match mode {
        Mode::Check => status.check_word().unwrap_or("unchanged"),
        Mode::Write | Mode::DryRun => status.action_word(),
    }
}
