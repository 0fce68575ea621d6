//! JSON documents: reading and merging JSONC through jsonc-parser's concrete syntax tree, so
//! comments, key order and indentation outside ai-rulez's entries survive byte-for-byte.

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstLeafNode, CstNode, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::{DocumentShape, Entry, McpConfigError, same_in_order};

/// JSONC as VS Code reads it (the settings format these assistants share): JSON plus comments
/// and trailing commas. jsonc-parser's defaults go further (single quotes, missing commas, hex
/// numbers, bare names), which would let a file no assistant can read pass as one to merge into.
#[must_use]
pub(crate) fn jsonc_options() -> ParseOptions {
    ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    }
}

pub(super) fn parse_json(path: &str, text: &str) -> Result<CstRootNode, McpConfigError> {
    // A leading byte order mark is not JSON; the merge puts it back in front of its result.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // JSONC (comments, trailing commas), which every one of these assistants tolerates in its
    // config; nothing looser.
    let root = CstRootNode::parse(text, &jsonc_options()).map_err(|e| {
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

/// The servers object of `root`, `None` when the document has none.
///
/// Errors: [`McpConfigError::ServersNotContainer`] when the servers key holds something else;
/// [`McpConfigError::InvalidDocument`] when the servers key, or a server name in it, is written
/// twice: each assistant's parser keeps only one of them (JSON leaves it open which), so an
/// entry written into the other would be silently ignored.
pub(super) fn json_servers(
    shape: DocumentShape,
    path: &str,
    root: &CstRootNode,
) -> Result<Option<CstObject>, McpConfigError> {
    let Some(top) = root.object_value() else {
        return Ok(None);
    };
    no_duplicate_key(path, &top, shape.servers_key(), "the top level")?;
    let Some(prop) = top.get(shape.servers_key()) else {
        return Ok(None);
    };
    let servers = prop
        .object_value()
        .ok_or_else(|| McpConfigError::ServersNotContainer {
            path: path.to_owned(),
            key: shape.servers_key().to_owned(),
            expected: "an object",
        })?;
    let mut names: Vec<String> = servers
        .properties()
        .iter()
        .filter_map(jsonc_parser::cst::CstObjectProp::decoded_name)
        .collect();
    names.sort();
    if let Some([name, _]) = names.windows(2).find(|pair| pair[0] == pair[1]) {
        let within = format!("`{}`", shape.servers_key());
        no_duplicate_key(path, &servers, name, &within)?;
    }
    Ok(Some(servers))
}

/// Errors with [`McpConfigError::InvalidDocument`] when `object` (`within`, for the message)
/// holds `key` more than once.
fn no_duplicate_key(
    path: &str,
    object: &CstObject,
    key: &str,
    within: &str,
) -> Result<(), McpConfigError> {
    let count = object
        .properties()
        .iter()
        .filter(|prop| prop.decoded_name().as_deref() == Some(key))
        .count();
    if count < 2 {
        return Ok(());
    }
    Err(McpConfigError::InvalidDocument {
        path: path.to_owned(),
        format: "JSON",
        line: None,
        column: None,
        message: format!(
            "the key `{key}` appears {count} times in {within}, and the assistant reads only one of them; merge them into one"
        ),
    })
}

/// Converts a CST value node into a JSON value. The crate's own converter sits
/// behind a feature this project does not enable, and the rules are short.
pub(super) fn cst_to_json(node: &CstNode) -> Option<Value> {
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

pub(super) fn merge_json(
    shape: DocumentShape,
    path: &str,
    existing: Option<&str>,
    remove: &[&str],
    upsert: &[(&str, &Entry)],
) -> Result<Option<String>, McpConfigError> {
    // Editors on Windows often start a JSON file with a byte order mark, which the JSON
    // grammar does not allow: it is set aside here and put back in front of the edited text.
    let bom = existing.is_some_and(|text| text.starts_with('\u{feff}'));
    let existing = existing.map(|text| text.strip_prefix('\u{feff}').unwrap_or(text));
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
    if bom {
        text.insert(0, '\u{feff}');
    }
    Ok(Some(text))
}
