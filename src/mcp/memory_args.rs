//! Argument types of the `memory` toolset's tools (doc comments become the schema
//! descriptions, so they stay short). Kept apart from `args.rs` so the team-memory tools are
//! one concept in one place.

use schemars::JsonSchema;
use serde::Deserialize;

/// `list_memories` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListMemoriesArgs {
    /// A file or folder (relative to the project root, or absolute): its folder's memories and those of every enclosing folder, nearest first. Default: every memory of the project.
    pub(crate) path: Option<String>,
    /// Most memories to list (default 50).
    #[schemars(range(min = 1, max = 500))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Arguments naming one memory.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct MemoryIdArgs {
    /// Memory id `<node path>/<slug>`, e.g. `src/api/retry-policy` or `_/release-steps`.
    pub(crate) id: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `write_memory` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteMemoryArgs {
    /// The folder the memory is about, relative to the project root (`src/api`), or `_` for the whole project.
    pub(crate) node_path: String,
    /// A few words, one line (at most 120 characters).
    pub(crate) title: String,
    /// The memory in Markdown: what the next person or agent working here should know.
    pub(crate) content: String,
    /// Keep a second memory with the same title at this folder (default: refused).
    pub(crate) allow_duplicate: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// A replacement of one exact piece of a memory's text.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EditArgs {
    /// Text that occurs exactly once in the memory.
    pub(crate) old: String,
    /// What replaces it.
    pub(crate) new: String,
}

/// `update_memory` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateMemoryArgs {
    /// Memory id.
    pub(crate) id: String,
    /// The whole new text (give this or `edit`).
    pub(crate) content: Option<String>,
    /// Replace one exact piece of the text (give this or `content`).
    pub(crate) edit: Option<EditArgs>,
    /// Move the memory to this folder (`_`: the whole project); its id changes.
    pub(crate) move_to: Option<String>,
    /// The `version_id` you read; on a mismatch nothing is saved and the current version and text come back for you to merge.
    pub(crate) expected_version_id: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `delete_memory` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteMemoryArgs {
    /// Memory id.
    pub(crate) id: String,
    /// The `version_id` you read; the delete is refused if the memory changed since.
    pub(crate) expected_version_id: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `get_tree` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetTreeArgs {
    /// Folder to start at (default: the whole project).
    pub(crate) path: Option<String>,
    /// Folders below the start to show (default 3); deeper memories still count in totals.
    #[schemars(range(min = 0, max = 32))]
    pub(crate) depth: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `resolve` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResolveArgs {
    /// A memory id, a rule or other item id, a file or folder path, or words of a memory title.
    pub(crate) name_or_path: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `read_items` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadItemsArgs {
    /// Up to 20 memory ids or item ids (as `get_context` and `list_memories` show them).
    pub(crate) ids: Vec<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}
