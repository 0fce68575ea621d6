//! Importing rulesync's `.rulesync/` (format: <https://github.com/dyoshikawa/rulesync>,
//! docs/reference/file-formats.md, checked 2026-12-01): rules with `root`, `targets`, `globs`,
//! `description` and per-tool blocks, commands, subagents, skills, and `mcp.json`.

use indexmap::IndexMap;
use serde_json::Value;

use crate::content::{Activation, Kind};
use crate::error::Result;
use crate::import::Found;
use crate::import::draft::{Draft, Scope, globs_of, meaningful_globs, string_list, text_of};
use crate::import::tree::{Tree, carry_keys};

/// rulesync's tool names (its `ALL_TOOL_TARGETS`, checked 2026-12-02) and ours; a name not
/// listed (`agentsskills`, `deepagents`, `pi`, `omp`, `rovodev`, `takt`, `vibe`: no ai-rulez
/// preset) is kept as written, with a note.
const TARGETS: [(&str, &str); 34] = [
    ("agentsmd", "codex"),
    ("amazonqcli", "amazonq"),
    ("amp", "amp"),
    ("antigravity", "antigravity"),
    ("antigravity-cli", "antigravity"),
    ("antigravity-ide", "antigravity"),
    ("augmentcode", "augment"),
    ("augmentcode-legacy", "augment"),
    ("claudecode", "claude"),
    ("claudecode-legacy", "claude"),
    ("cline", "cline"),
    ("codexcli", "codex"),
    ("copilot", "copilot"),
    // Copilot CLI reads the Copilot instructions and `.mcp.json`, both of the copilot preset.
    ("copilotcli", "copilot"),
    ("cursor", "cursor"),
    ("devin", "devin"),
    ("factorydroid", "factory"),
    ("geminicli", "gemini"),
    ("goose", "goose"),
    ("grokcli", "grok"),
    ("junie", "junie"),
    ("kilo", "kilo"),
    ("kiro", "kiro"),
    ("kiro-cli", "kiro"),
    ("kiro-ide", "kiro"),
    ("opencode", "opencode"),
    ("qwencode", "qwen"),
    ("replit", "replit"),
    ("roo", "roo"),
    ("warp", "warp"),
    ("windsurf", "windsurf"),
    ("zed", "zed"),
    // Our own names, as a hand-edited rulesync file may use them.
    ("claude", "claude"),
    ("codex", "codex"),
];

/// Keys of a rulesync rule that this import reads; others are per-tool blocks.
const RULE_KEYS: [&str; 5] = ["root", "localRoot", "targets", "description", "globs"];

/// Reads `.rulesync/` into `found`.
///
/// Errors: bad frontmatter or JSON (naming the file and line); I/O errors.
pub(crate) fn read(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    for path in tree.files(".rulesync/rules", &[".md"], true, &[])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let values = &document.values;
        if values.get("localRoot") == Some(&Value::Bool(true)) {
            found.notes.push(format!(
                "{path}: a localRoot (personal) rule; left out, put it under .ai-rulez/local/rules/ if you want it"
            ));
            continue;
        }
        let id = stem(&path, ".rulesync/rules/", ".md");
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        let scope = rule_scope(values);
        draft.set_scope(scope, &mut found.notes);
        if let Some(value) = values.get("targets") {
            let targets = map_targets(value, &path, &mut found.notes);
            draft.set("targets", string_list(&targets));
        }
        let dropped: Vec<&str> = values
            .keys()
            .map(String::as_str)
            .filter(|key| !RULE_KEYS.contains(key))
            .collect();
        if !dropped.is_empty() {
            found.notes.push(format!(
                "{path}: per-tool settings not imported (their meaning is kept in description, paths and activation): {}",
                dropped.join(", ")
            ));
        }
        found.drafts.push(draft);
    }
    tree.plain_items(
        ".rulesync/commands",
        Kind::Command,
        ".md",
        found,
        &map_targets,
    )?;
    for path in tree.files(".rulesync/subagents", &[".md"], true, &[])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let id = stem(&path, ".rulesync/subagents/", ".md").replace('/', "-");
        let mut draft = Draft::new(Kind::Agent, &id, &path, document.body.clone());
        let mut document = document;
        // rulesync keeps Claude Code's subagent keys in a `claudecode` block.
        let claude = document.values.shift_remove("claudecode");
        carry_keys(&mut draft, &document, found, &map_targets);
        if let Some(Value::Object(claude)) = claude {
            for (key, value) in claude {
                if crate::content::keys::is_known(Kind::Agent, &key) {
                    draft.set(&key, value);
                }
            }
        }
        found.drafts.push(draft);
    }
    tree.skills(".rulesync/skills", found, &map_targets)?;
    for mcp in [".rulesync/mcp.jsonc", ".rulesync/mcp.json"] {
        if tree.bytes(mcp)?.is_some() {
            crate::import::mcp::read_json(tree, mcp, "mcpServers", found)?;
            break;
        }
    }
    let mut presets: Vec<String> = Vec::new();
    // The project's `targets` (rulesync.jsonc) say which assistants it generates for; when it
    // does not parse, the items' targets decide instead.
    for config in ["rulesync.jsonc", "rulesync.json"] {
        let Some(bytes) = tree.bytes(config)? else {
            continue;
        };
        match crate::import::mcp::jsonc_value(&bytes) {
            Ok(value) => {
                if let Some(targets) = value.get("targets") {
                    presets = map_targets(targets, config, &mut found.notes);
                    break;
                }
            }
            Err(problem) => found.notes.push(format!(
                "{config}: not read ({problem}), so its `targets` are not known and the presets come from the items' targets; check `presets` in .ai-rulez/config.toml"
            )),
        }
    }
    for draft in &found.drafts {
        for (key, value) in &draft.fields {
            if key == "targets"
                && let Value::Array(names) = value
            {
                presets.extend(names.iter().filter_map(Value::as_str).map(str::to_owned));
            }
        }
    }
    let mut unique: Vec<String> = Vec::new();
    for preset in presets {
        if !unique.contains(&preset) {
            unique.push(preset);
        }
    }
    found.presets = if unique.is_empty() {
        vec!["claude".to_owned(), "cursor".to_owned(), "codex".to_owned()]
    } else {
        unique
    };
    Ok(())
}

/// When a rulesync rule applies: `root: true` is the always-on overview; specific `globs` make
/// a glob rule; without them, a Cursor block with `alwaysApply: false` or a Windsurf/Devin/
/// Antigravity `trigger` of `model_decision` or `manual` says model-decided or manual.
fn rule_scope(values: &IndexMap<String, Value>) -> Scope {
    let description = text_of(values, "description");
    if values.get("root") == Some(&Value::Bool(true)) {
        return Scope {
            description,
            globs: Vec::new(),
            activation: Activation::Always,
        };
    }
    let globs = meaningful_globs(globs_of(values.get("globs")));
    if !globs.is_empty() {
        return Scope::from_globs(description, globs);
    }
    let trigger = ["windsurf", "devin", "antigravity"]
        .iter()
        .find_map(|tool| values.get(*tool)?.get("trigger")?.as_str());
    let cursor_always = values
        .get("cursor")
        .and_then(|cursor| cursor.get("alwaysApply"))
        .and_then(Value::as_bool);
    let activation = match (trigger, cursor_always) {
        (Some("model_decision"), _) => Activation::Auto,
        (Some("manual"), _) => Activation::Manual,
        (None, Some(false)) if description.is_some() => Activation::Auto,
        _ => Activation::Always,
    };
    Scope {
        description,
        globs: Vec::new(),
        activation,
    }
}

/// rulesync `targets` in our preset names: `*` (or no list) is every assistant, written as no
/// `targets` key; an unknown tool is kept as written with a note.
pub(crate) fn map_targets(value: &Value, origin: &str, notes: &mut Vec<String>) -> Vec<String> {
    let names = crate::scope::split_globs(value).unwrap_or_default();
    if names.iter().any(|name| name == "*") {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for name in names {
        let mapped = TARGETS
            .iter()
            .find(|(theirs, _)| *theirs == name)
            .map(|(_, ours)| (*ours).to_owned());
        let target = mapped.unwrap_or_else(|| {
            notes.push(format!(
                "{origin}: target `{name}` is no ai-rulez preset; kept as written, so the item reaches no assistant until you change it"
            ));
            name.clone()
        });
        if !out.contains(&target) {
            out.push(target);
        }
    }
    out
}

/// The id of the file `path` under `prefix`: its path without the prefix and `suffix`, folders
/// joined with `-`.
fn stem(path: &str, prefix: &str, suffix: &str) -> String {
    let relative = path.strip_prefix(prefix).unwrap_or(path);
    relative
        .strip_suffix(suffix)
        .unwrap_or(relative)
        .replace('/', "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rulesync_target_maps_to_a_preset_that_exists() {
        let presets: Vec<String> = crate::presets::builtin_specs()
            .unwrap()
            .into_iter()
            .map(|spec| spec.name)
            .collect();
        for (theirs, ours) in TARGETS {
            assert!(
                presets.iter().any(|name| name == ours),
                "{theirs} -> {ours}"
            );
        }
    }

    #[test]
    fn newer_rulesync_targets_are_mapped_and_unknown_ones_are_named() {
        let mut notes = Vec::new();
        let targets = serde_json::json!([
            "augmentcode",
            "qwencode",
            "factorydroid",
            "copilotcli",
            "copilot",
            "roo",
            "kilo",
            "warp",
            "vibe"
        ]);
        assert_eq!(
            map_targets(&targets, ".rulesync/rules/a.md", &mut notes),
            [
                "augment", "qwen", "factory", "copilot", "roo", "kilo", "warp", "vibe"
            ]
        );
        assert_eq!(
            notes,
            [
                ".rulesync/rules/a.md: target `vibe` is no ai-rulez preset; kept as written, so the item reaches no assistant until you change it"
            ]
        );
    }
}
