//! MCP server entries in each coding assistant's own config document.
//!
//! Every assistant keeps its MCP servers in a document it also uses for other
//! settings, so ai-rulez must edit only the entries it owns and leave the rest of
//! the file exactly as the user wrote it. This module turns a neutral
//! [`McpServer`] description into the shape each assistant expects
//! ([`render_entries_leaving_out`]), merges those entries into the existing text without
//! disturbing anything else ([`merge_document`]), and computes digests that let
//! the caller notice hand edits without ever hashing a secret
//! ([`entry_digest`], [`disk_entry_digest`]).
//!
//! Vendor format references:
//! - Claude Code `.mcp.json`: <https://docs.anthropic.com/en/docs/claude-code/mcp>
//! - Cursor `.cursor/mcp.json`: <https://docs.cursor.com/context/model-context-protocol>
//! - VS Code `.vscode/mcp.json`: <https://code.visualstudio.com/docs/copilot/reference/mcp-configuration>
//! - Gemini CLI `.gemini/settings.json`: <https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md>
//! - `OpenCode` `opencode.json`: <https://opencode.ai/docs/mcp-servers/>
//! - Codex `.codex/config.toml`: <https://developers.openai.com/codex/mcp>
//! - Roo Code and Zoo Code `.roo/mcp.json`: <https://docs.roocode.com/features/mcp/using-mcp-in-roo>
//! - Kiro `.kiro/settings/mcp.json`: <https://kiro.dev/docs/mcp/configuration>
//! - Zed `.zed/settings.json` `context_servers`: <https://zed.dev/docs/ai/mcp>
//! - Amp `.amp/settings.json` `amp.mcpServers`: <https://ampcode.com/manual>
//! - Junie `.junie/mcp/mcp.json` (stdio only): <https://www.jetbrains.com/help/junie/model-context-protocol-mcp.html>
//! - Devin CLI `.devin/config.json`: <https://docs.devin.ai/cli/extensibility/mcp/configuration>
//! - Antigravity `.agents/mcp_config.json` (`serverUrl`): <https://antigravity.google/docs/mcp>
//! - GitHub Copilot CLI `.github/mcp.json`: <https://docs.github.com/en/copilot/reference/copilot-cli-reference>

mod digest;
mod json;
pub(crate) use json::jsonc_options;
mod render;
mod toml;

use std::fmt;
use std::str::FromStr;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub(crate) use digest::{disk_entry_digest, entry_digest};
use json::merge_json;
#[cfg(test)]
use json::{json_servers, parse_json};
use render::render_one;
#[cfg(test)]
use render::{Piece, sole_placeholder, split_placeholders};
use toml::merge_toml;
#[cfg(test)]
use toml::{parse_toml, toml_servers};

/// How an assistant talks to an MCP server.
///
/// See the MCP transport specification:
/// <https://modelcontextprotocol.io/specification/2025-06-18/basic/transports>.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// The assistant starts `command` and speaks MCP over its stdin and stdout.
    Stdio,
    /// Streamable HTTP at `url`.
    Http,
    /// The older HTTP with server-sent events transport at `url`.
    Sse,
}

impl Transport {
    fn as_str(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }
}

/// One MCP server as ai-rulez describes it, independent of any assistant.
///
/// String values in `env`, `url` and `headers` (and also `command` and `args`)
/// may hold `${NAME}` placeholders, where `NAME` matches
/// `[A-Za-z_][A-Za-z0-9_]*`. `$${` is not an escape, and an unterminated `${`
/// is literal text. [`render_entries_leaving_out`] translates placeholders into each
/// assistant's own syntax or resolves them when the assistant has none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpServer {
    /// Server name; it becomes the key under the document's servers table.
    pub name: String,
    /// Executable for [`Transport::Stdio`] servers.
    pub command: Option<String>,
    /// Arguments passed to `command`.
    pub args: Vec<String>,
    /// Environment for the started process; values may hold `${VAR}`.
    pub env: IndexMap<String, String>,
    /// How the assistant connects to the server.
    pub transport: Transport,
    /// Endpoint for [`Transport::Http`] and [`Transport::Sse`]; may hold `${VAR}`.
    pub url: Option<String>,
    /// HTTP headers for remote servers; values may hold `${VAR}`, e.g. `Bearer ${TOKEN}`.
    pub headers: IndexMap<String, String>,
}

/// Which document an entry goes to, and its shape.
///
/// Parsed from kebab-case names with [`FromStr`]; see the module documentation
/// for links to each vendor's format description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocumentShape {
    /// Claude Code project file `.mcp.json`, servers under `mcpServers`.
    ClaudeMcpJson,
    /// Cursor project file `.cursor/mcp.json`, servers under `mcpServers`.
    CursorMcpJson,
    /// VS Code workspace file `.vscode/mcp.json`, servers under `servers`.
    VscodeMcpJson,
    /// Gemini CLI project settings `.gemini/settings.json`, servers under `mcpServers`.
    GeminiSettingsJson,
    /// `OpenCode` project config `opencode.json`, servers under `mcp`.
    OpencodeJson,
    /// Codex project config `.codex/config.toml`, servers under `[mcp_servers]`.
    CodexConfigToml,
    /// Roo Code (and Zoo Code) project file `.roo/mcp.json`, servers under `mcpServers`;
    /// remote servers carry `type: streamable-http` or `type: sse`.
    RooMcpJson,
    /// Kiro workspace file `.kiro/settings/mcp.json`, servers under `mcpServers`.
    KiroMcpJson,
    /// Zed project settings `.zed/settings.json`, servers under `context_servers`.
    ZedSettingsJson,
    /// Amp workspace settings `.amp/settings.json`, servers under the flat key `amp.mcpServers`.
    AmpSettingsJson,
    /// Junie project file `.junie/mcp/mcp.json`, servers under `mcpServers` (stdio only).
    JunieMcpJson,
    /// Devin CLI project config `.devin/config.json`, servers under `mcpServers`.
    DevinConfigJson,
    /// Antigravity project file `.agents/mcp_config.json`, servers under `mcpServers`.
    AntigravityMcpJson,
    /// GitHub Copilot CLI project file `.github/mcp.json`, servers under `mcpServers` (the CLI
    /// reads `.mcp.json` and `.github/mcp.json`, no longer `.vscode/mcp.json`).
    CopilotMcpJson,
}

impl DocumentShape {
    /// Every shape, in a fixed order, for callers that iterate over all assistants.
    pub const ALL: [DocumentShape; 14] = [
        DocumentShape::ClaudeMcpJson,
        DocumentShape::CursorMcpJson,
        DocumentShape::VscodeMcpJson,
        DocumentShape::GeminiSettingsJson,
        DocumentShape::OpencodeJson,
        DocumentShape::CodexConfigToml,
        DocumentShape::RooMcpJson,
        DocumentShape::KiroMcpJson,
        DocumentShape::ZedSettingsJson,
        DocumentShape::AmpSettingsJson,
        DocumentShape::JunieMcpJson,
        DocumentShape::DevinConfigJson,
        DocumentShape::AntigravityMcpJson,
        DocumentShape::CopilotMcpJson,
    ];

    /// The document path relative to the project root that the assistant reads.
    ///
    /// Input: the shape. Output: a relative path such as `.cursor/mcp.json`.
    /// Never fails.
    #[must_use]
    pub fn default_path(self) -> &'static str {
        match self {
            DocumentShape::ClaudeMcpJson => ".mcp.json",
            DocumentShape::CursorMcpJson => ".cursor/mcp.json",
            DocumentShape::VscodeMcpJson => ".vscode/mcp.json",
            DocumentShape::GeminiSettingsJson => ".gemini/settings.json",
            DocumentShape::OpencodeJson => "opencode.json",
            DocumentShape::CodexConfigToml => ".codex/config.toml",
            DocumentShape::RooMcpJson => ".roo/mcp.json",
            DocumentShape::KiroMcpJson => ".kiro/settings/mcp.json",
            DocumentShape::ZedSettingsJson => ".zed/settings.json",
            DocumentShape::AmpSettingsJson => ".amp/settings.json",
            DocumentShape::JunieMcpJson => ".junie/mcp/mcp.json",
            DocumentShape::DevinConfigJson => ".devin/config.json",
            DocumentShape::AntigravityMcpJson => ".agents/mcp_config.json",
            DocumentShape::CopilotMcpJson => ".github/mcp.json",
        }
    }

    /// The kebab-case name accepted by [`FromStr`].
    ///
    /// Input: the shape. Output: e.g. `"codex-config-toml"`. Never fails.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            DocumentShape::ClaudeMcpJson => "claude-mcp-json",
            DocumentShape::CursorMcpJson => "cursor-mcp-json",
            DocumentShape::VscodeMcpJson => "vscode-mcp-json",
            DocumentShape::GeminiSettingsJson => "gemini-settings-json",
            DocumentShape::OpencodeJson => "opencode-json",
            DocumentShape::CodexConfigToml => "codex-config-toml",
            DocumentShape::RooMcpJson => "roo-mcp-json",
            DocumentShape::KiroMcpJson => "kiro-mcp-json",
            DocumentShape::ZedSettingsJson => "zed-settings-json",
            DocumentShape::AmpSettingsJson => "amp-settings-json",
            DocumentShape::JunieMcpJson => "junie-mcp-json",
            DocumentShape::DevinConfigJson => "devin-config-json",
            DocumentShape::AntigravityMcpJson => "antigravity-mcp-json",
            DocumentShape::CopilotMcpJson => "copilot-mcp-json",
        }
    }

    /// The top-level key that holds the servers table in this document.
    ///
    /// Input: the shape. Output: `mcpServers`, `servers`, `mcp`, `mcp_servers`,
    /// `context_servers` or `amp.mcpServers` (one flat key with a dot, as in VS Code
    /// settings). Never fails.
    #[must_use]
    pub fn servers_key(self) -> &'static str {
        match self {
            DocumentShape::ClaudeMcpJson
            | DocumentShape::CursorMcpJson
            | DocumentShape::GeminiSettingsJson
            | DocumentShape::RooMcpJson
            | DocumentShape::KiroMcpJson
            | DocumentShape::JunieMcpJson
            | DocumentShape::DevinConfigJson
            | DocumentShape::AntigravityMcpJson
            | DocumentShape::CopilotMcpJson => "mcpServers",
            DocumentShape::VscodeMcpJson => "servers",
            DocumentShape::OpencodeJson => "mcp",
            DocumentShape::CodexConfigToml => "mcp_servers",
            DocumentShape::ZedSettingsJson => "context_servers",
            DocumentShape::AmpSettingsJson => "amp.mcpServers",
        }
    }

    /// Whether the assistant reading this document can use `transport` at all: Codex speaks
    /// stdio and streamable HTTP, Zed documents `url` servers as streamable HTTP only, and
    /// Junie supports stdio servers only (see the module documentation for the sources).
    ///
    /// Input: the shape and a transport. Output: true when an entry can be written. Never fails.
    #[must_use]
    pub fn supports(self, transport: Transport) -> bool {
        match self {
            DocumentShape::CodexConfigToml | DocumentShape::ZedSettingsJson => {
                transport != Transport::Sse
            }
            DocumentShape::JunieMcpJson => transport == Transport::Stdio,
            _ => true,
        }
    }

    /// Whether the assistant expands `${NAME}`-style references in this document itself (in
    /// its own syntax); when false, a referenced value has to be written into the file.
    ///
    /// Input: the shape. Output: false for Codex (outside its forwarding keys), Zed, Amp,
    /// Junie, Devin, Antigravity and Roo Code, whose documentation describes no expansion. Never fails.
    #[must_use]
    pub fn expands_variables(self) -> bool {
        matches!(
            self,
            DocumentShape::ClaudeMcpJson
                | DocumentShape::CursorMcpJson
                | DocumentShape::VscodeMcpJson
                | DocumentShape::GeminiSettingsJson
                | DocumentShape::OpencodeJson
                | DocumentShape::KiroMcpJson
                | DocumentShape::CopilotMcpJson
        )
    }

    fn is_toml(self) -> bool {
        self == DocumentShape::CodexConfigToml
    }
}

impl fmt::Display for DocumentShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DocumentShape {
    type Err = McpConfigError;

    /// Parses a kebab-case shape name such as `"vscode-mcp-json"`.
    ///
    /// # Errors
    /// [`McpConfigError::UnknownShape`] when the name matches no shape.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DocumentShape::ALL
            .into_iter()
            .find(|shape| shape.name() == s)
            .ok_or_else(|| McpConfigError::UnknownShape(s.to_owned()))
    }
}

/// Everything that can go wrong while rendering, reading or merging documents.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum McpConfigError {
    /// The existing document does not parse, or its top level is not an object/table.
    #[error(
        "{path}: invalid {format} document{}: {message}; fix or move the file; ai-rulez never overwrites a file it cannot parse",
        location(*.line, *.column)
    )]
    InvalidDocument {
        /// Document path as given by the caller.
        path: String,
        /// `JSON` or `TOML`.
        format: &'static str,
        /// 1-based line of the problem, when the parser reports it.
        line: Option<usize>,
        /// 1-based column of the problem, when the parser reports it.
        column: Option<usize>,
        /// What the parser found wrong.
        message: String,
    },
    /// A placeholder has to be written as a value but the variable is unset.
    #[error(
        "environment variable `{variable}` used by MCP server `{server}` is not set; {path} cannot refer to variables there, so its value must be written into the file: set it or remove the reference"
    )]
    UnresolvedVariable {
        /// Variable name from the `${NAME}` placeholder.
        variable: String,
        /// Server whose entry needs it.
        server: String,
        /// Document the entry is for.
        path: String,
    },
    /// A stdio server without a command.
    #[error("MCP server `{server}` for {path} uses the stdio transport but has no command")]
    MissingCommand {
        /// Server name.
        server: String,
        /// Document the entry is for.
        path: String,
    },
    /// A remote server without a URL.
    #[error("MCP server `{server}` for {path} uses the {transport} transport but has no url")]
    MissingUrl {
        /// Server name.
        server: String,
        /// Document the entry is for.
        path: String,
        /// `http` or `sse`.
        transport: &'static str,
    },
    /// The assistant cannot use this transport at all.
    #[error("MCP server `{server}`: {path} supports no {transport} transport")]
    UnsupportedTransport {
        /// Server name.
        server: String,
        /// Document the entry is for.
        path: String,
        /// The unsupported transport.
        transport: &'static str,
    },
    /// The servers key exists but holds something other than an object/table.
    #[error(
        "{path}: `{key}` exists but is not {expected}; fix or move the file; ai-rulez never overwrites a file it cannot parse"
    )]
    ServersNotContainer {
        /// Document path.
        path: String,
        /// The servers key, e.g. `mcpServers`.
        key: String,
        /// `an object` or `a table`.
        expected: &'static str,
    },
    /// An entry key that is not `[<servers key>, <name>]` for this shape.
    #[error("{path}: entry key {key:?} is not of the form [\"{servers_key}\", <server name>]")]
    InvalidKey {
        /// Document path.
        path: String,
        /// The offending key.
        key: Vec<String>,
        /// The servers key the shape expects.
        servers_key: &'static str,
    },
    /// A server name the assistant lists but never starts (see [`is_portable_server_name`]).
    #[error(
        "MCP server `{server}`: {path} would list it but its assistant never starts a server with that name"
    )]
    UnsupportedName {
        /// Server name.
        server: String,
        /// Document the entry is for.
        path: String,
    },
    /// A shape name that [`DocumentShape::from_str`] does not know.
    #[error(
        "unknown MCP document shape `{0}`; expected one of claude-mcp-json, cursor-mcp-json, vscode-mcp-json, gemini-settings-json, opencode-json, codex-config-toml, kiro-mcp-json, zed-settings-json, amp-settings-json, junie-mcp-json, devin-config-json, antigravity-mcp-json, roo-mcp-json, copilot-mcp-json"
    )]
    UnknownShape(String),
}

fn location(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!(" at line {line} column {column}"),
        (Some(line), None) => format!(" at line {line}"),
        _ => String::new(),
    }
}

/// One server entry ready to be merged into a document.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Path in the document, e.g. `["mcpServers", "github"]` or `["mcp_servers", "github"]`.
    pub key: Vec<String>,
    /// What is written, with placeholders resolved where the shape needs it.
    pub value: Value,
    /// Same shape as `value`, but every resolved string left as its placeholder text.
    pub template: Value,
    /// True when `value` holds at least one resolved placeholder. The caller must
    /// then refuse to write it into a file git does not ignore and must write it
    /// with mode 0600.
    pub holds_resolved_secret: bool,
}

/// Renders every server into the entries `shape` expects, in input order.
///
/// Inputs: the target shape, the servers, and `lookup`, which returns the value of
/// an environment variable (used only where the shape cannot express a
/// placeholder: Codex everywhere except `env_vars`, `bearer_token_env_var` and
/// `env_http_headers`; Zed, Amp, Junie, Devin, Antigravity and Roo Code everywhere). Output: one
/// [`Entry`] per server, keyed `[<servers key>, <name>]`. Placeholders are written as
/// `${NAME}` for Claude Code, Gemini CLI and Kiro, `${env:NAME}` for Cursor and VS Code,
/// and `{env:NAME}` for `OpenCode`. Empty `args`, `env` and `headers` are omitted (Zed
/// always gets `args`). See the module documentation for the vendor format references.
///
/// # Errors
/// [`McpConfigError::MissingCommand`] / [`McpConfigError::MissingUrl`] for an
/// incomplete server, [`McpConfigError::UnsupportedTransport`] for a transport the
/// assistant lacks ([`DocumentShape::supports`]), and
/// [`McpConfigError::UnresolvedVariable`] when `lookup` has no value for a
/// variable that must be resolved.
#[cfg(test)]
pub(crate) fn render_entries(
    shape: DocumentShape,
    servers: &[McpServer],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Entry>, McpConfigError> {
    servers
        .iter()
        .map(|server| render_one(shape, server, lookup))
        .collect()
}

/// Whether every assistant starts an MCP server called `name`: 1 to 64 ASCII letters, digits,
/// `_`, `-`, `.`, `/` and `@` (registry names such as `ai.exa/exa` included). Input: the name as
/// configured. Output: true when every assistant starts it.
///
/// Found with the assistants' own CLIs (compat/, 2026-12-01): Codex 0.171.0 lists a server whose
/// name holds a space, `:`, `+` or a non-ASCII letter but never starts it, while it starts
/// `a.b`, `a/b` and `a@b`; Claude Code, Gemini CLI and `OpenCode` start `my server` too.
#[must_use]
pub(crate) fn is_portable_server_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b'@'))
}

/// Renders every server for one assistant as [`render_entries`] does, but leaves out each
/// server this assistant cannot be given instead of failing the whole run: a transport it lacks
/// ([`McpConfigError::UnsupportedTransport`], e.g. SSE for Codex, anything remote for Junie), a
/// server name Codex never starts ([`McpConfigError::UnsupportedName`], see
/// [`is_portable_server_name`]) and a variable it cannot refer to whose value is not set
/// ([`McpConfigError::UnresolvedVariable`]). The other assistants still get those servers.
///
/// Output: (the entries, in input order; the reasons for each server left out, in input order).
///
/// # Errors
/// [`McpConfigError::MissingCommand`] / [`McpConfigError::MissingUrl`] for an incomplete server,
/// which no assistant can use.
pub(crate) fn render_entries_leaving_out(
    shape: DocumentShape,
    servers: &[McpServer],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<(Vec<Entry>, Vec<McpConfigError>), McpConfigError> {
    let mut entries = Vec::with_capacity(servers.len());
    let mut left_out = Vec::new();
    for server in servers {
        match render_one(shape, server, lookup) {
            Ok(entry) => entries.push(entry),
            Err(
                error @ (McpConfigError::UnsupportedTransport { .. }
                | McpConfigError::UnsupportedName { .. }
                | McpConfigError::UnresolvedVariable { .. }),
            ) => left_out.push(error),
            Err(error) => return Err(error),
        }
    }
    Ok((entries, left_out))
}

fn server_name<'k>(
    shape: DocumentShape,
    path: &str,
    key: &'k [String],
) -> Result<&'k str, McpConfigError> {
    match key {
        [top, name] if top == shape.servers_key() => Ok(name),
        _ => Err(McpConfigError::InvalidKey {
            path: path.to_owned(),
            key: key.to_vec(),
            servers_key: shape.servers_key(),
        }),
    }
}

/// Lists the server keys present in a document, in document order.
///
/// Inputs: the shape and the document text. Output: keys of the form
/// `[<servers key>, <name>]` for every server under the shape's servers
/// table, empty when that table is absent. Used for ownership checks and
/// orphan detection. Format references are in the module documentation.
/// Only the unit tests call it, so it exists only in test builds.
///
/// # Errors
/// [`McpConfigError::InvalidDocument`] when the text does not parse and
/// [`McpConfigError::ServersNotContainer`] when the servers key is not an
/// object/table.
#[cfg(test)]
pub(crate) fn list_server_keys(
    shape: DocumentShape,
    document_text: &str,
) -> Result<Vec<Vec<String>>, McpConfigError> {
    let path = shape.default_path();
    let top = shape.servers_key().to_owned();
    let names: Vec<String> = if shape.is_toml() {
        let doc = parse_toml(path, document_text)?;
        toml_servers(&doc, path)?
            .map(|servers| servers.iter().map(|(k, _)| k.to_owned()).collect())
            .unwrap_or_default()
    } else {
        let root = parse_json(path, document_text)?;
        json_servers(shape, path, &root)?
            .map(|servers| {
                servers
                    .properties()
                    .iter()
                    .filter_map(jsonc_parser::cst::CstObjectProp::decoded_name)
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(names
        .into_iter()
        .map(|name| vec![top.clone(), name])
        .collect())
}

/// Rewrites a document: removes the entries at `remove` keys (when present), then
/// inserts or replaces each of `upsert`, in the order given.
///
/// Inputs: the shape, the path used in error messages, the current text
/// (`None` when the file does not exist; a missing or whitespace-only file
/// starts from an empty document),
/// the keys to remove and the entries to write. Everything else in the
/// document - other keys, other servers, comments (JSONC `//` and `/* */`, TOML
/// `#`), key order, indentation - survives byte-for-byte. An entry whose value
/// already matches the document (same keys in the same order) is left untouched,
/// so merging the same entries twice yields identical text. Replaced Codex tables
/// keep their place and the comments above them. New JSON files use 2-space
/// indentation; new JSON and TOML files end with exactly one newline. Output is
/// deterministic.
///
/// Output: `Ok(Some(text))` with the new document, or `Ok(None)` meaning "the
/// caller may delete the file". `None` is returned only when the result carries
/// nothing but an empty servers container: its value is empty or holds only the
/// servers key with no entries, no comment remains anywhere, and no other key
/// existed in `existing`. Since a comment or any other key keeps the file, a file
/// the user put anything into is never reported as deletable; a bare `{}` /
/// `{"servers": {}}` is, because it says nothing. With `existing = None` and
/// nothing to upsert the answer is also `None`.
///
/// # Errors
/// [`McpConfigError::InvalidDocument`] when `existing` does not parse (the file
/// is never overwritten then), [`McpConfigError::ServersNotContainer`] when the
/// servers key holds something other than an object/table, and
/// [`McpConfigError::InvalidKey`] when a key is not `[<servers key>, <name>]`.
pub(crate) fn merge_document(
    shape: DocumentShape,
    path_for_errors: &str,
    existing: Option<&str>,
    remove: &[Vec<String>],
    upsert: &[Entry],
) -> Result<Option<String>, McpConfigError> {
    let remove_names = remove
        .iter()
        .map(|key| server_name(shape, path_for_errors, key))
        .collect::<Result<Vec<_>, _>>()?;
    let upserts = upsert
        .iter()
        .map(|entry| Ok((server_name(shape, path_for_errors, &entry.key)?, entry)))
        .collect::<Result<Vec<_>, McpConfigError>>()?;
    if shape.is_toml() {
        merge_toml(path_for_errors, existing, &remove_names, &upserts)
    } else {
        merge_json(shape, path_for_errors, existing, &remove_names, &upserts)
    }
}

/// Compares two values including the order of object keys, so a merge restores
/// the rendered key order instead of accepting a reordered entry as unchanged.
fn same_in_order(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_in_order(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(va, vb)| same_in_order(va, vb))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod shape_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_compat;
