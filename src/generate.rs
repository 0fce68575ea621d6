//! The main job end to end: load the project, select the view, render every preset, and hand the
//! plan to the writer. CLI commands (and later MCP tools) call these functions.

use std::path::Path;

use crate::error::Result;
use crate::git_include::GitIncludes;
use crate::plan::Plan;
use crate::project::{self, Project};
use crate::write::{self, Mode, Report, Settings};
use crate::{presets, presets::render};

/// What a `generate` run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The rendered plan.
    pub plan: Plan,
    /// Per-path statuses.
    pub report: Report,
    /// Absolute root of the project that was generated.
    pub root: std::path::PathBuf,
    /// The loaded project the plan was rendered from.
    pub project: Project,
}

/// Loads the project around `start` (git includes treated as `git_includes` says) and renders
/// its plan for `profile`. In check mode variables
/// are not needed (drift is judged on placeholder templates), so unset ones do not fail.
///
/// Errors: project, config, item and render errors; [`crate::error::Error::LiteralSecrets`]
/// when an item holds a literal secret (see [`crate::lint::scan::literal_secrets`]).
pub(crate) fn plan(
    start: &Path,
    profile: Option<&str>,
    mode: Mode,
    git_includes: GitIncludes,
    warnings: &mut Vec<String>,
) -> Result<(Project, Plan)> {
    let project = project::load_with(start, git_includes, warnings)?;
    warnings.extend(crate::content::keys::unknown_key_warnings(
        &project.tree.items,
    ));
    // Refused before rendering: every preset would copy a literal secret into tracked files.
    let secrets = crate::lint::scan::literal_secrets(&project);
    if !secrets.is_empty() {
        return Err(crate::error::Error::LiteralSecrets(
            secrets
                .iter()
                .map(crate::lint::Finding::text_line)
                .collect(),
        ));
    }
    let view = project::view(&project, profile, warnings)?;
    let mut preset_warnings = Vec::new();
    let specs = presets::select(&project.config.presets, &mut preset_warnings)?;
    warnings.extend(located_in_config(&project, preset_warnings));
    // Each lookup is noted in the running record of reads (if any), so a remembered run is
    // only replayed while every variable it read still has the same value.
    let environment = |name: &str| {
        let value = std::env::var(name).ok();
        crate::confined_fs::record::environment(name, value.as_deref());
        value
    };
    let placeholder = |_: &str| Some(String::new());
    let lookup: &dyn Fn(&str) -> Option<String> = if mode == Mode::Check {
        &placeholder
    } else {
        &environment
    };
    let mut plan = render::render(&project, &view, &specs, lookup)?;
    warnings.append(&mut plan.warnings);
    Ok((project, plan))
}

/// `warnings` about the `presets` list, each starting with the config's path and the line that
/// assigns `presets` (`.ai-rulez/config.toml:3: unknown preset ...`), as `validate` names them;
/// with the path alone when that line is not found, unchanged when the config cannot be read.
fn located_in_config(project: &Project, warnings: Vec<String>) -> Vec<String> {
    if warnings.is_empty() {
        return warnings;
    }
    let Ok(Some((bytes, _))) = project
        .dir
        .read(&project.config_relative, crate::project::MAX_CONFIG_BYTES)
    else {
        return warnings;
    };
    let text = String::from_utf8_lossy(&bytes);
    let location = match crate::config::key_path_line(&text, "presets") {
        Some(line) => format!("{}:{line}", project.config_relative),
        None => project.config_relative.clone(),
    };
    warnings
        .into_iter()
        .map(|warning| format!("{location}: {warning}"))
        .collect()
}

/// How a `generate` run treats files in the way and what it reports besides statuses.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Overwrite files ai-rulez cannot prove it wrote (`--force`); an edited file is saved as
    /// `<path>.orig` first.
    pub force: bool,
    /// Attach a unified diff to every change (`--diff`).
    pub diffs: bool,
    /// How git includes are fetched (`--locked`: never).
    pub git_includes: GitIncludes,
}

/// `generate`: writes (or checks, or lists) every output.
///
/// Errors: as [`plan`], plus refused writes (nothing is written then) and I/O errors.
pub fn generate(
    start: &Path,
    profile: Option<&str>,
    mode: Mode,
    options: Options,
    warnings: &mut Vec<String>,
) -> Result<Outcome> {
    let (project, plan) = plan(start, profile, mode, options.git_includes, warnings)?;
    let mut settings = settings(&project, options.force, false);
    settings.diffs = options.diffs;
    // A dry run says what the real run would do, a refusal included.
    if mode != Mode::Check {
        refuse_removing_everything(&project, &plan, &settings)?;
    }
    let report = write::apply(&plan, &settings, mode)?;
    warnings.extend(notes_to_say(&plan, &report));
    let root = project.root.clone();
    Ok(Outcome {
        plan,
        report,
        root,
        project,
    })
}

/// Refuses a run that would remove the files an earlier `generate` wrote and write none because
/// the config names no preset ai-rulez knows (no `presets` key, a misspelt key such as
/// `pressets`, or only unknown names): a typo must not take every assistant's files away. The
/// warnings already said which key or name is unknown; `clean` removes the files on purpose.
///
/// Errors: [`crate::error::Error::Usage`] naming the config and how many files would go; the
/// errors of [`write::apply`] in its dry-run mode, which touches nothing.
fn refuse_removing_everything(
    project: &Project,
    plan: &Plan,
    settings: &Settings<'_>,
) -> Result<()> {
    if !presets::select(&project.config.presets, &mut Vec::new())?.is_empty() {
        return Ok(());
    }
    let preview = write::apply(plan, settings, Mode::DryRun)?;
    let removed = preview
        .changes
        .iter()
        .filter(|change| change.status == write::Status::Orphan)
        .count();
    if removed == 0 {
        return Ok(());
    }
    let named = if project.config.presets.is_empty() {
        "names no preset".to_owned()
    } else {
        format!(
            "names only unknown presets ({})",
            project.config.presets.join(", ")
        )
    };
    Err(crate::error::Error::Usage(format!(
        "{} {named}, so generate would remove the {removed} file(s) an earlier run wrote and write none; nothing was changed. List the assistants in `presets` (the warnings above name the unknown key or preset), or run `ai-rulez clean` to remove the generated files on purpose",
        project.config_relative
    )))
}

/// The render notes worth saying after a run: those of a preset with an output the run creates
/// or updates (in check mode: finds missing or stale). A note restates a fact about unchanged
/// sources, so a repeat `generate`, a clean `--check` and `lock` say nothing; it comes back
/// only when that preset's files change, which is when its item set may have changed. Output:
/// the messages in plan order.
fn notes_to_say(plan: &Plan, report: &Report) -> Vec<String> {
    plan.notes
        .iter()
        .filter(|note| {
            report.changes.iter().any(|change| {
                matches!(change.status, write::Status::Create | write::Status::Update)
                    && note.applies_to(plan, &change.path)
            })
        })
        .map(|note| note.message.clone())
        .collect()
}

/// `clean`: removes every output the manifest lists and the tool can prove unedited.
///
/// Errors: as [`generate`].
pub fn clean(start: &Path, mode: Mode, warnings: &mut Vec<String>) -> Result<Report> {
    // Cleaning needs no content, so git includes are neither fetched nor read.
    let project = project::load_with(start, GitIncludes::Skip, warnings)?;
    let settings = settings(&project, false, true);
    write::apply(&Plan::default(), &settings, mode)
}

/// Writer settings for `project` (manifest path, gitignore flag).
#[must_use]
pub(crate) fn settings(project: &Project, force: bool, clean: bool) -> Settings<'_> {
    let manifest_path = if project.config_dir_relative.is_empty() {
        ".ai-rulez.generated-manifest.json".to_owned()
    } else {
        format!("{}/.generated-manifest.json", project.config_dir_relative)
    };
    Settings {
        dir: &project.dir,
        manifest_path,
        gitignore: project.config.gitignore,
        force,
        clean,
        diffs: false,
        items: &project.tree.items,
    }
}
