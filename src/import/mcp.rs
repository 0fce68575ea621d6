//! MCP servers found by an import (`mcpServers` of `.mcp.json`-shaped files, ruler's
//! `[mcp_servers]`, the Go ai-rulez's `mcp_servers`), and the `config.toml` an import creates
//! when the project has none.

use serde_json::Value;

use crate::error::{Error, InvalidKind, Result};
use crate::import::Found;
use crate::import::tree::Tree;

/// One MCP server as `[[mcp_servers]]` holds it.
#[derive(Debug, Clone, Default)]
pub(crate) struct McpServer {
    /// Server name.
    pub name: String,
    /// Program of a local server.
    pub command: Option<String>,
    /// Its arguments.
    pub args: Vec<String>,
    /// Environment, as written (`${VAR}` placeholders kept).
    pub env: Vec<(String, String)>,
    /// `http` or `sse` for a remote server.
    pub transport: Option<String>,
    /// URL of a remote server.
    pub url: Option<String>,
    /// HTTP headers of a remote server.
    pub headers: Vec<(String, String)>,
}

/// Reads the servers of the JSON (or JSONC: comments and trailing commas allowed) file `path` (under `key`, e.g. `mcpServers` or `servers`),
/// when it exists. Entries without a command or URL are left out with a note.
///
/// Errors: [`Error::Invalid`] naming the file and line for JSON that does not parse.
pub(crate) fn read_json(tree: &Tree<'_>, path: &str, key: &str, found: &mut Found) -> Result<()> {
    let Some(bytes) = tree.bytes(path)? else {
        return Ok(());
    };
    let text = crate::frontmatter::decode_utf8(path, &bytes)?;
    let parsed = jsonc_parser::parse_to_value(text, &crate::mcp_config::jsonc_options()).map_err(
        |error| {
            Error::invalid_as(
                InvalidKind::Other,
                path,
                Some(error.line_display()),
                format!("{}; fix the JSON and import again", error.kind()),
            )
        },
    )?;
    let value = parsed.map_or(Value::Null, to_json);
    let Some(Value::Object(servers)) = value.get(key) else {
        return Ok(());
    };
    for (name, entry) in servers {
        push(found, path, name, entry);
    }
    Ok(())
}

/// `bytes` read as JSONC (comments and trailing commas allowed); `Value::Null` for an empty
/// document.
///
/// Errors: why they do not parse, with the line (`not UTF-8`, or the parser's message).
pub(crate) fn jsonc_value(bytes: &[u8]) -> std::result::Result<Value, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_owned())?;
    let parsed = jsonc_parser::parse_to_value(text, &crate::mcp_config::jsonc_options())
        .map_err(|error| format!("line {}: {}", error.line_display(), error.kind()))?;
    Ok(parsed.map_or(Value::Null, to_json))
}

/// A parsed JSONC value as a JSON value (numbers that do not fit JSON's become strings).
fn to_json(value: jsonc_parser::JsonValue<'_>) -> Value {
    use jsonc_parser::JsonValue;
    match value {
        JsonValue::String(text) => Value::String(text.into_owned()),
        JsonValue::Number(number) => {
            serde_json::from_str(number).unwrap_or_else(|_| Value::String(number.to_owned()))
        }
        JsonValue::Boolean(flag) => Value::Bool(flag),
        JsonValue::Object(object) => Value::Object(
            object
                .into_iter()
                .map(|(key, value)| (key.into_owned(), to_json(value)))
                .collect(),
        ),
        JsonValue::Array(items) => Value::Array(items.into_iter().map(to_json).collect()),
        JsonValue::Null => Value::Null,
    }
}

/// Adds the server `name` described by `entry` (JSON shape: `command`, `args`, `env`, `type`
/// or `transport`, `url` (or `serverUrl`/`httpUrl`), `headers`) to `found`.
pub(crate) fn push(found: &mut Found, origin: &str, name: &str, entry: &Value) {
    let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
    let pairs = |key: &str| -> Vec<(String, String)> {
        entry
            .get(key)
            .and_then(Value::as_object)
            .map(|map| {
                map.iter()
                    .map(|(name, value)| {
                        let value = value
                            .as_str()
                            .map_or_else(|| value.to_string(), str::to_owned);
                        (name.clone(), value)
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let url = text("url")
        .or_else(|| text("serverUrl"))
        .or_else(|| text("httpUrl"));
    let command = text("command");
    if command.is_none() && url.is_none() {
        found.notes.push(format!(
            "{origin}: MCP server `{name}` has neither a command nor a URL; left out"
        ));
        return;
    }
    let transport = match text("type").or_else(|| text("transport")).as_deref() {
        Some("sse") => Some("sse".to_owned()),
        _ if url.is_some() && command.is_none() => Some("http".to_owned()),
        _ => None,
    };
    let args: Vec<String> = entry
        .get("args")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|item| {
                    item.as_str()
                        .map_or_else(|| item.to_string(), str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    // `args: "-y pkg"` is one argument to no server: left out, and said, or the server would
    // be started bare.
    if let Some(Value::String(line)) = entry.get("args") {
        found.notes.push(format!(
            "{origin}: MCP server `{name}` has `args` as one text (`{line}`), not a list; left out, write it as a list in .ai-rulez/config.toml"
        ));
        return;
    }
    if found.mcp_servers.iter().any(|server| server.name == name) {
        found.notes.push(format!(
            "{origin}: MCP server `{name}` is defined twice; the first one is kept"
        ));
        return;
    }
    let (command, args) = match go_ai_rulez_through_a_runner(command.as_deref(), &args) {
        Some(was) => {
            found.notes.push(format!(
                "{origin}: MCP server `{name}` started the Go ai-rulez's server through a package runner (`{was}`); it now starts this ai-rulez's: `ai-rulez mcp` (ai-rulez must be on PATH)"
            ));
            (Some("ai-rulez".to_owned()), vec!["mcp".to_owned()])
        }
        None => (command, args),
    };
    found.mcp_servers.push(McpServer {
        name: name.to_owned(),
        command,
        args,
        env: pairs("env"),
        transport,
        url,
        headers: pairs("headers"),
    });
}

/// The command line as written when `command` and `args` start the Go ai-rulez's MCP server
/// through a package runner (`npx -y ai-rulez@latest mcp`, `bunx ai-rulez mcp`, `pnpm dlx ...`),
/// which is what its generated configs hold; `None` for anything else.
fn go_ai_rulez_through_a_runner(command: Option<&str>, args: &[String]) -> Option<String> {
    let command = command?;
    let runner = command.rsplit(['/', '\\']).next().unwrap_or(command);
    if !matches!(runner, "npx" | "bunx" | "pnpx" | "pnpm" | "yarn") {
        return None;
    }
    let package = args
        .iter()
        .position(|arg| arg == "ai-rulez" || arg.starts_with("ai-rulez@"))?;
    if args.get(package + 1).map(String::as_str) != Some("mcp") {
        return None;
    }
    Some(format!("{command} {}", args.join(" ")))
}

/// The `config.toml` of a new project: `name`, `description`, `presets` and the servers.
/// Strings are written as JSON strings (with DEL escaped too), which TOML reads as the same
/// basic strings.
#[must_use]
pub(crate) fn config_text(
    name: &str,
    description: Option<&str>,
    presets: &[String],
    servers: &[McpServer],
) -> String {
    // JSON escapes every control character TOML forbids in a basic string but DEL, which
    // TOML forbids too.
    let quote = |text: &str| {
        serde_json::to_string(text)
            .unwrap_or_default()
            .replace('\u{7f}', "\\u007F")
    };
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|item| quote(item)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let table = |pairs: &[(String, String)]| {
        let entries: Vec<String> = pairs
            .iter()
            .map(|(key, value)| format!("{} = {}", quote(key), quote(value)))
            .collect();
        format!("{{ {} }}", entries.join(", "))
    };
    let mut text = format!("version = \"5.0\"\nname = {}\n", quote(name));
    if let Some(description) = description {
        text.push_str(&format!("description = {}\n", quote(description)));
    }
    let presets: Vec<String> = if presets.is_empty() {
        vec!["claude".to_owned()]
    } else {
        presets.to_vec()
    };
    text.push_str(&format!(
        "presets = {}\n\n# Maintain a block of generated paths in .gitignore.\ngitignore = false\n",
        list(&presets)
    ));
    for server in servers {
        text.push_str(&format!(
            "\n[[mcp_servers]]\nname = {}\n",
            quote(&server.name)
        ));
        if let Some(command) = &server.command {
            text.push_str(&format!("command = {}\n", quote(command)));
        }
        if !server.args.is_empty() {
            text.push_str(&format!("args = {}\n", list(&server.args)));
        }
        if let Some(transport) = &server.transport {
            text.push_str(&format!("transport = {}\n", quote(transport)));
        }
        if let Some(url) = &server.url {
            text.push_str(&format!("url = {}\n", quote(url)));
        }
        if !server.env.is_empty() {
            text.push_str(&format!("env = {}\n", table(&server.env)));
        }
        if !server.headers.is_empty() {
            text.push_str(&format!("headers = {}\n", table(&server.headers)));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn the_go_tools_server_through_a_runner_is_recognised_and_others_are_not() {
        assert_eq!(
            go_ai_rulez_through_a_runner(Some("npx"), &words("-y ai-rulez@latest mcp")).as_deref(),
            Some("npx -y ai-rulez@latest mcp")
        );
        assert_eq!(
            go_ai_rulez_through_a_runner(Some("bunx"), &words("ai-rulez mcp")).as_deref(),
            Some("bunx ai-rulez mcp")
        );
        assert_eq!(
            go_ai_rulez_through_a_runner(Some("npx"), &words("-y ai-rulez@latest generate")),
            None
        );
        assert_eq!(
            go_ai_rulez_through_a_runner(Some("npx"), &words("-y other-mcp mcp")),
            None
        );
        assert_eq!(
            go_ai_rulez_through_a_runner(Some("ai-rulez"), &words("mcp")),
            None
        );
    }
}
