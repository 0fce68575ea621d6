//! Importing into a project that already has `.ai-rulez/config.toml`: the presets and MCP
//! servers the source used are added to it (a second `import --from cursor` after one from
//! claude enables cursor too), editing the document in place with `toml_edit` so the user's
//! comments, order and formatting stay as they are. Nothing already there is changed or
//! removed: a server with a name the config already has keeps the config's entry.

use toml_edit::{Array, DocumentMut, Item, Value};

use crate::import::mcp::{self, McpServer};

/// What importing adds to an existing config.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ConfigUpdate {
    /// The new text of the config, `None` when it already has everything.
    pub text: Option<String>,
    /// What was added, kept or left out, one sentence each.
    pub notes: Vec<String>,
}

/// Adds to the config `text` (read from `path`) the `presets` (our names, checked to exist) and
/// `servers` it lacks. `presets` already listed (as a name or a `{ name = ... }` table) and
/// servers whose name the config has are left out, the latter with a note. A config that does not
/// parse as TOML, or whose `presets` or `mcp_servers` is not a list, is not changed: a note says
/// what to add by hand. The new text is checked to load as a config; if it would not, nothing is
/// changed either.
#[must_use]
pub(crate) fn add_presets_and_servers(
    path: &str,
    text: &str,
    presets: &[String],
    servers: &[McpServer],
) -> ConfigUpdate {
    let mut notes = Vec::new();
    let by_hand = |what: &str| {
        format!(
            "{path}: {what}, so import did not change it; add the presets {} and the MCP servers {} by hand",
            list_or_none(presets.iter().map(String::as_str)),
            list_or_none(servers.iter().map(|server| server.name.as_str()))
        )
    };
    let Ok(mut document) = text.parse::<DocumentMut>() else {
        notes.push(by_hand("does not parse as TOML"));
        return ConfigUpdate { text: None, notes };
    };
    let mut added_presets = Vec::new();
    if !presets.is_empty() {
        match document.get_mut("presets") {
            Some(Item::Value(Value::Array(listed))) => {
                for preset in presets {
                    if !lists_preset(listed, preset) {
                        listed.push(preset.as_str());
                        added_presets.push(preset.clone());
                    }
                }
            }
            // No `presets` key: the config's default (claude) stays what it was, plus these.
            None => {
                let mut listed = Array::new();
                listed.push("claude");
                for preset in presets.iter().filter(|preset| *preset != "claude") {
                    listed.push(preset.as_str());
                    added_presets.push(preset.clone());
                }
                document.insert("presets", Item::Value(Value::Array(listed)));
            }
            Some(_) => {
                notes.push(by_hand("`presets` is not a list"));
                return ConfigUpdate { text: None, notes };
            }
        }
    }
    let mut added_servers = Vec::new();
    if !servers.is_empty() {
        let existing: Vec<String> = match document.get("mcp_servers") {
            None => Vec::new(),
            Some(Item::ArrayOfTables(tables)) => tables
                .iter()
                .filter_map(|table| table.get("name").and_then(Item::as_str))
                .map(str::to_owned)
                .collect(),
            Some(_) => {
                notes.push(by_hand(
                    "`mcp_servers` is not a list of [[mcp_servers]] tables",
                ));
                return ConfigUpdate { text: None, notes };
            }
        };
        let (kept, new): (Vec<&McpServer>, Vec<&McpServer>) = servers
            .iter()
            .partition(|server| existing.contains(&server.name));
        for server in kept {
            notes.push(format!(
                "{path}: MCP server `{}` is already configured; the config's entry is kept as it is",
                server.name
            ));
        }
        if !new.is_empty() {
            // The tables as a new config would write them, then moved into this document.
            let owned: Vec<McpServer> = new.iter().map(|server| (*server).clone()).collect();
            let rendered = mcp::config_text("x", None, &[], &owned);
            let Ok(rendered) = rendered.parse::<DocumentMut>() else {
                notes.push(by_hand("its new MCP server entries would not parse"));
                return ConfigUpdate { text: None, notes };
            };
            let Some(Item::ArrayOfTables(tables)) = rendered.get("mcp_servers") else {
                return ConfigUpdate { text: None, notes };
            };
            if document.get("mcp_servers").is_none() {
                document.insert(
                    "mcp_servers",
                    Item::ArrayOfTables(toml_edit::ArrayOfTables::new()),
                );
            }
            if let Some(Item::ArrayOfTables(target)) = document.get_mut("mcp_servers") {
                for table in tables {
                    target.push(table.clone());
                }
            }
            added_servers = new.iter().map(|server| server.name.clone()).collect();
        }
    }
    if added_presets.is_empty() && added_servers.is_empty() {
        return ConfigUpdate { text: None, notes };
    }
    let updated = document.to_string();
    let mut warnings = Vec::new();
    if let Err(error) = crate::config::parse(path, &updated, false, &mut warnings) {
        notes.push(by_hand(&format!(
            "would not load with the additions ({error})"
        )));
        return ConfigUpdate { text: None, notes };
    }
    if !added_presets.is_empty() {
        notes.push(format!(
            "{path}: presets {} added",
            list_or_none(added_presets.iter().map(String::as_str))
        ));
    }
    if !added_servers.is_empty() {
        notes.push(format!(
            "{path}: MCP servers {} added",
            list_or_none(added_servers.iter().map(String::as_str))
        ));
    }
    ConfigUpdate {
        text: Some(updated),
        notes,
    }
}

/// Whether `listed` names `preset`, as a string or as a table with that `name`.
fn lists_preset(listed: &Array, preset: &str) -> bool {
    listed.iter().any(|value| match value {
        Value::String(name) => name.value() == preset,
        Value::InlineTable(table) => table.get("name").and_then(Value::as_str) == Some(preset),
        _ => false,
    })
}

/// `a, b` (backquoted), or `(none)`.
fn list_or_none<'a>(names: impl Iterator<Item = &'a str>) -> String {
    let quoted: Vec<String> = names.map(|name| format!("`{name}`")).collect();
    if quoted.is_empty() {
        "(none)".to_owned()
    } else {
        quoted.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str) -> McpServer {
        McpServer {
            name: name.to_owned(),
            command: Some("npx".to_owned()),
            args: vec!["-y".to_owned(), "tool".to_owned()],
            env: Vec::new(),
            transport: None,
            url: None,
            headers: Vec::new(),
        }
    }

    const CONFIG: &str = "version = \"5.0\"\nname = \"app\"\n# Ours.\npresets = [\"claude\"]  # keep\n\n[[mcp_servers]]\nname = \"github\"\ncommand = \"gh\"\n";

    #[test]
    fn missing_presets_and_servers_are_added_and_the_rest_of_the_text_stays() {
        let update = add_presets_and_servers(
            ".ai-rulez/config.toml",
            CONFIG,
            &["claude".to_owned(), "cursor".to_owned()],
            &[server("github"), server("docs")],
        );
        assert_eq!(
            update.text.as_deref(),
            Some(
                "version = \"5.0\"\nname = \"app\"\n# Ours.\npresets = [\"claude\", \"cursor\"]  # keep\n\n[[mcp_servers]]\nname = \"github\"\ncommand = \"gh\"\n\n[[mcp_servers]]\nname = \"docs\"\ncommand = \"npx\"\nargs = [\"-y\", \"tool\"]\n"
            )
        );
        assert_eq!(
            update.notes,
            [
                ".ai-rulez/config.toml: MCP server `github` is already configured; the config's entry is kept as it is",
                ".ai-rulez/config.toml: presets `cursor` added",
                ".ai-rulez/config.toml: MCP servers `docs` added",
            ]
        );
    }

    #[test]
    fn a_config_with_everything_already_is_left_alone() {
        let update =
            add_presets_and_servers(".ai-rulez/config.toml", CONFIG, &["claude".to_owned()], &[]);
        assert_eq!(
            update,
            ConfigUpdate {
                text: None,
                notes: Vec::new()
            }
        );
    }

    #[test]
    fn presets_that_are_not_a_list_are_named_and_nothing_is_changed() {
        let update = add_presets_and_servers(
            ".ai-rulez/config.toml",
            "version = \"5.0\"\npresets = \"claude\"\n",
            &["cursor".to_owned()],
            &[server("docs")],
        );
        assert_eq!(update.text, None);
        assert_eq!(
            update.notes,
            [
                ".ai-rulez/config.toml: `presets` is not a list, so import did not change it; add the presets `cursor` and the MCP servers `docs` by hand"
            ]
        );
    }
}
