//! `ai-rulez import --from <setup>`: read another tool's setup into `.ai-rulez/` and say which
//! files were created (or, with `--dry-run`, would be).

use serde_json::json;

use super::{Global, err, is_json, out, print_json};
use crate::cli::{ImportArgs, ImportFrom};
use crate::import::Source;

/// Runs `import`; returns the exit code (0). Prints `create: <path>` per file on stdout (the
/// same list with `--dry-run`), `unchanged: <path>` for files that already hold the imported
/// text, `update: .ai-rulez/config.toml` when the source's presets or MCP servers are added to
/// an existing config, and notes on stderr; with `--format json`, one document with `created`,
/// `updated`, `unchanged` and `notes`.
///
/// Errors: nothing to import, a clash with an existing `.ai-rulez/` file (nothing written), a
/// source file that cannot be read.
pub(crate) fn run(global: &Global, args: &ImportArgs) -> anyhow::Result<u8> {
    let source = match args.from {
        ImportFrom::Rulesync => Source::Rulesync,
        ImportFrom::Ruler => Source::Ruler,
        ImportFrom::Claude => Source::Claude,
        ImportFrom::Cursor => Source::Cursor,
        ImportFrom::Copilot => Source::Copilot,
        ImportFrom::Windsurf => Source::Windsurf,
        ImportFrom::Cline => Source::Cline,
        ImportFrom::AgentsMd => Source::AgentsMd,
        ImportFrom::AiRulezV2 => Source::AiRulezV2,
    };
    let outcome = crate::import::import(&global.start, source, args.dry_run)?;
    // Say where `.ai-rulez/` is when it is not where the command ran.
    if fs_err::canonicalize(&global.start).is_ok_and(|start| start != outcome.root) {
        err(&format!("project: {}", outcome.root.display()));
    }
    if is_json(args.format) {
        print_json(&json!({
            "status": "ok",
            "from": source.name(),
            "dry_run": args.dry_run,
            "created": outcome.created,
            "updated": outcome.updated,
            "unchanged": outcome.unchanged,
            "notes": outcome.notes,
        }));
        return Ok(0);
    }
    for path in &outcome.created {
        out(&format!("create: {path}"));
    }
    for path in &outcome.updated {
        out(&format!("update: {path}"));
    }
    for path in &outcome.unchanged {
        out(&format!("unchanged: {path}"));
    }
    if !global.quiet {
        for note in &outcome.notes {
            err(&format!("note: {note}"));
        }
    }
    let verb = if args.dry_run {
        "would create"
    } else {
        "created"
    };
    let updated = if outcome.updated.is_empty() {
        String::new()
    } else if args.dry_run {
        format!(", would update {}", outcome.updated.join(", "))
    } else {
        format!(", updated {}", outcome.updated.join(", "))
    };
    // After a dry run nothing is there for `generate` to read yet.
    let next = if args.dry_run {
        "run the import without --dry-run to write them"
    } else {
        "`ai-rulez generate --dry-run --diff` shows what the assistants' files become"
    };
    err(&format!(
        "{verb} {} file(s){updated}, {} already there; next: {next}",
        outcome.created.len(),
        outcome.unchanged.len()
    ));
    Ok(0)
}
