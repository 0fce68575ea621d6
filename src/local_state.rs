//! The machine-local folder `<config folder>/local/`: usage counts, the review ledger, the
//! activity log, the writer's output stats and the memo of the last no-op `generate` describe
//! one machine and must never reach git. This module names the folder's files and makes the folder ignore itself with its own
//! `.gitignore`, so it stays out of git even when the managed `.gitignore` block is off (the
//! default).

use crate::confined_fs::ProjectDir;
use crate::error::Result;
use crate::project::Project;

/// The name of the ignore file inside the machine-local folder.
pub(crate) const IGNORE_FILE: &str = ".gitignore";

/// What the folder's ignore file holds: a comment saying why, and `*` (git then ignores every
/// file in the folder, the ignore file included).
const IGNORE_TEXT: &str =
    "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n";

/// The project-relative path of the file `name` in the machine-local folder: `.ai-rulez/local/`
/// for a project configured by a root `ai-rulez.toml` too.
#[must_use]
pub(crate) fn path(project: &Project, name: &str) -> String {
    format!("{}/local/{name}", crate::memory::base_folder(project))
}

/// Makes sure the machine-local folder holds its ignore file; a file already there (ours or a
/// person's) is kept as it is. Call before writing any file of the folder.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O.
pub(crate) fn keep_out_of_git(project: &Project) -> Result<()> {
    let folder = path(project, "");
    keep_folder_out_of_git(&project.dir, folder.trim_end_matches('/'))
}

/// Makes sure the machine-local folder `local_folder` (project-relative, e.g.
/// `.ai-rulez/local`) holds its ignore file, for writers that have the project's folder but no
/// loaded project (`ai-rulez import`); a file already there is kept as it is.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O.
pub(crate) fn keep_folder_out_of_git(dir: &ProjectDir, local_folder: &str) -> Result<()> {
    let ignore = format!("{local_folder}/{IGNORE_FILE}");
    if dir.info(&ignore)?.is_some() {
        return Ok(());
    }
    match dir.create_new(&ignore, IGNORE_TEXT.as_bytes(), 0o644) {
        Ok(()) => Ok(()),
        // Another process created it between the look and the write: it is there, as wanted.
        Err(_) if dir.info(&ignore)?.is_some() => Ok(()),
        Err(error) => Err(error),
    }
}
