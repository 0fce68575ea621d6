//! One module per command: each turns typed arguments into a resolved configuration and calls
//! the library.

pub(crate) mod activity;
pub(crate) mod clean;
pub(crate) mod completions;
pub(crate) mod explain;
pub(crate) mod generate;
pub(crate) mod hook;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod learn;
pub(crate) mod learnings;
pub(crate) mod lint;
pub(crate) mod lock;
pub(crate) mod mcp;
pub(crate) mod memory;
pub(crate) mod review;
pub(crate) mod scan;
pub(crate) mod validate;

use std::io::Write as _;
use std::path::PathBuf;

use crate::cli::Format;

/// Settings every command shares, resolved from the global flags.
#[derive(Debug, Clone)]
pub(crate) struct Global {
    /// Directory the project search starts in.
    pub start: PathBuf,
    /// Suppress warnings.
    pub quiet: bool,
}

/// Prints warnings to stderr (unless quiet).
pub(crate) fn print_warnings(global: &Global, warnings: &[String]) {
    if global.quiet {
        return;
    }
    let mut stderr = std::io::stderr().lock();
    for warning in warnings {
        writeln!(stderr, "warning: {warning}").ok();
    }
}

/// Prints one line to stdout.
pub(crate) fn out(line: &str) {
    writeln!(std::io::stdout().lock(), "{line}").ok();
}

/// Prints one line to stderr.
pub(crate) fn err(line: &str) {
    writeln!(std::io::stderr().lock(), "{line}").ok();
}

/// Prints a unified diff (see [`crate::diff::unified`]) on stdout: removed lines red, added lines
/// green, hunk headers cyan when stdout is a terminal and `NO_COLOR` is unset (`anstream` decides
/// and strips the colours otherwise), plain text when piped.
pub(crate) fn print_diff(diff: &str) {
    let removed = anstyle::AnsiColor::Red.on_default();
    let added = anstyle::AnsiColor::Green.on_default();
    let hunk = anstyle::AnsiColor::Cyan.on_default();
    let bold = anstyle::Style::new().bold();
    let mut stdout = anstream::stdout().lock();
    for line in diff.lines() {
        let style = if line.starts_with("---") || line.starts_with("+++") {
            bold
        } else if line.starts_with('-') {
            removed
        } else if line.starts_with('+') {
            added
        } else if line.starts_with("@@") {
            hunk
        } else {
            anstyle::Style::new()
        };
        writeln!(stdout, "{style}{line}{style:#}").ok();
    }
}

/// Prints a JSON document on stdout.
pub(crate) fn print_json(value: &serde_json::Value) {
    out(&serde_json::to_string_pretty(value).unwrap_or_default());
}

/// Whether JSON output was asked for.
#[must_use]
pub(crate) fn is_json(format: Format) -> bool {
    format == Format::Json
}

/// `path` as typed (relative to where the command runs, as in a shell, or absolute) made
/// relative to the project root.
///
/// Errors: the path is not UTF-8, or lies outside the project.
pub(crate) fn project_path(
    global: &Global,
    project: &crate::project::Project,
    path: &std::path::Path,
) -> anyhow::Result<String> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        fs_err::canonicalize(&global.start)?.join(path)
    };
    let absolute = camino::Utf8PathBuf::from_path_buf(absolute)
        .map_err(|path| anyhow::anyhow!("`{}` is not a UTF-8 path", path.display()))?;
    crate::retrieval::project_relative(&project.root, absolute.as_str()).ok_or_else(|| {
        anyhow::anyhow!(
            "`{}` is outside project `{}` ({})",
            path.display(),
            project.config.name,
            project.root.display()
        )
    })
}
