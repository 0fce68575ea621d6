//! The lock commands' work on a project: write the lock, and compare it with the working tree or
//! the git index. `lock --check` reads only `.ai-rulez/`, the lock and the pinned outputs: it
//! never renders, so it stays fast on big monorepos.

use std::path::Path;

use super::sources::{self, Snapshot};
use super::{
    Change, LockFile, PinnedServer, output_changes, pinned_outputs, server_digest, source_changes,
};
use crate::error::{Error, Result};
use crate::manifest::Manifest;
use crate::project;
use crate::write::{self, Mode};

/// Where a project's lock lives, from the project root and config path.
#[derive(Debug, Clone)]
pub(crate) struct LockPaths {
    /// Absolute project root.
    pub root: std::path::PathBuf,
    /// Config file, project-relative.
    pub config_file: String,
    /// Config folder, project-relative (empty for a root `ai-rulez.toml`).
    pub config_dir: String,
    /// Lock file, project-relative.
    pub lock_file: String,
}

/// Finds the project around `start` (without loading it).
///
/// Errors: [`Error::NoProject`].
pub(crate) fn locate(start: &Path) -> Result<LockPaths> {
    let (root, config_file, _) = project::discover(start)?;
    let config_dir = config_file
        .rsplit_once('/')
        .map(|(directory, _)| directory.to_owned())
        .unwrap_or_default();
    Ok(LockPaths {
        root,
        config_file: config_file.to_owned(),
        config_dir,
        lock_file: super::path_beside(config_file),
    })
}

/// Writes the lock for the project around `start`. Returns the lock path and whether its bytes
/// changed. Generated files must be up to date first.
///
/// Errors: load/render errors; [`Error::Refused`] when generated files drift from the sources.
pub fn write_lock(start: &Path, warnings: &mut Vec<String>) -> Result<(String, bool)> {
    let paths = locate(start)?;
    let (project, plan) = crate::generate::plan(
        start,
        None,
        Mode::Check,
        crate::git_include::GitIncludes::Fetch,
        warnings,
    )?;
    let settings = crate::generate::settings(&project, false, false);
    let report = write::apply(&plan, &settings, Mode::Check)?;
    if report.has_drift() {
        let lines: Vec<String> = report
            .changes
            .iter()
            .filter_map(|change| {
                change
                    .status
                    .check_word()
                    .map(|word| format!("{word}: {}", change.path))
            })
            .collect();
        // The advice comes before the list, so it reads as being about every file listed and
        // not about the last one alone.
        return Err(Error::refused(
            paths.lock_file,
            format!(
                "not written: {} generated file(s) differ from their sources; run `ai-rulez generate` first, then `ai-rulez lock`:\n{}",
                lines.len(),
                lines.join("\n")
            ),
        ));
    }
    let manifest_text = project
        .dir
        .read(&settings.manifest_path, 64 * 1024 * 1024)?
        .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let sections: Vec<String> = Manifest::parse(&settings.manifest_path, &manifest_text)
        .map(|manifest| manifest.sections.keys().cloned().collect())
        .unwrap_or_default();
    let snapshot = Snapshot::WorkTree(crate::confined_fs::ProjectDir::open(&paths.root)?);
    let items = sources::collect(&snapshot, &paths.config_dir, &paths.config_file)?;
    let servers = project
        .config
        .mcp_servers
        .iter()
        .map(|server| PinnedServer {
            name: server.name.clone(),
            digest: server_digest(server),
        })
        .collect();
    // A kept link (`AGENTS.md -> CLAUDE.md`) is not an output ai-rulez writes; its target is pinned.
    let mut outputs = pinned_outputs(&plan, &sections);
    outputs.retain(|output| !report.kept_links.contains(&output.path));
    let includes = project
        .fetched_includes
        .iter()
        .map(crate::git_include::FetchedInclude::pin)
        .collect();
    let lock = LockFile::new(items, outputs, servers, includes);
    let text = lock.to_text();
    let current = project
        .dir
        .read(&paths.lock_file, 64 * 1024 * 1024)?
        .map(|(bytes, _)| bytes);
    let changed = current.as_deref() != Some(text.as_bytes());
    if changed {
        let _lock = project.dir.lock()?;
        write::write_file(&project.dir, &paths.lock_file, text.as_bytes())?;
    }
    Ok((paths.lock_file, changed))
}

/// One git include whose pin `lock --update-includes` looked at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IncludeMove {
    /// The include's name.
    pub name: String,
    /// The commit pinned before (`None`: not pinned yet).
    pub from: Option<String>,
    /// The commit pinned now.
    pub to: String,
}

/// `lock --update-includes`: fetches every git include of the project around `start` and pins
/// the commit its `ref` names now, keeping every other entry of the lock as it is (the
/// generated files still match the old pins until `generate` runs). Without a lock it writes a
/// whole one, as `ai-rulez lock` does. Returns the lock path, whether its bytes changed, and one
/// entry per git include, in config order.
///
/// Errors: load errors (an include that cannot be fetched, among them); a lock that cannot be
/// read (run `ai-rulez lock`); as [`write_lock`] when there is no lock yet.
pub(crate) fn update_include_pins(
    start: &Path,
    warnings: &mut Vec<String>,
) -> Result<(String, bool, Vec<IncludeMove>)> {
    let paths = locate(start)?;
    let project = project::load_with(start, crate::git_include::GitIncludes::Update, warnings)?;
    let current = project
        .dir
        .read(&paths.lock_file, super::MAX_LOCK_BYTES)?
        .map(|(bytes, _)| String::from_utf8_lossy(&bytes).into_owned());
    let old = match &current {
        Some(text) => Some(LockFile::parse(&paths.lock_file, text)?),
        None => None,
    };
    let moves: Vec<IncludeMove> = project
        .fetched_includes
        .iter()
        .map(|fetched| IncludeMove {
            name: fetched.include.name.clone(),
            from: old.as_ref().and_then(|lock| {
                lock.includes
                    .iter()
                    .find(|row| row.is_for(&fetched.include))
                    .map(|row| row.commit.clone())
            }),
            to: fetched.commit.clone(),
        })
        .collect();
    let Some(old) = old else {
        drop(project);
        let (path, changed) = write_lock(start, warnings)?;
        return Ok((path, changed, moves));
    };
    let pins = project
        .fetched_includes
        .iter()
        .map(crate::git_include::FetchedInclude::pin)
        .collect();
    let text = old.with_includes(pins).to_text();
    let changed = current.as_deref() != Some(text.as_str());
    if changed {
        let _lock = project.dir.lock()?;
        write::write_file(&project.dir, &paths.lock_file, text.as_bytes())?;
    }
    Ok((paths.lock_file, changed, moves))
}

/// What to compare the lock with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The working tree.
    WorkTree,
    /// The git index (what is being committed).
    Staged,
}

/// Compares the lock with the working tree or the index: sources, MCP servers, and (unless
/// `sources_only`) outputs. Returns the differences, sorted as found (sources, then outputs).
///
/// Errors: no project; no lock (say to run `ai-rulez lock`); a damaged or newer lock; read errors;
/// [`Error::LiteralSecrets`] when a source item in the snapshot holds a literal secret, so the
/// pre-commit hook refuses a commit that would publish one.
pub fn check_lock(start: &Path, against: Against, sources_only: bool) -> Result<Vec<Change>> {
    let paths = locate(start)?;
    let snapshot = match against {
        Against::WorkTree => Snapshot::WorkTree(crate::confined_fs::ProjectDir::open(&paths.root)?),
        Against::Staged => Snapshot::from_index(&paths.root)?,
    };
    let Some((_, lock_bytes)) = snapshot.read(&paths.lock_file)? else {
        // Before the first commit with a lock, the one `ai-rulez lock` just wrote is only in
        // the working tree: staging is all that is left to do, so say exactly what to stage.
        if against == Against::Staged
            && let Some(unstaged) = unstaged_fixes(start, &[]).ok().flatten()
        {
            return Err(Error::invalid(
                &paths.lock_file,
                None,
                format!(
                    "no lock staged, but the working tree's lock matches its sources and generated files; stage them with\n    {}",
                    staging_command(start, &unstaged)
                ),
            ));
        }
        let place = if against == Against::Staged {
            "staged"
        } else {
            "found"
        };
        return Err(Error::invalid(
            &paths.lock_file,
            None,
            format!(
                "no lock {place}; run `ai-rulez lock` (after `ai-rulez generate`) and commit it"
            ),
        ));
    };
    let lock = LockFile::parse(&paths.lock_file, &String::from_utf8_lossy(&lock_bytes))?;
    let (items, item_files) =
        sources::collect_with_files(&snapshot, &paths.config_dir, &paths.config_file)?;
    let config = current_config(&snapshot, &paths)?;
    let ignored_codes = config
        .as_ref()
        .map(|config| config.lint_ignore.clone())
        .unwrap_or_default();
    let secrets = crate::lint::scan::literal_secrets_in_files(&item_files, &ignored_codes);
    if !secrets.is_empty() {
        return Err(Error::LiteralSecrets(
            secrets
                .iter()
                .map(crate::lint::Finding::text_line)
                .collect(),
        ));
    }
    let servers = config.as_ref().map(|config| {
        config
            .mcp_servers
            .iter()
            .map(|server| PinnedServer {
                name: server.name.clone(),
                digest: server_digest(server),
            })
            .collect::<Vec<_>>()
    });
    let mut changes = source_changes(&lock, &items, servers.as_deref());
    if let Some(config) = &config {
        changes.extend(super::includes::include_changes(
            &lock.includes,
            &config.git_includes,
        ));
    }
    if !sources_only {
        let root = paths.root.clone();
        let ignored = move |paths: &[&str]| crate::git::ignored_among(&root, paths);
        changes.extend(output_changes(&lock, &snapshot, &ignored)?);
    }
    Ok(changes)
}

/// The config in `snapshot`; `None` when it is absent or does not parse (its own digest already
/// reports the change).
///
/// Errors: read failures.
fn current_config(snapshot: &Snapshot, paths: &LockPaths) -> Result<Option<crate::config::Config>> {
    let Some((_, bytes)) = snapshot.read(&paths.config_file)? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let yaml = std::path::Path::new(&paths.config_file)
        .extension()
        .is_some_and(|extension| extension != "toml");
    Ok(crate::config::parse(&paths.config_file, &text, yaml, &mut Vec::new()).ok())
}

/// When the git index differs from the lock but the working tree matches it (fresh outputs and
/// lock, not yet staged): every file the working tree's lock pins (sources, a skill's files one
/// by one, outputs), the lock, the config and the manifest whose staged content differs from the working tree,
/// as repository-relative paths for `git add`, sorted. All of them at once, so staging them
/// makes the commit pass instead of revealing the next file. `None` when the working tree
/// differs from the lock too (staging alone would not help).
///
/// Errors: as [`check_lock`].
pub(crate) fn unstaged_fixes(start: &Path, staged: &[Change]) -> Result<Option<Vec<String>>> {
    if !check_lock(start, Against::WorkTree, false)?.is_empty() {
        return Ok(None);
    }
    let paths = locate(start)?;
    let index = Snapshot::from_index(&paths.root)?;
    let work_tree = Snapshot::WorkTree(crate::confined_fs::ProjectDir::open(&paths.root)?);
    // The manifest is not pinned, but the next `generate` needs the committed one to match.
    let manifest = if paths.config_dir.is_empty() {
        ".ai-rulez.generated-manifest.json".to_owned()
    } else {
        format!("{}/.generated-manifest.json", paths.config_dir)
    };
    let mut candidates: Vec<String> =
        vec![paths.lock_file.clone(), paths.config_file.clone(), manifest];
    // Both locks: the working tree's names what the commit must hold, the staged one what it
    // holds now (a source deleted from the working tree is only there).
    for snapshot in [&work_tree, &index] {
        let Some((_, bytes)) = snapshot.read(&paths.lock_file)? else {
            continue;
        };
        let Ok(lock) = LockFile::parse(&paths.lock_file, &String::from_utf8_lossy(&bytes)) else {
            continue;
        };
        for item in lock.items() {
            if item.kind == "skill" {
                candidates.extend(work_tree.files_under(&item.path)?);
                candidates.extend(index.files_under(&item.path)?);
            } else {
                candidates.push(item.path);
            }
        }
        candidates.extend(lock.outputs.iter().map(|output| output.path.clone()));
    }
    candidates.extend(
        staged
            .iter()
            .filter(|change| !change.path.is_empty())
            .map(|change| change.path.clone()),
    );
    candidates.sort_unstable();
    candidates.dedup();
    let prefix = gix::discover(&paths.root)
        .ok()
        .and_then(|repository| crate::git::index_prefix(&repository, &paths.root))
        .unwrap_or_default();
    let mut unstaged = Vec::new();
    for path in candidates {
        // A path that is not one file (a skill's folder, whose files are candidates already)
        // cannot be read and is left out.
        if let (Ok(staged), Ok(current)) = (index.read(&path), work_tree.read(&path))
            && staged != current
        {
            unstaged.push(format!("{prefix}{path}"));
        }
    }
    Ok(Some(unstaged))
}

/// The `git add` command that stages `files` (repository-relative, as [`unstaged_fixes`]
/// returns them), to run from `start`: `git --literal-pathspecs add -- a b` from the
/// repository's top folder, else with `-C <top folder>`, since the paths are the repository's
/// (literal, and after `--`, so a name such as `-x` or `:(top)` is a path). A path or folder with
/// characters a shell reads specially (a space, a quote, `$`, ...) is single-quoted.
#[must_use]
pub(crate) fn staging_command(start: &Path, files: &[String]) -> String {
    let quoted: Vec<String> = files.iter().map(|file| shell_quoted(file)).collect();
    let top = gix::discover(start)
        .ok()
        .and_then(|repository| repository.workdir().map(Path::to_path_buf))
        .and_then(|top| fs_err::canonicalize(top).ok());
    let here = fs_err::canonicalize(start).ok();
    match top {
        Some(top) if here.as_ref() != Some(&top) => format!(
            "git -C {} --literal-pathspecs add -- {}",
            shell_quoted(&top.to_string_lossy()),
            quoted.join(" ")
        ),
        _ => format!("git --literal-pathspecs add -- {}", quoted.join(" ")),
    }
}

/// `text` as one POSIX shell word ([`shlex::try_quote`]). A path cannot hold a NUL byte, the
/// one thing it refuses; such a text is given as it is.
fn shell_quoted(text: &str) -> String {
    shlex::try_quote(text).map_or_else(|_| text.to_owned(), std::borrow::Cow::into_owned)
}

/// After a `generate`: a sentence saying the project's lock no longer matches the sources and
/// generated files (how many differences, and to run `ai-rulez lock`), or that it cannot be
/// read. `None` when there is no lock or it matches.
///
/// Errors: no project, or the lock's folder cannot be read.
pub(crate) fn stale_lock_notice(start: &Path) -> Result<Option<String>> {
    let paths = locate(start)?;
    let dir = crate::confined_fs::ProjectDir::open(&paths.root)?;
    if dir.info(&paths.lock_file)?.is_none() {
        return Ok(None);
    }
    Ok(match check_lock(start, Against::WorkTree, false) {
        Ok(changes) if changes.is_empty() => None,
        Ok(changes) => Some(format!(
            "{} is now stale ({} difference(s) from the sources and generated files); run `ai-rulez lock` and commit it",
            paths.lock_file,
            changes.len()
        )),
        // Every damaged-lock error already says to run `ai-rulez lock`; an error reading the
        // lock or the files says what failed, and rewriting the lock would not mend it.
        Err(error) => Some(error.to_string()),
    })
}
