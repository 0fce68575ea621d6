//! The `context` toolset: the instruction files a repository already has outside `.ai-rulez/`
//! (nested `AGENTS.md`, `CLAUDE.md`, tool rule folders), found by path, scope or task and read
//! within a byte budget. A monorepo keeps much of its knowledge there.

use super::super::args::{FindContextArgs, LoadContextArgs};
use super::super::registry::{
    Answer, Handler, Hints, Pairing, Reply, ToolError, ToolSpec, Toolset,
};
use crate::instruction_files::{self, FindContextReply, FindContextRequest, LoadedContext};
use crate::retrieval;

/// The toolset's tools, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![find_context(), load_context()]
}

fn find_context() -> ToolSpec {
    ToolSpec {
        name: "find_context".into(),
        title: "Find the repository's instruction files".into(),
        description: "Finds instruction files the repository already has outside .ai-rulez/ (nested AGENTS.md, CLAUDE.md, GEMINI.md, .claude/rules, .cursor/rules, .github/instructions, agents), each in the scope of the folder holding it. With path: the files of the folders enclosing it, nearest first, and only the rules whose globs (relative to their scope) match it; a Cursor or Copilot rule read when its description fits the task comes only with a task matching it (activation: auto), and rules read only when mentioned or attached (activation: manual) only with scope. With scope: everything in that folder (recursive: and below). Returns summaries with a context:// URI; read one with load_context.".into(),
        hints: Hints::READ,
        toolset: Toolset::Context,
        pairing: Pairing::NoCommand(
            "people open the repository's AGENTS.md and rule folders; `explain PATH` lists those that apply to a path",
        ),
        handler: Handler::new(|server, args: FindContextArgs| -> Reply<FindContextReply> {
            let hint = args.path.as_deref();
            // A folder listed recursively has no single chain of folders to look along.
            let along = hint.or(args.scope.as_deref().filter(|_| args.recursive != Some(true)));
            server.read_instruction_files(args.working_directory.as_deref(), hint, along, |index, dir, root| {
                let path = match &args.path {
                    Some(path) => Some({
                        super::refuse_unservable_characters("path", path)?;
                        let relative = retrieval::project_relative(root, path).ok_or_else(|| {
                            ToolError(format!(
                                "`{}` is outside the project at {}",
                                path.escape_debug(),
                                root.display()
                            ))
                        })?;
                        super::refuse_backslash_separators("path", path, &relative, dir)?;
                        relative
                    }),
                    None => None,
                };
                let scope = args.scope.as_deref().map(|scope| project_scope(root, scope)).transpose()?;
                if let (Some(given), Some(relative)) = (args.scope.as_deref(), scope.as_deref()) {
                    super::refuse_backslash_separators("scope", given, relative, dir)?;
                }
                let request = FindContextRequest {
                    path,
                    scope,
                    recursive: args.recursive.unwrap_or(false),
                    task: args.task.clone(),
                    kind: args.kind.map(Into::into),
                    limit: args.limit.map_or(instruction_files::DEFAULT_LIMIT, |limit| limit as usize),
                };
                let mut reply = instruction_files::find_context(index, &request).map_err(ToolError)?;
                // A path behind a symlink or inside a folder the index never walks gets only the
                // files of the folders above it, which would read as "nothing else applies".
                if let Some((folder, note)) = request.path.as_deref().and_then(|path| unindexed_folder_on_the_way(dir, path)) {
                    // A linked tool folder is named already, by the index.
                    let prefix = format!("{folder}: ");
                    if !reply.withheld.iter().any(|entry| entry.starts_with(&prefix)) {
                        reply.withheld.push(format!("{prefix}{note}"));
                        reply.withheld.sort();
                    }
                }
                // An empty answer for a scope that is no folder would read as "this folder has
                // no instruction files"; say what the scope really names instead.
                if let Some(scope) = request.scope.as_deref().filter(|_| reply.total == 0) {
                    scope_is_a_folder(dir, scope)?;
                }
                Ok(Answer::text(instruction_files::context_text(&reply), reply))
            })
        }),
    }
}

fn load_context() -> ToolSpec {
    ToolSpec {
        name: "load_context".into(),
        title: "Read an instruction file".into(),
        description: "Reads one instruction file find_context found, by its context:// URI or by scope and name, as it is on disk now, within budget_bytes (default 65536; a longer file is cut at a line end and says so). Gives its hash and whether it changed since it was indexed. A file whose text the security screening flags is withheld.".into(),
        hints: Hints::READ,
        toolset: Toolset::Context,
        pairing: Pairing::NoCommand("people open the file"),
        handler: Handler::new(|server, args: LoadContextArgs| -> Reply<LoadedContext> {
            let along = args.scope.as_deref();
            server.read_instruction_files(args.working_directory.as_deref(), None, along, |index, dir, root| {
                // The scope is read as find_context reads it, so every spelling it lists a
                // file under (`./pkg/api`, absolute, `pkg/api/`) finds the same file here.
                let scope = args.scope.as_deref().map(|scope| project_scope(root, scope)).transpose()?;
                if let (Some(given), Some(relative)) = (args.scope.as_deref(), scope.as_deref()) {
                    super::refuse_backslash_separators("scope", given, relative, dir)?;
                }
                let scope_and_name = match (&scope, &args.name) {
                    (Some(scope), Some(name)) => Some((scope.as_str(), name.as_str())),
                    (None, None) => None,
                    _ => {
                        return Err(ToolError(
                            "give scope and name together, or uri alone".to_owned(),
                        ));
                    }
                };
                let budget = args
                    .budget_bytes
                    .map_or(instruction_files::DEFAULT_BUDGET_BYTES, |bytes| bytes as usize);
                let loaded = instruction_files::load_context(
                    index,
                    dir,
                    args.uri.as_deref(),
                    scope_and_name,
                    budget,
                )
                .map_err(ToolError)?;
                Ok(Answer::text(instruction_files::loaded_text(&loaded), loaded))
            })
        }),
    }
}

/// The project-relative folder a `scope` argument names (`.` for the root): relative to the
/// project root at `root` or absolute inside it, with or without a trailing `/` or a leading
/// `./`. Errors: a scope outside the project, with the root to name it from.
fn project_scope(root: &std::path::Path, scope: &str) -> Result<String, ToolError> {
    super::refuse_unservable_characters("scope", scope)?;
    if scope.is_empty() || scope.trim_end_matches('/') == "." {
        return Ok(".".to_owned());
    }
    let folder = match scope.trim_end_matches('/') {
        "" => scope,
        trimmed => trimmed,
    };
    let relative = retrieval::project_relative(root, folder).ok_or_else(|| {
        ToolError(format!(
            "scope `{}` is not a folder inside the project at {}; give it relative to the project root, `.` for the root",
            scope.escape_debug(),
            root.display()
        ))
    })?;
    Ok(if relative.is_empty() {
        ".".to_owned()
    } else {
        relative
    })
}

/// The first folder on the way to the project-relative `path`, or `path` itself when it is
/// one, whose instruction files the index never holds: a symlink (never followed, see
/// [`crate::confined_fs::ProjectDir::first_link_on_the_way`]) or a folder it never walks
/// (`.git`, `node_modules`, ...: by name above the path, even before it exists; the path itself
/// only when it is that folder, not a file named so). Output: the folder (escaped as replies
/// show names) and why, as `find_context` lists what it withholds; `None` when every folder on
/// the way is walked. Never fails: a folder that cannot be looked at is left unnamed.
fn unindexed_folder_on_the_way(
    dir: &crate::confined_fs::ProjectDir,
    path: &str,
) -> Option<(String, &'static str)> {
    let components: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    let depth_of = |folder: &str| folder.split('/').count();
    let skipped = components
        .iter()
        .position(|part| crate::instruction_files::SKIPPED_FOLDERS.contains(part))
        .map(|index| components[..=index].join("/"))
        .filter(|folder| {
            depth_of(folder) < components.len() || crate::retrieval::is_folder(dir, folder)
        });
    let link = dir.first_link_on_the_way(path);
    let (folder, why) = match (link, skipped) {
        // The shallower of the two hides the other.
        (Some(link), Some(skipped)) if depth_of(&skipped) < depth_of(&link) => (skipped, UNWALKED),
        (Some(link), _) if depth_of(&link) == components.len() => (
            link,
            "a symlink, never followed, so no instruction file behind it is served; the files of the folders above it still apply",
        ),
        (Some(link), _) => (
            link,
            "a symlink on the way to the path, never followed, so no instruction file behind it is served; the files of the folders above it still apply",
        ),
        (None, Some(skipped)) => (skipped, UNWALKED),
        (None, None) => return None,
    };
    Some((crate::lint::screen::escape_unreadable(&folder), why))
}

/// Why a folder [`unindexed_folder_on_the_way`] names as never walked holds nothing served.
const UNWALKED: &str = "a folder the index never walks (version control, dependencies, build output, ai-rulez's own items), so no instruction file inside it is served; the files of the folders above it still apply";

/// Checks that the project-relative `scope` is a folder of the project, without following a
/// symlink. Errors: a sentence naming what it is instead (a file, a symlink, nothing) and what
/// to ask for.
fn scope_is_a_folder(dir: &crate::confined_fs::ProjectDir, scope: &str) -> Result<(), ToolError> {
    use crate::confined_fs::EntryKind;
    if scope == "." {
        return Ok(());
    }
    let shown = scope.escape_debug();
    let what = match dir.info(scope) {
        Ok(Some(info)) => info.kind,
        Ok(None) => {
            return Err(ToolError(format!(
                "scope `{shown}` is no folder of the project (nothing is there); give an existing folder relative to the project root, `.` for the root"
            )));
        }
        // A folder on the way is a symlink or cannot be read: nothing there is indexed, and
        // the error says why.
        Err(error) => {
            return Err(ToolError(format!(
                "scope `{shown}` cannot be listed: {error}"
            )));
        }
    };
    let holder = scope.rsplit_once('/').map_or(".", |(folder, _)| folder);
    match what {
        EntryKind::Folder => {
            // Inside a folder the index never walks, an empty answer would read as "no
            // instruction files here" when nothing there was looked at.
            let skipped = scope
                .split('/')
                .find(|part| crate::instruction_files::SKIPPED_FOLDERS.contains(part));
            match skipped {
                None => Ok(()),
                Some(folder) => Err(ToolError(format!(
                    "scope `{shown}` is inside `{}`, a folder the index never walks (version control, dependencies, build output and ai-rulez's own items, which get_rules serves); give a folder of the project's own files",
                    folder.escape_debug()
                ))),
            }
        }
        EntryKind::File => Err(ToolError(format!(
            "scope `{shown}` is a file, not a folder; pass it as `path` for the instruction files that apply to it, or its folder `{}` as `scope`",
            holder.escape_debug()
        ))),
        EntryKind::Symlink => Err(ToolError(format!(
            "scope `{shown}` is a symlink, which is never followed: instruction files behind it are not indexed; give the real folder"
        ))),
        EntryKind::Other => Err(ToolError(format!(
            "scope `{shown}` is a pipe, socket or device, not a folder; give a folder relative to the project root"
        ))),
    }
}
