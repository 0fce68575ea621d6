//! `ai-rulez mcp`: serve MCP over stdio. Nothing but protocol messages goes to stdout.

use super::Global;
use crate::cli::McpArgs;

/// Runs the server until stdin closes; returns 0.
///
/// Errors: the root does not exist, or stdio fails.
pub fn run(global: &Global, args: &McpArgs) -> anyhow::Result<u8> {
    // `--root` widens where tools may reach; the default project stays the start directory.
    let root = args.root.clone().unwrap_or_else(|| global.start.clone());
    crate::mcp::serve(&global.start, &root)?;
    Ok(0)
}
