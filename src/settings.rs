//! Project settings as an agent reads and changes them: a typed view of config.toml, keyed edits
//! that keep comments and key order, the lists of domains and profiles, and creating a project
//! from names an agent chose. The MCP admin tools call these; each is one call.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::authoring;
use crate::config::RulesMode;
use crate::error::{Error, Result};
use crate::project::Project;

/// The config as read.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ConfigView {
    /// Config file, project-relative.
    pub(crate) path: String,
    /// `version`.
    pub(crate) version: String,
    /// `name`.
    pub(crate) name: String,
    /// `description`, or null.
    pub(crate) description: Option<String>,
    /// `presets`.
    pub(crate) presets: Vec<String>,
    /// `[profiles]`: profile → domains.
    pub(crate) profiles: BTreeMap<String, Vec<String>>,
    /// `default` profile, or null.
    pub(crate) default: Option<String>,
    /// `gitignore`.
    pub(crate) gitignore: bool,
    /// `[rules] mode`: `split` or `inline`.
    pub(crate) rules_mode: String,
    /// `agents_md`.
    pub(crate) agents_md: bool,
    /// Names of the enabled MCP servers.
    pub(crate) mcp_servers: Vec<String>,
    /// `sha256:` of the config file.
    pub(crate) hash: String,
}

/// A list of names (domains or profiles).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct NameList {
    /// Names, sorted.
    pub(crate) names: Vec<String>,
    /// Profiles only: profile → domains.
    pub(crate) profiles: BTreeMap<String, Vec<String>>,
    /// Profiles only: the default profile, or null.
    pub(crate) default: Option<String>,
}

/// Config keys to change; `None` leaves a key as it is.
#[derive(Debug, Default)]
pub(crate) struct ConfigChanges {
    /// `name`.
    pub(crate) name: Option<String>,
    /// `description`.
    pub(crate) description: Option<String>,
    /// `presets`.
    pub(crate) presets: Option<Vec<String>>,
    /// `gitignore`.
    pub(crate) gitignore: Option<bool>,
    /// `[rules] mode`: `split` or `inline`.
    pub(crate) rules_mode: Option<String>,
    /// `agents_md`.
    pub(crate) agents_md: Option<bool>,
}

/// The project's settings with the config file's hash.
///
/// Errors: the config file cannot be read.
pub(crate) fn view(project: &Project) -> Result<ConfigView> {
    let config = &project.config;
    let (bytes, _) = project
        .dir
        .read(&project.config_relative, 8 * 1024 * 1024)?
        .ok_or_else(|| {
            crate::error::Error::invalid(&project.config_relative, None, "disappeared; run again")
        })?;
    Ok(ConfigView {
        path: project.config_relative.clone(),
        version: config.version.clone(),
        name: config.name.clone(),
        description: config.description.clone(),
        presets: config.presets.clone(),
        profiles: profile_map(project),
        default: config.default_profile.clone(),
        gitignore: config.gitignore,
        rules_mode: match config.rules_mode {
            RulesMode::Inline => "inline",
            RulesMode::Split => "split",
        }
        .to_owned(),
        agents_md: config.agents_md,
        mcp_servers: config
            .mcp_servers
            .iter()
            .map(|server| server.name.clone())
            .collect(),
        hash: crate::hash::sha256_tagged(&bytes),
    })
}

/// Writes the `wanted` changes into config.toml (comments and key order survive; the result must load).
/// Returns the changed keys in a fixed order (`name`, `description`, `presets`, `gitignore`,
/// `agents_md`, `rules.mode`).
///
/// Errors: [`Error::Usage`] for a `rules_mode` other than `split`/`inline` or an unknown preset
/// (naming the known ones); [`Error::Refused`] for a name or description the screening refuses;
/// as [`authoring::edit_config`].
pub(crate) fn update(project: &Project, wanted: &ConfigChanges) -> Result<Vec<&'static str>> {
    if let Some(mode) = &wanted.rules_mode
        && mode != "split"
        && mode != "inline"
    {
        return Err(Error::Usage(format!(
            "rules_mode must be `split` or `inline`, not `{mode}`"
        )));
    }
    // The config parser accepts any preset name and only generate would fail later, so unknown
    // presets are refused here, with the known ones, as init does.
    if let Some(presets) = &wanted.presets {
        check_presets(presets)?;
    }
    if let Some(value) = &wanted.name {
        authoring::check_project_text("name", value)?;
    }
    if let Some(value) = &wanted.description {
        authoring::check_project_text("description", value)?;
    }
    let mut changed = Vec::new();
    authoring::edit_config(project, |document| {
        let mut set = |key: &'static str, value: Option<toml_edit::Item>| {
            if let Some(value) = value {
                document.insert(key, value);
                changed.push(key);
            }
        };
        set("name", wanted.name.as_deref().map(toml_edit::value));
        set(
            "description",
            wanted.description.as_deref().map(toml_edit::value),
        );
        set(
            "presets",
            wanted.presets.as_ref().map(|presets| {
                toml_edit::value(
                    presets
                        .iter()
                        .map(String::as_str)
                        .collect::<toml_edit::Array>(),
                )
            }),
        );
        set("gitignore", wanted.gitignore.map(toml_edit::value));
        set("agents_md", wanted.agents_md.map(toml_edit::value));
        if let Some(mode) = &wanted.rules_mode {
            let rules = document.entry("rules").or_insert_with(toml_edit::table);
            if let Some(table) = rules.as_table_like_mut() {
                table.insert("mode", toml_edit::value(mode.as_str()));
            }
            changed.push("rules.mode");
        }
        Ok(())
    })?;
    Ok(changed)
}

fn check_presets(presets: &[String]) -> Result<()> {
    let known: Vec<String> = crate::presets::builtin_specs()?
        .into_iter()
        .map(|spec| spec.name)
        .collect();
    match presets.iter().find(|preset| !known.contains(preset)) {
        Some(unknown) => Err(Error::Usage(format!(
            "unknown preset `{unknown}`{}; known presets: {}",
            crate::suggest::did_you_mean(unknown, known.iter().map(String::as_str)),
            known.join(", ")
        ))),
        None => Ok(()),
    }
}

fn profile_map(project: &Project) -> BTreeMap<String, Vec<String>> {
    project
        .config
        .profiles
        .iter()
        .map(|(name, domains)| (name.clone(), domains.clone()))
        .collect()
}

/// The project's domain folders, sorted.
#[must_use]
pub(crate) fn domains(project: &Project) -> NameList {
    NameList {
        names: project.tree.domains.clone(),
        profiles: BTreeMap::new(),
        default: None,
    }
}

/// The project's profiles (sorted), their domains and the default.
#[must_use]
pub(crate) fn profiles(project: &Project) -> NameList {
    let profiles = profile_map(project);
    NameList {
        names: profiles.keys().cloned().collect(),
        profiles,
        default: project.config.default_profile.clone(),
    }
}

/// The presets a project gets when nobody names any.
pub(crate) const DEFAULT_PRESETS: [&str; 3] = ["claude", "cursor", "codex"];

/// Creates `<directory>/.ai-rulez/` for a name an agent chose: the name is screened like any
/// untrusted text first, and `presets` defaults to [`DEFAULT_PRESETS`]. Returns the folder.
///
/// Errors: [`Error::Refused`] for a name the screening refuses; as [`crate::init::init_project`].
pub(crate) fn init_screened(
    directory: &Path,
    name: Option<&str>,
    presets: Option<&[String]>,
    nesting: crate::init::Nesting,
) -> Result<PathBuf> {
    if let Some(name) = name {
        authoring::check_project_text("name", name)?;
    }
    let defaults: Vec<String> = DEFAULT_PRESETS
        .iter()
        .map(|&name| name.to_owned())
        .collect();
    crate::init::init_project(directory, name, presets.unwrap_or(&defaults), nesting)
}
