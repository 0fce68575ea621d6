//! `get_context` and `explain`: everything that applies to one file or folder, nearest scope
//! first, including instruction files the repository already has.

use super::{
    Catalog, DEFAULT_MAX_TOKENS, HashSet, Index, Item, Kind, Serialize, applies_to,
    estimate_tokens, is_folder, problems_text,
};
use crate::instruction_files::FileKind;

/// One thing that applies to a path, with why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextEntry {
    /// `rule`, `context`, `memory`, `skill` or `instructions` (a file the repository already has).
    pub kind: String,
    /// Id, or the path of an instruction file.
    pub id: String,
    /// Title or name.
    pub title: String,
    /// Why it applies.
    pub why: String,
    /// Full text for rules and context; a memory's first line (its whole text with `verbose`); the
    /// description for skills; empty for instruction files.
    pub text: String,
}

/// The reply of `get_context` / `explain`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextReply {
    /// Project name.
    pub project: String,
    /// The path asked about, project-relative.
    pub path: String,
    /// Entries, nearest scope first.
    pub entries: Vec<ContextEntry>,
    /// Ids of entries whose text was left out (emptied) to keep the reply within the default
    /// token budget; the entries themselves are still listed.
    pub cut: Vec<String>,
    /// Files that could not be loaded; they are left out.
    pub problems: Vec<String>,
    /// Whether nothing is at `path` yet (a file about to be created): the entries are what
    /// would apply to a file there. Left out of the JSON when something is there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing: bool,
    /// Learnings read from files at or below the path that are unchanged since (each to verify
    /// before relying on it); filled by the MCP tool, see [`crate::memory::learnings`].
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) learnings: Vec<crate::memory::learnings::ServedLearning>,
}

/// How much of each team memory `get_context` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryText {
    /// The first line (the id leads to the rest through `read_memory` or `read_items`).
    Preview,
    /// The whole text.
    Full,
}

/// `get_context` with memory previews: see [`get_context_with`].
#[must_use]
pub fn get_context(catalog: &Catalog, path: &str, task: Option<&str>) -> ContextReply {
    get_context_with(catalog, path, task, MemoryText::Preview)
}

/// `get_context`: everything that applies to the project-relative `path` (file or folder),
/// nearest scope first: scoped rules and context, global ones, the team memories of the path's
/// folder and its enclosing folders (nearest first, `memory_text` deciding how much of each),
/// skills, then instruction files the repository already has (nearest folder first). With a
/// `task`, rules and context are ordered by relevance within each group.
#[must_use]
pub fn get_context_with(
    catalog: &Catalog,
    path: &str,
    task: Option<&str>,
    memory_text: MemoryText,
) -> ContextReply {
    let project = &catalog.project;
    let items: Vec<&Item> = catalog.view_items().collect();
    let folder = is_folder(&project.dir, path);
    // A symlink counts as something there: it is not followed, but the path is taken.
    let missing = !path.is_empty() && matches!(project.dir.info(path), Ok(None));
    let mut scoped = Vec::new();
    let mut global = Vec::new();
    for item in items
        .iter()
        .copied()
        .filter(|item| matches!(item.kind, Kind::Rule | Kind::Context))
    {
        if let Some(why) = applies_to(item, path, folder) {
            let entry = ContextEntry {
                kind: item.kind.noun().to_owned(),
                id: item.id.clone(),
                title: item.title.clone(),
                why: format!("{} {why}", item.kind.noun()),
                text: item.body.trim().to_owned(),
            };
            if item.globs.is_empty() {
                global.push((item, entry));
            } else {
                scoped.push((item, entry));
            }
        }
    }
    if let Some(task) = task.filter(|task| !task.trim().is_empty()) {
        for group in [&mut scoped, &mut global] {
            let pool: Vec<&Item> = group.iter().map(|(item, _)| *item).collect();
            let ranking = Index::build(&pool).rank(task);
            let order: Vec<usize> = ranking
                .iter()
                .map(|(position, _)| *position)
                .chain(0..pool.len())
                .collect();
            let mut seen = HashSet::new();
            let mut reordered = Vec::new();
            for position in order {
                if seen.insert(position) {
                    reordered.push(group[position].clone());
                }
            }
            *group = reordered;
        }
    }
    let mut entries: Vec<ContextEntry> = scoped
        .into_iter()
        .chain(global)
        .map(|(_, entry)| entry)
        .collect();
    entries.extend(memory_entries(project, path, memory_text));
    for item in items.iter().filter(|item| item.kind == Kind::Skill) {
        entries.push(ContextEntry {
            kind: "skill".to_owned(),
            id: item.id.clone(),
            title: item.title.clone(),
            why: "skill available in this project".to_owned(),
            text: item.description.clone().unwrap_or_default(),
        });
    }
    entries.extend(instruction_files(catalog, path, folder));
    // Like get_rules, the reply stays below what clients accept: texts that no longer fit are
    // emptied (the entry and why it applies stay listed) and named in `cut`.
    let mut used = 0;
    let mut cut = Vec::new();
    for entry in &mut entries {
        let cost = estimate_tokens(&entry.text) + estimate_tokens(&entry.why) + 20;
        if used + cost > DEFAULT_MAX_TOKENS {
            if !entry.text.is_empty() {
                entry.text.clear();
                cut.push(entry.id.clone());
            }
            used += estimate_tokens(&entry.why) + 20;
        } else {
            used += cost;
        }
    }
    ContextReply {
        project: project.config.name.clone(),
        path: path.to_owned(),
        entries,
        cut,
        problems: catalog.problems.clone(),
        missing,
        learnings: Vec::new(),
    }
}

/// The team memories of the path's folder and of every enclosing folder, nearest first, read
/// from disk (they are not part of the catalog), as context entries with their ids.
fn memory_entries(
    project: &crate::project::Project,
    path: &str,
    memory_text: MemoryText,
) -> Vec<ContextEntry> {
    let store = crate::memory::memories::Store::of(project);
    crate::memory::navigation::memories_for_context(&store, path)
        .into_iter()
        .map(|record| ContextEntry {
            kind: "memory".to_owned(),
            why: if record.node == crate::memory::node::PROJECT_NODE {
                "memory of the whole project".to_owned()
            } else {
                format!("memory of `{}/`", record.node)
            },
            text: match memory_text {
                MemoryText::Preview => record.preview(),
                MemoryText::Full => record.content.trim().to_owned(),
            },
            id: record.id,
            title: record.title,
        })
        .collect()
}

/// Hand-written instruction files the repository already has that apply to `path` (a file, or
/// with `folder` a folder), from the catalog's index of them ([`crate::instruction_files`]):
/// nearest scope first; whole-scope files (`AGENTS.md`, `CLAUDE.md`, ...) of every enclosing
/// folder, then, per scope, the rules whose globs match (for a folder: the rules without globs)
/// and the agents. Files ai-rulez generated are not indexed: their content is already listed
/// above.
fn instruction_files(catalog: &Catalog, path: &str, folder: bool) -> Vec<ContextEntry> {
    let index = catalog.instruction_index(path);
    let mut found: Vec<&crate::instruction_files::InstructionFile> = index
        .files
        .iter()
        .filter(|file| file.kind != FileKind::Command)
        .filter(|file| {
            if !folder {
                return file.applies_to(path);
            }
            let inside = file.scope == "." || file.in_scope(path.trim_end_matches('/'));
            inside
                && file.read_for_paths()
                && (file.kind != FileKind::Rule || file.globs.is_empty())
        })
        .collect();
    // Nearest scope first; within a scope whole-scope files, rules, then agents, by path.
    found.sort_by_key(|file| {
        let depth = file.scope.matches('/').count() + usize::from(file.scope != ".");
        (std::cmp::Reverse(depth), file.kind, file.path.as_str())
    });
    found
        .into_iter()
        .map(|file| {
            let place = if file.scope == "." {
                "the project root".to_owned()
            } else {
                format!("`{}/`", file.scope)
            };
            let why = match file.kind {
                FileKind::Instruction => format!("{} in {place}, an enclosing folder", file.name),
                FileKind::Rule if file.globs.is_empty() => format!("applies to all of {place}"),
                FileKind::Rule => {
                    let key = match file.source {
                        "claude" => "paths",
                        "copilot" => "applyTo",
                        _ => "globs",
                    };
                    let globs = file.globs.join(",");
                    if file.scope == "." {
                        format!("`{key}: {globs}` matches")
                    } else {
                        format!("`{key}: {globs}` matches (relative to {place})")
                    }
                }
                FileKind::Agent | FileKind::Command => format!("an agent defined in {place}"),
            };
            ContextEntry {
                kind: "instructions".to_owned(),
                id: file.path.clone(),
                title: if file.kind == FileKind::Instruction {
                    file.name.clone()
                } else {
                    file.path.clone()
                },
                why,
                text: String::new(),
            }
        })
        .collect()
}

/// Renders a context reply as text (the same for the model and for `explain`).
#[must_use]
pub(crate) fn context_text(reply: &ContextReply) -> String {
    let learnings = crate::memory::learnings::served_text(&reply.learnings);
    // The project's root is the empty relative path; `.` is how a person names it.
    let shown = if reply.path.is_empty() {
        "."
    } else {
        reply.path.as_str()
    };
    // Said first: a misspelt path gets an answer too, and it must not read as the real one.
    let missing = if reply.missing {
        format!("Nothing is at `{shown}` yet: this is what would apply to a file there.\n")
    } else {
        String::new()
    };
    if reply.entries.is_empty() {
        return format!(
            "{missing}Nothing in `{}` applies to `{shown}`.\n{}{learnings}",
            reply.project,
            problems_text(&reply.problems)
        );
    }
    let mut text = format!(
        "{missing}What applies to `{shown}` in `{}` (nearest scope first):\n",
        reply.project
    );
    for entry in &reply.entries {
        text.push_str(&format!(
            "\n## {} {} (`{}`)\nWhy: {}\n",
            entry.kind, entry.title, entry.id, entry.why
        ));
        if !entry.text.is_empty() {
            text.push('\n');
            text.push_str(&entry.text);
            text.push('\n');
        }
    }
    if !reply.cut.is_empty() {
        text.push_str(&format!(
            "\nThe texts of {} entr(y/ies) were left out to keep the reply small: {}. Read them with get_rules and `include`, read_item, or read_items for memories.\n",
            reply.cut.len(),
            reply.cut.join(", ")
        ));
    }
    text.push_str(&problems_text(&reply.problems));
    text.push_str(&learnings);
    text
}
