//! Config checks: the config file's own findings (unknown keys and presets, profiles naming
//! missing domains) and load errors turned into findings with the line they point at.

use super::{Checker, line_text};
use crate::error::{Error, InvalidKind};
use crate::presets;

pub(super) use crate::config::key_path_line;

/// The first `` `quoted` `` part of a loader warning, which names the config key it is about.
fn quoted_key(warning: &str) -> Option<&str> {
    warning.split('`').nth(1)
}

/// The finding code of an error that stopped the config from loading: every kind is a config
/// that cannot be read (AR311), except an unusable `[[mcp_servers]]` entry (AR602).
pub(super) fn config_error_code(kind: InvalidKind) -> &'static str {
    match kind {
        InvalidKind::McpServer => "AR602",
        InvalidKind::NotUtf8
        | InvalidKind::Yaml
        | InvalidKind::DuplicateKey
        | InvalidKind::UnclosedFrontmatter
        | InvalidKind::FrontmatterNotMapping
        | InvalidKind::Toml
        | InvalidKind::Symlink
        | InvalidKind::NotRegularFile
        | InvalidKind::TooLarge
        | InvalidKind::Unreadable
        | InvalidKind::ControlCharacterInName
        | InvalidKind::DuplicateId
        | InvalidKind::FrontmatterValue
        | InvalidKind::IncludeNotFolder
        | InvalidKind::GitInclude
        | InvalidKind::ConfigValue
        | InvalidKind::Other => "AR311",
    }
}

/// The finding code of an item error met while loading the tree: a file that cannot be read as
/// Markdown with YAML frontmatter (AR306), one id defined twice in one layer (AR704), or an
/// invalid value (AR304).
pub(super) fn load_error_code(kind: InvalidKind) -> &'static str {
    match kind {
        InvalidKind::NotUtf8
        | InvalidKind::Yaml
        | InvalidKind::DuplicateKey
        | InvalidKind::UnclosedFrontmatter
        | InvalidKind::FrontmatterNotMapping
        | InvalidKind::Toml
        | InvalidKind::Symlink
        | InvalidKind::TooLarge
        | InvalidKind::Unreadable => "AR306",
        InvalidKind::DuplicateId => "AR704",
        InvalidKind::FrontmatterValue
        | InvalidKind::NotRegularFile
        | InvalidKind::ControlCharacterInName
        | InvalidKind::IncludeNotFolder
        | InvalidKind::GitInclude
        | InvalidKind::ConfigValue
        | InvalidKind::McpServer
        | InvalidKind::Other => "AR304",
    }
}

impl Checker<'_> {
    fn config_finding(&mut self, code: &'static str, line: Option<usize>, message: String) {
        let text = line_text(self.config_text, line).to_owned();
        let file = self.project.config_relative.clone();
        self.push(code, &file, line, &text, message);
    }

    /// Config warnings become findings; other load warnings stay warnings.
    pub(super) fn config_warnings(
        &mut self,
        load_warnings: Vec<String>,
        warnings: &mut Vec<String>,
    ) {
        for warning in load_warnings {
            // A warning about the config starts with its path, and with the line when the
            // reader found the key's (`.ai-rulez/config.toml:4: unknown config key ...`).
            let Some(rest) = warning.strip_prefix(self.project.config_relative.as_str()) else {
                warnings.push(warning);
                continue;
            };
            let Some(rest) = rest.strip_prefix(':') else {
                warnings.push(warning);
                continue;
            };
            let (given_line, message) = match rest.split_once(": ") {
                Some((digits, message)) if digits.parse::<usize>().is_ok() => {
                    (digits.parse::<usize>().ok(), message)
                }
                _ => (None, rest.strip_prefix(' ').unwrap_or(rest)),
            };
            let line = given_line.or_else(|| {
                quoted_key(message).and_then(|key| key_path_line(self.config_text, key))
            });
            let code = if message.starts_with("unknown config key") {
                "AR310"
            } else {
                "AR314"
            };
            self.config_finding(code, line, message.to_owned());
        }
    }

    pub(super) fn load_errors(&mut self, errors: &[Error]) {
        for error in errors {
            match error {
                Error::Many(inner) => self.load_errors(inner),
                Error::Invalid {
                    kind,
                    path,
                    line,
                    message,
                    ..
                } => {
                    let code = load_error_code(*kind);
                    let text = self.project.text_of(path).unwrap_or_default();
                    let flagged = line_text(&text, *line).to_owned();
                    self.push(code, path, *line, &flagged, message.clone());
                }
                Error::Refused { path, reason } => {
                    self.push("AR306", path, None, "", reason.clone());
                }
                // No path to point at: the config folder stands for the project.
                other => {
                    let file = self.project.config_relative.clone();
                    self.push("AR306", &file, None, "", other.to_string());
                }
            }
        }
    }

    pub(super) fn presets_and_profiles(&mut self) {
        let known: Vec<String> = presets::builtin_specs()
            .map(|specs| specs.into_iter().map(|spec| spec.name).collect())
            .unwrap_or_default();
        let presets_line = key_path_line(self.config_text, "presets");
        for name in &self.project.config.presets {
            if !known.contains(name) {
                self.config_finding(
                    "AR312",
                    presets_line,
                    presets::unknown_preset_message(
                        name,
                        &known.iter().map(String::as_str).collect::<Vec<_>>(),
                    ),
                );
            }
        }
        self.mcp_server_names();
        let mut unknown_domains = Vec::new();
        for (profile, domains) in &self.project.config.profiles {
            for domain in domains {
                if !self.project.tree.domains.contains(domain) {
                    unknown_domains.push((profile.clone(), domain.clone()));
                }
            }
        }
        for (profile, domain) in unknown_domains {
            let line = key_path_line(self.config_text, &format!("profiles.{profile}"));
            self.config_finding(
                "AR313",
                line,
                format!("profile `{profile}` names domain `{domain}`, which has no folder under domains/"),
            );
        }
    }
}

impl Checker<'_> {
    /// AR603: an MCP server name some assistant will not use (see
    /// [`crate::mcp_config::is_portable_server_name`]); `generate` leaves it out of Codex.
    fn mcp_server_names(&mut self) {
        let names: Vec<(usize, String)> = self
            .project
            .config
            .mcp_servers
            .iter()
            .enumerate()
            .filter(|(_, server)| !crate::mcp_config::is_portable_server_name(&server.name))
            .map(|(index, server)| (index, server.name.clone()))
            .collect();
        for (index, name) in names {
            let line = key_path_line(self.config_text, &format!("mcp_servers[{index}]"));
            self.config_finding(
                "AR603",
                line,
                format!(
                    "MCP server name `{name}` is not portable: Codex lists it but never starts it, so `generate` leaves it out of .codex/config.toml; rename it to 1 to 64 ASCII letters, digits, `_`, `-`, `.`, `/` and `@`"
                ),
            );
        }
    }
}
