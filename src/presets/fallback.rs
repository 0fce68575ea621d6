//! Rules whose activation a rules folder cannot hold, written as the assistant's own on-demand
//! item instead of always-on: an `auto` rule as a skill (the model loads it when its
//! `description` matches the task) and a `manual` rule as a skill it may not load by itself
//! (`disable-model-invocation: true`) or as a workflow the user runs by name. Sources, as read
//! by the harness audit of 2026-11-30: Claude Code `skills.md` (skills with
//! `disable-model-invocation`), Cline `skills.mdx` and `cline-rules.ts` (`.clinerules/workflows/`
//! is not read as rules; workflows run as `/name.md`).

use serde::Deserialize;

use super::{PresetSpec, RulesSpec};
use crate::content::{Activation, Item};
use crate::frontmatter::yaml_string;
use crate::plan::{Content, Markdown, Output};

/// What a rules spec writes for an activation its rule files lack (`auto_as` / `manual_as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Fallback {
    /// `<skills dir>/<id>/SKILL.md`; for a manual rule with `disable-model-invocation: true`.
    Skill,
    /// `<workflows_dir>/<id>.md`, plain Markdown the user runs by name.
    Workflow,
}

/// The output that carries `item` (a rule whose activation `rules` cannot express) for
/// `preset`, or `None` when the spec has no fallback for that activation, the preset has no
/// skills folder, or `skill_ids` already holds a skill of the same id (the two would collide).
/// `body` is the rule's body with blank edges trimmed (not empty).
#[must_use]
pub(crate) fn fallback_output(
    preset: &PresetSpec,
    rules: &RulesSpec,
    item: &Item,
    body: &str,
    skill_ids: &[&str],
) -> Option<Output> {
    let fallback = match item.activation {
        Activation::Auto => rules.auto_as?,
        Activation::Manual => rules.manual_as?,
        Activation::Always | Activation::Glob => return None,
    };
    let (path, frontmatter) = match fallback {
        Fallback::Skill => {
            if skill_ids.contains(&item.id.as_str()) {
                return None;
            }
            let skills = preset.skills.as_ref()?;
            let mut yaml = format!("name: {}\n", yaml_string(&item.id));
            if let Some(description) = item.description.as_deref().map(str::trim)
                && !description.is_empty()
            {
                yaml.push_str(&format!("description: {}\n", yaml_string(description)));
            }
            if item.activation == Activation::Manual {
                yaml.push_str("disable-model-invocation: true\n");
            }
            (format!("{}/{}/SKILL.md", skills.dir, item.id), Some(yaml))
        }
        Fallback::Workflow => (
            format!("{}/{}.md", rules.workflows_dir.as_deref()?, item.id),
            None,
        ),
    };
    let body = if frontmatter.is_some() {
        format!("\n{body}")
    } else {
        body.to_owned()
    };
    Some(Output {
        path,
        content: Content::Markdown(Markdown::build(
            frontmatter.as_deref(),
            &body,
            &item.source_path,
            false,
        )),
        writers: vec![preset.name.clone()],
    })
}
