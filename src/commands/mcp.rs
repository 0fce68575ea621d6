//! `ai-rulez mcp`: serve MCP over stdio. Nothing but protocol messages goes to stdout.

use anyhow::Context as _;

use super::Global;
use crate::cli::McpArgs;
use crate::mcp::registry::{DEFAULT_TOOLSETS, Toolset};

/// Runs the server until stdin closes; returns 0.
///
/// Errors: an unknown name in `--toolsets`, the root does not exist, or stdio fails.
pub(crate) fn run(global: &Global, args: &McpArgs) -> anyhow::Result<u8> {
    let options = crate::mcp::Options {
        // `--root` widens where tools may reach; the default project stays the start directory.
        root: args.root.clone(),
        toolsets: toolsets(global, args)?,
        read_only: args.read_only,
    };
    crate::mcp::serve(&global.start, &options)?;
    Ok(0)
}

/// The toolsets to serve: `--toolsets` wins, then `[mcp] toolsets` of the project around the
/// start directory, then the default.
fn toolsets(global: &Global, args: &McpArgs) -> anyhow::Result<Vec<Toolset>> {
    if !args.toolsets.is_empty() {
        return args
            .toolsets
            .iter()
            .map(|name| Toolset::from_name(name.trim()).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<_>>()
            .context("--toolsets");
    }
    match configured_toolsets(global) {
        Ok(Some(toolsets)) => Ok(toolsets),
        Ok(None) => Ok(DEFAULT_TOOLSETS.to_vec()),
        Err(error) => {
            // The server still starts: every call that loads the project names the same
            // problem, and a broken config can be repaired while the server runs.
            super::print_warnings(
                global,
                &[format!(
                    "{error}; serving the default toolsets ({})",
                    DEFAULT_TOOLSETS.map(Toolset::name).join(", ")
                )],
            );
            Ok(DEFAULT_TOOLSETS.to_vec())
        }
    }
}

/// `[mcp] toolsets` of the project around the start directory; `None` without a project or
/// without the key.
fn configured_toolsets(global: &Global) -> crate::error::Result<Option<Vec<Toolset>>> {
    let Ok((root, relative, yaml)) = crate::project::discover(&global.start) else {
        return Ok(None);
    };
    let dir = crate::confined_fs::ProjectDir::open(&root)?;
    let Some((bytes, _)) = dir.read(relative, 4 * 1024 * 1024)? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let config = crate::config::parse(relative, &text, yaml, &mut Vec::new())?;
    Ok(config.mcp_toolsets)
}
