//! Importing ruler's `.ruler/` (format: <https://github.com/intellectronica/ruler>, README,
//! checked 2026-12-01): every Markdown file is always-on instructions (ruler concatenates them
//! into each agent's file), `skills/<id>/SKILL.md` are skills, and `ruler.toml` names the
//! agents (`default_agents`, `[agents.<name>] enabled`) and the MCP servers (`[mcp_servers.<name>]`).

use serde_json::Value;

use crate::content::Kind;
use crate::error::{Error, InvalidKind, Result};
use crate::import::Found;
use crate::import::draft::Draft;
use crate::import::tree::{Tree, same_targets};

/// ruler's agent names and our presets.
const AGENTS: [(&str, &str); 16] = [
    ("claude", "claude"),
    ("codex", "codex"),
    ("agentsmd", "codex"),
    ("cursor", "cursor"),
    ("copilot", "copilot"),
    ("windsurf", "windsurf"),
    ("cline", "cline"),
    ("gemini-cli", "gemini"),
    ("kiro", "kiro"),
    ("opencode", "opencode"),
    ("junie", "junie"),
    ("amp", "amp"),
    ("zed", "zed"),
    ("antigravity", "antigravity"),
    ("devin", "devin"),
    ("jules", "codex"),
];

/// Reads `.ruler/` into `found`.
///
/// Errors: bad TOML in `ruler.toml` (naming the line), bad frontmatter; I/O errors.
pub(crate) fn read(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    for path in tree.files(".ruler", &[".md"], true, &["skills"])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let relative = &path[".ruler/".len()..path.len() - ".md".len()];
        // `rules/code-quality` → `code-quality`; other folders stay in the id.
        let relative = relative.strip_prefix("rules/").unwrap_or(relative);
        let id = relative.replace('/', "-").to_ascii_lowercase();
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        if let Some(description) = crate::import::draft::text_of(&document.values, "description") {
            draft.set("description", Value::String(description));
        }
        found.drafts.push(draft);
    }
    tree.skills(".ruler/skills", found, &same_targets)?;
    let config_path = ".ruler/ruler.toml";
    let Some(bytes) = tree.bytes(config_path)? else {
        found.presets = vec!["claude".to_owned(), "codex".to_owned()];
        return Ok(());
    };
    let text = crate::frontmatter::decode_utf8(config_path, &bytes)?;
    let config: Value = toml_edit::de::from_str(text).map_err(|error| {
        let line = error
            .span()
            .map(|span| text[..span.start.min(text.len())].lines().count().max(1));
        Error::invalid_as(
            InvalidKind::Toml,
            config_path,
            line,
            format!("{}; fix the TOML and import again", error.message()),
        )
    })?;
    let mut agents: Vec<String> = match config.get("default_agents") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    if agents.is_empty()
        && let Some(Value::Object(tables)) = config.get("agents")
    {
        agents = tables
            .iter()
            .filter(|(_, table)| table.get("enabled") == Some(&Value::Bool(true)))
            .map(|(name, _)| name.clone())
            .collect();
    }
    for agent in agents {
        match AGENTS.iter().find(|(theirs, _)| *theirs == agent) {
            Some((_, ours)) if !found.presets.iter().any(|known| known == ours) => {
                found.presets.push((*ours).to_owned());
            }
            Some(_) => {}
            None => found.notes.push(format!(
                "{config_path}: agent `{agent}` has no ai-rulez preset; not enabled"
            )),
        }
    }
    if let Some(Value::Object(servers)) = config.get("mcp_servers") {
        for (name, entry) in servers {
            crate::import::mcp::push(found, config_path, name, entry);
        }
    }
    Ok(())
}
