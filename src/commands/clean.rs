//! `ai-rulez clean`: remove exactly what generate wrote and can prove unedited.

use serde_json::json;

use super::{Global, err, is_json, out, print_json, print_warnings};
use crate::cli::CleanArgs;
use crate::write::{Mode, Status};

/// Runs `clean`; returns the exit code.
///
/// Errors: anything that stops the run (exit 1).
pub(crate) fn run(global: &Global, args: &CleanArgs) -> anyhow::Result<u8> {
    let mode = if args.dry_run {
        Mode::DryRun
    } else {
        Mode::Write
    };
    let mut warnings = Vec::new();
    let report = crate::generate::clean(&global.start, mode, &mut warnings)?;
    warnings.extend(report.warnings.iter().cloned());
    print_warnings(global, &warnings);
    let cleaned: Vec<&crate::write::Change> = report
        .changes
        .iter()
        .filter(|change| change.status == Status::Orphan)
        .collect();
    let removed: Vec<&str> = cleaned.iter().map(|change| change.path.as_str()).collect();
    if is_json(args.format) {
        print_json(
            &json!({"status": "ok", "dry_run": args.dry_run, "removed": removed, "warnings": warnings}),
        );
        return Ok(0);
    }
    for change in &cleaned {
        out(&format!(
            "{}: {}",
            if args.dry_run {
                "would remove"
            } else {
                "removed"
            },
            change.shown_path()
        ));
    }
    err(&format!(
        "{} path(s) {}",
        removed.len(),
        if args.dry_run {
            "would be cleaned"
        } else {
            "cleaned"
        }
    ));
    Ok(0)
}
