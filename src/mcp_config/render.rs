//! Rendering: turns a neutral [`McpServer`] into the entry one assistant's document expects,
//! translating `${NAME}` placeholders into that assistant's syntax or resolving them.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::{DocumentShape, Entry, McpConfigError, McpServer, Transport};

/// A piece of a string: literal text or a `${NAME}` reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Piece<'a> {
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
pub(super) fn split_placeholders(s: &str) -> Vec<Piece<'_>> {
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
pub(super) fn sole_placeholder(s: &str) -> Option<&str> {
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

pub(super) fn render_one(
    shape: DocumentShape,
    server: &McpServer,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Entry, McpConfigError> {
    let path = shape.default_path();
    if shape == DocumentShape::CodexConfigToml && !super::is_portable_server_name(&server.name) {
        return Err(McpConfigError::UnsupportedName {
            server: server.name.clone(),
            path: path.to_owned(),
        });
    }
    let mut r = Renderer {
        lookup,
        server: &server.name,
        path,
        resolved_any: false,
    };
    if !shape.supports(server.transport) {
        return Err(McpConfigError::UnsupportedTransport {
            server: server.name.clone(),
            path: path.to_owned(),
            transport: server.transport.as_str(),
        });
    }
    let style = match shape {
        DocumentShape::ClaudeMcpJson
        | DocumentShape::GeminiSettingsJson
        | DocumentShape::KiroMcpJson
        | DocumentShape::CopilotMcpJson => Style::Keep,
        DocumentShape::CursorMcpJson | DocumentShape::VscodeMcpJson => Style::Wrap("${env:", "}"),
        DocumentShape::OpencodeJson => Style::Wrap("{env:", "}"),
        // No expansion documented: Codex (outside its forwarding keys), Zed, Amp, Junie, Devin,
        // Antigravity and Roo Code get the values written in.
        DocumentShape::CodexConfigToml
        | DocumentShape::ZedSettingsJson
        | DocumentShape::AmpSettingsJson
        | DocumentShape::JunieMcpJson
        | DocumentShape::DevinConfigJson
        | DocumentShape::AntigravityMcpJson
        | DocumentShape::RooMcpJson => Style::Resolve,
    };
    debug_assert_eq!(
        shape.expands_variables(),
        !matches!(style, Style::Resolve),
        "expands_variables and the placeholder style agree"
    );
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
                        DocumentShape::ClaudeMcpJson
                            | DocumentShape::VscodeMcpJson
                            | DocumentShape::CopilotMcpJson
                    ) {
                        pair.plain("type", Value::from("stdio"));
                    }
                    if shape == DocumentShape::ZedSettingsJson {
                        // Older Zed tells custom servers apart by `source`; newer Zed ignores it.
                        pair.plain("source", Value::from("custom"));
                    }
                    pair.string("command", command);
                    // Zed rejects a stdio entry without `args`, even an empty one.
                    if !args.is_empty() || shape == DocumentShape::ZedSettingsJson {
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
        return codex_remote(r, pair, server, url);
    }
    let url = r.string(url, style)?;
    match shape {
        DocumentShape::OpencodeJson => {
            pair.plain("type", Value::from("remote"));
            pair.string("url", url);
        }
        DocumentShape::CursorMcpJson
        | DocumentShape::KiroMcpJson
        | DocumentShape::ZedSettingsJson
        | DocumentShape::AmpSettingsJson => pair.string("url", url),
        DocumentShape::DevinConfigJson => {
            pair.string("url", url);
            pair.plain("transport", Value::from(transport));
        }
        // Antigravity, like Windsurf, connects remote servers from `serverUrl` only.
        DocumentShape::AntigravityMcpJson => pair.string("serverUrl", url),
        DocumentShape::RooMcpJson => {
            // Roo Code names streamable HTTP `streamable-http` and SSE `sse`.
            let kind = if server.transport == Transport::Http {
                "streamable-http"
            } else {
                "sse"
            };
            pair.plain("type", Value::from(kind));
            pair.string("url", url);
        }
        DocumentShape::GeminiSettingsJson => {
            // Gemini CLI reads streamable HTTP from `httpUrl` and SSE from `url`. A bare `url`
            // makes it try streamable HTTP first and show the server as "(http) - Disconnected"
            // in `gemini mcp list`; `type = "sse"` connects straight away (compat/, 0.61.0).
            if server.transport == Transport::Http {
                pair.string("httpUrl", url);
            } else {
                pair.plain("type", Value::from("sse"));
                pair.string("url", url);
            }
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
