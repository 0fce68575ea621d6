//! TOML documents: reading and merging Codex's `.codex/config.toml` through `toml_edit`, so
//! comments and the place of replaced tables survive.

use serde_json::Value;
use toml_edit::{DocumentMut, InlineTable, Item, Table};

use super::{Entry, McpConfigError, same_in_order};

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

pub(super) fn parse_toml(path: &str, text: &str) -> Result<DocumentMut, McpConfigError> {
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

pub(super) fn toml_servers<'d>(
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

pub(super) fn toml_item_to_json(item: &Item) -> Value {
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

pub(super) fn merge_toml(
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
