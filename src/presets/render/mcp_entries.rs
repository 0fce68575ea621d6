//! MCP server entries for one preset's settings document (`super::super::McpSpec`), and what
//! `generate` says about a server left out of it.

use super::Renderer;
use crate::error::{Error, Result};
use crate::mcp_config::{self, DocumentShape};
use crate::plan::{Content, Output, Plan};
use crate::presets::PresetSpec;

impl Renderer<'_> {
    /// Adds the entries of every `[[mcp_servers]]` server this preset's document `shape` can
    /// hold, and one warning per server left out.
    pub(super) fn mcp(
        &self,
        preset: &PresetSpec,
        shape: &str,
        lookup: &dyn Fn(&str) -> Option<String>,
        plan: &mut Plan,
    ) -> Result<()> {
        let servers = &self.project.config.mcp_servers;
        if servers.is_empty() {
            return Ok(());
        }
        let shape: DocumentShape = shape.parse().map_err(|error: mcp_config::McpConfigError| {
            Error::Usage(format!("preset {}: {error}", preset.name))
        })?;
        let (entries, left_out) = mcp_config::render_entries_leaving_out(shape, servers, lookup)
            .map_err(|error| {
                Error::invalid(&self.project.config_relative, None, error.to_string())
            })?;
        for reason in &left_out {
            plan.warnings
                .push(left_out_message(preset, shape.default_path(), reason));
        }
        if entries.is_empty() {
            return Ok(());
        }
        plan.add(Output {
            path: shape.default_path().to_owned(),
            content: Content::Entries { shape, entries },
            writers: vec![preset.name.clone()],
        })
    }
}

/// What `generate` says about an MCP server left out of one assistant's settings document at
/// `path` (see [`mcp_config::render_entries_leaving_out`]): which server, why, and what to do.
fn left_out_message(
    preset: &PresetSpec,
    path: &str,
    reason: &mcp_config::McpConfigError,
) -> String {
    use mcp_config::McpConfigError::{UnresolvedVariable, UnsupportedName, UnsupportedTransport};
    match reason {
        UnsupportedTransport {
            server, transport, ..
        } => format!(
            "{}: MCP server `{server}` is left out of {path}: {} has no {transport} transport (the other assistants still get it){}",
            preset.name,
            preset.label,
            if *transport == "sse" {
                "; give the server an `http` url if it has one"
            } else {
                ""
            }
        ),
        UnsupportedName { server, .. } => format!(
            "{}: MCP server `{server}` is left out of {path}: {} lists a server with that name but never starts it (the other assistants still get it); rename it to ASCII letters, digits, `_`, `-`, `.`, `/` and `@` only",
            preset.name, preset.label
        ),
        UnresolvedVariable {
            variable, server, ..
        } if path == DocumentShape::CodexConfigToml.default_path() => format!(
            "{}: MCP server `{server}` is left out of {path}: it needs `${{{variable}}}`, which is not set, and {} cannot refer to a variable there (it forwards only an `env` value of the same name, `Authorization: Bearer ${{NAME}}` and whole-value headers), so the value would have to be written into the file (the other assistants still get the server); set {variable} and run `ai-rulez generate` again",
            preset.name, preset.label
        ),
        UnresolvedVariable {
            variable, server, ..
        } => format!(
            "{}: MCP server `{server}` is left out of {path}: it needs `${{{variable}}}`, which is not set, and {} documents no variable references in that file, so the value would have to be written into it (the other assistants still get the server); set {variable} and run `ai-rulez generate` again",
            preset.name, preset.label
        ),
        other => format!("{}: {other}", preset.name),
    }
}
