//! `ai-rulez lock`: write the lock, or compare it (`--check`, `--diff`, `--staged`).

use serde_json::json;

use super::{Global, err, is_json, out, print_diff, print_json, print_warnings};
use crate::cli::LockArgs;
use crate::lock::pin::{self, Against};

/// Runs `lock`; returns the exit code (0 ok or in sync, 2 differences under `--check`).
///
/// Errors: anything that stops the run (exit 1), including a missing or damaged lock.
pub(crate) fn run(global: &Global, args: &LockArgs) -> anyhow::Result<u8> {
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
        if changes.is_empty() {
            err("the lock matches the sources and generated files");
        } else {
            err(&format!(
                "{} difference(s) from the lock; run `ai-rulez generate`, then `ai-rulez lock`, and commit the result",
                changes.len()
            ));
        }
    }
    Ok(if args.check && !changes.is_empty() {
        2
    } else {
        0
    })
}
