//! `ai-rulez memory`: a person's view of team memory (list, show, add, edit, rm, restore),
//! printed for people or as JSON. Each action is one call into [`crate::memory`], the same
//! functions the MCP `memory` toolset calls; only `rm --hard` is the CLI's own.

use std::io::Read as _;
use std::path::Path;

use super::{Global, is_json, out, print_json, print_warnings};
use crate::cli::{MemoryArgs, MemoryCommand};
use crate::memory::memories::{self, Change, MemoryRecord, NewMemory, Source, Store};
use crate::memory::navigation::{self, MemoryList};

/// Runs the memory action; returns 0.
///
/// Errors: no project or an unreadable config; a refused node path or id; a version conflict
/// (with the current version and text); a busy writer lock; I/O.
pub(crate) fn run(global: &Global, args: &MemoryArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    // Broken rule files do not stop work on memories; they are named by the commands that use
    // them.
    let (project, _) = crate::project::load_lenient(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let store = Store::of(&project);
    let json = is_json(args.format);
    let record = match &args.action {
        MemoryCommand::List { path, limit } => {
            let relative = match path {
                Some(path) => Some(project_path(global, &project, path)?),
                None => None,
            };
            let list = navigation::list_memories(&store, relative.as_deref(), *limit)?;
            if json {
                print_json(&serde_json::to_value(&list)?);
            } else {
                out(list_text(&list).trim_end());
            }
            return Ok(0);
        }
        MemoryCommand::Show { id } => memories::read_memory(&store, id)?,
        MemoryCommand::Add {
            node_path,
            title,
            content,
            file,
            allow_duplicate,
        } => {
            let new = NewMemory {
                node_path: node_path.clone(),
                title: title.clone(),
                content: text_of(content.as_deref(), file.as_deref())?,
                allow_duplicate: *allow_duplicate,
                source: Source::Cli,
            };
            memories::write_memory(&store, &new)?
        }
        MemoryCommand::Edit {
            id,
            content,
            file,
            old,
            new,
            move_to,
            expected_version,
        } => {
            let change = match (old, new, content, file) {
                (Some(old), Some(new), _, _) => Change::Edit {
                    old: old.clone(),
                    new: new.clone(),
                },
                (_, _, None, None) if move_to.is_some() => Change::Keep,
                (_, _, content, file) => {
                    Change::Replace(text_of(content.as_deref(), file.as_deref())?)
                }
            };
            memories::update_memory(
                &store,
                id,
                &change,
                move_to.as_deref(),
                expected_version.as_deref(),
                Source::Cli,
            )?
        }
        MemoryCommand::Rm { id, hard: true, .. } => {
            let path = memories::hard_delete_memory(&store, id)?;
            if json {
                print_json(&serde_json::json!({"id": id, "deleted": path}));
            } else {
                out(&format!("Deleted {path} for good."));
            }
            return Ok(0);
        }
        MemoryCommand::Rm {
            id,
            expected_version,
            ..
        } => memories::delete_memory(&store, id, expected_version.as_deref())?,
        MemoryCommand::Restore { id } => memories::restore_memory(&store, id)?,
    };
    if json {
        print_json(&serde_json::to_value(&record)?);
    } else {
        out(record_text(&args.action, &record).trim_end());
    }
    Ok(0)
}

/// A path typed by the person (relative to where the command runs) made project-relative.
fn project_path(
    global: &Global,
    project: &crate::project::Project,
    path: &str,
) -> anyhow::Result<String> {
    if path == crate::memory::node::PROJECT_NODE {
        return Ok(String::new());
    }
    super::project_path(global, project, Path::new(path))
}

/// The memory text from `--content`, or from `--file` (`-`: standard input).
fn text_of(content: Option<&str>, file: Option<&Path>) -> anyhow::Result<String> {
    match (content, file) {
        (Some(content), _) => Ok(content.to_owned()),
        (None, Some(file)) if file == Path::new("-") => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            Ok(text)
        }
        (None, Some(file)) => Ok(fs_err::read_to_string(file)?),
        (None, None) => anyhow::bail!("give the memory text with --content TEXT or --file FILE"),
    }
}

/// The list for people: one line per memory, grouped by node.
fn list_text(list: &MemoryList) -> String {
    if list.memories.is_empty() {
        return "No memories here.\n".to_owned();
    }
    let mut text = String::new();
    let mut node = "";
    for memory in &list.memories {
        if memory.node != node {
            node = &memory.node;
            text.push_str(&format!("{node}:\n"));
        }
        text.push_str(&format!(
            "  {}  {} — {}\n",
            memory.id, memory.title, memory.preview
        ));
    }
    if list.total > list.memories.len() {
        text.push_str(&format!(
            "({} of {} shown; raise --limit for more)\n",
            list.memories.len(),
            list.total
        ));
    }
    for problem in &list.problems {
        text.push_str(&format!("left out: {problem}\n"));
    }
    text
}

/// One memory for people: what was done, its metadata, its text.
fn record_text(action: &MemoryCommand, record: &MemoryRecord) -> String {
    let done = match action {
        MemoryCommand::Add { .. } => "Saved ",
        MemoryCommand::Edit { .. } => "Updated ",
        MemoryCommand::Rm { .. } => "Moved to the trash (restore with `ai-rulez memory restore`): ",
        MemoryCommand::Restore { .. } => "Restored ",
        MemoryCommand::List { .. } | MemoryCommand::Show { .. } => "",
    };
    format!(
        "{done}{} — {}\nfile: {}\nversion: {}\nsource: {}, created {}, updated {}\n\n{}\n",
        record.id,
        record.title,
        record.path,
        record.version_id,
        record.source,
        record.created,
        record.updated,
        record.content
    )
}
