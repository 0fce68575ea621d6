//! Importing the Go ai-rulez's single-file YAML config (`ai-rulez.yaml`, schema
//! `ai-rules-v2.schema.json`; see the reference notes on the Go tool): `metadata` (name,
//! description), `presets`, `outputs`, inline `rules` and `sections` (name, content, priority,
//! targets), `agents`, `commands` and `mcp_servers`.

use serde_json::Value;

use crate::content::Kind;
use crate::error::Result;
use crate::import::Found;
use crate::import::draft::{Draft, string_list};
use crate::import::tree::Tree;

/// The file names the Go tool reads, in its order.
const FILES: [&str; 4] = [
    "ai-rulez.yaml",
    ".ai-rulez.yaml",
    "ai_rulez.yaml",
    "ai-rulez.yml",
];

/// Output files of v2 configs and our presets.
const OUTPUTS: [(&str, &str); 9] = [
    ("CLAUDE.md", "claude"),
    ("AGENTS.md", "codex"),
    ("GEMINI.md", "gemini"),
    (".cursor", "cursor"),
    (".github/copilot-instructions.md", "copilot"),
    (".windsurf", "windsurf"),
    (".windsurfrules", "windsurf"),
    (".clinerules", "cline"),
    (".junie", "junie"),
];

/// Reads the first config of [`FILES`] into `found`.
///
/// Errors: YAML that does not parse (naming the file and line); I/O errors.
pub(crate) fn read(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    for path in FILES {
        let Some(bytes) = tree.bytes(path)? else {
            continue;
        };
        let text = crate::frontmatter::decode_utf8(path, &bytes)?;
        let config = crate::frontmatter::parse_yaml_document(path, text)?;
        read_config(&config, path, found);
        return Ok(());
    }
    Ok(())
}

fn read_config(config: &Value, path: &str, found: &mut Found) {
    if !config.is_object() {
        found.notes.push(format!(
            "{path}: is {}, not a mapping of keys (metadata, rules, sections, ...); nothing in it is imported",
            kind_of(config)
        ));
        return;
    }
    let text = |value: &Value, key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    match config.get("metadata") {
        Some(metadata @ Value::Object(_)) => {
            found.name = text_or_note(metadata, "name", "metadata.name", path, found);
            found.description =
                text_or_note(metadata, "description", "metadata.description", path, found);
        }
        Some(Value::Null) | None => {}
        Some(other) => found.notes.push(format!(
            "{path}: `metadata` is {}, not a mapping (name, description); the project's name is not imported",
            kind_of(other)
        )),
    }
    // Each list key of another type is named once, or its items would vanish without a word.
    for key in [
        "outputs",
        "rules",
        "sections",
        "agents",
        "commands",
        "mcp_servers",
    ] {
        if let Some(value) = config.get(key)
            && !value.is_array()
            && !value.is_null()
        {
            found.notes.push(format!(
                "{path}: `{key}` is {}, not a list; nothing is imported from it",
                kind_of(value)
            ));
        }
    }
    let known: Vec<String> = crate::presets::builtin_specs()
        .map(|specs| specs.into_iter().map(|spec| spec.name).collect())
        .unwrap_or_default();
    // One preset may be written as a text (`presets: claude`).
    let presets: Vec<Value> = match config.get("presets") {
        Some(Value::String(name)) => vec![Value::String(name.clone())],
        Some(Value::Array(items)) => items.clone(),
        Some(Value::Null) | None => Vec::new(),
        Some(other) => {
            found.notes.push(format!(
                "{path}: `presets` is {}, not a list; nothing is imported from it",
                kind_of(other)
            ));
            Vec::new()
        }
    };
    for preset in &presets {
        match preset.as_str() {
            Some(name) if known.iter().any(|known| known == name) => {
                if !found.presets.iter().any(|have| have == name) {
                    found.presets.push(name.to_owned());
                }
            }
            Some("popular") => {
                for name in ["claude", "cursor", "codex", "copilot", "gemini"] {
                    if !found.presets.iter().any(|have| have == name) {
                        found.presets.push(name.to_owned());
                    }
                }
            }
            other => found.notes.push(format!(
                "{path}: preset {} has no ai-rulez equivalent; not enabled",
                other.map_or_else(|| preset.to_string(), str::to_owned)
            )),
        }
    }
    for output in list(config, "outputs") {
        let Some(file) = text(output, "file").or_else(|| text(output, "path")) else {
            continue;
        };
        if let Some((_, preset)) = OUTPUTS.iter().find(|(prefix, _)| file.starts_with(prefix))
            && !found.presets.iter().any(|have| have == preset)
        {
            found.presets.push((*preset).to_owned());
        }
    }
    for (key, kind) in [
        ("rules", Kind::Rule),
        ("sections", Kind::Context),
        ("agents", Kind::Agent),
        ("commands", Kind::Command),
    ] {
        for (index, entry) in list(config, key).iter().enumerate() {
            let origin = format!("{path} ({key}[{index}])");
            if !entry.is_object() {
                found.notes.push(format!(
                    "{origin}: is {}, not a mapping (name, content, ...); left out",
                    kind_of(entry)
                ));
                continue;
            }
            let Some(name) = text(entry, "name").or_else(|| text(entry, "id")) else {
                found.notes.push(format!("{origin}: has no name; left out"));
                continue;
            };
            let content = match content_of(entry) {
                Ok(content) => content,
                Err(why) => {
                    found.notes.push(format!("{origin}: {why}; left out"));
                    continue;
                }
            };
            let id = text(entry, "id").unwrap_or_else(|| crate::content::slug(&name));
            if text(entry, "id").is_none() && id != name {
                found.notes.push(format!(
                    "{origin}: named `{name}`, imported as `{id}` (an id is lower-case letters, digits and `-`)"
                ));
            }
            // The Go tool printed the name as the item's heading; keep it as the title.
            let body = if content.starts_with("# ") || matches!(kind, Kind::Agent | Kind::Command) {
                format!("{content}\n")
            } else {
                format!("# {name}\n\n{content}\n")
            };
            let mut draft = Draft::new(kind, &id, &origin, body);
            if matches!(kind, Kind::Agent | Kind::Command) {
                draft.set("name", Value::String(name.clone()));
            }
            if let Some(description) =
                text_or_note(entry, "description", "description", &origin, found)
            {
                draft.set("description", Value::String(description));
            }
            match entry.get("priority") {
                Some(Value::String(priority)) => {
                    draft.set("priority", Value::String(priority.to_ascii_lowercase()));
                }
                Some(Value::Number(number)) => found.notes.push(format!(
                    "{origin}: numeric priority {number} is not kept; set critical, high, medium, low or minimal"
                )),
                _ => {}
            }
            let targets: Vec<String> = list(entry, "targets")
                .iter()
                .filter_map(|target| target.as_str().map(str::to_owned))
                .collect();
            draft.set("targets", string_list(&targets));
            if let Some(model) = text(entry, "model") {
                draft.set("model", Value::String(model));
            }
            found.drafts.push(draft);
        }
    }
    for entry in list(config, "mcp_servers") {
        if let Some(name) = text(entry, "name") {
            crate::import::mcp::push(found, path, &name, entry);
        }
    }
    if config.get("includes").is_some() {
        found.notes.push(format!(
            "{path}: `includes` are not imported; add them as [[includes]] in .ai-rulez/config.toml"
        ));
    }
}

/// The text of an entry's `content` (or `system_prompt`, `instructions` for agents): a number or
/// a boolean is taken as written (`content: 5` is the text `5`); empty when none is given.
///
/// Errors: why a list or a mapping there cannot be a text.
fn content_of(entry: &Value) -> std::result::Result<String, String> {
    for key in ["content", "system_prompt", "instructions"] {
        match entry.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.trim().is_empty() => {}
            Some(Value::String(text)) => return Ok(text.trim().to_owned()),
            Some(scalar @ (Value::Number(_) | Value::Bool(_))) => return Ok(scalar.to_string()),
            Some(other) => {
                return Err(format!("`{key}` is {}, not a text", kind_of(other)));
            }
        }
    }
    Ok(String::new())
}

/// The trimmed text at `value[key]`, `None` when it is absent, null or blank; a value of another
/// type is named in a note from `origin` (`` `shown_key` is a number, not a text; left out ``).
fn text_or_note(
    value: &Value,
    key: &str,
    shown_key: &str,
    origin: &str,
    found: &mut Found,
) -> Option<String> {
    match value.get(key) {
        Some(Value::String(text)) => Some(text.trim().to_owned()).filter(|text| !text.is_empty()),
        Some(Value::Null) | None => None,
        Some(other) => {
            found.notes.push(format!(
                "{origin}: `{shown_key}` is {}, not a text; left out",
                kind_of(other)
            ));
            None
        }
    }
}

/// A YAML value's kind, as a noun phrase for a note.
fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The list at `value[key]`, or nothing.
fn list<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}
