//! Agent and command frontmatter in each assistant's own vocabulary. Sources are usually written
//! the Claude Code way (`tools: Read, Grep`, `model: sonnet`); other assistants spell tools and
//! models differently, and a value copied across can break them (`OpenCode` rejects a string
//! `tools`) or mean nothing. Each value is translated from the target's documentation, or left out
//! and named so `generate` and `validate` can say so.
//!
//! Sources: `OpenCode` `agents.mdx` / `commands.mdx` (`tools` is a `{name: bool}` map of its
//! built-in tools, `mode: subagent`, `model` is `provider/model-id`) and Cursor's subagents page
//! (`model` is `inherit`, `fast` or a model id; `readonly`, `is_background`), both as read by the
//! harness audit of 2026-11-30; VS Code `custom-agents.md` (approved 2026-07-29, re-read
//! 2026-12-01: `tools` is a list of tool or tool-set names, `model` a name such as
//! `Claude Sonnet 4.5 (copilot)`). The tool-set names `read`, `edit`, `search`, `execute`, `web`,
//! `todo` and `agent` are 2nd-hand, from public `.agent.md` files.

use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;

use super::ItemFilesSpec;
use crate::content::Item;
use crate::frontmatter::{self, rewrite_top_level, yaml_string, yaml_value};

/// Whose vocabulary an agent or command file uses (`vocabulary = "..."` in a preset spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Vocabulary {
    /// `OpenCode`: `tools` as a map of its built-in tools, `model` as `provider/model-id`.
    Opencode,
    /// VS Code / GitHub Copilot: `tools` as a list of VS Code tool-set names.
    Copilot,
    /// Cursor: `model` as `inherit`, `fast` or an id; `readonly` from a tool list without writers.
    Cursor,
}

/// Claude Code's model aliases (code.claude.com/docs/en/sub-agents); no other assistant reads them.
const CLAUDE_MODEL_ALIASES: [&str; 4] = ["sonnet", "opus", "haiku", "fable"];

/// Claude Code tool names that change files or run commands: an agent allowed none of them is
/// read-only.
const CLAUDE_WRITING_TOOLS: [&str; 5] = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash"];

/// `OpenCode`'s built-in tools, sorted (opencode.ai/docs/tools).
const OPENCODE_TOOLS: [&str; 11] = [
    "bash",
    "edit",
    "glob",
    "grep",
    "list",
    "patch",
    "read",
    "todoread",
    "todowrite",
    "webfetch",
    "write",
];

/// The frontmatter after translation, and what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Translated {
    /// Keys and values to write, in the source's order (added keys last).
    pub values: IndexMap<String, Value>,
    /// What could not be expressed, each as `key` or `key value` (`model sonnet`, `tools Task`).
    pub left_out: Vec<String>,
}

/// Translates one agent's or command's frontmatter `source` into `vocabulary`. Keys it does
/// not know are kept as they are (the spec's key list decides about them).
#[must_use]
pub(crate) fn translate(vocabulary: Vocabulary, source: &IndexMap<String, Value>) -> Translated {
    let mut values = IndexMap::new();
    let mut left_out = Vec::new();
    for (key, value) in source {
        match key.as_str() {
            "tools" => {
                if let Some(tools) = translate_tools(vocabulary, value, &mut left_out) {
                    values.insert(key.clone(), tools);
                }
            }
            "model" => match translate_model(vocabulary, value) {
                Some(model) => {
                    values.insert(key.clone(), model);
                }
                None => left_out.push(format!("model {}", plain(value))),
            },
            _ => {
                values.insert(key.clone(), value.clone());
            }
        }
    }
    if vocabulary == Vocabulary::Cursor
        && !source.contains_key("readonly")
        && let Some(names) = source.get("tools").and_then(tool_names)
        && !names
            .iter()
            .any(|name| CLAUDE_WRITING_TOOLS.contains(&name.as_str()))
    {
        values.insert("readonly".to_owned(), Value::Bool(true));
    }
    Translated { values, left_out }
}

/// The tool names of a `tools` value: a comma-separated string or a list of strings.
fn tool_names(value: &Value) -> Option<Vec<String>> {
    match value {
        Value::String(text) => Some(
            text.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .map(str::to_owned)
                .collect(),
        ),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().map(|name| name.trim().to_owned()))
            .collect(),
        _ => None,
    }
}

fn translate_tools(
    vocabulary: Vocabulary,
    value: &Value,
    left_out: &mut Vec<String>,
) -> Option<Value> {
    if vocabulary == Vocabulary::Cursor {
        // Cursor subagents have no tool list; `readonly` carries the one distinction it has.
        left_out.push("tools".to_owned());
        return None;
    }
    if vocabulary == Vocabulary::Opencode && value.is_object() {
        return Some(value.clone());
    }
    let Some(names) = tool_names(value) else {
        left_out.push("tools".to_owned());
        return None;
    };
    match vocabulary {
        Vocabulary::Opencode => {
            let mut allowed: Vec<&str> = Vec::new();
            for name in &names {
                match opencode_tool(name) {
                    Some(tools) => allowed.extend(tools),
                    None => left_out.push(format!("tools {name}")),
                }
            }
            // The source lists what the agent may use, so every other built-in tool is off.
            let map: serde_json::Map<String, Value> = OPENCODE_TOOLS
                .iter()
                .map(|tool| ((*tool).to_owned(), Value::Bool(allowed.contains(tool))))
                .collect();
            Some(Value::Object(map))
        }
        Vocabulary::Copilot => {
            let mut sets: Vec<String> = Vec::new();
            for name in &names {
                match copilot_tool(name) {
                    Some(set) => {
                        if !sets.contains(&set) {
                            sets.push(set);
                        }
                    }
                    None => left_out.push(format!("tools {name}")),
                }
            }
            Some(Value::Array(sets.into_iter().map(Value::String).collect()))
        }
        Vocabulary::Cursor => None,
    }
}

/// `OpenCode` tools for one Claude Code (or `OpenCode`) tool name; `None` when it has none.
fn opencode_tool(name: &str) -> Option<&'static [&'static str]> {
    let tools: &'static [&'static str] = match name {
        "Read" | "read" => &["read"],
        "Write" | "write" => &["write"],
        "Edit" | "MultiEdit" | "edit" => &["edit", "patch"],
        "patch" => &["patch"],
        "Bash" | "bash" => &["bash"],
        "Grep" | "grep" => &["grep"],
        "Glob" | "glob" => &["glob"],
        "LS" | "list" => &["list"],
        "WebFetch" | "webfetch" => &["webfetch"],
        "TodoWrite" | "todowrite" => &["todowrite", "todoread"],
        "todoread" => &["todoread"],
        _ => return None,
    };
    Some(tools)
}

/// VS Code's built-in tool names before the `set/tool` spelling (`fetch`, `githubRepo`, ...), as
/// prompt files and chat modes written in 2025 list them and VS Code still reads them; kept as
/// written so importing a Copilot agent and generating it again loses none of its tools.
const VSCODE_LEGACY_TOOLS: [&str; 24] = [
    "changes",
    "codebase",
    "editFiles",
    "extensions",
    "fetch",
    "findTestFiles",
    "githubRepo",
    "new",
    "openSimpleBrowser",
    "problems",
    "readCellOutput",
    "runCommands",
    "runNotebooks",
    "runTasks",
    "runTests",
    "searchResults",
    "terminalLastCommand",
    "terminalSelection",
    "testFailure",
    "think",
    "todos",
    "updateUserPreferences",
    "usages",
    "vscodeAPI",
];

/// The VS Code tool set for one Claude Code tool name; a VS Code name (a tool set, or
/// `set/tool`, or `server/*`) is kept. `None` when there is no counterpart.
fn copilot_tool(name: &str) -> Option<String> {
    let set = match name {
        "Read" => "read",
        "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => "edit",
        "Grep" | "Glob" | "LS" => "search",
        "Bash" => "execute",
        "WebFetch" | "WebSearch" => "web",
        "TodoWrite" => "todo",
        "Task" | "Agent" => "agent",
        other
            if other.contains('/')
                || [
                    "read", "edit", "search", "execute", "web", "todo", "agent", "vscode",
                ]
                .contains(&other)
                || VSCODE_LEGACY_TOOLS.contains(&other) =>
        {
            other
        }
        _ => return None,
    };
    Some(set.to_owned())
}

/// The model value `vocabulary` accepts for `value`; `None` when it has none to offer.
fn translate_model(vocabulary: Vocabulary, value: &Value) -> Option<Value> {
    let text = value.as_str()?.trim();
    let claude_alias = CLAUDE_MODEL_ALIASES.contains(&text) || text == "inherit";
    match vocabulary {
        Vocabulary::Opencode => text.contains('/').then(|| value.clone()),
        Vocabulary::Copilot => (!claude_alias && !text.contains('/')).then(|| value.clone()),
        // Cursor takes `inherit` (which Claude Code spells the same), `fast` or its own ids, never
        // a `provider/model` pair.
        Vocabulary::Cursor => {
            (!CLAUDE_MODEL_ALIASES.contains(&text) && !text.contains('/')).then(|| value.clone())
        }
    }
}

/// A value as a short plain text for a message.
fn plain(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

/// Keys dropped from skill, agent and command frontmatter: ai-rulez reads them, assistants don't.
pub(crate) const ITEM_FILE_DROPPED_KEYS: [&str; 12] = [
    "title",
    "priority",
    "targets",
    "activation",
    "trigger",
    "alwaysApply",
    "delivery",
    "triggers",
    "keywords",
    "status",
    "always",
    "scope",
];

/// Frontmatter YAML for a skill, agent or command file: the user's own text with ai-rulez keys
/// (or keys outside `keys`) removed, and `name: <id>` first when `add_name` and none is given.
pub(crate) fn item_frontmatter(item: &Item, keys: &[String], add_name: bool) -> String {
    let keep_all = keys.iter().any(|key| key == "*");
    let dropped: Vec<&str> = item
        .frontmatter
        .keys()
        .map(String::as_str)
        .filter(|key| {
            if keep_all {
                ITEM_FILE_DROPPED_KEYS.contains(key)
            } else {
                !keys.iter().any(|kept| kept == key)
            }
        })
        .collect();
    let wants_name = add_name && (keep_all || keys.iter().any(|key| key == "name"));
    let prepend = if wants_name && !item.frontmatter.contains_key("name") {
        vec![format!("name: {}", yaml_string(&item.id))]
    } else {
        Vec::new()
    };
    let kept: Vec<(&String, &Value)> = item
        .frontmatter
        .iter()
        .filter(|(key, _)| !dropped.contains(&key.as_str()))
        .collect();
    let rewritten = rewrite_top_level(item.yaml.as_deref().unwrap_or_default(), &dropped, &prepend);
    // The text edit keeps the user's formatting; if it does not read back as exactly the kept
    // keys (an unusual YAML layout), fall back to writing the values out.
    let mut expected: indexmap::IndexMap<&str, Value> = indexmap::IndexMap::new();
    if !prepend.is_empty() {
        expected.insert("name", Value::String(item.id.clone()));
    }
    for (key, value) in &kept {
        expected.insert(key.as_str(), (*value).clone());
    }
    let reads_back = frontmatter::parse(
        &item.source_path,
        format!("---\n{rewritten}---\n").as_bytes(),
    )
    .is_ok_and(|document| {
        document.values.len() == expected.len()
            && document
                .values
                .iter()
                .all(|(key, value)| expected.get(key.as_str()) == Some(value))
    });
    // Our reader accepts Cursor's bare `globs: *.tsx`, but the assistants parse strict YAML (a
    // leading `*` is an alias there), so the user's text is only kept when it needs no leniency.
    if reads_back && frontmatter::is_strict_yaml(&rewritten) {
        return rewritten;
    }
    let mut yaml = String::new();
    for line in &prepend {
        yaml.push_str(line);
        yaml.push('\n');
    }
    for (key, value) in kept {
        yaml.push_str(&yaml_string(key));
        yaml.push_str(": ");
        yaml.push_str(&yaml_value(value));
        yaml.push('\n');
    }
    yaml
}

/// An agent or command file's frontmatter as written, and the source fields left out of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WrittenFrontmatter {
    /// The YAML lines, or `None` for a plain Markdown format (an empty key list).
    pub yaml: Option<String>,
    /// Source fields the target cannot hold, as `key` or `key value`, in source order.
    pub left_out: Vec<String>,
}

/// The frontmatter of `item` in the agent or command format `spec`: values translated into
/// the spec's vocabulary, its defaults added, then only its keys kept (ai-rulez's own keys and
/// `name`, which the file name carries, are never reported as left out, nor `description` by
/// a plain Markdown format, whose menus show the file name). When nothing needs
/// translating, the user's own YAML text is kept (see [`item_frontmatter`]).
pub(crate) fn item_file_frontmatter(item: &Item, spec: &ItemFilesSpec) -> WrittenFrontmatter {
    if let Some((_, left_out)) = super::render::toml_items::toml_text(spec.format, spec, item) {
        // A TOML format has no frontmatter; only what it leaves out matters here.
        return WrittenFrontmatter {
            yaml: None,
            left_out,
        };
    }
    let keep_all = spec.keys.iter().any(|key| key == "*");
    // A plain Markdown format (no keys) has nowhere for display text: its menu shows the file
    // name, so leaving `description` out changes nothing the assistant does and is not said.
    let plain_markdown = spec.keys.is_empty();
    let reported = |key: &str| {
        !ITEM_FILE_DROPPED_KEYS.contains(&key)
            && key != "name"
            && !(plain_markdown && key == "description")
    };
    let translated = match spec.vocabulary {
        Some(vocabulary) => translate(vocabulary, &item.frontmatter),
        None => Translated {
            values: item.frontmatter.clone(),
            left_out: Vec::new(),
        },
    };
    let mut values = translated.values;
    let mut left_out = translated.left_out;
    let mut added = false;
    for (key, value) in &spec.defaults {
        if !values.contains_key(key) {
            values.insert(key.clone(), Value::String(value.clone()));
            added = true;
        }
    }
    for key in values.keys() {
        let kept = keep_all || spec.keys.iter().any(|kept| kept == key);
        if !kept && reported(key) {
            left_out.push(key.clone());
        }
    }
    if spec.keys.is_empty() {
        return WrittenFrontmatter {
            yaml: None,
            left_out,
        };
    }
    if !added && values == item.frontmatter {
        return WrittenFrontmatter {
            yaml: Some(item_frontmatter(item, &spec.keys, spec.name)),
            left_out,
        };
    }
    let wants_name = spec.name && (keep_all || spec.keys.iter().any(|key| key == "name"));
    let mut yaml = String::new();
    if wants_name && !values.contains_key("name") {
        yaml.push_str(&format!("name: {}\n", yaml_string(&item.id)));
    }
    for (key, value) in &values {
        let kept = if keep_all {
            !ITEM_FILE_DROPPED_KEYS.contains(&key.as_str())
        } else {
            spec.keys.iter().any(|kept| kept == key)
        };
        if kept {
            yaml.push_str(&format!("{}: {}\n", yaml_string(key), yaml_value(value)));
        }
    }
    WrittenFrontmatter {
        yaml: Some(yaml),
        left_out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(yaml_pairs: &[(&str, Value)]) -> IndexMap<String, Value> {
        yaml_pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect()
    }

    #[test]
    fn claude_tools_become_an_opencode_map_that_turns_the_rest_off() {
        let translated = translate(
            Vocabulary::Opencode,
            &source(&[
                ("tools", Value::from("Read, Grep, Task")),
                ("model", Value::from("sonnet")),
            ]),
        );
        assert_eq!(
            serde_json::to_string(&translated.values).expect("json"),
            r#"{"tools":{"bash":false,"edit":false,"glob":false,"grep":true,"list":false,"patch":false,"read":true,"todoread":false,"todowrite":false,"webfetch":false,"write":false}}"#
        );
        assert_eq!(translated.left_out, ["tools Task", "model sonnet"]);
    }

    #[test]
    fn vs_code_tool_names_of_either_spelling_are_kept_for_copilot() {
        let tools = source(&[(
            "tools",
            serde_json::json!(["fetch", "githubRepo", "search/codebase", "Read", "grep"]),
        )]);
        let copilot = translate(Vocabulary::Copilot, &tools);
        assert_eq!(
            copilot.values["tools"],
            serde_json::json!(["fetch", "githubRepo", "search/codebase", "read"])
        );
    }

    #[test]
    fn claude_tools_become_vs_code_tool_sets_and_cursor_gets_readonly() {
        let tools = source(&[(
            "tools",
            serde_json::json!(["Read", "Grep", "Glob", "WebFetch"]),
        )]);
        let copilot = translate(Vocabulary::Copilot, &tools);
        assert_eq!(
            copilot.values["tools"],
            serde_json::json!(["read", "search", "web"])
        );
        assert!(copilot.left_out.is_empty());
        let cursor = translate(Vocabulary::Cursor, &tools);
        assert_eq!(cursor.values.get("readonly"), Some(&Value::Bool(true)));
        assert_eq!(cursor.left_out, ["tools"]);
    }
}
