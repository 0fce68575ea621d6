//! `ai-rulez hook install`: a git pre-commit hook that runs `ai-rulez lock --check --staged`.
//! It respects `core.hooksPath` and refuses to replace a hook it did not write.

use anyhow::{Context as _, bail};

use super::{Global, out};

/// First lines of the hook; the marker proves ai-rulez wrote it.
const MARKER: &str = "# ai-rulez pre-commit hook (written by `ai-rulez hook install`)";

/// Runs `hook install`; returns the exit code.
///
/// Errors: no git repository, or an existing hook that ai-rulez did not write.
pub(crate) fn install(global: &Global) -> anyhow::Result<u8> {
    let repository =
        gix::discover(&global.start).context("no git repository found; run `git init` first")?;
    // Absolute, so a hooks path given as an absolute path is recognised as inside the work tree.
    let workdir = fs_err::canonicalize(
        repository
            .workdir()
            .context("the repository has no work tree")?,
    )?;
    // `trusted_path` interpolates `~/` and `%(prefix)/` as git does for this pathname key; the
    // raw string would put a `~/hooks` setting inside the work tree as a folder named `~`.
    let hooks_path = repository
        .config_snapshot()
        .trusted_path("core.hooksPath")
        .context("reading core.hooksPath")?;
    let hooks_dir = match hooks_path {
        Some(path) => {
            if path.is_absolute() {
                path
            } else {
                workdir.join(path)
            }
        }
        None => repository.git_dir().join("hooks"),
    };
    let hook = hooks_dir.join("pre-commit");
    let script = format!(
        "#!/bin/sh\n{MARKER}\n# Refuses a commit whose .ai-rulez sources and generated files disagree with the lock.\nexec ai-rulez lock --check --staged\n"
    );
    // A hooks folder inside the work tree (a committed `core.hooksPath`) is reached through the
    // confined file layer, so a committed symlink cannot redirect the read or the write.
    // Resolved lexically (never through the file system, which would follow links).
    let inside = hook.strip_prefix(&workdir).ok().and_then(lexical_relative);
    let work_tree = crate::confined_fs::ProjectDir::open(&workdir)?;
    // Shown as typed in messages: relative to the work tree when inside it.
    let shown = inside.as_ref().map_or_else(
        || hook.display().to_string(),
        |relative| format!("./{relative}"),
    );
    let existing = match &inside {
        Some(relative) => work_tree
            .read(relative, 1024 * 1024)?
            .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned()),
        None => fs_err::read_to_string(&hook).ok(),
    };
    if let Some(existing) = existing {
        if existing == script {
            out(&format!("unchanged: {shown}"));
            return Ok(0);
        }
        if existing.contains(MARKER) {
            bail!(
                "{shown} was written by ai-rulez and then edited; it is left alone. Keep your edits and make sure it still runs:\n    ai-rulez lock --check --staged || exit 1\nor delete it and run `ai-rulez hook install` again"
            );
        }
        bail!(
            "{shown} exists and was not written by ai-rulez; it is left alone. To chain the check, add this line to it:\n    ai-rulez lock --check --staged || exit 1"
        );
    }
    if let Some(relative) = &inside {
        work_tree.create_new(relative, script.as_bytes(), 0o755)?;
    } else {
        fs_err::create_dir_all(&hooks_dir)?;
        fs_err::write(&hook, &script)?;
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .context("making the hook executable")?;
    }
    out(&format!("installed: {shown}"));
    Ok(0)
}

/// A path relative to the work tree as a plain `/`-separated path, with `.` and `..` resolved
/// lexically; `None` when it leaves the work tree or is not UTF-8 (a hooks folder outside it is
/// the user's own git setting, written as configured).
fn lexical_relative(relative: &std::path::Path) -> Option<String> {
    let relative = camino::Utf8Path::from_path(relative)?;
    crate::confined_fs::normalise_relative(relative.as_str()).filter(|path| !path.is_empty())
}
