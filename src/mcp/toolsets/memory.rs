//! The `memory` toolset: team memory for a path. Memories (list, read, write, update with
//! optimistic concurrency, soft delete, restore) and navigation (`get_tree`, `resolve`,
//! `read_items`). Each handler is one call into [`crate::memory`]. Memories are read from disk
//! on every call and are not part of the cached catalog, so writing one keeps the catalog and
//! the next read still sees it.

use super::super::memory_args::{
    DeleteMemoryArgs, GetTreeArgs, ListMemoriesArgs, MemoryIdArgs, ReadItemsArgs, ResolveArgs,
    UpdateMemoryArgs, WriteMemoryArgs,
};
use super::super::registry::{
    Answer, Handler, Hints, Pairing, Reply, ToolError, ToolSpec, Toolset,
};
use crate::memory::memories::{self, Change, MemoryError, MemoryRecord, NewMemory, Source, Store};
use crate::memory::navigation::{
    self, DEFAULT_LIST_LIMIT, MemoryList, ReadItemsReply, ResolveReply, TreeReply,
};
use crate::retrieval::Catalog;

/// The toolset's tools, in listing order: the memory tools, then navigation.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        list_memories(),
        read_memory(),
        write_memory(),
        update_memory(),
        delete_memory(),
        restore_memory(),
        get_tree(),
        resolve(),
        read_items(),
    ]
}

impl From<MemoryError> for ToolError {
    fn from(error: MemoryError) -> Self {
        Self(error.to_string())
    }
}

/// Changes a memory and may be refused on a version mismatch, so calling again is not a no-op.
const CHANGE: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: false,
};

/// `path` made project-relative (absolute paths must lie inside the project).
fn relative_path(catalog: &Catalog, path: &str) -> Result<String, ToolError> {
    crate::retrieval::project_relative(&catalog.project.root, path).ok_or_else(|| {
        ToolError(format!(
            "`{}` is outside project `{}`; give a path inside it",
            path.escape_debug(),
            catalog.project.config.name
        ))
    })
}

/// The reply text of a memory: its id, version and text.
fn memory_text(verb: &str, record: &MemoryRecord) -> String {
    format!(
        "{verb} memory `{}` \"{}\" (version_id {}, updated {}):\n\n{}",
        record.id, record.title, record.version_id, record.updated, record.content
    )
}

fn list_memories() -> ToolSpec {
    ToolSpec {
        name: "list_memories".into(),
        title: "Memories of a path".into(),
        description: "Lists the team's memories for a file or folder: those of its folder and of every enclosing folder up to the whole project, nearest first, each with id, title and first line. Without a path, every memory of the project. Read one with read_memory.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory list"),
        handler: Handler::new(|server, args: ListMemoriesArgs| -> Reply<MemoryList> {
            let limit = args
                .limit
                .map_or(DEFAULT_LIST_LIMIT, |limit| limit.clamp(1, 500) as usize);
            let hint = args.path.as_deref();
            server.read(args.working_directory.as_deref(), hint, |catalog, _| {
                let path = match &args.path {
                    Some(path) => Some(relative_path(catalog, path)?),
                    None => None,
                };
                let store = Store::of(&catalog.project);
                let list = navigation::list_memories(&store, path.as_deref(), limit)?;
                Ok(Answer::data(list))
            })
        }),
    }
}

fn read_memory() -> ToolSpec {
    ToolSpec {
        name: "read_memory".into(),
        title: "Read a memory".into(),
        description: "Returns a memory's text and its version_id (pass it as expected_version_id to update_memory or delete_memory).".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory show"),
        handler: Handler::new(|server, args: MemoryIdArgs| -> Reply<MemoryRecord> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let record = memories::read_memory(&Store::of(&catalog.project), &args.id)?;
                Ok(Answer::text(memory_text("The", &record), record))
            })
        }),
    }
}

fn write_memory() -> ToolSpec {
    ToolSpec {
        name: "write_memory".into(),
        title: "Save a memory".into(),
        description: "Saves what the next person or agent working in a folder should know (a decision, a pitfall, how something works) as a memory of that folder (`_`: the whole project). A second memory with the same title at one folder is refused unless allow_duplicate. The text is screened like every saved text. Memories are committed with the repository and never copied into assistant files.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory add"),
        handler: Handler::new(|server, args: WriteMemoryArgs| -> Reply<MemoryRecord> {
            let new = NewMemory {
                node_path: args.node_path,
                title: args.title,
                content: args.content,
                allow_duplicate: args.allow_duplicate.unwrap_or(false),
                source: Source::Mcp,
            };
            let result = server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let store = Store::of(&catalog.project);
                Ok(memories::write_memory(&store, &new))
            })?;
            let record = result?;
            Ok(Answer::text(memory_text("Saved", &record), record))
        }),
    }
}

fn update_memory() -> ToolSpec {
    ToolSpec {
        name: "update_memory".into(),
        title: "Change a memory".into(),
        description: "Changes a memory's text (the whole `content`, or one exact `edit`) and/or moves it to another folder, only if it is still the version you read (expected_version_id). On a mismatch nothing is saved and the error gives the current version_id and text: merge your change into it and call again with that version_id.".into(),
        hints: CHANGE,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory edit"),
        handler: Handler::new(|server, args: UpdateMemoryArgs| -> Reply<MemoryRecord> {
            let change = match (args.content, args.edit) {
                (Some(content), None) => Change::Replace(content),
                (None, Some(edit)) => Change::Edit {
                    old: edit.old,
                    new: edit.new,
                },
                (None, None) if args.move_to.is_some() => Change::Keep,
                _ => {
                    return Err(ToolError(
                        "give either `content` (the whole new text) or `edit` ({old, new}), not both; or only `move_to` to move the memory".to_owned(),
                    ));
                }
            };
            let result = server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let store = Store::of(&catalog.project);
                let updated = memories::update_memory(
                    &store,
                    &args.id,
                    &change,
                    args.move_to.as_deref(),
                    Some(&args.expected_version_id),
                    Source::Mcp,
                );
                Ok(updated)
            })?;
            let record = result?;
            Ok(Answer::text(memory_text("Updated", &record), record))
        }),
    }
}

fn delete_memory() -> ToolSpec {
    ToolSpec {
        name: "delete_memory".into(),
        title: "Delete a memory".into(),
        description: "Moves a memory to the trash (.ai-rulez/memories/.trash/), only if it is still the version you read; restore_memory brings it back. Returns the memory as it was.".into(),
        hints: Hints::REMOVE,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory rm"),
        handler: Handler::new(|server, args: DeleteMemoryArgs| -> Reply<MemoryRecord> {
            let result = server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let store = Store::of(&catalog.project);
                let deleted =
                    memories::delete_memory(&store, &args.id, Some(&args.expected_version_id));
                Ok(deleted)
            })?;
            let record = result?;
            Ok(Answer::text(memory_text("Deleted (restorable)", &record), record))
        }),
    }
}

fn restore_memory() -> ToolSpec {
    ToolSpec {
        name: "restore_memory".into(),
        title: "Restore a deleted memory".into(),
        description: "Brings a deleted memory back from the trash to its folder; refused if a new memory took its id meanwhile.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("memory restore"),
        handler: Handler::new(|server, args: MemoryIdArgs| -> Reply<MemoryRecord> {
            let result = server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let store = Store::of(&catalog.project);
                Ok(memories::restore_memory(&store, &args.id))
            })?;
            let record = result?;
            Ok(Answer::text(memory_text("Restored", &record), record))
        }),
    }
}

fn get_tree() -> ToolSpec {
    ToolSpec {
        name: "get_tree".into(),
        title: "Folders that carry memories".into(),
        description: "Shows which folders carry team memories, with how many each has itself and below it, from a folder (default: the whole project) down to `depth` levels. Use it to find where knowledge is before list_memories.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people list .ai-rulez/memories/"),
        handler: Handler::new(|server, args: GetTreeArgs| -> Reply<TreeReply> {
            let depth = args.depth.map_or(3, |depth| depth.min(32) as usize);
            server.read(args.working_directory.as_deref(), args.path.as_deref(), |catalog, _| {
                let path = match &args.path {
                    Some(path) => Some(relative_path(catalog, path)?),
                    None => None,
                };
                let store = Store::of(&catalog.project);
                Ok(Answer::data(navigation::get_tree(&store, path.as_deref(), depth)?))
            })
        }),
    }
}

fn resolve() -> ToolSpec {
    ToolSpec {
        name: "resolve".into(),
        title: "What a name or path stands for".into(),
        description: "Finds what a name or path refers to: a memory id (live or deleted), a file or folder of the project (with how many memories apply there), a rule or other item id, or memories whose title contains the words.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people search .ai-rulez/ with their editor"),
        handler: Handler::new(|server, args: ResolveArgs| -> Reply<ResolveReply> {
            super::refuse_hidden_characters_in_words("name_or_path", &args.name_or_path)?;
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(navigation::resolve(catalog, &args.name_or_path)?))
            })
        }),
    }
}

fn read_items() -> ToolSpec {
    ToolSpec {
        name: "read_items".into(),
        title: "Read several memories or items".into(),
        description: "Reads up to 20 memories or rules (or other items) by id in one call, in the order given: full text, and a memory's version_id. An unknown id is reported in its entry.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people open the files"),
        handler: Handler::new(|server, args: ReadItemsArgs| -> Reply<ReadItemsReply> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(navigation::read_items(catalog, &args.ids)?))
            })
        }),
    }
}
