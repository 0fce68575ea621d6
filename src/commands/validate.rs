//! `ai-rulez validate`: structure and behaviour checks (see [`crate::lint::validate`]).

use super::Global;
use super::lint::{Which, run as run_lint};
use crate::cli::LintArgs;

/// Runs `validate`; exit 0 below `--fail-on`, 2 at or above it.
///
/// Errors (exit 1): no project, an unknown `--explain` code, or an I/O failure.
pub(crate) fn run(global: &Global, args: &LintArgs) -> anyhow::Result<u8> {
    run_lint(global, args, Which::Validate)
}
