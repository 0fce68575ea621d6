//! Config checks: the config file's own findings (unknown keys and presets, profiles naming
//! missing domains) and load errors turned into findings with the line they point at.

use super::{Checker, line_text};
use crate::error::Error;
use crate::presets;

/// Best-effort line of a key path quoted in a message (`` `a.b` `` or `` `mcp_servers[1]` ``).
pub(super) fn key_path_line(config: &str, message: &str) -> Option<usize> {
    let quoted = message.split('`').nth(1)?;
    if let Some(index) = quoted
        .strip_prefix("mcp_servers[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|digits| digits.parse::<usize>().ok())
    {
        return config
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim() == "[[mcp_servers]]")
            .nth(index)
            .map(|(number, _)| number + 1);
    }
    let last = quoted.rsplit('.').next()?;
    let last = last.split('[').next()?;
    config
        .lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix(last).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.starts_with('=') || rest.starts_with(':')
            }) || line.trim_end() == format!("[{last}]")
        })
        .map(|index| index + 1)
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
        let prefix = format!("{}: ", self.project.config_relative);
        for warning in load_warnings {
            let Some(message) = warning.strip_prefix(&prefix) else {
                warnings.push(warning);
                continue;
            };
            let line = key_path_line(self.config_text, message);
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
                    path,
                    line,
                    message,
                } => {
                    let code = classify_load_error(message);
                    let text =
                        fs_err::read_to_string(self.project.root.join(path)).unwrap_or_default();
                    let flagged = line_text(&text, *line).to_owned();
                    self.push(code, path, *line, &flagged, message.clone());
                }
                other => self.push("AR306", "", None, "", other.to_string()),
            }
        }
    }

    pub(super) fn presets_and_profiles(&mut self) {
        let known: Vec<String> = presets::builtin_specs()
            .map(|specs| specs.into_iter().map(|spec| spec.name).collect())
            .unwrap_or_default();
        let presets_line = key_path_line(self.config_text, "`presets`");
        for name in &self.project.config.presets {
            if !known.contains(name) {
                self.config_finding(
                    "AR312",
                    presets_line,
                    format!(
                        "unknown preset `{name}`; it is skipped, so that assistant gets no files (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
        let mut unknown_domains = Vec::new();
        for (profile, domains) in &self.project.config.profiles {
            for domain in domains {
                if !self.project.tree.domains.contains(domain) {
                    unknown_domains.push((profile.clone(), domain.clone()));
                }
            }
        }
        for (profile, domain) in unknown_domains {
            let line = key_path_line(self.config_text, &format!("`profiles.{profile}`"));
            self.config_finding(
                "AR313",
                line,
                format!("profile `{profile}` names domain `{domain}`, which has no folder under domains/"),
            );
        }
    }
}

/// Load errors are told apart by their message: the loader's wording is the contract.
pub(super) fn classify_load_error(message: &str) -> &'static str {
    const MALFORMED: [&str; 7] = [
        "invalid YAML",
        "not valid UTF-8",
        "never closed",
        "frontmatter must be",
        "symlink",
        "content files are limited",
        "invalid TOML",
    ];
    if message.contains("defined twice in the same layer") {
        "AR704"
    } else if MALFORMED.iter().any(|marker| message.contains(marker)) {
        "AR306"
    } else {
        "AR304"
    }
}
