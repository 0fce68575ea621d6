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
    if project.config_dir_relative.is_empty() {
        ".ai-rulez"
    } else {
        &project.config_dir_relative
    }
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
