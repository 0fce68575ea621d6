//! `ai-rulez lock`: write the lock, or compare it (`--check`, `--diff`, `--staged`).

use serde_json::json;

use super::{Global, err, is_json, out, print_diff, print_json, print_warnings};
use crate::cli::LockArgs;
use crate::lock::pin::{self, Against};

/// Runs `lock`; returns the exit code (0 ok or in sync, 2 differences under `--check`).
///
/// Errors: anything that stops the run (exit 1), including a missing or damaged lock.
pub(crate) fn run(global: &Global, args: &LockArgs) -> anyhow::Result<u8> {
    if args.update_includes {
        return update_includes(global, args);
    }
    if !args.check && !args.diff {
        if args.staged {
            anyhow::bail!("`--staged` only applies to `--check` and `--diff`");
        }
        let mut warnings = Vec::new();
        let (path, changed) = pin::write_lock(&global.start, &mut warnings)?;
        print_warnings(global, &warnings);
        if is_json(args.format) {
            print_json(&json!({"status": "ok", "path": path, "changed": changed}));
        } else {
            out(&format!(
                "{}: {path}",
                if changed { "wrote" } else { "unchanged" }
            ));
        }
        return Ok(0);
    }
    let against = if args.staged {
        Against::Staged
    } else {
        Against::WorkTree
    };
    let changes = if args.diff {
        crate::lock::diff::diff_lock(&global.start, against)?
    } else {
        pin::check_lock(&global.start, against, false)?
    };
    if is_json(args.format) {
        print_json(&json!({
            "schema_version": 1,
            "in_sync": changes.is_empty(),
            "lock_version": crate::lock::LOCK_VERSION,
            "changes": changes,
        }));
    } else {
        for change in &changes {
            out(&change.line());
            if let Some(detail) = &change.detail {
                out(&format!("    {detail}"));
            }
            print_diff(change.diff.as_deref().unwrap_or_default());
        }
        print_summary(&global.start, against, &changes)?;
    }
    Ok(if args.check && !changes.is_empty() {
        2
    } else {
        0
    })
}

/// `lock --update-includes`: moves every git include's pin, prints one `moved:`, `pinned:` or
/// `unchanged:` line per include (stdout), and what to run next (stderr).
///
/// Errors: as [`pin::update_include_pins`].
fn update_includes(global: &Global, args: &LockArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let (path, changed, moves) = pin::update_include_pins(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let any_moved = moves
        .iter()
        .any(|entry| entry.from.as_deref() != Some(entry.to.as_str()));
    if is_json(args.format) {
        let includes: Vec<serde_json::Value> = moves
            .iter()
            .map(|entry| json!({"name": entry.name, "from": entry.from, "to": entry.to}))
            .collect();
        print_json(
            &json!({"status": "ok", "path": path, "changed": changed, "includes": includes}),
        );
        return Ok(0);
    }
    for entry in &moves {
        match &entry.from {
            Some(from) if *from == entry.to => {
                out(&format!("unchanged: include {} {}", entry.name, entry.to));
            }
            Some(from) => out(&format!(
                "moved: include {} {from} -> {}",
                entry.name, entry.to
            )),
            None => out(&format!("pinned: include {} {}", entry.name, entry.to)),
        }
    }
    out(&format!(
        "{}: {path}",
        if changed { "wrote" } else { "unchanged" }
    ));
    if any_moved {
        err(
            "the generated files still show the old commits; run `ai-rulez generate`, then `ai-rulez lock`, and commit the result",
        );
    }
    Ok(0)
}

/// Prints what to do about the differences on stderr, so the next command is the right one:
/// nothing to do; only `git add` (the working tree already matches the lock, the index does
/// not); for each hand-edited generated file, how to keep the edit (copy it into the source its
/// banner names) or drop it (`generate --force`, which saves the file as `.orig` first); else
/// the usual `generate`, `lock`, commit.
///
/// Errors: reading the working tree or index for the `git add` case.
fn print_summary(
    start: &std::path::Path,
    against: Against,
    changes: &[crate::lock::Change],
) -> anyhow::Result<()> {
    if changes.is_empty() {
        err("the lock matches the sources and generated files");
        return Ok(());
    }
    if against == Against::Staged
        && let Some(unstaged) = pin::unstaged_fixes(start, changes)?
    {
        err(&format!(
            "the working tree matches the lock, but the commit does not: stage the files with\n    {}",
            pin::staging_command(start, &unstaged)
        ));
        return Ok(());
    }
    let edited: Vec<&crate::lock::Change> = changes
        .iter()
        .filter(|change| change.edited_from.is_some())
        .collect();
    for change in &edited {
        err(&format!(
            "{path}: edited by hand; to keep the edit, copy it into {source}, then run `ai-rulez generate` and `ai-rulez lock`; to drop it, run `ai-rulez generate --force` (it saves the edited file as {path}.orig first), then `ai-rulez lock`",
            path = change.path,
            source = change.edited_from.as_deref().unwrap_or_default()
        ));
    }
    if edited.len() < changes.len() {
        let advice = if edited.is_empty() && outputs_match_sources(start) {
            "the generated files already match their sources, so run `ai-rulez lock` and commit the result"
        } else {
            "run `ai-rulez generate`, then `ai-rulez lock`, and commit the result"
        };
        err(&format!(
            "{} difference(s) from the lock; {advice}",
            changes.len()
        ));
    }
    Ok(())
}

/// Whether `generate --check` would find nothing to do in the project at `start`. A project with
/// git includes is not asked (their content would come from the cache, which a pre-commit check
/// must not touch), nor is one whose check cannot run: `false` then keeps the advice that is
/// always right.
fn outputs_match_sources(start: &std::path::Path) -> bool {
    let options = crate::generate::Options {
        git_includes: crate::git_include::GitIncludes::Skip,
        ..crate::generate::Options::default()
    };
    crate::generate::generate(
        start,
        None,
        crate::write::Mode::Check,
        options,
        &mut Vec::new(),
    )
    .is_ok_and(|outcome| {
        outcome.project.config.git_includes.is_empty()
            && outcome
                .report
                .changes
                .iter()
                .all(|change| change.status == crate::write::Status::Unchanged)
    })
}
