//! Machine-readable summaries of `generate`, `validate` and `lock --check` for agents: the same
//! library runs as the CLI commands, reduced to plain fields an MCP client can read.

use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::Result;
use crate::lint::{Finding, Severity};
use crate::write::Mode;

/// One path's status after generate.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct PathStatus {
    /// Project-relative path.
    pub(crate) path: String,
    /// Write and dry run: create, update, unchanged, delete, keep, edited, blocked. Check:
    /// missing, stale, edited, blocked, orphan, unchanged.
    pub(crate) status: String,
}

/// What generate did (or would do, or found).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GenerateReport {
    /// `ok`, or `drift` when a check found differences.
    pub(crate) status: String,
    /// Every path's status, sorted by path.
    pub(crate) changes: Vec<PathStatus>,
    /// Warnings.
    pub(crate) warnings: Vec<String>,
}

/// What validate found.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ValidationReport {
    /// Whether no error-severity finding remains.
    pub(crate) valid: bool,
    /// Error findings (`file:line: CODE message`).
    pub(crate) errors: Vec<String>,
    /// Warning findings (`file:line: CODE message`).
    pub(crate) warnings: Vec<String>,
}

/// How the lock compares with the sources and outputs.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct LockReport {
    /// Whether sources and outputs match the lock.
    pub(crate) in_sync: bool,
    /// One line per difference.
    pub(crate) changes: Vec<String>,
}

/// The running binary's name and version.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct VersionInfo {
    /// `ai-rulez`.
    pub(crate) name: String,
    /// Crate version.
    pub(crate) version: String,
}

/// Runs generate for the project around `start` in `mode` (never forced) and reports every
/// path's status; `status` is `drift` only in check mode.
///
/// Errors: as [`crate::generate::generate`].
pub(crate) fn generate(start: &Path, profile: Option<&str>, mode: Mode) -> Result<GenerateReport> {
    let mut warnings = Vec::new();
    let outcome = crate::generate::generate(
        start,
        profile,
        mode,
        crate::generate::Options::default(),
        &mut warnings,
    )?;
    warnings.extend(outcome.report.warnings.iter().cloned());
    let drift = mode == Mode::Check && outcome.report.has_drift();
    let changes = outcome
        .report
        .changes
        .iter()
        .map(|change| PathStatus {
            path: change.path.clone(),
            status: if mode == Mode::Check {
                change.status.check_word().unwrap_or("unchanged")
            } else {
                change.status.action_word()
            }
            .to_owned(),
        })
        .collect();
    Ok(GenerateReport {
        status: if drift { "drift" } else { "ok" }.to_owned(),
        changes,
        warnings,
    })
}

/// Runs the same checks as `ai-rulez validate` on the project around `start`.
///
/// Errors: as [`crate::lint::validate::validate`].
pub(crate) fn validation(start: &Path) -> Result<ValidationReport> {
    let mut warnings = Vec::new();
    let report = crate::lint::validate::validate(start, &mut warnings)?;
    let lines = |severity: Severity| -> Vec<String> {
        report
            .findings
            .iter()
            .filter(|finding| finding.severity == severity)
            .map(Finding::text_line)
            .collect()
    };
    let errors = lines(Severity::Error);
    Ok(ValidationReport {
        valid: errors.is_empty(),
        errors,
        warnings: lines(Severity::Warning),
    })
}

/// Compares the lock of the project around `start` with its working tree (as `lock --check`).
///
/// Errors: no lock, or as [`crate::lock::pin::check_lock`].
pub(crate) fn lock_status(start: &Path) -> Result<LockReport> {
    let changes = crate::lock::pin::check_lock(start, crate::lock::pin::Against::WorkTree, false)?;
    Ok(LockReport {
        in_sync: changes.is_empty(),
        changes: changes.iter().map(crate::lock::Change::line).collect(),
    })
}

/// This binary's name and version.
#[must_use]
pub(crate) fn version() -> VersionInfo {
    VersionInfo {
        name: env!("CARGO_PKG_NAME").to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    }
}
