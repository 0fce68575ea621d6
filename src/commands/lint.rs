//! What `validate` and `scan` share: `--explain`, the output format and the exit code.

use std::io::Write as _;

use super::{Global, err, print_warnings};
use crate::cli::{FailOn, LintArgs, LintFormat};
use crate::lint::report::{self, OutputFormat};
use crate::lint::{Report, Severity, codes};

/// Which command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Which {
    /// `validate`: structure and behaviour.
    Validate,
    /// `scan`: security.
    Scan,
}

/// Runs `validate` or `scan`; returns 0 when no finding reaches `--fail-on`, 2 when one does.
///
/// Errors (exit 1): an unknown `--explain` code, no project, or a config `scan` cannot read.
pub(crate) fn run(global: &Global, args: &LintArgs, which: Which) -> anyhow::Result<u8> {
    if let Some(code) = &args.explain {
        let Some(entry) = codes::lookup(code) else {
            anyhow::bail!(
                "unknown finding code `{code}`; docs/codes.md lists them all (AR001, AR101, ...)"
            );
        };
        super::out(codes::explain(entry).trim_end());
        return Ok(0);
    }
    let mut warnings = Vec::new();
    let report = match which {
        Which::Validate => crate::lint::validate::validate(&global.start, &mut warnings)?,
        Which::Scan => crate::lint::scan::scan(&global.start, &mut warnings)?,
    };
    print_warnings(global, &warnings);
    let (format, name) = (
        match args.format {
            LintFormat::Text => OutputFormat::Text,
            LintFormat::Json => OutputFormat::Json,
            LintFormat::Sarif => OutputFormat::Sarif,
            LintFormat::Github => OutputFormat::Github,
        },
        match which {
            Which::Validate => "validate",
            Which::Scan => "scan",
        },
    );
    let rendered = report::render(&report, name, format);
    std::io::stdout().lock().write_all(rendered.as_bytes()).ok();
    if format == OutputFormat::Text {
        err(&summary_line(&report, name));
    }
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::None => None,
    };
    Ok(if report.fails(threshold) { 2 } else { 0 })
}

fn summary_line(report: &Report, name: &str) -> String {
    let summary = report.summary();
    if summary.total == 0 {
        return format!("{name}: no findings");
    }
    format!(
        "{name}: {} finding(s): {} error(s), {} warning(s), {} info",
        summary.total, summary.errors, summary.warnings, summary.infos
    )
}
