//! Folder-scoped rules in nested `AGENTS.md` files (`nested_agents_md = true`): a rule whose
//! globs all lie under one folder (`services/api/**`) is written to `services/api/AGENTS.md`
//! instead of the root `AGENTS.md`, for assistants that read the `AGENTS.md` of the folder they
//! work in (Codex joins them from the root down to the working directory:
//! <https://developers.openai.com/codex/guides/agents-md>). It is opt-in, because it puts files
//! into the project's own folders, and it applies only when every enabled assistant that reads
//! `AGENTS.md` also reads nested ones (`reads_nested_agents_md` in its spec); otherwise the rules
//! stay in the root file and `generate` says which presets kept them there.

use std::collections::BTreeMap;

use minijinja::context;

use super::{Renderer, RootEntry, root_entry, targets_match, template_error};
use crate::config::Config;
use crate::content::{Activation, Item};
use crate::error::Result;
use crate::plan::{Content, Markdown, Output, Plan};
use crate::presets::PresetSpec;

impl Renderer<'_> {
    /// Writes each folder-scoped rule of `rules` that the root `AGENTS.md` would carry into
    /// `<folder>/AGENTS.md` (one file per folder, rules in the given order) and returns the
    /// rules left for the root file. A nested file is never merged into a hand-written one.
    pub(super) fn nested_files<'i>(
        &self,
        preset: &PresetSpec,
        writers: &[String],
        rules: &[&'i Item],
        plan: &mut Plan,
    ) -> Result<Vec<&'i Item>> {
        let mut folders: BTreeMap<String, Vec<&Item>> = BTreeMap::new();
        let mut rest = Vec::with_capacity(rules.len());
        for item in rules.iter().copied() {
            let carried = targets_match(item, "AGENTS.md", writers)
                && !item.body.trim().is_empty()
                && self.placements.carries(item, "AGENTS.md");
            match rule_folder(item).filter(|_| carried) {
                Some(folder) => folders.entry(folder).or_default().push(item),
                None => rest.push(item),
            }
        }
        for (folder, items) in folders {
            let entries: Vec<RootEntry> = items.iter().map(|item| root_entry(item)).collect();
            let text = self
                .environment
                .get_template("root.md")
                .and_then(|template| {
                    template.render(context! {
                        name => format!("{}: {folder}/", self.project.config.name),
                        description => "",
                        rules => minijinja::value::Serde(entries),
                        context => minijinja::value::Serde(Vec::<RootEntry>::new()),
                    })
                })
                .map_err(template_error)?;
            let source = format!("{}/", self.project.config_dir_relative);
            plan.add(Output {
                path: format!("{folder}/AGENTS.md"),
                content: Content::Markdown(Markdown::build(
                    None,
                    &format!("{}\n", text.trim_end()),
                    &source,
                    false,
                )),
                writers: vec![preset.name.clone()],
            })?;
        }
        Ok(rest)
    }
}

/// The enabled presets whose assistant reads the root `AGENTS.md` (its own root file, its
/// `reads` list, or a root file importing it with `agents_md = true`) but not the ones in
/// sub-folders, in config order. Nesting applies only when this is empty.
pub(super) fn blockers(config: &Config, presets: &[PresetSpec]) -> Vec<String> {
    presets
        .iter()
        .filter(|preset| {
            let reads_root = preset.reads.iter().any(|read| read == "AGENTS.md")
                || preset.root.as_ref().is_some_and(|root| {
                    root.path == "AGENTS.md" || (config.agents_md && root.import_agents_md)
                });
            reads_root && !preset.reads_nested_agents_md
        })
        .map(|preset| preset.name.clone())
        .collect()
}

/// What `generate` says when `nested_agents_md` is set but `blockers` keep the rules in the
/// root file.
pub(super) fn blocked_message(blockers: &[String]) -> String {
    format!(
        "nested_agents_md is set, but {} read{} only the root AGENTS.md, so folder-scoped rules stay there; disable {} to get nested AGENTS.md files",
        blockers.join(", "),
        if blockers.len() == 1 { "s" } else { "" },
        if blockers.len() == 1 {
            "that preset"
        } else {
            "those presets"
        }
    )
}

/// The folder every glob of `item` lies under, `/`-separated without a trailing `/`
/// (`services/api` for `services/api/**` and `services/api/src/*.rs`), or `None` when the item
/// is not a glob rule, a pattern is a negation or starts with a wildcard, or the patterns share
/// no folder. Only plain folder names count (no hidden, `..`, wildcard or brace component).
#[must_use]
pub(super) fn rule_folder(item: &Item) -> Option<String> {
    if item.activation != Activation::Glob || item.globs.is_empty() {
        return None;
    }
    let mut common: Option<Vec<&str>> = None;
    for glob in &item.globs {
        if glob.starts_with('!') || glob.starts_with('/') {
            return None;
        }
        let components: Vec<&str> = glob.split('/').collect();
        // The last component names files; the folders are the literal ones before it.
        let folders: Vec<&str> = components[..components.len() - 1]
            .iter()
            .copied()
            .take_while(|component| is_plain_folder(component))
            .collect();
        common = Some(match common {
            None => folders,
            Some(before) => before
                .into_iter()
                .zip(folders)
                .take_while(|(left, right)| left == right)
                .map(|(left, _)| left)
                .collect(),
        });
    }
    let folder = common?.join("/");
    (!folder.is_empty()).then_some(folder)
}

fn is_plain_folder(component: &str) -> bool {
    !component.is_empty()
        && component != "."
        && component != ".."
        && !component.starts_with('.')
        && !component.chars().any(|character| {
            matches!(character, '*' | '?' | '[' | ']' | '{' | '}' | '!' | '\\')
                || character.is_control()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob_rule(globs: &[&str]) -> Item {
        let text = "---\npaths: [\"x/**\"]\n---\nBody.\n";
        let document = crate::frontmatter::parse("r.md", text.as_bytes()).expect("parses");
        let mut item = crate::content::interpret(
            crate::content::Kind::Rule,
            "r".to_owned(),
            crate::content::Layer::Root,
            "r.md".to_owned(),
            document,
        )
        .expect("a rule");
        assert_eq!(item.activation, Activation::Glob);
        item.globs = globs.iter().map(|glob| (*glob).to_owned()).collect();
        item
    }

    #[test]
    fn the_folder_is_the_literal_prefix_all_globs_share() {
        assert_eq!(
            rule_folder(&glob_rule(&["services/api/**"])).as_deref(),
            Some("services/api")
        );
        assert_eq!(
            rule_folder(&glob_rule(&[
                "services/api/src/*.rs",
                "services/api/tests/**"
            ]))
            .as_deref(),
            Some("services/api")
        );
        assert_eq!(
            rule_folder(&glob_rule(&["services/api/**", "services/web/**"])).as_deref(),
            Some("services")
        );
        assert_eq!(
            rule_folder(&glob_rule(&["src/*.rs"])).as_deref(),
            Some("src")
        );
        for globs in [
            &["*.rs"][..],
            &["**/api/**"],
            &["src/**", "docs/**"],
            &["{a,b}/**"],
            &["src/**", "!src/gen/**"],
            &["../up/**"],
            &["/abs/**"],
            &[".github/workflows/**"],
        ] {
            assert_eq!(rule_folder(&glob_rule(globs)), None, "{globs:?}");
        }
        let mut always = glob_rule(&["services/api/**"]);
        always.activation = Activation::Always;
        assert_eq!(rule_folder(&always), None);
    }
}
