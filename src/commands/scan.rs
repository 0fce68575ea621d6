//! `ai-rulez scan`: security screening of every source, skill file and MCP server entry (see
//! [`crate::lint::scan`]).

use super::Global;
use super::lint::{Which, run as run_lint};
use crate::cli::LintArgs;

/// Runs `scan`; exit 0 below `--fail-on`, 2 at or above it.
///
/// Errors (exit 1): no project, a config that cannot be read, or an unknown `--explain` code.
pub(crate) fn run(global: &Global, args: &LintArgs) -> anyhow::Result<u8> {
    run_lint(global, args, Which::Scan)
}
