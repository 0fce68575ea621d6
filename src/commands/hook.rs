//! `ai-rulez hook install` and `hook uninstall`: the git pre-commit hook that runs
//! `ai-rulez lock --check --staged`. Both respect `core.hooksPath`; neither replaces nor removes
//! a hook whose content does not prove ai-rulez wrote it.

use std::path::PathBuf;

use anyhow::{Context as _, bail};

use super::{Global, out};
use crate::confined_fs::ProjectDir;

/// Second line of the hook; with the rest of the script it proves ai-rulez wrote the file.
const MARKER: &str = "# ai-rulez pre-commit hook (written by `ai-rulez hook install`)";

/// The hook earlier versions wrote: still recognised as ours, so `install` upgrades it and
/// `uninstall` removes it.
const EARLIER_SCRIPT: &str = "#!/bin/sh\n# ai-rulez pre-commit hook (written by `ai-rulez hook install`)\n# Refuses a commit whose .ai-rulez sources and generated files disagree with the lock.\nexec ai-rulez lock --check --staged\n";

/// Where the pre-commit hook of the repository around the start folder lives.
struct HookLocation {
    /// Absolute path of the hook file.
    hook: PathBuf,
    /// The hook's path relative to the work tree, when it lies inside it (then every access
    /// goes through the confined file layer, so a committed symlink cannot redirect it).
    inside: Option<String>,
    /// The work tree, opened through the confined file layer.
    work_tree: ProjectDir,
    /// The path as messages show it: `./<relative>` inside the work tree, else absolute.
    shown: String,
}

impl HookLocation {
    /// Finds the repository and its hooks folder (`core.hooksPath`, else `.git/hooks`).
    ///
    /// Errors: no git repository around the start folder; a repository without a work tree;
    /// an unreadable `core.hooksPath`.
    fn find(global: &Global) -> anyhow::Result<Self> {
        let Ok(repository) = gix::discover(&global.start) else {
            let start =
                fs_err::canonicalize(&global.start).unwrap_or_else(|_| global.start.clone());
            bail!(
                "{} is not inside a git repository; the pre-commit hook belongs to one, so run this in your repository (or `git init` first)",
                start.display()
            );
        };
        // Absolute, so a hooks path given as an absolute path is recognised as inside the work tree.
        let workdir = fs_err::canonicalize(repository.workdir().context(
            "the repository has no work tree (a bare repository has no commits to check)",
        )?)?;
        // `trusted_path` interpolates `~/` and `%(prefix)/` as git does for this pathname key;
        // the raw string would put a `~/hooks` setting inside the work tree as a folder named `~`.
        let hooks_path = repository
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .context("reading core.hooksPath")?;
        let hooks_dir = match hooks_path {
            Some(path) if path.is_absolute() => path,
            Some(path) => workdir.join(path),
            None => repository.git_dir().join("hooks"),
        };
        let hook = hooks_dir.join("pre-commit");
        // Resolved lexically (never through the file system, which would follow links).
        let inside = hook.strip_prefix(&workdir).ok().and_then(lexical_relative);
        let work_tree = ProjectDir::open(&workdir)?;
        let shown = inside.as_ref().map_or_else(
            || hook.display().to_string(),
            |relative| format!("./{relative}"),
        );
        Ok(Self {
            hook,
            inside,
            work_tree,
            shown,
        })
    }

    /// The hook's text, `None` when there is none.
    fn read(&self) -> anyhow::Result<Option<String>> {
        Ok(match &self.inside {
            Some(relative) => self
                .work_tree
                .read(relative, 1024 * 1024)?
                .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned()),
            None => fs_err::read_to_string(&self.hook).ok(),
        })
    }

    /// The script `install` writes here: when `ai-rulez` is not on `PATH` it says how to
    /// install it (or remove this hook) and fails the commit, instead of the shell's bare
    /// `exec: ai-rulez: not found`.
    fn script(&self) -> String {
        format!(
            "#!/bin/sh\n{MARKER}\n# Refuses a commit whose .ai-rulez sources and generated files disagree with the lock.\n\
             if ! command -v ai-rulez >/dev/null 2>&1; then\n\
             \x20   echo 'ai-rulez pre-commit hook: the ai-rulez command is not on PATH, so the lock cannot be checked.' >&2\n\
             \x20   echo 'Install it (in a checkout of ai-rulez: cargo install --path . ; see its README), or delete {shown} to stop this check.' >&2\n\
             \x20   exit 1\n\
             fi\n\
             exec ai-rulez lock --check --staged\n",
            shown = self.shown
        )
    }
}

/// Runs `hook install`; returns the exit code. Prints `installed:`, `updated:` (a hook an
/// earlier version wrote) or `unchanged:` with the hook's path.
///
/// Errors: no git repository, or an existing hook that ai-rulez did not write (or wrote and
/// someone edited).
pub(crate) fn install(global: &Global) -> anyhow::Result<u8> {
    let location = HookLocation::find(global)?;
    let script = location.script();
    let shown = &location.shown;
    let existing = location.read()?;
    let word = match existing.as_deref() {
        Some(existing) if existing == script => {
            out(&format!("unchanged: {shown}"));
            return Ok(0);
        }
        Some(EARLIER_SCRIPT) => "updated",
        Some(existing) if existing.contains(MARKER) => bail!(
            "{shown} was written by ai-rulez and then edited; it is left alone. Keep your edits and make sure it still runs:\n    ai-rulez lock --check --staged || exit 1\nor delete it and run `ai-rulez hook install` again"
        ),
        Some(_) => bail!(
            "{shown} exists and was not written by ai-rulez; it is left alone. To chain the check, add this line to it:\n    ai-rulez lock --check --staged || exit 1"
        ),
        None => "installed",
    };
    match (&location.inside, word) {
        (Some(relative), "updated") => {
            location
                .work_tree
                .write(relative, script.as_bytes(), 0o755)?;
        }
        (Some(relative), _) => {
            location
                .work_tree
                .create_new(relative, script.as_bytes(), 0o755)?;
        }
        (None, _) => {
            if let Some(folder) = location.hook.parent() {
                fs_err::create_dir_all(folder)?;
            }
            fs_err::write(&location.hook, &script)?;
            std::fs::set_permissions(
                &location.hook,
                std::os::unix::fs::PermissionsExt::from_mode(0o755),
            )
            .context("making the hook executable")?;
        }
    }
    out(&format!("{word}: {shown}"));
    Ok(0)
}

/// Runs `hook uninstall`; returns the exit code. Removes the hook only when its content is
/// exactly what `install` writes (or wrote in an earlier version) and prints `removed:`; prints
/// `absent:` when there is no hook.
///
/// Errors: no git repository; a hook ai-rulez did not write, or wrote and someone edited (it is
/// left alone, and the message says how to remove the ai-rulez line by hand).
pub(crate) fn uninstall(global: &Global) -> anyhow::Result<u8> {
    let location = HookLocation::find(global)?;
    let shown = &location.shown;
    let Some(existing) = location.read()? else {
        out(&format!("absent: {shown}"));
        return Ok(0);
    };
    if existing != location.script() && existing != EARLIER_SCRIPT {
        if existing.contains(MARKER) {
            bail!(
                "{shown} was written by ai-rulez and then edited; it is left alone. Remove the `ai-rulez lock --check --staged` line from it yourself, or delete it if nothing else in it is needed"
            );
        }
        bail!(
            "{shown} was not written by ai-rulez; it is left alone. If it runs `ai-rulez lock --check --staged`, remove that line yourself"
        );
    }
    match &location.inside {
        Some(relative) => {
            location.work_tree.remove_file(relative)?;
        }
        None => fs_err::remove_file(&location.hook)?,
    }
    out(&format!("removed: {shown}"));
    Ok(0)
}

/// A path relative to the work tree as a plain `/`-separated path, with `.` and `..` resolved
/// lexically; `None` when it leaves the work tree or is not UTF-8 (a hooks folder outside it is
/// the user's own git setting, written as configured).
fn lexical_relative(relative: &std::path::Path) -> Option<String> {
    let relative = camino::Utf8Path::from_path(relative)?;
    crate::confined_fs::normalise_relative(relative.as_str()).filter(|path| !path.is_empty())
}
