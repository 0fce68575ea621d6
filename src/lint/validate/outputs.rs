//! Rendered-output checks: what `generate` would write, measured against the size limits of
//! the assistants that silently drop what lies beyond them.

use super::{Checker, line_text};
use crate::content::{self, Kind};
use crate::lint::scan::item_text;
use crate::plan::Content;
use crate::presets::{self, render};
use crate::project;

/// Claude Code lists at most this many characters of a skill's description.
const CLAUDE_SKILL_LISTING_CHARS: usize = 1_536;

impl Checker<'_> {
    /// AR315 for each agent or command field an enabled preset cannot express: the same
    /// translation `generate` makes (see `presets::fields`), one finding per item and preset.
    pub(super) fn agent_and_command_fields(&mut self) {
        let mut ignored = Vec::new();
        let Ok(specs) = presets::select(&self.project.config.presets, &mut ignored) else {
            return;
        };
        for item in &self.project.tree.items {
            for spec in &specs {
                let files = match item.kind {
                    Kind::Agent => spec.agents.as_ref(),
                    Kind::Command => spec.commands.as_ref(),
                    _ => None,
                };
                let Some(files) = files else {
                    continue;
                };
                let written = presets::fields::item_file_frontmatter(item, files);
                if written.left_out.is_empty() {
                    continue;
                }
                self.push(
                    "AR315",
                    &item.source_path,
                    None,
                    "",
                    format!(
                        "{} ({}) has no equivalent for {}; generate leaves {} out of {}/{}{}",
                        spec.label,
                        spec.name,
                        written.left_out.join(", "),
                        if written.left_out.len() == 1 {
                            "it"
                        } else {
                            "them"
                        },
                        files.dir,
                        item.id,
                        files.extension
                    ),
                );
            }
        }
    }

    /// AR964 on what `generate` would write for every enabled preset.
    pub(super) fn rendered_outputs(&mut self, warnings: &mut Vec<String>) {
        let mut ignored = Vec::new();
        let Ok(view) = project::view(self.project, None, &mut ignored) else {
            return;
        };
        let Ok(specs) = presets::select(&self.project.config.presets, &mut ignored) else {
            return;
        };
        // Only presets with a size limit are rendered: rendering is most of the cost of
        // `validate`, and the other presets' outputs have nothing to check here.
        let claude = specs.iter().any(|spec| spec.name == "claude");
        let specs: Vec<presets::PresetSpec> = specs
            .into_iter()
            .filter(|spec| {
                spec.root
                    .as_ref()
                    .is_some_and(|root| root.max_bytes.is_some())
                    || spec
                        .rules
                        .as_ref()
                        .is_some_and(|rules| rules.max_chars.is_some() || rules.max_bytes.is_some())
            })
            .collect();
        let placeholder = |_: &str| Some(String::new());
        let plan = match render::render(self.project, &view, &specs, &placeholder) {
            Ok(plan) => plan,
            Err(error) => {
                warnings.push(format!("rendered outputs not checked: {error}"));
                return;
            }
        };
        for spec in &specs {
            if let Some(root) = &spec.root
                && let Some(limit) = root.max_bytes
                && let Some(output) = plan.outputs.get(&root.path)
                && let Content::Markdown(markdown) = &output.content
                && markdown.bytes.len() > limit
            {
                self.push(
                    "AR964",
                    &root.path,
                    None,
                    "",
                    format!(
                        "{} would be {} bytes; {} reads only the first {limit}, the rest is silently dropped; move detail into skills or path-scoped rules",
                        root.path, markdown.bytes.len(), spec.label
                    ),
                );
            }
            if let Some(rules) = &spec.rules {
                let prefix = format!("{}/", rules.dir.trim_end_matches('/'));
                for (path, output) in plan.outputs.range(prefix.clone()..) {
                    if !path.starts_with(&prefix) {
                        break;
                    }
                    let Content::Markdown(markdown) = &output.content else {
                        continue;
                    };
                    let text = String::from_utf8_lossy(&markdown.bytes);
                    let over_chars = rules
                        .max_chars
                        .filter(|limit| text.chars().count() > *limit);
                    let over_bytes = rules
                        .max_bytes
                        .filter(|limit| markdown.bytes.len() > *limit);
                    let message = match (over_chars, over_bytes) {
                        (Some(limit), _) => format!(
                            "{path} would be {} characters; {} reads only {limit} per rule file; split the rule",
                            text.chars().count(),
                            spec.label
                        ),
                        (None, Some(limit)) => format!(
                            "{path} would be {} bytes; {} reads only {limit} per rule file; split the rule",
                            markdown.bytes.len(),
                            spec.label
                        ),
                        (None, None) => continue,
                    };
                    self.push("AR964", path, None, "", message);
                }
            }
        }
        if claude {
            for item in &view.items {
                if item.kind != Kind::Skill {
                    continue;
                }
                let length = item
                    .description
                    .as_deref()
                    .map_or(0, |text| text.chars().count());
                if length > CLAUDE_SKILL_LISTING_CHARS {
                    let line =
                        content::key_line(item.yaml.as_deref().unwrap_or_default(), "description");
                    let flagged = line_text(&item_text(item), line).to_owned();
                    self.push(
                        "AR964",
                        &item.source_path,
                        line,
                        &flagged,
                        format!(
                            "skill description is {length} characters; Claude Code lists only the first {CLAUDE_SKILL_LISTING_CHARS}, so put the trigger words first and shorten it"
                        ),
                    );
                }
            }
        }
    }
}
