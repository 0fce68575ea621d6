//! Finding and loading a project: walk up to its config, read the config and every item, and
//! select the items one generation run uses (profile, precedence, order).

use std::path::{Path, PathBuf};

use crate::config::{self, Config};
use crate::content::{self, Item, Layer, LoadedTree};
use crate::error::{Error, Result};

/// A loaded project. Paths are absolute; `*_relative` fields are `/`-separated and relative to
/// the project root.
#[derive(Debug)]
pub struct Project {
    /// The directory holding `.ai-rulez/` (or `.config/ai-rulez/`, or `ai-rulez.toml`).
    pub root: PathBuf,
    /// The directory holding the config file.
    pub config_dir: PathBuf,
    /// Config file, relative to `root` (e.g. `.ai-rulez/config.toml`).
    pub config_relative: String,
    /// Config directory, relative to `root` (e.g. `.ai-rulez`; empty for a root `ai-rulez.toml`).
    pub config_dir_relative: String,
    /// The parsed config.
    pub config: Config,
    /// Every item found.
    pub tree: LoadedTree,
}

/// Config locations tried in each directory, in order: (relative path, is YAML).
const CONFIG_CANDIDATES: [(&str, bool); 5] = [
    (".ai-rulez/config.toml", false),
    (".ai-rulez/config.yaml", true),
    (".ai-rulez/config.yml", true),
    (".config/ai-rulez/config.toml", false),
    ("ai-rulez.toml", false),
];

/// Walks up from `start` to the first directory holding a config, stopping at the git root and
/// never going above the home directory.
///
/// Returns (project root, config path relative to it, whether it is YAML).
/// Errors: [`Error::NoProject`] when none is found.
pub fn discover(start: &Path) -> Result<(PathBuf, &'static str, bool)> {
    if !start.is_dir() {
        return Err(Error::Usage(format!(
            "`{}` is not a folder; pass the project folder (or a folder inside it) with -C",
            start.display()
        )));
    }
    let start = fs_err::canonicalize(start)?;
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|home| home.canonicalize().ok());
    let mut directory = start.as_path();
    loop {
        for (candidate, yaml) in CONFIG_CANDIDATES {
            if directory.join(candidate).is_file() {
                return Ok((directory.to_path_buf(), candidate, yaml));
            }
        }
        let at_git_root = directory.join(".git").exists();
        let at_home = home.as_deref() == Some(directory);
        match directory.parent() {
            Some(parent) if !at_git_root && !at_home => directory = parent,
            _ => {
                return Err(Error::NoProject {
                    start: start.display().to_string(),
                    stop: directory.display().to_string(),
                });
            }
        }
    }
}

/// Finds and loads the project around `start`.
///
/// Errors: no project, an unreadable or invalid config, or any item error of the tree.
pub fn load(start: &Path, warnings: &mut Vec<String>) -> Result<Project> {
    let (project, errors) = load_lenient(start, warnings)?;
    match Error::from_list(errors) {
        Some(error) => Err(error),
        None => Ok(project),
    }
}

/// Like [`load`], but item errors do not stop loading: returns the project with every item that
/// loaded, and the item errors separately (for `validate` and `scan`).
///
/// Errors: no project, or an unreadable or invalid config.
pub fn load_lenient(start: &Path, warnings: &mut Vec<String>) -> Result<(Project, Vec<Error>)> {
    load_lenient_cached(start, warnings, None)
}

/// [`load_lenient`] that reuses the parses of unchanged files from `cache` (and refreshes it),
/// so a long-running server reloads only what changed.
///
/// Errors: as [`load_lenient`].
pub fn load_lenient_cached(
    start: &Path,
    warnings: &mut Vec<String>,
    mut cache: Option<&mut content::ParseCache>,
) -> Result<(Project, Vec<Error>)> {
    let (root, config_relative, yaml) = discover(start)?;
    let config_path = root.join(config_relative);
    let bytes = fs_err::read(&config_path)?;
    // The same located message as for content files: line and column of the first bad byte.
    let text = crate::frontmatter::decode_utf8(config_relative, &bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut config = config::parse(config_relative, text, yaml, warnings)?;
    let include_errors = check_includes(&root, config_relative, &mut config);
    let config_dir = config_path
        .parent()
        .map_or_else(|| root.clone(), Path::to_path_buf);
    let config_dir_relative = config_relative
        .rsplit_once('/')
        .map(|(directory, _)| directory.to_owned())
        .unwrap_or_default();
    let (tree, errors) = if config_dir_relative.is_empty() {
        // A root `ai-rulez.toml` has no content folders; only config-level settings apply.
        let (tree, errors) = content::load_tree_cached(
            &root,
            &root.join(".ai-rulez-none"),
            &config,
            config_relative,
            warnings,
            cache.as_deref_mut(),
        );
        (
            LoadedTree {
                items: tree.items,
                domains: Vec::new(),
            },
            errors,
        )
    } else {
        content::load_tree_cached(
            &root,
            &config_dir,
            &config,
            config_relative,
            warnings,
            cache,
        )
    };
    let errors = include_errors.into_iter().chain(errors).collect();
    Ok((
        Project {
            root,
            config_dir,
            config_relative: config_relative.to_owned(),
            config_dir_relative,
            config,
            tree,
        },
        errors,
    ))
}

/// Checks each `[[includes]]` entry of `config` before the tree is loaded and keeps only those
/// whose folder can be read, so that a fault is reported against the config file (`config_relative`)
/// and the entry's key with the value as written. An include is read from the folder its
/// `source` (relative to `root`) and optional `path` name, or from `.ai-rulez/` inside it; that
/// folder must exist and must not be a symlink that leaves the project (the same rule as for
/// every folder of the tree).
///
/// Returns one [`Error::Invalid`] per dropped entry, in config order.
fn check_includes(root: &Path, config_relative: &str, config: &mut Config) -> Vec<Error> {
    let mut errors = Vec::new();
    config.includes.retain(|include| {
        let source = root.join(&include.source);
        let folder = include
            .path
            .as_ref()
            .map_or_else(|| source.clone(), |path| source.join(path));
        // The key that holds the fault: `path` only when `source` itself is a readable folder.
        let (key, written, relative_to) = match &include.path {
            Some(path) if source.is_dir() => (
                format!("{}.path", include.key),
                format!("{path:?} (inside {:?})", include.source),
                "`path` is relative to `source`",
            ),
            _ => (
                format!("{}.source", include.key),
                format!("{:?}", include.source),
                "`source` is relative to the project root",
            ),
        };
        let wrapped = folder.join(".ai-rulez");
        let base = if wrapped.is_dir() { wrapped } else { folder };
        let problem = if fs_err::symlink_metadata(&base).is_err() {
            format!("does not exist ({relative_to}); fix it or remove the include")
        } else if !base.is_dir() {
            "is not a folder; name a folder or remove the include".to_owned()
        } else if let Some(target) = symlink_outside(root, &base) {
            format!(
                "is a symlink to {target}, outside the project; the tree is read only through real folders, so name that folder itself or remove the include"
            )
        } else {
            return true;
        };
        errors.push(Error::invalid(
            config_relative,
            None,
            format!("`{key}` = {written} {problem}"),
        ));
        false
    });
    errors
}

/// When `folder` is a symlink whose target lies outside `root`, that target for messages.
fn symlink_outside(root: &Path, folder: &Path) -> Option<String> {
    let is_link =
        fs_err::symlink_metadata(folder).is_ok_and(|metadata| metadata.file_type().is_symlink());
    if !is_link {
        return None;
    }
    let target = fs_err::canonicalize(folder).ok();
    let inside = match (&target, fs_err::canonicalize(root)) {
        (Some(target), Ok(root)) => target.starts_with(root),
        _ => false,
    };
    (!inside).then(|| {
        target.map_or_else(
            || "a folder that cannot be resolved".to_owned(),
            |target| target.display().to_string(),
        )
    })
}

/// The items one generation run uses.
#[derive(Debug)]
pub struct View<'a> {
    /// Selected items, one per (kind, id), sorted by priority then id.
    pub items: Vec<&'a Item>,
    /// Selected domain names.
    pub domains: Vec<String>,
}

/// Selects domains by `profile` (a comma list of profile names; `None` = the config's default
/// rules), applies precedence (root > domain > include; local items are left out), and sorts.
///
/// Errors: [`Error::Usage`] for an unknown profile; [`Error::Invalid`] when two selected items of
/// one kind share an id at the same precedence (naming both files).
pub fn view<'a>(
    project: &'a Project,
    profile: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<View<'a>> {
    let config = &project.config;
    let domains = select_domains(project, profile, warnings)?;
    let mut chosen: Vec<&Item> = Vec::new();
    let mut errors = Vec::new();
    let mut candidates: Vec<&Item> = project
        .tree
        .items
        .iter()
        .filter(|item| match &item.layer {
            Layer::Root | Layer::Include(_) => true,
            Layer::Domain(domain) => domains.contains(domain),
            Layer::Local => false,
        })
        .filter(|item| !item.pending)
        .collect();
    candidates.sort_by_key(|item| item.layer.rank());
    for item in candidates {
        match chosen.iter().find(|known| known.kind == item.kind && known.id == item.id) {
            None => chosen.push(item),
            Some(known) if known.layer.rank() == item.layer.rank() => errors.push(Error::invalid(
                &item.source_path,
                None,
                format!(
                    "{} `{}` is defined by both {} and {}; rename one, or select only one of their domains",
                    item.kind.noun(),
                    item.id,
                    known.source_path,
                    item.source_path
                ),
            )),
            Some(known) => warnings.push(format!(
                "{}: {} `{}` is overridden by {}",
                item.source_path,
                item.kind.noun(),
                item.id,
                known.source_path
            )),
        }
    }
    if let Some(error) = Error::from_list(errors) {
        return Err(error);
    }
    chosen.sort_by(|left, right| {
        (left.priority, &left.id, left.kind).cmp(&(right.priority, &right.id, right.kind))
    });
    let _ = config;
    Ok(View {
        items: chosen,
        domains,
    })
}

fn select_domains(
    project: &Project,
    profile: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<Vec<String>> {
    let config = &project.config;
    let known = &project.tree.domains;
    if let Some(profile) = profile
        && profile.split(',').all(|name| name.trim().is_empty())
    {
        return Err(Error::Usage(
            "`--profile` names no profile; give one or more names separated by commas".to_owned(),
        ));
    }
    let requested = profile
        .map(str::to_owned)
        .or_else(|| config.default_profile.clone())
        .or_else(|| {
            config
                .profiles
                .contains_key("default")
                .then(|| "default".to_owned())
        });
    let Some(requested) = requested else {
        // No profile: every domain not reserved to a profile.
        let reserved: Vec<&String> = config.profiles.values().flatten().collect();
        if config.profiles.is_empty() {
            return Ok(known.clone());
        }
        return Ok(known
            .iter()
            .filter(|domain| !reserved.contains(domain))
            .cloned()
            .collect());
    };
    let mut domains: Vec<String> = Vec::new();
    for name in requested
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
    {
        let Some(members) = config.profiles.get(name) else {
            let available: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
            return Err(Error::Usage(format!(
                "profile `{name}` is not defined in {}; defined profiles: {}",
                project.config_relative,
                if available.is_empty() {
                    "none".to_owned()
                } else {
                    available.join(", ")
                }
            )));
        };
        for domain in members {
            if !known.contains(domain) {
                warnings.push(format!(
                    "{}: profile `{name}` names domain `{domain}`, which has no folder under domains/",
                    project.config_relative
                ));
            }
            if !domains.contains(domain) {
                domains.push(domain.clone());
            }
        }
    }
    Ok(domains)
}
