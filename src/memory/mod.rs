//! Team memory for a path: what agents and people learn about a place in the repository, kept
//! as files under `.ai-rulez/` (reviewed in pull requests) or, when it describes one machine,
//! under `.ai-rulez/local/`, served by the MCP `memory` toolset and the `memory`, `learnings`
//! and `activity` commands, and never generated into assistant files. Memories per folder
//! ([`memories`], [`navigation`], [`node`], [`record`]), learnings checked against the code
//! ([`learnings`], [`learning_file`], [`learnings_review`]), the queue of items someone asked to
//! refresh ([`refresh`]) and the activity log ([`activity`]).

pub(crate) mod activity;
pub(crate) mod learning_file;
pub(crate) mod learnings;
pub(crate) mod learnings_review;
pub(crate) mod memories;
pub(crate) mod navigation;
pub(crate) mod node;
pub(crate) mod record;
pub(crate) mod refresh;

use crate::error::{Error, Result};
use crate::project::Project;

/// The project-relative folder team memory lives in: the config folder (`.ai-rulez`), or
/// `.ai-rulez` for a project configured by a root `ai-rulez.toml`.
#[must_use]
pub(crate) fn base_folder(project: &Project) -> &str {
    base_folder_of(&project.config_dir_relative)
}

/// [`base_folder`] of a project whose config folder is `config_dir_relative` (empty for a root
/// `ai-rulez.toml`), for code that runs before the project is loaded.
pub(crate) fn base_folder_of(config_dir_relative: &str) -> &str {
    if config_dir_relative.is_empty() {
        ".ai-rulez"
    } else {
        config_dir_relative
    }
}

/// Folder names, inside [`base_folder`], of the three kinds of team memory.
pub(crate) const MEMORIES_FOLDER: &str = "memories";
pub(crate) const LEARNINGS_FOLDER: &str = "learnings";
pub(crate) const REFRESH_FOLDER: &str = "refresh-requests";

/// The project-relative folders of team memory (memories, learnings, refresh requests) of a
/// project whose config folder is `config_dir_relative`, in that order.
pub(crate) fn folders_of(config_dir_relative: &str) -> [String; 3] {
    let base = base_folder_of(config_dir_relative);
    [MEMORIES_FOLDER, LEARNINGS_FOLDER, REFRESH_FOLDER].map(|folder| format!("{base}/{folder}"))
}

/// Checks that `id` can name a file of team memory: lowercase ASCII letters, digits and inner
/// dashes, at most 100 characters.
///
/// Errors: [`Error::Usage`] naming the id.
pub(crate) fn check_id(id: &str) -> Result<()> {
    let plain = !id.is_empty()
        && id.len() <= 100
        && !id.starts_with('-')
        && !id.ends_with('-')
        && id
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-');
    if plain {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "`{}` is not an id: ids are lowercase letters, digits and dashes, as the listing shows them",
            id.escape_debug()
        )))
    }
}

/// Today as `YYYY-MM-DD` (see [`crate::learning::day`]).
#[must_use]
pub(crate) fn today() -> String {
    crate::learning::day::format(crate::learning::day::today())
}
