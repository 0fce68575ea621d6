//! Importing an assistant's own files, each read as its vendor documents them (checked
//! 2026-12-01; see docs/presets.md for the sources): Claude Code (CLAUDE.md, `.claude/rules`
//! with `paths:`, skills, agents, commands, `.mcp.json`), Cursor (`.cursor/rules/*.mdc` with
//! `description`, `globs`, `alwaysApply`), Copilot (`copilot-instructions.md`,
//! `*.instructions.md` with `applyTo`, prompts, agents), Windsurf (`.windsurf/rules` with
//! `trigger`), Cline (`.clinerules/` with `paths:`, workflows) and AGENTS.md.

use serde_json::Value;

use crate::content::{Activation, Kind};
use crate::error::Result;
use crate::import::draft::{Draft, Scope, globs_of, meaningful_globs, text_of};
use crate::import::tree::{Tree, same_targets};
use crate::import::{Found, Source, sections};

/// Where `source` is looked for, for the "found nothing" message.
#[must_use]
pub(crate) fn looked_at(source: Source) -> &'static str {
    match source {
        Source::Rulesync => ".rulesync/",
        Source::Ruler => ".ruler/",
        Source::Claude => "CLAUDE.md, .claude/, .mcp.json",
        Source::Cursor => {
            ".cursor/rules/ (also in nested folders), .cursor/commands/, .cursor/mcp.json, .cursorrules"
        }
        Source::Copilot => {
            ".github/copilot-instructions.md, .github/instructions/, .github/prompts/, .github/agents/, .vscode/mcp.json"
        }
        Source::Windsurf => ".windsurf/rules/, .windsurfrules",
        Source::Cline => ".clinerules",
        Source::AgentsMd => "AGENTS.md",
        Source::AiRulezV2 => "ai-rulez.yaml, .ai-rulez.yaml, ai_rulez.yaml",
    }
}

/// Reads the native files of `source` into `found`.
///
/// Errors: bad frontmatter or JSON (naming the file and line); I/O errors.
pub(crate) fn read(tree: &Tree<'_>, source: Source, found: &mut Found) -> Result<()> {
    match source {
        Source::Claude => claude(tree, found),
        Source::Cursor => cursor(tree, found),
        Source::Copilot => copilot(tree, found),
        Source::Windsurf => windsurf(tree, found),
        Source::Cline => cline(tree, found),
        Source::AgentsMd => {
            found.presets = vec!["codex".to_owned()];
            whole_file(tree, "AGENTS.md", "agents", found)
        }
        Source::Rulesync | Source::Ruler | Source::AiRulezV2 => Ok(()),
    }
}

fn claude(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    found.presets = vec!["claude".to_owned()];
    whole_file(tree, "CLAUDE.md", "claude", found)?;
    for path in tree.files(".claude/rules", &[".md"], true, &[])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let id = id_under(&path, ".claude/rules/", ".md");
        let values = &document.values;
        let globs = globs_of(values.get("paths"));
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        draft.set_scope(
            Scope::from_globs(text_of(values, "description"), globs),
            &mut found.notes,
        );
        found.drafts.push(draft);
    }
    tree.skills(".claude/skills", found, &same_targets)?;
    tree.plain_items(".claude/agents", Kind::Agent, ".md", found, &same_targets)?;
    tree.plain_items(
        ".claude/commands",
        Kind::Command,
        ".md",
        found,
        &same_targets,
    )?;
    crate::import::mcp::read_json(tree, ".mcp.json", "mcpServers", found)
}

/// Cursor: `alwaysApply: true` is always; globs make a glob rule; a description alone is
/// model-decided ("Apply Intelligently"); neither is manual (`@rule`).
fn cursor(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    found.presets = vec!["cursor".to_owned()];
    whole_file(tree, ".cursorrules", "cursorrules", found)?;
    for path in tree.files(".cursor/rules", &[".mdc", ".md"], true, &[])? {
        cursor_rule(tree, &path, None, found)?;
    }
    // Nested rule folders (`packages/web/.cursor/rules/`) apply to their folder only, and their
    // globs are relative to it (the scope rule `find_context` serves them by, too).
    let nested = crate::instruction_files::nested_cursor_rules(tree.dir, ".ai-rulez");
    // A linked rule file among them is named and left out when it is read (`Tree::document`).
    for (path, scope) in nested.files {
        cursor_rule(tree, &path, Some(&scope), found)?;
    }
    for folder in nested.linked_folders {
        tree.leave_out_symlink(&folder);
    }
    tree.plain_items(
        ".cursor/commands",
        Kind::Command,
        ".md",
        found,
        &same_targets,
    )?;
    crate::import::mcp::read_json(tree, ".cursor/mcp.json", "mcpServers", found)
}

/// Imports the Cursor rule file at `path`: from the root's `.cursor/rules/` when `scope` is
/// `None`, else from the nested folder `scope` (project-relative), whose rule then applies only
/// below it: its id is prefixed with the folder (`packages-web-api`), its globs are rebased onto
/// the folder, and a rule without globs (always-on or model-decided) is scoped to the whole
/// folder. A manual rule (no description, no globs) stays manual.
///
/// Errors: bad frontmatter (naming the file and line); I/O errors.
fn cursor_rule(tree: &Tree<'_>, path: &str, scope: Option<&str>, found: &mut Found) -> Result<()> {
    let Some(document) = tree.document(path, found)? else {
        return Ok(());
    };
    let suffix = [".mdc", ".md"]
        .into_iter()
        .find(|ext| path.ends_with(ext))
        .unwrap_or(".md");
    let rules_folder = match scope {
        Some(scope) => format!("{scope}/.cursor/rules/"),
        None => ".cursor/rules/".to_owned(),
    };
    let mut id = id_under(path, &rules_folder, suffix);
    if let Some(scope) = scope {
        id = format!("{}-{id}", scope.replace('/', "-"));
    }
    let values = &document.values;
    note_keys_left_out(
        path,
        values,
        &["description", "globs", "alwaysApply"],
        found,
    );
    let description = text_of(values, "description");
    let written_globs = meaningful_globs(globs_of(values.get("globs")));
    let had_globs = !written_globs.is_empty();
    let globs = globs_to_keep(path, written_globs, found);
    let always = values.get("alwaysApply") == Some(&Value::Bool(true));
    // A rule whose every glob was left out would otherwise widen to every file (or to its
    // whole folder); read only when asked for, it applies to nothing it did not before.
    let every_glob_left_out = had_globs && globs.is_empty() && !always;
    let scope_rule = match scope {
        _ if every_glob_left_out => Scope {
            description,
            globs: Vec::new(),
            activation: Activation::Manual,
        },
        None if always => Scope::from_globs(description, Vec::new()),
        None if !globs.is_empty() => Scope::from_globs(description, globs),
        Some(folder) if always || !globs.is_empty() || description.is_some() => {
            // The folder's name is literal: `app/[id]` must not become a character class, nor
            // `a\b` an escaped `b`.
            let folder_glob = globset::escape(folder)
                .replace('\\', "\\\\")
                .replace(',', "[,]");
            let rebased = if always || globs.is_empty() {
                vec![format!("{folder_glob}/**")]
            } else {
                globs
                    .iter()
                    .map(|glob| {
                        // A pattern without `/` matches at any depth below the folder, as it
                        // does at the root; one with `/` is anchored at the folder.
                        if glob.contains('/') {
                            format!(
                                "{folder_glob}/{}",
                                glob.trim_start_matches("./").trim_start_matches('/')
                            )
                        } else {
                            format!("{folder_glob}/**/{glob}")
                        }
                    })
                    .collect()
            };
            // The id is not named here: it may still change to stay unique, which a note of
            // its own then says.
            found.notes.push(format!(
                "{path}: a nested Cursor rule, imported to apply to {} only (generate writes it to .cursor/rules/, so delete the nested file then)",
                rebased.join(", ")
            ));
            Scope::from_globs(description, rebased)
        }
        _ => Scope {
            activation: Activation::of_unscoped_rule(description.as_deref()),
            description,
            globs: Vec::new(),
        },
    };
    let mut draft = Draft::new(Kind::Rule, &id, path, document.body.clone());
    draft.set_scope(scope_rule, &mut found.notes);
    // Nested, an always-on rule applies to its folder's files: a glob rule, not pinned.
    if always && scope.is_none() {
        draft.pin_always();
    }
    found.drafts.push(draft);
    Ok(())
}

/// Names, in one note, the frontmatter keys of the rule file at `path` other than `read` (the
/// keys its import carries over), and marks the file lossy, so `generate` shows the difference
/// instead of replacing it unasked. Nothing when every key is read.
fn note_keys_left_out(
    path: &str,
    values: &indexmap::IndexMap<String, Value>,
    read: &[&str],
    found: &mut Found,
) {
    let left_out: Vec<String> = values
        .keys()
        .filter(|key| !read.contains(&key.as_str()))
        .map(|key| crate::lint::screen::escape_unreadable(key))
        .collect();
    if left_out.is_empty() {
        return;
    }
    found.note_lossy(
        path,
        &format!(
            "left out frontmatter keys ai-rulez does not read from this file: {}",
            left_out.join(", ")
        ),
    );
}

/// The globs of the Cursor rule at `path` that keep their meaning as ai-rulez `paths`, in
/// order; each one left out gets a note. Left out: a negation (`!*.test.ts`), which neither
/// Cursor nor ai-rulez documents and which would match only names starting with `!`, and a
/// glob with a `..` component, which points outside the folder the rule is read for.
fn globs_to_keep(path: &str, globs: Vec<String>, found: &mut Found) -> Vec<String> {
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for glob in globs {
        if glob.starts_with('!') {
            left_out.push((glob, "a negation, which Cursor and Windsurf do not document and ai-rulez would read as a name starting with `!`"));
            continue;
        }
        match without_dot_dot(&glob) {
            Some(inside) => kept.push(inside),
            None => left_out.push((
                glob,
                "it points outside the folder the rule is read for (`..`)",
            )),
        }
    }
    // The generated rule cannot say what these globs said: not a file to replace unasked.
    for (glob, why) in &left_out {
        found.note_lossy(
            path,
            &format!(
                "glob `{}` left out: {why}; {}",
                crate::lint::screen::escape_unreadable(glob),
                if kept.is_empty() {
                    "with no glob left, the rule is imported as manual (read when asked for by name), so it applies to no file it did not apply to before: give it `paths` to scope it again"
                } else {
                    "the rule keeps its other globs"
                }
            ),
        );
    }
    kept
}

/// `glob` with each `..` taken back against the folder before it (`src/../top.ts` is
/// `./top.ts`), or `None` when a `..` climbs above the glob's start or undoes a wildcard
/// component (`**/..`), whose folder cannot be told.
fn without_dot_dot(glob: &str) -> Option<String> {
    if !glob.split('/').any(|component| component == "..") {
        return Some(glob.to_owned());
    }
    let mut components: Vec<&str> = Vec::new();
    for component in glob.split('/') {
        match component {
            ".." => {
                let undone = components.pop()?;
                if undone.contains(['*', '?', '[', '{']) {
                    return None;
                }
            }
            "." => {}
            other => components.push(other),
        }
    }
    match components.as_slice() {
        [] => None,
        // Written with a folder, the glob stays anchored (`./top.ts`, not any `top.ts`).
        [only] => Some(format!("./{only}")),
        _ => Some(components.join("/")),
    }
}

/// Copilot: `applyTo` globs (`**` is every file); without `applyTo`, a description makes the
/// rule model-decided and no description makes it manual (VS Code attaches it by hand).
fn copilot(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    found.presets = vec!["copilot".to_owned()];
    whole_file(
        tree,
        ".github/copilot-instructions.md",
        "copilot-instructions",
        found,
    )?;
    let suffix = ".instructions.md";
    for path in tree.files(".github/instructions", &[suffix], true, &[])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let id = id_under(&path, ".github/instructions/", suffix);
        let values = &document.values;
        let description = text_of(values, "description");
        let scope = if let Some(value) = values.get("applyTo") {
            Scope::from_globs(description, globs_of(Some(value)))
        } else {
            Scope {
                activation: Activation::of_unscoped_rule(description.as_deref()),
                description,
                globs: Vec::new(),
            }
        };
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        draft.set_scope(scope, &mut found.notes);
        if let Some(exclude) = values.get("excludeAgent") {
            draft.set("excludeAgent", exclude.clone());
        }
        found.drafts.push(draft);
    }
    tree.plain_items(
        ".github/prompts",
        Kind::Command,
        ".prompt.md",
        found,
        &same_targets,
    )?;
    tree.plain_items(
        ".github/agents",
        Kind::Agent,
        ".agent.md",
        found,
        &same_targets,
    )?;
    crate::import::mcp::read_json(tree, ".vscode/mcp.json", "servers", found)
}

/// Windsurf: `trigger` is `always_on`, `glob` (with `globs`), `model_decision` (with
/// `description`) or `manual`; no trigger is always on.
fn windsurf(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    found.presets = vec!["windsurf".to_owned()];
    whole_file(tree, ".windsurfrules", "windsurfrules", found)?;
    for path in tree.files(".windsurf/rules", &[".md"], true, &[])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let id = id_under(&path, ".windsurf/rules/", ".md");
        let values = &document.values;
        note_keys_left_out(&path, values, &["trigger", "description", "globs"], found);
        let description = text_of(values, "description");
        let written_globs = meaningful_globs(globs_of(values.get("globs")));
        let trigger = text_of(values, "trigger");
        note_windsurf_scope(&path, trigger.as_deref(), !written_globs.is_empty(), found);
        let scope = match trigger.as_deref() {
            Some("glob") if !written_globs.is_empty() => {
                let globs = globs_to_keep(&path, written_globs, found);
                if globs.is_empty() {
                    Scope {
                        description,
                        globs: Vec::new(),
                        activation: Activation::Manual,
                    }
                } else {
                    Scope::from_globs(description, globs)
                }
            }
            Some("model_decision") => Scope {
                description,
                globs: Vec::new(),
                activation: Activation::Auto,
            },
            Some("manual") => Scope {
                description,
                globs: Vec::new(),
                activation: Activation::Manual,
            },
            _ => Scope::from_globs(description, Vec::new()),
        };
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        draft.set_scope(scope, &mut found.notes);
        if trigger.as_deref() == Some("always_on") {
            draft.pin_always();
        }
        found.drafts.push(draft);
    }
    Ok(())
}

/// Notes a Windsurf rule whose scope does not carry over as written, and marks it lossy so
/// `generate` does not replace it unasked: a `trigger` Windsurf does not document (imported as
/// always-on), `globs` beside a trigger other than `glob` (Windsurf reads them only then; left
/// out), and `trigger: glob` without globs (always-on).
fn note_windsurf_scope(path: &str, trigger: Option<&str>, has_globs: bool, found: &mut Found) {
    let why = match (trigger, has_globs) {
        (Some("glob"), false) => {
            "`trigger: glob` without `globs` names no files; it is imported as always-on: give it `paths` to scope it".to_owned()
        }
        (Some("glob"), true) | (None | Some("always_on" | "model_decision" | "manual"), false) => {
            return;
        }
        (None | Some("always_on" | "model_decision" | "manual"), true) => {
            "its `globs` are left out: Windsurf reads them only with `trigger: glob`".to_owned()
        }
        (Some(other), _) => format!(
            "`trigger: {}` is not one Windsurf documents (always_on, glob, model_decision, manual); it is imported as always-on: check its scope",
            crate::lint::screen::escape_unreadable(other)
        ),
    };
    found.note_lossy(path, &why);
}

/// Cline: every Markdown or text file of `.clinerules/` is a rule (`paths:` scopes it);
/// `.clinerules/workflows/` holds commands. A single `.clinerules` file is split into sections.
fn cline(tree: &Tree<'_>, found: &mut Found) -> Result<()> {
    found.presets = vec!["cline".to_owned()];
    if !tree.is_folder(".clinerules")? {
        return whole_file(tree, ".clinerules", "clinerules", found);
    }
    for path in tree.files(".clinerules", &[".md", ".txt"], true, &["workflows"])? {
        let Some(document) = tree.document(&path, found)? else {
            continue;
        };
        let suffix = [".txt", ".md"]
            .into_iter()
            .find(|ext| path.ends_with(ext))
            .unwrap_or(".md");
        let id = id_under(&path, ".clinerules/", suffix);
        let values = &document.values;
        let mut draft = Draft::new(Kind::Rule, &id, &path, document.body.clone());
        draft.set_scope(
            Scope::from_globs(
                text_of(values, "description"),
                globs_of(values.get("paths")),
            ),
            &mut found.notes,
        );
        found.drafts.push(draft);
    }
    tree.plain_items(
        ".clinerules/workflows",
        Kind::Command,
        ".md",
        found,
        &same_targets,
    )
}

/// One instruction file split into always-on rules (see [`sections::split`]).
fn whole_file(tree: &Tree<'_>, path: &str, file_id: &str, found: &mut Found) -> Result<()> {
    if tree.is_folder(path)? {
        return Ok(());
    }
    let Some(document) = tree.document(path, found)? else {
        return Ok(());
    };
    // A root instruction file carries no keys ai-rulez reads: any it has would be lost.
    note_keys_left_out(path, &document.values, &[], found);
    let before = found.drafts.len();
    found
        .drafts
        .extend(sections::split(&document.body, file_id, path));
    if found.drafts.len() > before && crate::presets::is_output_path(path) {
        found.notes.push(format!(
            "{path}: its text becomes rules under .ai-rulez/rules/; after the import, while {path} stays as it is, the next `generate` replaces it with the generated file (edit the rules under .ai-rulez/rules/ from here on; a later hand edit of {path} is kept and generate asks first)"
        ));
    } else if found.drafts.len() > before {
        // A legacy file (`.cursorrules`, `.windsurfrules`) is no file `generate` writes, so it
        // stays, and its assistant keeps reading it beside the generated rules.
        found.notes.push(format!(
            "{path}: its text becomes rules under .ai-rulez/rules/; `generate` writes no {path}, and its assistant still reads it beside the generated files, so delete {path} once those are right"
        ));
    }
    Ok(())
}

/// The id of `path` under `prefix` without `suffix`, sub-folders joined with `-`.
fn id_under(path: &str, prefix: &str, suffix: &str) -> String {
    let relative = path.strip_prefix(prefix).unwrap_or(path);
    relative
        .strip_suffix(suffix)
        .unwrap_or(relative)
        .replace('/', "-")
}
