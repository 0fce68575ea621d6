//! MCP server entries in each coding assistant's own config document.
//!
//! Every assistant keeps its MCP servers in a document it also uses for other
//! settings, so ai-rulez must edit only the entries it owns and leave the rest of
//! the file exactly as the user wrote it. This module turns a neutral
//! [`McpServer`] description into the shape each assistant expects
//! ([`render_entries`]), merges those entries into the existing text without
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

use std::fmt;
use std::str::FromStr;

use indexmap::IndexMap;
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstLeafNode, CstNode, CstObject, CstRootNode};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use toml_edit::{DocumentMut, InlineTable, Item, Table};

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
/// is literal text. [`render_entries`] translates placeholders into each
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
}

impl DocumentShape {
    /// Every shape, in a fixed order, for callers that iterate over all assistants.
    pub const ALL: [DocumentShape; 6] = [
        DocumentShape::ClaudeMcpJson,
        DocumentShape::CursorMcpJson,
        DocumentShape::VscodeMcpJson,
        DocumentShape::GeminiSettingsJson,
        DocumentShape::OpencodeJson,
        DocumentShape::CodexConfigToml,
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
        }
    }

    /// The top-level key that holds the servers table in this document.
    ///
    /// Input: the shape. Output: `mcpServers`, `servers`, `mcp` or
    /// `mcp_servers`. Never fails.
    #[must_use]
    pub fn servers_key(self) -> &'static str {
        match self {
            DocumentShape::ClaudeMcpJson
            | DocumentShape::CursorMcpJson
            | DocumentShape::GeminiSettingsJson => "mcpServers",
            DocumentShape::VscodeMcpJson => "servers",
            DocumentShape::OpencodeJson => "mcp",
            DocumentShape::CodexConfigToml => "mcp_servers",
        }
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
    /// A shape name that [`DocumentShape::from_str`] does not know.
    #[error(
        "unknown MCP document shape `{0}`; expected one of claude-mcp-json, cursor-mcp-json, vscode-mcp-json, gemini-settings-json, opencode-json, codex-config-toml"
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

// ---------------------------------------------------------------------------
// Placeholders
// ---------------------------------------------------------------------------

/// A piece of a string: literal text or a `${NAME}` reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Text(&'a str),
    Var(&'a str),
}

fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) if first == '_' || first.is_ascii_alphabetic() => {
            chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        }
        _ => false,
    }
}

/// Splits a string into literal text and `${NAME}` references by hand, because
/// the rules are small and a regex dependency is not wanted.
fn split_placeholders(s: &str) -> Vec<Piece<'_>> {
    let bytes = s.as_bytes();
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // `$` and `{` are ASCII, so byte offsets next to them are char boundaries.
        if bytes[i] == b'$' && bytes.get(i + 1) == Some(&b'{') {
            let name_start = i + 2;
            if let Some(rel_close) = s[name_start..].find('}') {
                let name = &s[name_start..name_start + rel_close];
                if is_var_name(name) {
                    if text_start < i {
                        pieces.push(Piece::Text(&s[text_start..i]));
                    }
                    pieces.push(Piece::Var(name));
                    i = name_start + rel_close + 1;
                    text_start = i;
                    continue;
                }
            }
        }
        i += 1;
    }
    if text_start < s.len() {
        pieces.push(Piece::Text(&s[text_start..]));
    }
    pieces
}

/// Returns `Some(NAME)` when the whole string is exactly one `${NAME}`.
fn sole_placeholder(s: &str) -> Option<&str> {
    match split_placeholders(s).as_slice() {
        [Piece::Var(name)] => Some(name),
        _ => None,
    }
}

/// How a shape writes a placeholder found in a string.
#[derive(Debug, Clone, Copy)]
enum Style {
    /// The assistant expands `${NAME}` itself.
    Keep,
    /// The assistant expands `<prefix>NAME<suffix>`.
    Wrap(&'static str, &'static str),
    /// The assistant expands nothing: the value is looked up and written in.
    Resolve,
}

/// Renders model values for one server into one shape, tracking whether any
/// placeholder had to be resolved.
struct Renderer<'a> {
    lookup: &'a dyn Fn(&str) -> Option<String>,
    server: &'a str,
    path: &'static str,
    resolved_any: bool,
}

/// A rendered string together with the text recorded in the template.
struct Rendered {
    value: String,
    template: String,
}

impl Renderer<'_> {
    fn string(&mut self, s: &str, style: Style) -> Result<Rendered, McpConfigError> {
        let pieces = split_placeholders(s);
        let mut out = String::with_capacity(s.len());
        let mut resolved_here = false;
        for piece in pieces {
            match (piece, style) {
                (Piece::Text(text), _) => out.push_str(text),
                (Piece::Var(name), Style::Keep) => {
                    out.push_str("${");
                    out.push_str(name);
                    out.push('}');
                }
                (Piece::Var(name), Style::Wrap(prefix, suffix)) => {
                    out.push_str(prefix);
                    out.push_str(name);
                    out.push_str(suffix);
                }
                (Piece::Var(name), Style::Resolve) => {
                    let value =
                        (self.lookup)(name).ok_or_else(|| McpConfigError::UnresolvedVariable {
                            variable: name.to_owned(),
                            server: self.server.to_owned(),
                            path: self.path.to_owned(),
                        })?;
                    out.push_str(&value);
                    resolved_here = true;
                }
            }
        }
        self.resolved_any |= resolved_here;
        // Only resolved strings keep their placeholder text in the template;
        // translated syntax (such as `${env:NAME}`) is no secret and is recorded as written.
        let template = if resolved_here {
            s.to_owned()
        } else {
            out.clone()
        };
        Ok(Rendered {
            value: out,
            template,
        })
    }
}

/// Builds the value and template objects side by side so both keep one key order.
#[derive(Default)]
struct Pair {
    value: Map<String, Value>,
    template: Map<String, Value>,
}

impl Pair {
    fn plain(&mut self, key: &str, v: Value) {
        self.value.insert(key.to_owned(), v.clone());
        self.template.insert(key.to_owned(), v);
    }

    fn string(&mut self, key: &str, r: Rendered) {
        self.value.insert(key.to_owned(), Value::String(r.value));
        self.template
            .insert(key.to_owned(), Value::String(r.template));
    }

    fn list(&mut self, key: &str, items: Vec<Rendered>) {
        let (values, templates): (Vec<Value>, Vec<Value>) = items
            .into_iter()
            .map(|r| (Value::String(r.value), Value::String(r.template)))
            .unzip();
        self.value.insert(key.to_owned(), Value::Array(values));
        self.template
            .insert(key.to_owned(), Value::Array(templates));
    }

    fn map(&mut self, key: &str, items: Vec<(String, Rendered)>) {
        let mut values = Map::new();
        let mut templates = Map::new();
        for (name, r) in items {
            values.insert(name.clone(), Value::String(r.value));
            templates.insert(name, Value::String(r.template));
        }
        self.value.insert(key.to_owned(), Value::Object(values));
        self.template
            .insert(key.to_owned(), Value::Object(templates));
    }
}

fn render_list(
    r: &mut Renderer<'_>,
    items: &[String],
    style: Style,
) -> Result<Vec<Rendered>, McpConfigError> {
    items.iter().map(|item| r.string(item, style)).collect()
}

fn render_map(
    r: &mut Renderer<'_>,
    items: &IndexMap<String, String>,
    style: Style,
) -> Result<Vec<(String, Rendered)>, McpConfigError> {
    items
        .iter()
        .map(|(k, v)| Ok((k.clone(), r.string(v, style)?)))
        .collect()
}

/// Renders every server into the entries `shape` expects, in input order.
///
/// Inputs: the target shape, the servers, and `lookup`, which returns the value of
/// an environment variable (used only where the shape cannot express a
/// placeholder: Codex everywhere except `env_vars`, `bearer_token_env_var` and
/// `env_http_headers`). Output: one [`Entry`] per server, keyed
/// `[<servers key>, <name>]`. Placeholders are written as `${NAME}` for Claude
/// Code and Gemini CLI, `${env:NAME}` for Cursor and VS Code, and `{env:NAME}`
/// for `OpenCode`. Empty `args`, `env` and `headers` are omitted. See the module
/// documentation for the vendor format references.
///
/// # Errors
/// [`McpConfigError::MissingCommand`] / [`McpConfigError::MissingUrl`] for an
/// incomplete server, [`McpConfigError::UnsupportedTransport`] for SSE in Codex
/// (Codex speaks only stdio and streamable HTTP), and
/// [`McpConfigError::UnresolvedVariable`] when `lookup` has no value for a
/// variable that must be resolved.
pub fn render_entries(
    shape: DocumentShape,
    servers: &[McpServer],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Entry>, McpConfigError> {
    servers
        .iter()
        .map(|server| render_one(shape, server, lookup))
        .collect()
}

fn render_one(
    shape: DocumentShape,
    server: &McpServer,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Entry, McpConfigError> {
    let path = shape.default_path();
    let mut r = Renderer {
        lookup,
        server: &server.name,
        path,
        resolved_any: false,
    };
    let style = match shape {
        DocumentShape::ClaudeMcpJson | DocumentShape::GeminiSettingsJson => Style::Keep,
        DocumentShape::CursorMcpJson | DocumentShape::VscodeMcpJson => Style::Wrap("${env:", "}"),
        DocumentShape::OpencodeJson => Style::Wrap("{env:", "}"),
        DocumentShape::CodexConfigToml => Style::Resolve,
    };
    let mut pair = Pair::default();
    match server.transport {
        Transport::Stdio => {
            let command =
                server
                    .command
                    .as_deref()
                    .ok_or_else(|| McpConfigError::MissingCommand {
                        server: server.name.clone(),
                        path: path.to_owned(),
                    })?;
            let command = r.string(command, style)?;
            let args = render_list(&mut r, &server.args, style)?;
            match shape {
                DocumentShape::OpencodeJson => {
                    pair.plain("type", Value::from("local"));
                    let mut command_line = vec![command];
                    command_line.extend(args);
                    pair.list("command", command_line);
                    if !server.env.is_empty() {
                        let env = render_map(&mut r, &server.env, style)?;
                        pair.map("environment", env);
                    }
                    pair.plain("enabled", Value::Bool(true));
                }
                DocumentShape::CodexConfigToml => {
                    codex_stdio(&mut r, &mut pair, server, command, args)?;
                }
                _ => {
                    if matches!(
                        shape,
                        DocumentShape::ClaudeMcpJson | DocumentShape::VscodeMcpJson
                    ) {
                        pair.plain("type", Value::from("stdio"));
                    }
                    pair.string("command", command);
                    if !args.is_empty() {
                        pair.list("args", args);
                    }
                    if !server.env.is_empty() {
                        let env = render_map(&mut r, &server.env, style)?;
                        pair.map("env", env);
                    }
                }
            }
        }
        Transport::Http | Transport::Sse => render_remote(shape, &mut r, &mut pair, server, style)?,
    }
    Ok(Entry {
        key: vec![shape.servers_key().to_owned(), server.name.clone()],
        value: Value::Object(pair.value),
        template: Value::Object(pair.template),
        holds_resolved_secret: r.resolved_any,
    })
}

/// Renders the url and headers of an HTTP or SSE server.
fn render_remote(
    shape: DocumentShape,
    r: &mut Renderer<'_>,
    pair: &mut Pair,
    server: &McpServer,
    style: Style,
) -> Result<(), McpConfigError> {
    let transport = server.transport.as_str();
    let url = server
        .url
        .as_deref()
        .ok_or_else(|| McpConfigError::MissingUrl {
            server: server.name.clone(),
            path: r.path.to_owned(),
            transport,
        })?;
    if shape == DocumentShape::CodexConfigToml {
        // Codex speaks stdio and streamable HTTP only, so an SSE entry would never connect.
        if server.transport == Transport::Sse {
            return Err(McpConfigError::UnsupportedTransport {
                server: server.name.clone(),
                path: r.path.to_owned(),
                transport,
            });
        }
        return codex_remote(r, pair, server, url);
    }
    let url = r.string(url, style)?;
    match shape {
        DocumentShape::OpencodeJson => {
            pair.plain("type", Value::from("remote"));
            pair.string("url", url);
        }
        DocumentShape::CursorMcpJson => pair.string("url", url),
        DocumentShape::GeminiSettingsJson => {
            // Gemini CLI reads streamable HTTP from `httpUrl` and SSE from `url`.
            let field = if server.transport == Transport::Http {
                "httpUrl"
            } else {
                "url"
            };
            pair.string(field, url);
        }
        _ => {
            pair.plain("type", Value::from(transport));
            pair.string("url", url);
        }
    }
    if !server.headers.is_empty() {
        let headers = render_map(r, &server.headers, style)?;
        pair.map("headers", headers);
    }
    if shape == DocumentShape::OpencodeJson {
        pair.plain("enabled", Value::Bool(true));
    }
    Ok(())
}

/// Codex stdio: `env` values that merely forward a same-named variable become
/// `env_vars`, because Codex copies those from its own environment; every other
/// placeholder must be resolved since Codex expands none.
fn codex_stdio(
    r: &mut Renderer<'_>,
    pair: &mut Pair,
    server: &McpServer,
    command: Rendered,
    args: Vec<Rendered>,
) -> Result<(), McpConfigError> {
    pair.string("command", command);
    if !args.is_empty() {
        pair.list("args", args);
    }
    let mut env = Vec::new();
    let mut forwarded = Vec::new();
    for (key, value) in &server.env {
        if sole_placeholder(value) == Some(key.as_str()) {
            forwarded.push(Value::String(key.clone()));
        } else {
            env.push((key.clone(), r.string(value, Style::Resolve)?));
        }
    }
    if !env.is_empty() {
        pair.map("env", env);
    }
    if !forwarded.is_empty() {
        pair.plain("env_vars", Value::Array(forwarded));
    }
    Ok(())
}

/// Codex streamable HTTP: headers that only name a variable map onto
/// `bearer_token_env_var` and `env_http_headers`, so no secret is written;
/// anything else goes to `http_headers` with placeholders resolved.
fn codex_remote(
    r: &mut Renderer<'_>,
    pair: &mut Pair,
    server: &McpServer,
    url: &str,
) -> Result<(), McpConfigError> {
    let url = r.string(url, Style::Resolve)?;
    pair.string("url", url);
    let mut bearer = None;
    let mut literal = Vec::new();
    let mut from_env = Map::new();
    for (name, value) in &server.headers {
        if bearer.is_none()
            && name.eq_ignore_ascii_case("authorization")
            && let Some(var) = value.strip_prefix("Bearer ").and_then(sole_placeholder)
        {
            bearer = Some(var.to_owned());
        } else if let Some(var) = sole_placeholder(value) {
            from_env.insert(name.clone(), Value::from(var));
        } else {
            literal.push((name.clone(), r.string(value, Style::Resolve)?));
        }
    }
    if let Some(var) = bearer {
        pair.plain("bearer_token_env_var", Value::String(var));
    }
    if !literal.is_empty() {
        pair.map("http_headers", literal);
    }
    if !from_env.is_empty() {
        pair.plain("env_http_headers", Value::Object(from_env));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Digests
// ---------------------------------------------------------------------------

fn digest_of(value: &Value) -> String {
    // With `preserve_order`, serde_json writes object keys in insertion order,
    // which is the document order for values read from disk.
    let compact = value.to_string();
    format!("sha256:{}", hex::encode(Sha256::digest(compact.as_bytes())))
}

/// Digest of an entry as recorded in the manifest.
///
/// Input: a rendered [`Entry`]. Output: `"sha256:<64 hex>"`, the SHA-256 of the
/// compact JSON (keys in document order) of the entry's **template**, so a
/// resolved secret never influences it. Never fails.
#[must_use]
pub fn entry_digest(entry: &Entry) -> String {
    digest_of(&entry.template)
}

/// Digest of what is on disk at `key`, in template form.
///
/// Inputs: the shape, the document text, the entry key (`[<servers key>, <name>]`)
/// and optionally the entry ai-rulez would write there. Every string position
/// that the hint entry resolved is replaced by the hint's template string before
/// hashing, so a secret never decides (or leaks into) the digest. Output:
/// `Some("sha256:<64 hex>")`, comparable with [`entry_digest`], or `None` when
/// the key is absent. Format references are listed in the module documentation.
///
/// # Errors
/// [`McpConfigError::InvalidDocument`] when the text does not parse,
/// [`McpConfigError::ServersNotContainer`] when the servers key is not an
/// object/table, and [`McpConfigError::InvalidKey`] for a malformed key.
pub fn disk_entry_digest(
    shape: DocumentShape,
    document_text: &str,
    key: &[String],
    entry_template_hint: Option<&Entry>,
) -> Result<Option<String>, McpConfigError> {
    let path = shape.default_path();
    let name = server_name(shape, path, key)?;
    let on_disk = if shape.is_toml() {
        let doc = parse_toml(path, document_text)?;
        toml_servers(&doc, path)?
            .and_then(|servers| servers.get(name))
            .map(toml_item_to_json)
    } else {
        let root = parse_json(path, document_text)?;
        json_servers(shape, path, &root)?
            .and_then(|servers| servers.get(name))
            .and_then(|prop| prop.value())
            .and_then(|node| cst_to_json(&node))
    };
    let Some(mut on_disk) = on_disk else {
        return Ok(None);
    };
    if let Some(hint) = entry_template_hint {
        let mut resolved = Vec::new();
        collect_resolved(&hint.value, &hint.template, &mut Vec::new(), &mut resolved);
        for (at, template) in resolved {
            if let Some(slot) = pointer_mut(&mut on_disk, &at)
                && slot.is_string()
            {
                *slot = Value::String(template);
            }
        }
    }
    Ok(Some(digest_of(&on_disk)))
}

/// One step of a path into a JSON value.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// Records every string position where `value` and `template` differ, i.e. where
/// the entry resolved a placeholder.
fn collect_resolved(
    value: &Value,
    template: &Value,
    at: &mut Vec<Step>,
    out: &mut Vec<(Vec<Step>, String)>,
) {
    match (value, template) {
        (Value::String(v), Value::String(t)) if v != t => out.push((at.clone(), t.clone())),
        (Value::Array(vs), Value::Array(ts)) => {
            for (i, (v, t)) in vs.iter().zip(ts).enumerate() {
                at.push(Step::Index(i));
                collect_resolved(v, t, at, out);
                at.pop();
            }
        }
        (Value::Object(vs), Value::Object(ts)) => {
            for (k, v) in vs {
                if let Some(t) = ts.get(k) {
                    at.push(Step::Key(k.clone()));
                    collect_resolved(v, t, at, out);
                    at.pop();
                }
            }
        }
        _ => {}
    }
}

fn pointer_mut<'v>(mut value: &'v mut Value, at: &[Step]) -> Option<&'v mut Value> {
    for step in at {
        value = match step {
            Step::Key(k) => value.as_object_mut()?.get_mut(k)?,
            Step::Index(i) => value.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(value)
}

// ---------------------------------------------------------------------------
// Reading documents
// ---------------------------------------------------------------------------

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

fn parse_json(path: &str, text: &str) -> Result<CstRootNode, McpConfigError> {
    // The default options accept JSONC (comments, trailing commas), which every
    // one of these assistants tolerates in its config.
    let root = CstRootNode::parse(text, &ParseOptions::default()).map_err(|e| {
        McpConfigError::InvalidDocument {
            path: path.to_owned(),
            format: "JSON",
            line: Some(e.line_display()),
            column: Some(e.column_display()),
            message: e.kind().to_string(),
        }
    })?;
    if let Some(value) = root.value()
        && value.as_object().is_none()
    {
        return Err(McpConfigError::InvalidDocument {
            path: path.to_owned(),
            format: "JSON",
            line: None,
            column: None,
            message: "the top-level value is not an object".to_owned(),
        });
    }
    Ok(root)
}

fn json_servers(
    shape: DocumentShape,
    path: &str,
    root: &CstRootNode,
) -> Result<Option<CstObject>, McpConfigError> {
    let Some(prop) = root
        .object_value()
        .and_then(|obj| obj.get(shape.servers_key()))
    else {
        return Ok(None);
    };
    prop.object_value()
        .map(Some)
        .ok_or_else(|| McpConfigError::ServersNotContainer {
            path: path.to_owned(),
            key: shape.servers_key().to_owned(),
            expected: "an object",
        })
}

/// Converts a CST value node into a JSON value. The crate's own converter sits
/// behind a feature this project does not enable, and the rules are short.
fn cst_to_json(node: &CstNode) -> Option<Value> {
    if let Some(object) = node.as_object() {
        let mut map = Map::new();
        for prop in object.properties() {
            let name = prop.decoded_name()?;
            let value = cst_to_json(&prop.value()?)?;
            map.insert(name, value);
        }
        return Some(Value::Object(map));
    }
    if let Some(array) = node.as_array() {
        return array
            .elements()
            .iter()
            .map(cst_to_json)
            .collect::<Option<Vec<_>>>()
            .map(Value::Array);
    }
    match node {
        CstNode::Leaf(CstLeafNode::StringLit(s)) => s.decoded_value().ok().map(Value::String),
        CstNode::Leaf(CstLeafNode::BooleanLit(b)) => Some(Value::Bool(b.value())),
        CstNode::Leaf(CstLeafNode::NullKeyword(_)) => Some(Value::Null),
        CstNode::Leaf(CstLeafNode::NumberLit(n)) => {
            let raw = n.to_string();
            // JSON5-style numbers (hex, leading `+`) do not parse as JSON; keep their text.
            Some(serde_json::from_str::<Value>(&raw).unwrap_or(Value::String(raw)))
        }
        CstNode::Leaf(CstLeafNode::WordLit(w)) => Some(Value::String(w.to_string())),
        _ => None,
    }
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map_or(0, |last| last.chars().count())
        + 1;
    (line, column)
}

fn parse_toml(path: &str, text: &str) -> Result<DocumentMut, McpConfigError> {
    text.parse::<DocumentMut>().map_err(|e| {
        let (line, column) = match e.span() {
            Some(span) => {
                let (l, c) = line_column(text, span.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        McpConfigError::InvalidDocument {
            path: path.to_owned(),
            format: "TOML",
            line,
            column,
            message: e.message().trim().to_owned(),
        }
    })
}

fn toml_servers<'d>(
    doc: &'d DocumentMut,
    path: &str,
) -> Result<Option<&'d dyn toml_edit::TableLike>, McpConfigError> {
    match doc.get("mcp_servers") {
        None => Ok(None),
        Some(item) => {
            item.as_table_like()
                .map(Some)
                .ok_or_else(|| McpConfigError::ServersNotContainer {
                    path: path.to_owned(),
                    key: "mcp_servers".to_owned(),
                    expected: "a table",
                })
        }
    }
}

fn toml_value_to_json(value: &toml_edit::Value) -> Value {
    match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Integer(i) => Value::from(*i.value()),
        toml_edit::Value::Float(f) => {
            serde_json::Number::from_f64(*f.value()).map_or(Value::Null, Value::Number)
        }
        toml_edit::Value::Boolean(b) => Value::Bool(*b.value()),
        toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
        toml_edit::Value::Array(a) => Value::Array(a.iter().map(toml_value_to_json).collect()),
        toml_edit::Value::InlineTable(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), toml_value_to_json(v)))
                .collect(),
        ),
    }
}

fn toml_item_to_json(item: &Item) -> Value {
    match item {
        Item::None => Value::Null,
        Item::Value(v) => toml_value_to_json(v),
        Item::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.to_owned(), toml_item_to_json(v)))
                .collect(),
        ),
        Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| toml_item_to_json(&Item::Table(t.clone())))
                .collect(),
        ),
    }
}

/// Lists the server keys present in a document, in document order.
///
/// Inputs: the shape and the document text. Output: keys of the form
/// `[<servers key>, <name>]` for every server under the shape's servers
/// table, empty when that table is absent. Used for ownership checks and
/// orphan detection. Format references are in the module documentation.
///
/// # Errors
/// [`McpConfigError::InvalidDocument`] when the text does not parse and
/// [`McpConfigError::ServersNotContainer`] when the servers key is not an
/// object/table.
pub fn list_server_keys(
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

// ---------------------------------------------------------------------------
// Merging
// ---------------------------------------------------------------------------

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
pub fn merge_document(
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

fn json_to_cst(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(json_to_cst).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), json_to_cst(v)))
                .collect(),
        ),
    }
}

fn has_comment(node: &CstNode) -> bool {
    match node {
        CstNode::Leaf(CstLeafNode::Comment(_)) => true,
        CstNode::Leaf(_) => false,
        CstNode::Container(container) => container.children().iter().any(has_comment),
    }
}

fn merge_json(
    shape: DocumentShape,
    path: &str,
    existing: Option<&str>,
    remove: &[&str],
    upsert: &[(&str, &Entry)],
) -> Result<Option<String>, McpConfigError> {
    // A missing or whitespace-only file starts as an empty document.
    let source = existing
        .filter(|text| !text.trim().is_empty())
        .unwrap_or("");
    let root = parse_json(path, source)?;
    let servers_key = shape.servers_key();
    // Checking before editing keeps a non-object servers value from being silently replaced.
    let servers = json_servers(shape, path, &root)?;
    if let Some(servers) = &servers {
        for name in remove {
            if let Some(prop) = servers.get(name) {
                prop.remove();
            }
        }
    }
    if !upsert.is_empty() {
        let servers = match servers {
            Some(servers) => servers,
            None => root.object_value_or_set().object_value_or_set(servers_key),
        };
        for (name, entry) in upsert {
            match servers.get(name) {
                Some(prop) => {
                    let current = prop.value().and_then(|node| cst_to_json(&node));
                    let unchanged =
                        current.is_some_and(|current| same_in_order(&current, &entry.value));
                    if !unchanged {
                        prop.set_value(json_to_cst(&entry.value));
                    }
                }
                None => {
                    servers.append(name, json_to_cst(&entry.value));
                }
            }
        }
    }

    let root_node = CstNode::Container(root.clone().into());
    let value = root.value().and_then(|node| cst_to_json(&node));
    let carries_nothing = match &value {
        None => true,
        Some(Value::Object(map)) => map
            .iter()
            .all(|(k, v)| k == servers_key && v.as_object().is_some_and(serde_json::Map::is_empty)),
        Some(_) => false,
    };
    if carries_nothing && !has_comment(&root_node) {
        return Ok(None);
    }
    let mut text = root.to_string();
    if source.is_empty() {
        // A file we create gets exactly one trailing newline.
        text.truncate(text.trim_end().len());
        text.push('\n');
    }
    Ok(Some(text))
}

fn json_to_toml_value(value: &Value) -> toml_edit::Value {
    match value {
        // TOML has no null; the renderer never produces one, so an empty string is a safe stand-in.
        Value::Null => toml_edit::Value::from(""),
        Value::Bool(b) => toml_edit::Value::from(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => toml_edit::Value::from(i),
            None => toml_edit::Value::from(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => toml_edit::Value::from(s.as_str()),
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().map(json_to_toml_value).collect())
        }
        Value::Object(map) => {
            let mut table = InlineTable::new();
            for (k, v) in map {
                table.insert(k, json_to_toml_value(v));
            }
            toml_edit::Value::InlineTable(table)
        }
    }
}

/// A server becomes a standard `[mcp_servers.<name>]` table whose nested maps
/// are inline tables, matching the examples in the Codex documentation.
fn json_to_server_table(value: &Value) -> Table {
    let mut table = Table::new();
    if let Value::Object(map) = value {
        for (k, v) in map {
            table.insert(k, Item::Value(json_to_toml_value(v)));
        }
    }
    table
}

fn toml_has_comment(text: &str) -> bool {
    // This is only asked when the document holds no values at all, so no string
    // can contain the `#` and every `#` starts a comment.
    text.contains('#')
}

fn merge_toml(
    path: &str,
    existing: Option<&str>,
    remove: &[&str],
    upsert: &[(&str, &Entry)],
) -> Result<Option<String>, McpConfigError> {
    // A missing or whitespace-only file starts as an empty document.
    let source = existing
        .filter(|text| !text.trim().is_empty())
        .unwrap_or("");
    let mut doc = parse_toml(path, source)?;
    // Validate before editing so a non-table `mcp_servers` is reported, not replaced.
    let had_servers = toml_servers(&doc, path)?.is_some();
    // Only real settings ask for a blank line before our first new table; a
    // comment-only file stays at the end as the document's trailing text.
    let had_items = !doc.as_table().is_empty();

    if had_servers
        && let Some(servers) = doc.get_mut("mcp_servers").and_then(Item::as_table_like_mut)
    {
        for name in remove {
            servers.remove(name);
        }
    }
    if !upsert.is_empty() && !had_servers {
        let mut servers = Table::new();
        // An implicit parent prints no `[mcp_servers]` header of its own.
        servers.set_implicit(true);
        doc.insert("mcp_servers", Item::Table(servers));
    }
    if let Some(item) = doc.get_mut("mcp_servers") {
        let inline_parent = item.is_inline_table();
        if let Some(servers) = item.as_table_like_mut() {
            for (index, (name, entry)) in upsert.iter().enumerate() {
                upsert_toml_server(servers, inline_parent, name, entry, had_items || index > 0);
            }
        }
    }

    let only_empty_servers = doc.as_table().iter().all(|(k, item)| {
        k == "mcp_servers"
            && item
                .as_table_like()
                .is_some_and(toml_edit::TableLike::is_empty)
    });
    let mut text = doc.to_string();
    if only_empty_servers && !toml_has_comment(&text) {
        return Ok(None);
    }
    if source.is_empty() {
        // A new file starts with its first table and ends with one newline.
        text = text.trim().to_owned();
        text.push('\n');
    }
    Ok(Some(text))
}

fn upsert_toml_server(
    servers: &mut dyn toml_edit::TableLike,
    inline_parent: bool,
    name: &str,
    entry: &Entry,
    separate: bool,
) {
    if let Some(current) = servers.get(name)
        && same_in_order(&toml_item_to_json(current), &entry.value)
    {
        return;
    }
    if inline_parent {
        // `mcp_servers = { ... }` can only hold inline values.
        servers.insert(name, Item::Value(json_to_toml_value(&entry.value)));
        return;
    }
    let mut table = json_to_server_table(&entry.value);
    match servers.get(name).and_then(Item::as_table) {
        Some(old) => {
            // Keep the replaced table where it was, with the comments above it.
            table.set_position(old.position());
            *table.decor_mut() = old.decor().clone();
        }
        None if separate => table.decor_mut().set_prefix("\n"),
        None => {}
    }
    servers.insert(name, Item::Table(table));
}

#[cfg(test)]
mod tests;
