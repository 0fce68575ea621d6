//! Agent and command files that an assistant reads as TOML rather than Markdown: Gemini CLI
//! custom commands (`.gemini/commands/<id>.toml`) and Codex custom agents
//! (`.codex/agents/<id>.toml`). Each file starts with a comment naming its source; the manifest
//! records its digest, which is how `generate` proves it wrote the file.
//!
//! Formats: <https://geminicli.com/docs/cli/custom-commands/> (`description`, `prompt`,
//! `{{args}}`) and <https://developers.openai.com/codex/subagents> (`name`, `description`,
//! `developer_instructions`, optional `model`, `model_reasoning_effort`, `sandbox_mode`,
//! `nickname_candidates`).

use serde_json::Value;
use toml_edit::{Array, DocumentMut, Item as TomlItem};

use super::super::fields::ITEM_FILE_DROPPED_KEYS;
use super::super::{ItemFilesSpec, ItemFormat};
use crate::content::Item;

/// The text of `item` in the TOML `format`, with the keys of `spec.keys` it can hold, and the
/// source fields it cannot hold (`key` or `key value`, in source order) for the caller's note.
/// Returns `None` for [`ItemFormat::Markdown`], which the Markdown writer serves.
pub(crate) fn toml_text(
    format: ItemFormat,
    spec: &ItemFilesSpec,
    item: &Item,
) -> Option<(String, Vec<String>)> {
    let mut document = DocumentMut::new();
    let mut left_out = Vec::new();
    let body = item.body.trim();
    match format {
        ItemFormat::Markdown => return None,
        ItemFormat::GeminiCommandToml => {
            if let Some(description) = &item.description {
                document.insert("description", toml_edit::value(description.as_str()));
            }
            if has_positional_arguments(body) {
                left_out.push("positional arguments ($1, $2, ...): Gemini CLI passes the whole argument text as {{args}}".to_owned());
            }
            document.insert(
                "prompt",
                toml_edit::value(multiline(&body.replace("$ARGUMENTS", "{{args}}"))),
            );
        }
        ItemFormat::CodexAgentToml => {
            let name = match item.frontmatter.get("name") {
                Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
                _ => item.id.clone(),
            };
            document.insert("name", toml_edit::value(name));
            // Codex requires a description; the title is the closest stand-in.
            let description = item
                .description
                .clone()
                .unwrap_or_else(|| item.title.clone());
            document.insert("description", toml_edit::value(description));
            document.insert("developer_instructions", toml_edit::value(multiline(body)));
        }
    }
    for (key, value) in &item.frontmatter {
        if ITEM_FILE_DROPPED_KEYS.contains(&key.as_str())
            || matches!(key.as_str(), "name" | "description")
        {
            continue;
        }
        let kept = spec.keys.iter().any(|kept| kept == key);
        match (kept, passed_value(format, key, value)) {
            (true, Some(converted)) => {
                document.insert(key, TomlItem::Value(converted));
            }
            (true, None) => left_out.push(format!("{key} {}", plain(value))),
            (false, _) => left_out.push(key.clone()),
        }
    }
    Some((document.to_string(), left_out))
}

/// A body as a TOML multi-line string value: ending in a newline makes the closing `"""` sit on
/// its own line.
fn multiline(text: &str) -> String {
    if text.is_empty() {
        String::new()
    } else {
        format!("{text}\n")
    }
}

/// The value to write for a kept key, or `None` when the assistant cannot use it: a Claude
/// model name (`sonnet`, `claude-...`) means nothing to Codex, and only strings, booleans,
/// numbers and lists of strings are carried over.
fn passed_value(format: ItemFormat, key: &str, value: &Value) -> Option<toml_edit::Value> {
    if format == ItemFormat::CodexAgentToml && key == "model" {
        let model = value.as_str()?;
        let lower = model.to_ascii_lowercase();
        if matches!(lower.as_str(), "sonnet" | "opus" | "haiku" | "inherit")
            || lower.starts_with("claude")
            || lower.starts_with("anthropic/")
        {
            return None;
        }
    }
    match value {
        Value::String(text) => Some(text.as_str().into()),
        Value::Bool(flag) => Some((*flag).into()),
        Value::Number(number) => number.as_i64().map(Into::into),
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(item.as_str()?);
            }
            Some(toml_edit::Value::Array(array))
        }
        Value::Null | Value::Object(_) => None,
    }
}

/// Whether a command body uses Claude's positional `$1` ... `$9` (outside `$ARGUMENTS`).
fn has_positional_arguments(body: &str) -> bool {
    body.as_bytes()
        .windows(2)
        .any(|pair| pair[0] == b'$' && pair[1].is_ascii_digit())
}

/// A value as short plain text for a message.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}
