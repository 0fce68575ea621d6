//! `ai-rulez mcp`: serve MCP over stdio. Nothing but protocol messages goes to stdout.

use super::Global;
use crate::cli::McpArgs;

/// Runs the server until stdin closes; returns 0.
///
/// Errors: the root does not exist, or stdio fails.
pub fn run(global: &Global, args: &McpArgs) -> anyhow::Result<u8> {
    let root = args.root.clone().unwrap_or_else(|| global.start.clone());
    crate::mcp::serve(&root)?;
    Ok(0)
}
