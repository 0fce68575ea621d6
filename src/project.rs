//! Finding and loading a project: walk up to its config, read the config and every item, and
//! select the items one generation run uses (profile, precedence, order).

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::path::{Path, PathBuf};

use crate::config::{self, Config};
use crate::confined_fs::{EntryKind, ProjectDir};
use crate::content::{self, Item, Layer, LoadedTree};
use crate::error::{Error, InvalidKind, Result};
use crate::git_include::{FetchedInclude, GitIncludes};

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
    /// The root folder through the confined file layer: every read, write and delete of the
    /// project's files goes through it.
    pub dir: ProjectDir,
    /// The git includes that were made readable, in config order, with the commit used.
    pub fetched_includes: Vec<FetchedInclude>,
}

/// Largest config file read, in bytes (4 MiB).
pub(crate) const MAX_CONFIG_BYTES: u64 = 4 * 1024 * 1024;

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
pub(crate) fn discover(start: &Path) -> Result<(PathBuf, &'static str, bool)> {
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
        if let Some((candidate, yaml)) = config_in(directory)? {
            return Ok((directory.to_path_buf(), candidate, yaml));
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

/// The config file of the project rooted at `directory`, if it has one. Candidates are looked at
/// without following symlinks: a project whose `.ai-rulez` folder (or config file) is a link is
/// refused, since a committed link could point anywhere.
///
/// Errors: [`Error::Refused`] for a config behind a symlink.
fn config_in(directory: &Path) -> Result<Option<(&'static str, bool)>> {
    let Ok(dir) = ProjectDir::open(directory) else {
        return Ok(None);
    };
    for (candidate, yaml) in CONFIG_CANDIDATES {
        match dir.info(candidate) {
            Ok(Some(info)) if info.kind == EntryKind::File => return Ok(Some((candidate, yaml))),
            Ok(Some(info)) if info.kind == EntryKind::Symlink => {
                return Err(symlinked_project(directory, candidate));
            }
            Ok(_) => {}
            Err(Error::Refused { .. }) => return Err(symlinked_project(directory, candidate)),
            Err(error) => return Err(error),
        }
    }
    Ok(None)
}

/// A warning for each other config file beside the one read (`config.yaml` next to
/// `config.toml`): only the first of [`CONFIG_CANDIDATES`] is read, so edits to the others
/// would change nothing without a word.
fn configs_not_read(dir: &ProjectDir, read: &str) -> Vec<String> {
    CONFIG_CANDIDATES
        .iter()
        .map(|(candidate, _)| *candidate)
        .filter(|candidate| *candidate != read)
        .filter(|candidate| {
            dir.info(candidate)
                .ok()
                .flatten()
                .is_some_and(|info| info.kind == EntryKind::File)
        })
        .map(|candidate| {
            format!(
                "{candidate}: not read, since {read} is this project's config; move what it sets into {read} and delete it"
            )
        })
        .collect()
}

fn symlinked_project(directory: &Path, candidate: &str) -> Error {
    Error::refused(
        directory.join(candidate).display().to_string(),
        crate::confined_fs::SYMLINK_REFUSAL,
    )
}

/// The project-relative config folder of a project whose config file is at the project-relative
/// `config_relative` (`.ai-rulez/config.toml` gives `.ai-rulez`); empty for a root
/// `ai-rulez.toml`.
#[must_use]
pub(crate) fn config_dir_of(config_relative: &str) -> &str {
    config_relative
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder)
}

/// Finds and loads the project around `start`.
///
/// Errors: no project, an unreadable or invalid config, or any item error of the tree.
pub(crate) fn load(start: &Path, warnings: &mut Vec<String>) -> Result<Project> {
    load_with(start, GitIncludes::Fetch, warnings)
}

/// Like [`load`], but item errors do not stop loading: returns the project with every item that
/// loaded, and the item errors separately (for `validate` and `scan`).
///
/// Errors: no project, or an unreadable or invalid config.
pub fn load_lenient(start: &Path, warnings: &mut Vec<String>) -> Result<(Project, Vec<Error>)> {
    load_lenient_cached(start, warnings, None, GitIncludes::Fetch)
}

/// [`load`] with git includes treated as `git_includes` says (for example never fetched, for
/// `generate --locked`).
///
/// Errors: as [`load`].
pub(crate) fn load_with(
    start: &Path,
    git_includes: GitIncludes,
    warnings: &mut Vec<String>,
) -> Result<Project> {
    let (project, errors) = load_lenient_cached(start, warnings, None, git_includes)?;
    match Error::from_list(errors) {
        Some(error) => Err(error),
        None => Ok(project),
    }
}

/// [`load_lenient`] that reuses the parses of unchanged files from `cache` (and refreshes it),
/// so a long-running server reloads only what changed.
///
/// Errors: as [`load_lenient`].
pub(crate) fn load_lenient_cached(
    start: &Path,
    warnings: &mut Vec<String>,
    cache: Option<&mut content::ParseCache>,
    git_includes: GitIncludes,
) -> Result<(Project, Vec<Error>)> {
    let (root, config_relative, yaml) = discover(start)?;
    let config_path = root.join(config_relative);
    let dir = ProjectDir::open(&root)?;
    let (bytes, _) = dir
        .read(config_relative, MAX_CONFIG_BYTES)?
        .ok_or_else(|| {
            Error::invalid(
                config_relative,
                None,
                "disappeared while being read; run again",
            )
        })?;
    // The same located message as for content files: line and column of the first bad byte.
    let text = crate::frontmatter::decode_utf8(config_relative, &bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut config = config::parse(config_relative, text, yaml, warnings)?;
    warnings.extend(configs_not_read(&dir, config_relative));
    let mut include_errors = check_includes(&root, config_relative, &mut config);
    let pins = crate::git_include::pins_from_lock(&dir, config_relative, &config, warnings);
    let (fetched_includes, fetch_errors) = crate::git_include::prepare(
        &root,
        config_relative,
        &config.git_includes,
        &pins,
        git_includes,
        warnings,
    );
    include_errors.extend(fetch_errors);
    let config_dir = config_path
        .parent()
        .map_or_else(|| root.clone(), Path::to_path_buf);
    let config_dir_relative = config_dir_of(config_relative).to_owned();
    let content_folder = (!config_dir_relative.is_empty()).then_some(config_dir_relative.as_str());
    let (tree, errors) = content::load_tree_cached(
        &dir,
        content_folder,
        &config,
        &fetched_includes,
        config_relative,
        warnings,
        cache,
    );
    let errors = include_errors.into_iter().chain(errors).collect();
    Ok((
        Project {
            root,
            config_dir,
            config_relative: config_relative.to_owned(),
            config_dir_relative,
            config,
            tree,
            dir,
            fetched_includes,
        },
        errors,
    ))
}

impl Project {
    /// The text of the project-relative file `relative`, read through the confined file layer
    /// (at most 8 MiB); `None` when it is absent, refused (a symlink on the way, not a regular
    /// file, too large), unreadable, or not UTF-8. For checks that report on what they can read.
    #[must_use]
    pub fn text_of(&self, relative: &str) -> Option<String> {
        let (bytes, _) = self.dir.read(relative, 8 * 1024 * 1024).ok()??;
        String::from_utf8(bytes).ok()
    }
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
                format!(
                    "{path:?} (inside {:?})",
                    crate::redact::mask_url_credentials(&include.source)
                ),
                "`path` is relative to `source`",
            ),
            _ => (
                format!("{}.source", include.key),
                format!(
                    "{:?}",
                    crate::redact::mask_url_credentials(&include.source)
                ),
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
pub(crate) struct View<'a> {
    /// Selected items, one per (kind, id), sorted by priority then id.
    pub items: Vec<&'a Item>,
    /// Selected domain names. Only the unit tests read them, so they are kept only there.
    #[cfg(test)]
    pub domains: Vec<String>,
}

/// Selects domains by `profile` (a comma list of profile names; `None` = the config's default
/// rules), applies precedence (root > domain > include; local items are left out), and sorts.
///
/// Errors: [`Error::Usage`] for an unknown profile; [`Error::Invalid`] when two selected items of
/// one kind share an id at the same precedence (naming both files).
pub(crate) fn view<'a>(
    project: &'a Project,
    profile: Option<&str>,
    warnings: &mut Vec<String>,
) -> Result<View<'a>> {
    let domains = select_domains(project, profile, warnings)?;
    let selected_domains: HashSet<&str> = domains.iter().map(String::as_str).collect();
    let mut errors = Vec::new();
    let mut candidates: Vec<&Item> = project
        .tree
        .items
        .iter()
        .filter(|item| match &item.layer {
            Layer::Root | Layer::Include(_) => true,
            Layer::Domain(domain) => selected_domains.contains(domain.as_str()),
            Layer::Local => false,
        })
        .filter(|item| item.is_active())
        .collect();
    candidates.sort_by_key(|item| item.layer.rank());
    let (mut chosen, shadowed) = first_per_key(candidates, |item| (item.kind, item.id.as_str()));
    for (item, known) in shadowed {
        if known.layer.rank() == item.layer.rank() {
            errors.push(Error::invalid_as(
                InvalidKind::DuplicateId,
                &item.source_path,
                None,
                format!(
                    "{} `{}` is defined by both {} and {}; rename one, or select only one of their domains",
                    item.kind.noun(),
                    item.id,
                    known.source_path,
                    item.source_path
                ),
            ));
        } else {
            warnings.push(format!(
                "{}: {} `{}` is overridden by {}",
                item.source_path,
                item.kind.noun(),
                item.id,
                known.source_path
            ));
        }
    }
    if let Some(error) = Error::from_list(errors) {
        return Err(error);
    }
    chosen.sort_by(|left, right| {
        (left.priority, &left.id, left.kind).cmp(&(right.priority, &right.id, right.kind))
    });
    Ok(View {
        items: chosen,
        #[cfg(test)]
        domains,
    })
}

/// Keeps the first of `candidates` (given in precedence order) for each `key`. Returns the kept
/// candidates in their order, and every later candidate paired with the kept one of its key, in
/// candidate order. A map finds the kept candidate, so the work is linear in the number of
/// candidates (a project may hold 100,000 items).
fn first_per_key<T: Copy, K: Hash + Eq>(
    candidates: impl IntoIterator<Item = T>,
    key: impl Fn(T) -> K,
) -> (Vec<T>, Vec<(T, T)>) {
    let candidates = candidates.into_iter();
    let mut kept: Vec<T> = Vec::with_capacity(candidates.size_hint().0);
    let mut kept_by_key: HashMap<K, usize> = HashMap::with_capacity(candidates.size_hint().0);
    let mut shadowed = Vec::new();
    for candidate in candidates {
        match kept_by_key.entry(key(candidate)) {
            Entry::Vacant(slot) => {
                slot.insert(kept.len());
                kept.push(candidate);
            }
            Entry::Occupied(slot) => shadowed.push((candidate, kept[*slot.get()])),
        }
    }
    (kept, shadowed)
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
        let reserved: HashSet<&String> = config.profiles.values().flatten().collect();
        if config.profiles.is_empty() {
            return Ok(known.clone());
        }
        return Ok(known
            .iter()
            .filter(|domain| !reserved.contains(domain))
            .cloned()
            .collect());
    };
    let known_domains: HashSet<&String> = known.iter().collect();
    let mut domains: Vec<String> = Vec::new();
    let mut selected: HashSet<&String> = HashSet::new();
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
            if !known_domains.contains(domain) {
                warnings.push(format!(
                    "{}: profile `{name}` names domain `{domain}`, which has no folder under domains/",
                    project.config_relative
                ));
            }
            if selected.insert(domain) {
                domains.push(domain.clone());
            }
        }
    }
    Ok(domains)
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::hash::Hasher;

    use super::*;
    use crate::content::Kind;

    /// A key that counts how often two keys are compared for equality.
    #[derive(Clone, Copy)]
    struct CountedKey<'a> {
        value: u32,
        comparisons: &'a Cell<usize>,
    }

    impl PartialEq for CountedKey<'_> {
        fn eq(&self, other: &Self) -> bool {
            self.comparisons.set(self.comparisons.get() + 1);
            self.value == other.value
        }
    }

    impl Eq for CountedKey<'_> {}

    impl Hash for CountedKey<'_> {
        fn hash<H: Hasher>(&self, state: &mut H) {
            self.value.hash(state);
        }
    }

    #[test]
    fn first_per_key_compares_keys_a_number_of_times_linear_in_the_candidates() {
        // 5,000 distinct keys, then every tenth of them again. Scanning the kept list for each
        // candidate (the B58 defect) would compare about 13 million pairs here.
        let candidates: Vec<(u32, usize)> = (0..5_000)
            .chain((0..5_000).step_by(10))
            .enumerate()
            .map(|(position, key)| (key, position))
            .collect();
        let comparisons = Cell::new(0);
        let (kept, shadowed) = first_per_key(candidates.iter().copied(), |(value, _)| CountedKey {
            value,
            comparisons: &comparisons,
        });
        let expected_kept: Vec<(u32, usize)> = (0..5_000).map(|key| (key, key as usize)).collect();
        assert_eq!(kept, expected_kept);
        let expected_shadowed: Vec<((u32, usize), (u32, usize))> = (0..5_000)
            .step_by(10)
            .enumerate()
            .map(|(repeat, key)| ((key, 5_000 + repeat), (key, key as usize)))
            .collect();
        assert_eq!(shadowed, expected_shadowed);
        // Each of the 500 repeats meets its kept twin once; hash tag collisions add a few more.
        let count = comparisons.get();
        assert!(
            (500..=2 * candidates.len()).contains(&count),
            "{count} key comparisons for {} candidates",
            candidates.len()
        );
    }

    /// Writes `files` (project-relative path, text) under `folder`, making their folders.
    fn write_files(folder: &Path, files: &[(&str, &str)]) {
        for (relative, text) in files {
            let path = folder.join(relative);
            fs_err::create_dir_all(path.parent().expect("a parent folder")).expect("folder");
            fs_err::write(&path, text).expect("file written");
        }
    }

    /// Loads a project made of `files` (project-relative path, text) in a fresh folder.
    fn project_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Project) {
        let folder = tempfile::tempdir().expect("temporary folder");
        write_files(folder.path(), files);
        let project = load(folder.path(), &mut Vec::new()).expect("project loads");
        (folder, project)
    }

    const CONFIG: (&str, &str) = (
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n",
    );

    #[test]
    fn view_keeps_the_item_of_highest_precedence_per_kind_and_id_and_sorts_by_priority() {
        let (_folder, project) = project_of(&[
            CONFIG,
            (
                ".ai-rulez/rules/shared.md",
                "---\npriority: low\n---\nRoot.\n",
            ),
            (".ai-rulez/domains/api/rules/shared.md", "Domain.\n"),
            (
                ".ai-rulez/domains/api/rules/api.md",
                "---\npriority: high\n---\nApi.\n",
            ),
            (".ai-rulez/domains/api/context/shared.md", "Context.\n"),
        ]);
        let mut warnings = Vec::new();
        let view = view(&project, None, &mut warnings).expect("view");
        let chosen: Vec<(Kind, &str, &str)> = view
            .items
            .iter()
            .map(|item| (item.kind, item.id.as_str(), item.source_path.as_str()))
            .collect();
        assert_eq!(
            chosen,
            [
                (Kind::Rule, "api", ".ai-rulez/domains/api/rules/api.md"),
                (
                    Kind::Context,
                    "shared",
                    ".ai-rulez/domains/api/context/shared.md"
                ),
                (Kind::Rule, "shared", ".ai-rulez/rules/shared.md"),
            ]
        );
        assert_eq!(
            warnings,
            [
                ".ai-rulez/domains/api/rules/shared.md: rule `shared` is overridden by .ai-rulez/rules/shared.md"
            ]
        );
        assert_eq!(view.domains, ["api"]);
    }

    #[test]
    fn view_refuses_one_id_defined_by_two_selected_domains() {
        let (_folder, project) = project_of(&[
            CONFIG,
            (".ai-rulez/domains/api/rules/shared.md", "Api.\n"),
            (".ai-rulez/domains/web/rules/shared.md", "Web.\n"),
        ]);
        let error = view(&project, None, &mut Vec::new()).expect_err("a clash");
        assert_eq!(
            error.to_string(),
            ".ai-rulez/domains/web/rules/shared.md: rule `shared` is defined by both \
             .ai-rulez/domains/api/rules/shared.md and .ai-rulez/domains/web/rules/shared.md; \
             rename one, or select only one of their domains"
        );
    }

    #[test]
    fn a_reload_takes_over_the_unchanged_items_and_parses_the_changed_ones() {
        let folder = tempfile::tempdir().expect("temporary folder");
        write_files(
            folder.path(),
            &[
                CONFIG,
                (".ai-rulez/rules/kept.md", "Kept as it is.\n"),
                (".ai-rulez/rules/edited.md", "Before the edit.\n"),
                (".ai-rulez/rules/removed.md", "Goes away.\n"),
            ],
        );
        // The parse cache remembers only files that had not changed for 2 s when a load began.
        std::thread::sleep(std::time::Duration::from_millis(2100));
        let mut cache = content::ParseCache::default();
        let load_with = |cache: &mut content::ParseCache| {
            let (project, errors) = load_lenient_cached(
                folder.path(),
                &mut Vec::new(),
                Some(cache),
                GitIncludes::Fetch,
            )
            .expect("project loads");
            assert!(errors.is_empty(), "{errors:?}");
            project.tree.items
        };
        let first = load_with(&mut cache);
        let kept_body = |items: &[content::Item]| {
            let item = items.iter().find(|item| item.id == "kept").expect("kept");
            (item.body.clone(), item.body.as_ptr())
        };
        let (_, first_pointer) = kept_body(&first);
        write_files(
            folder.path(),
            &[(".ai-rulez/rules/edited.md", "After the edit, longer.\n")],
        );
        fs_err::remove_file(folder.path().join(".ai-rulez/rules/removed.md")).expect("removed");
        cache.keep_items(first);
        let second = load_with(&mut cache);
        let bodies: Vec<(&str, &str)> = second
            .iter()
            .map(|item| (item.id.as_str(), item.body.as_str()))
            .collect();
        assert_eq!(
            bodies,
            [
                ("edited", "After the edit, longer.\n"),
                ("kept", "Kept as it is.\n")
            ]
        );
        // The unchanged item is the one the first load made (moved, not parsed or copied).
        let (body, pointer) = kept_body(&second);
        assert_eq!(body, "Kept as it is.\n");
        assert_eq!(pointer, first_pointer);
        // Without items handed back, a load parses every file again.
        let third = load_with(&mut cache);
        assert_ne!(kept_body(&third).1, pointer);
        assert_eq!(third.len(), 2);
    }
}
