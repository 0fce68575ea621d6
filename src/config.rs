//! The project configuration (`.ai-rulez/config.toml`, v4 and v5; v3 `config.yaml`), read into a
//! typed [`Config`]. Unknown keys are warnings naming their full key path, never a crash; keys the
//! Go ai-rulez knows but this tool does not act on yet are listed in one warning.

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::error::{Error, InvalidKind, Result};
use crate::mcp_config::{McpServer, Transport};

mod includes;

/// How rules reach presets that have a rules folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RulesMode {
    /// Every rule goes to the preset's rules folder (default).
    Split,
    /// Rules without paths go into the root file; path-scoped rules still go to the folder.
    Inline,
}

/// A rule written inline in the config (`[[rules]]` in real v4 trees, `rules:` in v3).
#[derive(Debug, Clone, PartialEq)]
pub struct InlineItem {
    /// Display name; the id is derived from it.
    pub name: String,
    /// Raw priority text, validated by the content loader.
    pub priority: Option<String>,
    /// Body text.
    pub content: String,
    /// Optional `targets` list.
    pub targets: Vec<String>,
}

/// A `[[includes]]` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Include {
    /// Include name (for messages and precedence).
    pub name: String,
    /// Local path (without a leading `file://`) or git URL as written, credentials included:
    /// show it only through [`crate::redact::mask_url_credentials`].
    pub source: String,
    /// Sub-directory inside the source.
    pub path: Option<String>,
    /// `ref` of a git source: a branch, a tag or a full commit id; `None` for the remote's
    /// default branch (and always for a local folder).
    pub git_ref: Option<String>,
    /// Where the entry sits in the config, such as `includes[0]`, for messages.
    pub key: String,
}

/// The typed configuration. Defaults follow the v4 trees found in real repositories.
#[derive(Debug, Clone)]
pub struct Config {
    /// `version` as written ("3.0", "4.0", "5.0").
    pub version: String,
    /// Project name, used as the `# <name>` title of root files.
    pub name: String,
    /// Paragraph under the title.
    pub description: Option<String>,
    /// Preset names in config order, lower-cased, without duplicates.
    pub presets: Vec<String>,
    /// `[profiles]`: profile name → domain names.
    pub profiles: IndexMap<String, Vec<String>>,
    /// `default` profile expression (comma list allowed).
    pub default_profile: Option<String>,
    /// Maintain a managed block in `.gitignore`.
    pub gitignore: bool,
    /// `[rules] mode`.
    pub rules_mode: RulesMode,
    /// `[[rules]]` written in the config itself.
    pub inline_rules: Vec<InlineItem>,
    /// v3 `sections:` (reference material written in the config).
    pub inline_context: Vec<InlineItem>,
    /// One shared AGENTS.md; CLAUDE.md and GEMINI.md import it.
    pub agents_md: bool,
    /// `nested_agents_md`: a rule whose globs all lie under one folder goes to
    /// `<folder>/AGENTS.md` instead of the root `AGENTS.md` (only when every enabled assistant
    /// that reads `AGENTS.md` also reads the ones in sub-folders); false when absent.
    pub nested_agents_md: bool,
    /// `[[mcp_servers]]` that are enabled, in config order.
    pub mcp_servers: Vec<McpServer>,
    /// `[[includes]]` of local folders.
    pub includes: Vec<Include>,
    /// `[[includes]]` of git sources (`git+https://`, `git+ssh://`, `git://`, `git@host:path`,
    /// `git+file://`, ...), fetched into the user's cache by [`crate::git_include`].
    pub git_includes: Vec<Include>,
    /// `[lint] ignore`: finding codes `validate` and `scan` never report.
    pub lint_ignore: Vec<String>,
    /// `[mcp] toolsets`: the toolsets `ai-rulez mcp` serves when `--toolsets` does not choose;
    /// `None` when the key is absent.
    pub mcp_toolsets: Option<Vec<crate::mcp::registry::Toolset>>,
    /// `[learning] auto_activate`: whether rules the learning tools save start active (when
    /// they pass every check) instead of pending; false when absent.
    pub learning_auto_activate: bool,
    /// `[skills] delivery`: how a skill is delivered when neither its frontmatter nor its
    /// domain says; `None` when absent (static). See [`crate::delivery::of_skill`].
    pub skills_delivery: Option<crate::delivery::Delivery>,
    /// `[domains.<name>] delivery`: domain name → delivery of that domain's skills.
    pub domain_delivery: IndexMap<String, crate::delivery::Delivery>,
}

/// Top-level config keys read as plain values (the tables `rules`, `header`, `lint`, `mcp` and
/// the v3 `sections` are checked key by key).
const ROOT_KEYS: [&str; 12] = [
    "version",
    "name",
    "description",
    "presets",
    "default",
    "profiles",
    "gitignore",
    "agents_md",
    "nested_agents_md",
    "mcp_servers",
    "includes",
    "$schema",
];

/// Keys of one `[[rules]]` entry (a rule written inline in the config).
const INLINE_RULE_KEYS: [&str; 4] = ["name", "content", "priority", "targets"];

/// Keys of one `[[mcp_servers]]` entry.
const MCP_SERVER_KEYS: [&str; 11] = [
    "name",
    "description",
    "command",
    "args",
    "env",
    "transport",
    "type",
    "url",
    "headers",
    "enabled",
    "profiles",
];

/// Top-level keys the Go ai-rulez defines that this tool reads but does not act on yet.
const NOT_YET_SUPPORTED: [&str; 19] = [
    "builtins",
    "installed_skills",
    "marketplaces",
    "plugins",
    "plugin",
    "scopes",
    "lock",
    "hooks",
    "permissions",
    "guard",
    "claude",
    "codex",
    "defaults",
    "compact",
    "codex_skills_dir",
    "bundle_exclude",
    "skill_sources",
    "llms_txt",
    "agents",
];

/// Parses the config file at `path` (project-relative, for messages) with content `text`.
/// `yaml` selects the v3 YAML reader.
///
/// Errors: [`Error::Invalid`] for syntax errors (with line; kind [`InvalidKind::Toml`], or the
/// YAML kinds of [`crate::frontmatter::parse_yaml_document`]), a missing `name`, or a value of
/// the wrong type (with its key path; kind [`InvalidKind::McpServer`] inside `[[mcp_servers]]`,
/// else [`InvalidKind::ConfigValue`]). Warnings (unknown keys, ignored keys, git includes) are pushed
/// to `warnings`.
pub fn parse(path: &str, text: &str, yaml: bool, warnings: &mut Vec<String>) -> Result<Config> {
    let value = if yaml {
        crate::frontmatter::parse_yaml_document(path, text)?
    } else {
        toml_edit::de::from_str::<Value>(text).map_err(|error| {
            let line = error
                .span()
                .map(|span| text[..span.start.min(text.len())].matches('\n').count() + 1);
            Error::invalid_as(
                InvalidKind::Toml,
                path,
                line,
                format!("invalid TOML: {}", error.message()),
            )
        })?
    };
    let Value::Object(root) = value else {
        return Err(Error::invalid_as(
            InvalidKind::ConfigValue,
            path,
            None,
            "the config must be a table of keys",
        ));
    };
    let reader = Reader { path, text };
    reader
        .build(&root, yaml, warnings)
        .map_err(|error| match error {
            // The reader knows the key; the line is found here, where the text is, so `generate`
            // names it as `validate` does.
            Error::Invalid {
                kind,
                path,
                line: None,
                key_path: Some(key_path),
                message,
            } => Error::Invalid {
                kind,
                line: key_path_line(text, &key_path),
                path,
                key_path: Some(key_path),
                message,
            },
            other => other,
        })
}

/// `table`'s values under keys prefixed with `at.` (`mcp_servers[0].command`), so the readers
/// of single values name the whole key path in their errors.
fn table_at(table: &Map<String, Value>, at: &str) -> Map<String, Value> {
    table
        .iter()
        .map(|(key, value)| (format!("{at}.{key}"), value.clone()))
        .collect()
}

/// Line of the config key at `key_path` (`a.b`, `mcp_servers[1]`, `mcp_servers[1].url`,
/// `presets[2]`, `profiles.backend`): for a key inside an entry of a `[[table]]` list, the line
/// assigning it within that entry, else the entry's header (for an inline list, the line
/// assigning the list); otherwise the first line assigning or opening the path's
/// last key (TOML `key =`, YAML `key:`, or a `[key]` table). Best effort, `None` when not found.
#[must_use]
pub(crate) fn key_path_line(config: &str, key_path: &str) -> Option<usize> {
    if let Some((table, index, rest)) = key_path.split_once('[').and_then(|(table, rest)| {
        let (digits, rest) = rest.split_once(']')?;
        let index = digits.parse::<usize>().ok()?;
        (!table.contains('.')).then_some((table, index, rest))
    }) {
        let header_text = format!("[[{table}]]");
        let Some(header) = config
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim() == header_text)
            .nth(index)
            .map(|(number, _)| number + 1)
        else {
            // A list written inline (`presets = [...]`): the line assigning it.
            return config
                .lines()
                .position(|line| assigns(line, table))
                .map(|number| number + 1);
        };
        let Some(key) = rest.strip_prefix('.') else {
            return Some(header);
        };
        let key = key.split(['.', '[']).next().unwrap_or(key);
        let within = config
            .lines()
            .skip(header)
            .take_while(|line| !line.trim_start().starts_with('['))
            .position(|line| assigns(line, key))
            .map(|offset| header + offset + 1);
        return within.or(Some(header));
    }
    let last = key_path.rsplit('.').next()?;
    let last = last.split('[').next()?;
    config
        .lines()
        .position(|line| assigns(line, last) || line.trim().trim_end() == format!("[{last}]"))
        .map(|index| index + 1)
}

/// Whether `line` assigns `key` (TOML `key =`, YAML `key:`).
fn assigns(line: &str, key: &str) -> bool {
    line.trim_start().strip_prefix(key).is_some_and(|rest| {
        let rest = rest.trim_start();
        rest.starts_with('=') || rest.starts_with(':')
    })
}

struct Reader<'a> {
    path: &'a str,
    /// The config's text, to find the line a warning is about.
    text: &'a str,
}

impl Reader<'_> {
    /// `path:line` of the line assigning `key_path` (a dotted key path), or the path alone
    /// when no line assigns it.
    fn located(&self, key_path: &str) -> String {
        match key_path_line(self.text, key_path) {
            Some(line) => format!("{}:{line}", self.path),
            None => self.path.to_owned(),
        }
    }

    /// An error about the value at `key` (a dotted key path); its kind says whether it lies in
    /// an `[[mcp_servers]]` entry, the table every server key path starts with.
    fn error(&self, key: &str, message: &str) -> Error {
        let kind = if key.starts_with("mcp_servers") {
            InvalidKind::McpServer
        } else {
            InvalidKind::ConfigValue
        };
        Error::config_key(kind, self.path, key, format!("`{key}`: {message}"))
    }

    fn build(
        &self,
        root: &Map<String, Value>,
        yaml: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Config> {
        let mut ignored = Vec::new();
        for (key, value) in root {
            match key.as_str() {
                known if ROOT_KEYS.contains(&known) => {}
                "rules" => self.check_rules_table(value, warnings),
                "sections" if yaml => {}
                "header" => self.check_known_keys(
                    value,
                    "header",
                    &["style", "timestamp", "hashes", "text"],
                    warnings,
                ),
                "lint" => self.check_known_keys(value, "lint", &["ignore"], warnings),
                "learning" => {
                    self.check_known_keys(value, "learning", &["auto_activate"], warnings);
                }
                "skills" => self.check_known_keys(value, "skills", &["delivery"], warnings),
                "domains" => self.check_domain_tables(value, &mut ignored, warnings),
                "mcp" => self.check_known_keys(
                    value,
                    "mcp",
                    &[
                        "self_server",
                        "self_server_version",
                        "self_server_command",
                        "toolsets",
                    ],
                    warnings,
                ),
                other if NOT_YET_SUPPORTED.contains(&other) => ignored.push(other.to_owned()),
                other => {
                    let understood = ROOT_KEYS
                        .iter()
                        .chain(["rules", "header", "lint", "mcp", "skills", "domains"].iter())
                        .copied()
                        .chain(yaml.then_some("sections"));
                    warnings.push(format!(
                        "{}: unknown config key `{other}`; it is ignored{}",
                        self.located(other),
                        crate::suggest::did_you_mean(other, understood)
                    ));
                }
            }
        }
        if !ignored.is_empty() {
            warnings.push(format!(
                "{}: config keys not supported by this version yet and ignored: {}",
                self.path,
                ignored.join(", ")
            ));
        }
        let name = match root.get("name") {
            Some(Value::String(name)) if !name.trim().is_empty() => name.clone(),
            Some(_) => return Err(self.error("name", "must be a non-empty string")),
            None => return Err(self.error("name", "is required; add `name = \"<project name>\"`")),
        };
        let version = match root.get("version") {
            Some(Value::String(version)) => version.clone(),
            Some(Value::Number(number)) => number.to_string(),
            Some(_) => return Err(self.error("version", "must be a string such as \"5.0\"")),
            None if yaml => "3.0".to_owned(),
            None => "5.0".to_owned(),
        };
        if !["3", "4", "5"]
            .iter()
            .any(|major| version == *major || version.starts_with(&format!("{major}.")))
        {
            return Err(self.error(
                "version",
                &format!("\"{version}\" is not a config version this tool reads (3.x, 4.x, 5.x)"),
            ));
        }
        let (rules_mode, inline_rules) = self.rules(root.get("rules"), warnings)?;
        let inline_context = match root.get("sections") {
            Some(value) if yaml => self.inline_items(value, "sections")?,
            _ => Vec::new(),
        };
        let mcp_servers = self.mcp_servers(root.get("mcp_servers"), warnings)?;
        if let Some(Value::Object(mcp)) = root.get("mcp")
            && mcp.get("self_server") == Some(&Value::Bool(true))
        {
            warnings.push(format!(
                "{}: `[mcp] self_server = true` is not supported yet; add an `[[mcp_servers]]` entry for `ai-rulez mcp` instead",
                self.path
            ));
        }
        let (local_includes, git_includes) = self.includes(root.get("includes"), warnings)?;
        Ok(Config {
            version,
            name,
            description: self.optional_string(root, "description")?,
            presets: self.presets(root.get("presets"), warnings)?,
            profiles: self.profiles(root.get("profiles"))?,
            default_profile: self.optional_string(root, "default")?,
            gitignore: self.optional_bool(root, "gitignore")?.unwrap_or(false),
            rules_mode,
            inline_rules,
            inline_context,
            agents_md: self.optional_bool(root, "agents_md")?.unwrap_or(false),
            nested_agents_md: self
                .optional_bool(root, "nested_agents_md")?
                .unwrap_or(false),
            mcp_servers,
            includes: local_includes,
            git_includes,
            lint_ignore: match root.get("lint").and_then(|lint| lint.get("ignore")) {
                Some(codes) => self.string_list(codes, "lint.ignore")?,
                None => Vec::new(),
            },
            mcp_toolsets: match root.get("mcp").and_then(|mcp| mcp.get("toolsets")) {
                Some(names) => Some(self.toolsets(names)?),
                None => None,
            },
            learning_auto_activate: match root
                .get("learning")
                .and_then(|learning| learning.get("auto_activate"))
            {
                None => false,
                Some(Value::Bool(flag)) => *flag,
                Some(_) => {
                    return Err(self.error("learning.auto_activate", "must be true or false"));
                }
            },
            skills_delivery: match root.get("skills").and_then(|skills| skills.get("delivery")) {
                None => None,
                Some(value) => Some(self.delivery(value, "skills.delivery")?),
            },
            domain_delivery: self.domain_delivery(root.get("domains"))?,
        })
    }

    /// A `delivery` value at `key`.
    fn delivery(&self, value: &Value, key: &str) -> Result<crate::delivery::Delivery> {
        let Value::String(text) = value else {
            return Err(self.error(key, "must be \"static\", \"served\" or \"both\""));
        };
        crate::delivery::Delivery::parse(text)
            .ok_or_else(|| self.error(key, &crate::delivery::unknown_message(text)))
    }

    /// `[domains.<name>] delivery` of every domain that sets it, in config order.
    fn domain_delivery(
        &self,
        domains: Option<&Value>,
    ) -> Result<IndexMap<String, crate::delivery::Delivery>> {
        let mut found = IndexMap::new();
        let Some(Value::Object(domains)) = domains else {
            return Ok(found);
        };
        for (name, table) in domains {
            if let Some(value) = table.get("delivery") {
                let delivery = self.delivery(value, &format!("domains.{name}.delivery"))?;
                found.insert(name.clone(), delivery);
            }
        }
        Ok(found)
    }

    /// `[domains]` holds one table per domain; `delivery` is read, the Go tool's other domain
    /// keys are reported as not supported yet.
    fn check_domain_tables(
        &self,
        value: &Value,
        ignored: &mut Vec<String>,
        warnings: &mut Vec<String>,
    ) {
        let Value::Object(domains) = value else {
            warnings.push(format!(
                "{}: `domains` should be a table of domain tables; it is ignored",
                self.path
            ));
            return;
        };
        for (name, table) in domains {
            let Value::Object(table) = table else {
                warnings.push(format!(
                    "{}: `domains.{name}` should be a table; it is ignored",
                    self.path
                ));
                continue;
            };
            ignored.extend(
                table
                    .keys()
                    .filter(|key| key.as_str() != "delivery")
                    .map(|key| format!("domains.{name}.{key}")),
            );
        }
    }

    fn toolsets(&self, names: &Value) -> Result<Vec<crate::mcp::registry::Toolset>> {
        self.string_list(names, "mcp.toolsets")?
            .iter()
            .map(|name| {
                crate::mcp::registry::Toolset::from_name(name)
                    .map_err(|message| self.error("mcp.toolsets", &message))
            })
            .collect()
    }

    fn check_known_keys(
        &self,
        value: &Value,
        table: &str,
        known: &[&str],
        warnings: &mut Vec<String>,
    ) {
        let Value::Object(map) = value else {
            warnings.push(format!(
                "{}: `{table}` should be a table; it is ignored",
                self.path
            ));
            return;
        };
        for key in map.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let hint = if NOT_YET_SUPPORTED.contains(&key.as_str())
                || ROOT_KEYS.contains(&key.as_str())
            {
                format!(
                    "; TOML puts keys written after a `[{table}]` header into that table, so move `{key}` above `[{table}]`"
                )
            } else {
                crate::suggest::did_you_mean(key, known.iter().copied())
            };
            warnings.push(format!(
                "{}: unknown config key `{table}.{key}`{hint}",
                self.located(&format!("{table}.{key}"))
            ));
        }
    }

    /// Warns about each key of one `[[...]]` entry (`at`, such as `includes[0]`) that is not in
    /// `known`, with the closest known key as a hint.
    fn check_entry_keys(
        &self,
        table: &Map<String, Value>,
        at: &str,
        known: &[&str],
        warnings: &mut Vec<String>,
    ) {
        for key in table.keys() {
            if !known.contains(&key.as_str()) {
                warnings.push(format!(
                    "{}: unknown config key `{at}.{key}`; it is ignored{}",
                    self.located(&format!("{at}.{key}")),
                    crate::suggest::did_you_mean(key, known.iter().copied())
                ));
            }
        }
    }

    fn check_rules_table(&self, value: &Value, warnings: &mut Vec<String>) {
        if let Value::Object(_) = value {
            self.check_known_keys(
                value,
                "rules",
                &["mode", "mode_by_preset", "baz_scoped"],
                warnings,
            );
        }
    }

    fn optional_string(&self, map: &Map<String, Value>, key: &str) -> Result<Option<String>> {
        match map.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(self.error(key, "must be a string")),
        }
    }

    fn optional_bool(&self, map: &Map<String, Value>, key: &str) -> Result<Option<bool>> {
        match map.get(key) {
            None => Ok(None),
            Some(Value::Bool(flag)) => Ok(Some(*flag)),
            Some(_) => Err(self.error(key, "must be true or false")),
        }
    }

    fn string_list(&self, value: &Value, key: &str) -> Result<Vec<String>> {
        match value {
            Value::String(text) => Ok(vec![text.clone()]),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(index, item)| match item {
                    Value::String(text) => Ok(text.clone()),
                    _ => Err(self.error(&format!("{key}[{index}]"), "must be a string")),
                })
                .collect(),
            _ => Err(self.error(key, "must be a list of strings")),
        }
    }

    fn presets(&self, value: Option<&Value>, warnings: &mut Vec<String>) -> Result<Vec<String>> {
        let Some(value) = value else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(self.error("presets", "must be a list of preset names"));
        };
        let mut names: Vec<String> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let name = match item {
                Value::String(name) => name.clone(),
                Value::Object(table) => {
                    let Some(Value::String(name)) = table.get("name") else {
                        return Err(
                            self.error(&format!("presets[{index}]"), "a preset table needs `name`")
                        );
                    };
                    let extra: Vec<&str> = table
                        .keys()
                        .map(String::as_str)
                        .filter(|key| *key != "name")
                        .collect();
                    if !extra.is_empty() {
                        warnings.push(format!(
                            "{}: `presets[{index}]` ({name}): custom preset keys are not supported yet and ignored: {}",
                            self.path,
                            extra.join(", ")
                        ));
                    }
                    name.clone()
                }
                _ => {
                    return Err(self.error(
                        &format!("presets[{index}]"),
                        "must be a name or a table with `name`",
                    ));
                }
            };
            let name = name.trim().to_ascii_lowercase();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        Ok(names)
    }

    fn profiles(&self, value: Option<&Value>) -> Result<IndexMap<String, Vec<String>>> {
        let Some(value) = value else {
            return Ok(IndexMap::new());
        };
        let Value::Object(map) = value else {
            return Err(self.error("profiles", "must be a table of `name = [\"domain\", ...]`"));
        };
        map.iter()
            .map(|(name, domains)| {
                if name.contains(',') {
                    return Err(self.error(
                        &format!("profiles.{name}"),
                        "a profile name cannot contain a comma",
                    ));
                }
                Ok((
                    name.clone(),
                    self.string_list(domains, &format!("profiles.{name}"))?,
                ))
            })
            .collect()
    }

    fn rules(
        &self,
        value: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<(RulesMode, Vec<InlineItem>)> {
        match value {
            None => Ok((RulesMode::Split, Vec::new())),
            Some(Value::Object(table)) => {
                let mode = match table.get("mode") {
                    None => RulesMode::Split,
                    Some(Value::String(mode)) if mode == "split" => RulesMode::Split,
                    Some(Value::String(mode)) if mode == "inline" => RulesMode::Inline,
                    Some(_) => {
                        return Err(self.error("rules.mode", "must be \"split\" or \"inline\""));
                    }
                };
                Ok((mode, Vec::new()))
            }
            Some(items @ Value::Array(_)) => {
                let inline = self.inline_items(items, "rules")?;
                if let Value::Array(entries) = items {
                    for (index, entry) in entries.iter().enumerate() {
                        if let Value::Object(table) = entry {
                            self.check_entry_keys(
                                table,
                                &format!("rules[{index}]"),
                                &INLINE_RULE_KEYS,
                                warnings,
                            );
                        }
                    }
                }
                Ok((RulesMode::Split, inline))
            }
            Some(_) => Err(self.error("rules", "must be a `[rules]` table or `[[rules]]` entries")),
        }
    }

    fn inline_items(&self, value: &Value, key: &str) -> Result<Vec<InlineItem>> {
        let Value::Array(items) = value else {
            return Err(self.error(key, "must be a list of tables"));
        };
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let at = format!("{key}[{index}]");
                let Value::Object(table) = item else {
                    return Err(self.error(&at, "must be a table with `name` and `content`"));
                };
                let Some(Value::String(name)) = table.get("name") else {
                    return Err(self.error(&format!("{at}.name"), "is required"));
                };
                let content = match table.get("content") {
                    Some(Value::String(content)) => content.clone(),
                    _ => {
                        return Err(self
                            .error(&format!("{at}.content"), "is required and must be a string"));
                    }
                };
                let priority = self.optional_string(table, "priority")?;
                let targets = match table.get("targets") {
                    Some(targets) => self.string_list(targets, &format!("{at}.targets"))?,
                    None => Vec::new(),
                };
                crate::scope::check_targets(&format!("{at}.targets"), &targets)
                    .map_err(|message| Error::invalid(self.path, None, message))?;
                Ok(InlineItem {
                    name: name.clone(),
                    priority,
                    content,
                    targets,
                })
            })
            .collect()
    }

    fn mcp_servers(
        &self,
        value: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<McpServer>> {
        let Some(value) = value else {
            return Ok(Vec::new());
        };
        let Value::Array(items) = value else {
            return Err(self.error("mcp_servers", "must be `[[mcp_servers]]` entries"));
        };
        let mut servers: Vec<McpServer> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let at = format!("mcp_servers[{index}]");
            let Value::Object(table) = item else {
                return Err(self.error(&at, "must be a table"));
            };
            let name = match table.get("name") {
                Some(Value::String(name)) => name,
                None => return Err(self.error(&format!("{at}.name"), "is required")),
                Some(_) => {
                    return Err(self.error(
                        &format!("{at}.name"),
                        "must be a string (the server's name in the assistants' files)",
                    ));
                }
            };
            for key in table.keys() {
                if !MCP_SERVER_KEYS.contains(&key.as_str()) {
                    warnings.push(format!(
                        "{}: unknown config key `{at}.{key}` (server {name}){}",
                        self.path,
                        crate::suggest::did_you_mean(key, MCP_SERVER_KEYS)
                    ));
                }
            }
            // Errors name the entry (`mcp_servers[0].command`), so the line found is its own.
            let entry = table_at(table, &at);
            if self.optional_bool(&entry, &format!("{at}.enabled"))? == Some(false) {
                continue;
            }
            if servers.iter().any(|server| server.name == *name) {
                return Err(self.error(
                    &format!("{at}.name"),
                    &format!("the server name `{name}` is used twice"),
                ));
            }
            let transport_text = match (table.get("transport"), table.get("type")) {
                (Some(Value::String(text)), _) | (None, Some(Value::String(text))) => {
                    text.to_ascii_lowercase()
                }
                (None, None) => String::new(),
                _ => {
                    return Err(self.error(
                        &format!("{at}.transport"),
                        "must be \"stdio\", \"http\" or \"sse\"",
                    ));
                }
            };
            let url = self.optional_string(&entry, &format!("{at}.url"))?;
            let transport = match transport_text.as_str() {
                "" if url.is_some() => Transport::Http,
                "" | "stdio" | "local" => Transport::Stdio,
                "http" | "streamable-http" | "streamable_http" | "remote" => Transport::Http,
                "sse" => Transport::Sse,
                other => {
                    return Err(self.error(
                        &format!("{at}.transport"),
                        &format!("\"{other}\" is not one of \"stdio\", \"http\", \"sse\""),
                    ));
                }
            };
            let command = self.optional_string(&entry, &format!("{at}.command"))?;
            match transport {
                Transport::Stdio if command.is_none() => {
                    return Err(self.error(
                        &at,
                        &format!(
                            "server `{name}` needs a `command` (or a `url` for a remote server)"
                        ),
                    ));
                }
                Transport::Http | Transport::Sse if url.is_none() => {
                    return Err(self.error(&at, &format!("remote server `{name}` needs a `url`")));
                }
                _ => {}
            }
            // A single string would be one argument, spaces and all (`"-y pkg"`), which no
            // server reads as meant; the list the assistants' files hold is asked for instead.
            let args = match table.get("args") {
                Some(Value::String(text)) => {
                    let words: Vec<String> = text
                        .split_whitespace()
                        .map(|word| format!("{word:?}"))
                        .collect();
                    return Err(self.error(
                        &format!("{at}.args"),
                        &format!(
                            "must be a list of strings, one per argument, such as [{}]",
                            words.join(", ")
                        ),
                    ));
                }
                Some(args) => self.string_list(args, &format!("{at}.args"))?,
                None => Vec::new(),
            };
            servers.push(McpServer {
                name: name.clone(),
                command,
                args,
                env: self.string_table(table.get("env"), &format!("{at}.env"))?,
                transport,
                url,
                headers: self.string_table(table.get("headers"), &format!("{at}.headers"))?,
            });
        }
        Ok(servers)
    }

    fn string_table(&self, value: Option<&Value>, key: &str) -> Result<IndexMap<String, String>> {
        let Some(value) = value else {
            return Ok(IndexMap::new());
        };
        let Value::Object(map) = value else {
            return Err(self.error(key, "must be a table of strings"));
        };
        map.iter()
            .map(|(name, value)| match value {
                Value::String(text) => Ok((name.clone(), text.clone())),
                _ => Err(self.error(&format!("{key}.{name}"), "must be a string")),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_builtins_is_an_unknown_key_with_a_hint() {
        let mut warnings = Vec::new();
        let config = parse(
            "c.toml",
            "version = \"4.0\"\nname = \"x\"\npresets = [\"claude\"]\n[header]\nstyle = \"minimal\"\nbuiltins = [\"rust\"]\n",
            false,
            &mut warnings,
        )
        .expect("parses");
        assert_eq!(config.presets, ["claude"]);
        assert_eq!(
            warnings,
            [
                "c.toml:6: unknown config key `header.builtins`; TOML puts keys written after a `[header]` header into that table, so move `builtins` above `[header]`"
            ]
        );
    }

    #[test]
    fn a_server_args_string_or_a_name_of_another_type_is_refused_with_the_fix() {
        let error = |server: &str| {
            parse(
                "c.toml",
                &format!("version = \"5.0\"\nname = \"x\"\n[[mcp_servers]]\n{server}"),
                false,
                &mut Vec::new(),
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            error("name = \"x\"\ncommand = \"npx\"\nargs = \"-y @scope/pkg@1.0.0\"\n"),
            "c.toml:6: `mcp_servers[0].args`: must be a list of strings, one per argument, such as [\"-y\", \"@scope/pkg@1.0.0\"]"
        );
        assert_eq!(
            error("name = 5\ncommand = \"npx\"\n"),
            "c.toml:4: `mcp_servers[0].name`: must be a string (the server's name in the assistants' files)"
        );
        assert_eq!(
            error("command = \"npx\"\n"),
            "c.toml:3: `mcp_servers[0].name`: is required"
        );
    }

    #[test]
    fn lint_ignore_is_read() {
        let mut warnings = Vec::new();
        let config = parse(
            "c.toml",
            "name = \"x\"\n[lint]\nignore = [\"AR009\", \"AR024\"]\nstrict = true\n",
            false,
            &mut warnings,
        )
        .expect("parses");
        assert_eq!(config.lint_ignore, ["AR009", "AR024"]);
        assert_eq!(warnings, ["c.toml:4: unknown config key `lint.strict`"]);
    }

    #[test]
    fn missing_name_is_an_error() {
        let error = parse("c.toml", "version = \"5.0\"\n", false, &mut Vec::new()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "c.toml: `name`: is required; add `name = \"<project name>\"`"
        );
    }
}
