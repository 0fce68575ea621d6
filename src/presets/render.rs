//! The writers that serve every preset spec: root Markdown, rule files, skill folders, agent and
//! command files, and MCP settings entries. Rendering is a pure function of the project, the
//! selected view and the specs: no I/O, no clock, no environment (variables come in through
//! `lookup`).

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, context, syntax::SyntaxConfig};
use serde::Serialize;

use super::frontmatter_memo::FrontmatterMemo;
use super::{PresetSpec, RootContent, RulesSpec, TEMPLATES, fallback, reads, served};
use crate::config::RulesMode;
use crate::content::{Activation, Item, Kind};
use crate::error::{Error, Result};
use crate::frontmatter::yaml_string;
use crate::markdown;
use crate::plan::{Content, Markdown, Output, Plan};
use crate::project::{Project, View};

mod item_files;
mod mcp_entries;
mod nested;
mod rule_files;
mod skill_folders;
pub(crate) mod toml_items;

use rule_files::RuleFile;

/// Renders every output of `presets` for `view`. `lookup` resolves `${VAR}` placeholders that a
/// settings format cannot keep as references.
///
/// Errors: a template failure, an MCP server that cannot be rendered (for example an unset
/// variable), or two presets producing different content for one shared path.
pub(crate) fn render(
    project: &Project,
    view: &View<'_>,
    presets: &[PresetSpec],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Plan> {
    let environment = template_environment()?;
    let frontmatter = FrontmatterMemo::new(
        &environment,
        presets
            .iter()
            .filter_map(|preset| preset.rules.as_ref())
            .map(|rules| rules.frontmatter.as_str()),
    );
    let root_writers = root_writers(presets);
    let placements = reads::place(&project.config, &view.items, presets, &root_writers);
    let mut plan = Plan::default();
    for ((preset_name, owner), left_out) in &placements.left_out {
        plan.notes.push(reads::left_out_note(
            presets,
            (preset_name, owner),
            left_out,
        ));
    }
    plan.notes.extend(reads::unavoidable_duplicates(
        &project.config,
        &view.items,
        presets,
        &placements,
    ));
    let mut nested_agents_md = false;
    if project.config.nested_agents_md {
        let blockers = nested::blockers(&project.config, presets);
        if blockers.is_empty() {
            nested_agents_md = true;
        } else {
            plan.warnings.push(nested::blocked_message(&blockers));
        }
    }
    let served = served::ServedSkills::decide(project, view, presets, &mut plan.warnings);
    let renderer = Renderer {
        project,
        view,
        environment,
        frontmatter,
        root_writers,
        placements,
        nested_agents_md,
        shared_skills: reads::shared_skill_folders(presets),
        served,
        skill_ids: view
            .items
            .iter()
            .filter(|item| item.kind == Kind::Skill)
            .map(|item| item.id.as_str())
            .collect(),
    };
    for preset in presets {
        renderer.preset(preset, lookup, &mut plan)?;
    }
    let has = |kind: Kind| view.items.iter().any(|item| item.kind == kind);
    let checks: [MissingFolderCheck; 3] = [
        (
            !project.config.mcp_servers.is_empty(),
            "MCP servers",
            |preset| preset.mcp.is_none(),
        ),
        (has(Kind::Agent), "agents", |preset| preset.agents.is_none()),
        (has(Kind::Command), "commands", |preset| {
            preset.commands.is_none()
        }),
    ];
    for (present, what, lacks) in checks {
        let missing: Vec<&str> = presets
            .iter()
            .filter(|preset| lacks(preset))
            .map(|preset| preset.name.as_str())
            .collect();
        // Only when no enabled preset can hold them: then they reach no assistant at all. Which
        // preset writes what is in the README's preset table.
        if present && !missing.is_empty() && missing.len() == presets.len() {
            plan.warnings.push(format!(
                "{what} are not written: none of the enabled presets ({}) has a project file for them yet",
                missing.join(", ")
            ));
        }
    }
    Ok(plan)
}

/// (whether the view has such items, what they are, whether a preset lacks a place for them).
type MissingFolderCheck = (bool, &'static str, fn(&PresetSpec) -> bool);

fn template_environment() -> Result<Environment<'static>> {
    let mut environment = Environment::new();
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .map_err(template_error)?;
    environment.set_syntax(syntax);
    environment.set_undefined_behavior(UndefinedBehavior::Strict);
    environment.add_filter("yaml", |value: String| yaml_string(&value));
    environment.add_filter("yaml_quoted", |value: String| {
        serde_json::to_string(&value).unwrap_or_default()
    });
    for (name, source) in TEMPLATES {
        environment
            .add_template(name, source)
            .map_err(template_error)?;
    }
    Ok(environment)
}

#[expect(clippy::needless_pass_by_value, reason = "used as a map_err callback")]
fn template_error(error: minijinja::Error) -> Error {
    Error::Usage(format!(
        "template error (a defect in the embedded templates): {error:#}"
    ))
}

/// Which presets write each root file path (AGENTS.md is shared by several).
fn root_writers(presets: &[PresetSpec]) -> BTreeMap<String, Vec<String>> {
    let mut writers: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for preset in presets {
        if let Some(root) = &preset.root {
            writers
                .entry(root.path.clone())
                .or_default()
                .push(preset.name.clone());
        }
    }
    writers
}

struct Renderer<'a> {
    project: &'a Project,
    view: &'a View<'a>,
    environment: Environment<'static>,
    /// Rule frontmatter rendered once per distinct input (see [`FrontmatterMemo`]).
    frontmatter: FrontmatterMemo,
    root_writers: BTreeMap<String, Vec<String>>,
    /// Which homes carry each rule and context item (one copy per assistant).
    placements: reads::Placements,
    /// Folder-scoped rules go to `<folder>/AGENTS.md` (see [`nested`]).
    nested_agents_md: bool,
    /// Presets that leave their skills to another preset's folder (see
    /// [`reads::shared_skill_folders`]).
    shared_skills: BTreeMap<String, (String, String)>,
    /// Which presets leave served skills out and get the stub skill instead.
    served: served::ServedSkills,
    /// Ids of the view's skills, in view order: gathered once, since every rule a preset
    /// cannot express looks them up (a project of 100,000 rules has thousands of such rules).
    skill_ids: Vec<&'a str>,
}

/// One item as the root template shows it.
#[derive(Serialize)]
struct RootEntry {
    title: String,
    scope_line: String,
    body: String,
}

impl Renderer<'_> {
    fn preset(
        &self,
        preset: &PresetSpec,
        lookup: &dyn Fn(&str) -> Option<String>,
        plan: &mut Plan,
    ) -> Result<()> {
        let mut unexpressible: Vec<String> = Vec::new();
        let mut negations: Vec<String> = Vec::new();
        let mut root_rules: Vec<&Item> = Vec::new();
        if let Some(rules) = &preset.rules {
            let mut files: Vec<RuleFile<'_>> = Vec::new();
            // Rules written as another kind of file (a skill or workflow, see `fallback`).
            let mut fallbacks: Vec<Output> = Vec::new();
            for item in self.items(Kind::Rule) {
                files.extend(self.rule(
                    preset,
                    rules,
                    item,
                    &mut root_rules,
                    (&mut unexpressible, &mut negations, &mut fallbacks),
                ));
            }
            if rules.context {
                for item in self.items(Kind::Context) {
                    let path = format!("{}/context-{}{}", rules.dir, item.id, rules.extension);
                    if targets_match(item, &path, std::slice::from_ref(&preset.name))
                        && self.placements.carries(item, &rules.dir)
                    {
                        files.push(RuleFile {
                            item,
                            activation: Activation::Always,
                            globs: Vec::new(),
                            path,
                        });
                    }
                }
            }
            self.rule_files(preset, rules, &files, plan)?;
            for output in fallbacks {
                plan.add(output)?;
            }
        } else {
            root_rules.extend(self.items(Kind::Rule));
        }
        if let Some(root) = &preset.root {
            self.root(preset, root, &root_rules, plan)?;
        }
        if !negations.is_empty() {
            plan.notes.push(crate::plan::RenderNote {
                preset: preset.name.clone(),
                message: format!(
                    "{}: glob negations are left out of {}'s rule files (no assistant documents `!` patterns), so these rules apply to more files: {}",
                    preset.name,
                    preset.label,
                    negations.join(", ")
                ),
            });
        }
        if !unexpressible.is_empty() {
            let message = format!(
                "{}: {} rule{} an activation {} cannot express and {} written always-on: {}",
                preset.name,
                unexpressible.len(),
                if unexpressible.len() == 1 {
                    " uses"
                } else {
                    "s use"
                },
                preset.label,
                if unexpressible.len() == 1 {
                    "is"
                } else {
                    "are"
                },
                unexpressible.join(", ")
            );
            plan.notes.push(crate::plan::RenderNote {
                preset: preset.name.clone(),
                message,
            });
        }
        if let Some(skills) = &preset.skills {
            self.skill_folders(preset, skills, plan)?;
            // An assistant that reads another enabled preset's skills folder finds there what
            // that preset writes of the served skills (the stub, or the skills themselves), so a
            // stub of its own would reach it twice (Gemini CLI reports a skill conflict).
            let reads_another_folder = self.shared_skills.contains_key(&preset.name);
            if !reads_another_folder && let Some(stub) = self.served.stub_for(preset, &skills.dir) {
                plan.add(stub)?;
            }
        }
        let mut left_out: Vec<String> = Vec::new();
        if let Some(agents) = &preset.agents {
            for item in self.items(Kind::Agent) {
                Self::item_file(preset, agents, item, &mut left_out, plan)?;
            }
        }
        if let Some(commands) = &preset.commands {
            for item in self.items(Kind::Command) {
                Self::item_file(preset, commands, item, &mut left_out, plan)?;
            }
        }
        if !left_out.is_empty() {
            plan.notes.push(crate::plan::RenderNote {
                preset: preset.name.clone(),
                message: format!(
                    "{}: agent and command fields {} has no equivalent for are left out: {}",
                    preset.name,
                    preset.label,
                    left_out.join("; ")
                ),
            });
        }
        if let Some(mcp) = &preset.mcp {
            for shape in std::iter::once(&mcp.shape).chain(&mcp.extra_shapes) {
                self.mcp(preset, shape, lookup, plan)?;
            }
        }
        Ok(())
    }

    fn items(&self, kind: Kind) -> impl Iterator<Item = &Item> {
        self.view
            .items
            .iter()
            .copied()
            .filter(move |item| item.kind == kind)
    }

    /// Places one rule: in the rules folder (returned, to be rendered with the others), as
    /// another kind of file when the preset's rules cannot express its activation (pushed on
    /// `fallbacks`), or (when targeted there, or inline mode) in the root.
    fn rule<'i>(
        &self,
        preset: &PresetSpec,
        rules: &RulesSpec,
        item: &'i Item,
        root_rules: &mut Vec<&'i Item>,
        (unexpressible, negations, fallbacks): (
            &mut Vec<String>,
            &mut Vec<String>,
            &mut Vec<Output>,
        ),
    ) -> Option<RuleFile<'i>> {
        // Another enabled preset's file that this assistant reads carries the item already.
        if let Some(home) = reads::home(&self.project.config, preset, item, &self.root_writers)
            && !self.placements.carries(item, &home)
        {
            return None;
        }
        let folder_path = format!("{}/{}{}", rules.dir, item.id, rules.extension);
        let in_folder = targets_match(item, &folder_path, std::slice::from_ref(&preset.name));
        let in_root = preset.root.as_ref().is_some_and(|root| {
            let writers = self
                .root_writers
                .get(&root.path)
                .map_or(&[][..], Vec::as_slice);
            targets_match(item, &root.path, writers)
        });
        let inline_default = preset
            .root
            .as_ref()
            .is_some_and(|root| root.content == RootContent::Context)
            && self.project.config.rules_mode == RulesMode::Inline
            && item.activation == Activation::Always;
        let to_root = in_root && (inline_default || !in_folder);
        if to_root {
            root_rules.push(item);
            return None;
        }
        if !in_folder {
            return None;
        }
        let mut activation = if rules
            .activations
            .iter()
            .any(|name| name == item.activation.name())
        {
            item.activation
        } else {
            let body = trim_blank_edges(&item.body);
            if !body.is_empty()
                && let Some(output) =
                    fallback::fallback_output(preset, rules, item, &body, &self.skill_ids)
            {
                fallbacks.push(output);
                return None;
            }
            unexpressible.push(format!("{} ({})", item.id, item.activation.name()));
            Activation::Always
        };
        let (globs, left_out) = crate::scope::output_globs(&item.globs, rules.root_anchored_globs);
        if activation == Activation::Glob && !left_out.is_empty() {
            negations.push(format!("{} ({})", item.id, left_out.join(", ")));
            if globs.is_empty() {
                // Only exclusions: "everything but these" is closest to always-on.
                activation = Activation::Always;
            }
        }
        Some(RuleFile {
            item,
            activation,
            globs,
            path: folder_path,
        })
    }

    fn root(
        &self,
        preset: &PresetSpec,
        root: &super::RootSpec,
        root_rules: &[&Item],
        plan: &mut Plan,
    ) -> Result<()> {
        let config = &self.project.config;
        let source = format!("{}/", self.project.config_dir_relative);
        let writers = self
            .root_writers
            .get(&root.path)
            .cloned()
            .unwrap_or_default();
        if config.agents_md && root.import_agents_md {
            let text = self
                .environment
                .get_template("import.md")
                .and_then(|template| {
                    template.render(context! { name => &config.name, target => "AGENTS.md" })
                })
                .map_err(template_error)?;
            plan.add(Output {
                path: root.path.clone(),
                content: Content::Markdown(Markdown::build(None, &text, &source, true)),
                writers: vec![preset.name.clone()],
            })?;
            let agents_writers = self
                .root_writers
                .get("AGENTS.md")
                .cloned()
                .unwrap_or_else(|| vec![preset.name.clone()]);
            let all_rules: Vec<&Item> = self.items(Kind::Rule).collect();
            let text = self.root_text("AGENTS.md", &agents_writers, &all_rules)?;
            return plan.add(Output {
                path: "AGENTS.md".to_owned(),
                content: Content::Markdown(Markdown::build(None, &text, &source, true)),
                writers: vec![preset.name.clone()],
            });
        }
        for item in root_rules.iter().copied().chain(self.items(Kind::Context)) {
            if item.body.trim().is_empty() && targets_match(item, &root.path, &writers) {
                plan.warnings.push(format!(
                    "{}: empty body; left out of {}",
                    item.source_path, root.path
                ));
            }
        }
        let mut root_rules = root_rules.to_vec();
        if self.nested_agents_md && root.path == "AGENTS.md" {
            root_rules = self.nested_files(preset, &writers, &root_rules, plan)?;
        }
        let text = self.root_text(&root.path, &writers, &root_rules)?;
        let markdown = Markdown::build(None, &text, &source, true);
        if let Some(limit) = root.max_bytes
            && markdown.bytes.len() > limit
        {
            plan.warnings.push(format!(
                "{}: {} bytes, over the {limit}-byte budget {} reads; content past it is silently dropped, so move detail into skills or path-scoped rules",
                root.path,
                markdown.bytes.len(),
                preset.label
            ));
        }
        plan.add(Output {
            path: root.path.clone(),
            content: Content::Markdown(markdown),
            writers: vec![preset.name.clone()],
        })
    }

    fn root_text(&self, path: &str, writers: &[String], rules: &[&Item]) -> Result<String> {
        let config = &self.project.config;
        let entry = root_entry;
        // A root file carries an item only where `reads::place` kept this path for it.
        let included = |item: &Item| {
            targets_match(item, path, writers)
                && !item.body.trim().is_empty()
                && self.placements.carries(item, path)
        };
        let rules: Vec<RootEntry> = rules
            .iter()
            .filter(|item| included(item))
            .map(|item| entry(item))
            .collect();
        let context: Vec<RootEntry> = self
            .items(Kind::Context)
            .filter(|item| included(item))
            .map(entry)
            .collect();
        let text = self
            .environment
            .get_template("root.md")
            .and_then(|template| {
                template.render(context! {
                    name => &config.name,
                    description => config.description.clone().unwrap_or_default(),
                    rules => minijinja::value::Serde(rules),
                    context => minijinja::value::Serde(context),
                })
            })
            .map_err(template_error)?;
        Ok(format!("{}\n", text.trim_end()))
    }
}

/// Whether `item` goes to the output at `path` written by `writers`: no `targets` means
/// everywhere; otherwise a target may be `*`, a preset name, the path, its file name, a folder
/// prefix ending in `/`, or a glob (where `*` may cross folders). Case-insensitive.
#[must_use]
pub(crate) fn targets_match(item: &Item, path: &str, writers: &[String]) -> bool {
    if item.targets.is_empty() {
        return true;
    }
    let path = path.to_ascii_lowercase();
    let file_name = path.rsplit('/').next().unwrap_or(&path).to_owned();
    item.targets.iter().any(|target| {
        let target = crate::scope::normalize_target(target);
        let target = target.as_str();
        target == "*"
            || writers
                .iter()
                .any(|writer| writer.eq_ignore_ascii_case(target))
            || target == path
            || target == file_name
            || (target.ends_with('/') && path.starts_with(target))
            || crate::scope::target_matches(target, &path)
    })
}

/// One item as a root file shows it: its title, the line saying when it applies, and its body
/// without its own title line.
fn root_entry(item: &Item) -> RootEntry {
    let body = inline_body(&item.body);
    RootEntry {
        title: item.title.clone(),
        scope_line: scope_line(item),
        body: body.trim_end().to_owned(),
    }
}

/// The line under an inline item's heading that says when it applies.
fn scope_line(item: &Item) -> String {
    match item.activation {
        Activation::Always => String::new(),
        Activation::Glob => {
            let globs: Vec<String> = item.globs.iter().map(|glob| format!("`{glob}`")).collect();
            format!("_Applies to: {}_", globs.join(", "))
        }
        Activation::Auto => format!(
            "_When relevant: {}_",
            item.description.as_deref().unwrap_or_default().trim()
        ),
        Activation::Manual => format!("_Apply only when asked for by name (`{}`)._", item.id),
    }
}

/// A body for inline use: its leading `# Title` removed (the item's heading replaces it) and the
/// remaining headings demoted by two levels (outside code) so they nest under the item's `###`
/// heading.
fn inline_body(body: &str) -> String {
    let trimmed = trim_blank_edges(body);
    let rest = match markdown::leading_title(&trimmed) {
        Some(title) => &trimmed[title.range.end..],
        None => trimmed.as_str(),
    };
    trim_blank_edges(&markdown::demote_headings(rest, 2))
}

/// Removes blank lines at both ends and ends the text with exactly one newline (empty stays empty).
fn trim_blank_edges(text: &str) -> String {
    let start = text
        .char_indices()
        .find(|(_, character)| !character.is_whitespace())
        .map_or(text.len(), |(index, _)| {
            text[..index].rfind('\n').map_or(0, |newline| newline + 1)
        });
    let trimmed = text[start..].trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("{trimmed}\n")
    }
}

fn ensure_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_owned()
    } else {
        format!("{text}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_body_drops_the_title_and_demotes_headings_outside_fences() {
        let body = inline_body("\n# No console.log\n\n## Why\n```sh\n# comment\n```\nNever.\n");
        assert_eq!(body, "#### Why\n```sh\n# comment\n```\nNever.\n");
    }

    #[test]
    fn blank_edges_are_trimmed_but_indentation_kept() {
        assert_eq!(trim_blank_edges("\n\n  code\n\n"), "  code\n");
        assert_eq!(trim_blank_edges("\n \n"), "");
    }
}
