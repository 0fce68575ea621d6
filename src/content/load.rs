//! Reads every item of a project tree: the root folders, `domains/<d>/`, `local/`, local
//! `[[includes]]` and the rules written inline in the config.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{Item, Kind, Layer, Resource, interpret, slug};
use crate::config::Config;
use crate::error::{Error, InvalidKind, Result};
use crate::frontmatter::{self, Document};

/// Largest content file read, in bytes (8 MiB), so a stray binary cannot exhaust memory.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Folders of a skill that are copied verbatim next to its SKILL.md.
const SKILL_RESOURCE_FOLDERS: [&str; 3] = ["references", "scripts", "assets"];

/// Everything found in the tree.
#[derive(Debug, Default)]
pub struct LoadedTree {
    /// Items of every layer, unsorted; precedence is applied when a view is built.
    pub items: Vec<Item>,
    /// Domain names found under `domains/`, sorted.
    pub domains: Vec<String>,
}

/// Loads every item. `project_root` and `config_dir` are absolute; `config_path` is the config
/// file relative to the project root (for messages about inline rules).
///
/// Errors: all item errors of the tree at once ([`Error::Many`]), including two items with one id
/// in the same layer (naming both files). Warnings go to `warnings`.
pub fn load_tree(
    project_root: &Path,
    config_dir: &Path,
    config: &Config,
    config_path: &str,
    warnings: &mut Vec<String>,
) -> Result<LoadedTree> {
    let (tree, errors) = load_tree_lenient(project_root, config_dir, config, config_path, warnings);
    match Error::from_list(errors) {
        Some(error) => Err(error),
        None => Ok(tree),
    }
}

/// Like [`load_tree`], but keeps going past item errors: returns every item that loaded and,
/// separately, every error (`validate` reports them as findings instead of stopping).
pub fn load_tree_lenient(
    project_root: &Path,
    config_dir: &Path,
    config: &Config,
    config_path: &str,
    warnings: &mut Vec<String>,
) -> (LoadedTree, Vec<Error>) {
    load_tree_cached(
        project_root,
        config_dir,
        config,
        config_path,
        warnings,
        None,
    )
}

/// Parsed items remembered by file (size and modification time), so reloading a tree after an
/// edit re-reads only the files that changed (the MCP server keeps one per project).
#[derive(Debug, Default)]
pub struct ParseCache {
    entries: HashMap<PathBuf, (u64, Option<SystemTime>, Item)>,
}

/// [`load_tree_lenient`] that reuses the parse of unchanged files from `cache` and refreshes it.
pub fn load_tree_cached(
    project_root: &Path,
    config_dir: &Path,
    config: &Config,
    config_path: &str,
    warnings: &mut Vec<String>,
    cache: Option<&mut ParseCache>,
) -> (LoadedTree, Vec<Error>) {
    let mut loader = Loader {
        project_root,
        items: Vec::new(),
        errors: Vec::new(),
        warnings,
        cache,
    };
    loader.inline_items(config, config_path);
    loader.layer_folders(config_dir, &Layer::Root);
    let mut domains = Vec::new();
    for domain_dir in Loader::sorted_dirs(&config_dir.join("domains")) {
        let name = file_name(&domain_dir);
        loader.layer_folders(&domain_dir, &Layer::Domain(name.clone()));
        domains.push(name);
    }
    let local_dir = config_dir.join("local");
    if local_dir.is_dir() {
        let before = loader.items.len();
        loader.layer_folders(&local_dir, &Layer::Local);
        if loader.items.len() > before {
            loader.warnings.push(format!(
                "{}: machine-local items are loaded but not generated into shared files",
                loader.relative(&local_dir)
            ));
        }
    }
    for include in &config.includes {
        let mut source = project_root.join(&include.source);
        if let Some(path) = &include.path {
            source = source.join(path);
        }
        let wrapped = source.join(".ai-rulez");
        let base = if wrapped.is_dir() {
            wrapped
        } else {
            source.clone()
        };
        if !base.is_dir() {
            loader.errors.push(Error::invalid_as(
                InvalidKind::IncludeNotFolder,
                config_path,
                None,
                format!(
                    "include `{}`: {} is not a folder; fix `source`/`path` or remove the include",
                    include.name,
                    loader.relative(&source)
                ),
            ));
            continue;
        }
        let layer = Layer::Include(include.name.clone());
        loader.layer_folders(&base, &layer);
        for domain_dir in Loader::sorted_dirs(&base.join("domains")) {
            loader.layer_folders(&domain_dir, &layer);
        }
    }
    loader.check_same_layer_duplicates();
    let errors = std::mem::take(&mut loader.errors);
    (
        LoadedTree {
            items: loader.items,
            domains,
        },
        errors,
    )
}

struct Loader<'a> {
    project_root: &'a Path,
    items: Vec<Item>,
    errors: Vec<Error>,
    warnings: &'a mut Vec<String>,
    cache: Option<&'a mut ParseCache>,
}

impl Loader<'_> {
    fn relative(&self, path: &Path) -> String {
        let relative = path.strip_prefix(self.project_root).unwrap_or(path);
        relative
            .components()
            .map(|component| component.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/")
    }

    fn inline_items(&mut self, config: &Config, config_path: &str) {
        let lists = [
            (Kind::Rule, &config.inline_rules),
            (Kind::Context, &config.inline_context),
        ];
        for (kind, list) in lists {
            for inline in list {
                let mut values = indexmap::IndexMap::new();
                if let Some(priority) = &inline.priority {
                    values.insert(
                        "priority".to_owned(),
                        serde_json::Value::String(priority.clone()),
                    );
                }
                if !inline.targets.is_empty() {
                    values.insert("targets".to_owned(), serde_json::json!(inline.targets));
                }
                let mut body = inline.content.clone();
                if !body.ends_with('\n') {
                    body.push('\n');
                }
                let document = Document {
                    values,
                    yaml: None,
                    body,
                    body_line: 1,
                };
                let id = slug(&inline.name);
                match interpret(kind, id, Layer::Root, config_path.to_owned(), document) {
                    Ok(item) => self.items.push(item),
                    Err(error) => self.errors.push(error),
                }
            }
        }
    }

    fn layer_folders(&mut self, base: &Path, layer: &Layer) {
        if !self.folder_allowed(base) {
            return;
        }
        for kind in Kind::ALL {
            let folder = base.join(kind.folder());
            if !folder.is_dir() || !self.folder_allowed(&folder) {
                continue;
            }
            if kind == Kind::Skill {
                for skill_dir in Self::sorted_dirs(&folder) {
                    if self.folder_allowed(&skill_dir) {
                        self.skill(&skill_dir, layer);
                    }
                }
                continue;
            }
            for path in Self::sorted_entries(&folder) {
                let is_markdown = path.extension().is_some_and(|extension| extension == "md");
                if !is_markdown || !path.is_file() {
                    continue;
                }
                let id = path
                    .file_stem()
                    .map(|stem| stem.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.item_file(kind, id, &path, layer);
            }
        }
    }

    /// A folder of the tree may be a symlink only to a folder inside the project, the same rule
    /// as for files; otherwise an error is recorded and the folder skipped.
    fn folder_allowed(&mut self, folder: &Path) -> bool {
        let is_link = fs_err::symlink_metadata(folder)
            .is_ok_and(|metadata| metadata.file_type().is_symlink());
        if !is_link {
            return true;
        }
        let inside = match (
            fs_err::canonicalize(folder),
            fs_err::canonicalize(self.project_root),
        ) {
            (Ok(target), Ok(root)) => target.starts_with(root),
            _ => false,
        };
        if !inside {
            let relative = self.relative(folder);
            self.errors.push(Error::invalid_as(
                InvalidKind::SymlinkOutside,
                relative,
                None,
                "is a symlink to a folder outside the project; replace it with a real folder (or a copy)",
            ));
        }
        inside
    }

    fn item_file(&mut self, kind: Kind, id: String, path: &Path, layer: &Layer) -> Option<usize> {
        if id.chars().any(char::is_control) {
            let relative = self.relative(path);
            self.errors.push(Error::invalid_as(
                InvalidKind::ControlCharacterInName,
                relative.escape_debug().to_string(),
                None,
                "the file name contains a control character (such as a line break); rename the file",
            ));
            return None;
        }
        // A plain file (not a symlink) whose size and time match the cache keeps its parse.
        let stamp = std::fs::symlink_metadata(path)
            .ok()
            .filter(|metadata| metadata.file_type().is_file())
            .map(|metadata| (metadata.len(), metadata.modified().ok()));
        if let (Some((length, modified)), Some(cache)) = (stamp, self.cache.as_deref())
            && let Some((cached_length, cached_modified, item)) = cache.entries.get(path)
            && *cached_length == length
            && *cached_modified == modified
            && item.kind == kind
            && item.id == id
            && item.layer == *layer
        {
            self.items.push(item.clone());
            return Some(self.items.len() - 1);
        }
        let relative = self.relative(path);
        let bytes = match self.read_checked(path, &relative) {
            Ok(bytes) => bytes,
            Err(error) => {
                self.errors.push(error);
                return None;
            }
        };
        let parsed = frontmatter::parse(&relative, &bytes)
            .and_then(|document| interpret(kind, id, layer.clone(), relative, document));
        match parsed {
            Ok(item) => {
                if let (Some((length, modified)), Some(cache)) = (stamp, self.cache.as_deref_mut())
                {
                    cache
                        .entries
                        .insert(path.to_path_buf(), (length, modified, item.clone()));
                }
                self.items.push(item);
                Some(self.items.len() - 1)
            }
            Err(error) => {
                self.errors.push(error);
                None
            }
        }
    }

    fn skill(&mut self, skill_dir: &Path, layer: &Layer) {
        let id = file_name(skill_dir);
        let skill_file = skill_dir.join("SKILL.md");
        if !skill_file.is_file() {
            self.warnings.push(format!(
                "{}: skill folder without SKILL.md is skipped",
                self.relative(skill_dir)
            ));
            return;
        }
        let Some(index) = self.item_file(Kind::Skill, id, &skill_file, layer) else {
            return;
        };
        let mut resources = Vec::new();
        for entry in Self::sorted_entries(skill_dir) {
            let name = file_name(&entry);
            if name == "SKILL.md" {
                continue;
            }
            if !SKILL_RESOURCE_FOLDERS.contains(&name.as_str()) {
                self.warnings.push(format!(
                    "{}: not copied; skills ship only SKILL.md, references/, scripts/ and assets/",
                    self.relative(&entry)
                ));
                continue;
            }
            for file in walkdir::WalkDir::new(&entry)
                .sort_by_file_name()
                .follow_links(false)
            {
                let file = match file {
                    Ok(file) => file,
                    Err(error) => {
                        self.errors
                            .push(Error::Io(std::io::Error::other(error.to_string())));
                        continue;
                    }
                };
                if file.file_type().is_dir() {
                    continue;
                }
                let path = file.path();
                let relative = self.relative(path);
                match self.read_checked(path, &relative) {
                    Ok(bytes) => {
                        let executable = fs_err::metadata(path)
                            .is_ok_and(|metadata| metadata.permissions().mode() & 0o111 != 0);
                        let inside = path.strip_prefix(skill_dir).unwrap_or(path);
                        let relative_path = inside
                            .components()
                            .map(|component| component.as_os_str().to_string_lossy())
                            .collect::<Vec<_>>()
                            .join("/");
                        resources.push(Resource {
                            relative_path,
                            bytes,
                            executable,
                        });
                    }
                    Err(error) => self.errors.push(error),
                }
            }
        }
        self.items[index].resources = resources;
    }

    /// Reads a file, refusing symlinks that leave the project and files over the size cap.
    fn read_checked(&self, path: &Path, relative: &str) -> Result<Vec<u8>> {
        let link = fs_err::symlink_metadata(path)?;
        if link.file_type().is_symlink() {
            let target = fs_err::canonicalize(path)?;
            let root = fs_err::canonicalize(self.project_root)?;
            if !target.starts_with(&root) {
                return Err(Error::invalid_as(
                    InvalidKind::SymlinkOutside,
                    relative,
                    None,
                    "is a symlink to a file outside the project; replace it with a copy of the file",
                ));
            }
        }
        let metadata = fs_err::metadata(path)?;
        if !metadata.is_file() {
            return Err(Error::invalid_as(
                InvalidKind::NotRegularFile,
                relative,
                None,
                "is not a regular file (a folder, pipe or device); replace it with a Markdown file",
            ));
        }
        if metadata.len() > MAX_FILE_BYTES {
            return Err(Error::invalid_as(
                InvalidKind::TooLarge,
                relative,
                None,
                format!(
                    "is {} bytes; content files are limited to 8 MiB",
                    metadata.len()
                ),
            ));
        }
        Ok(fs_err::read(path)?)
    }

    fn sorted_entries(folder: &Path) -> Vec<PathBuf> {
        let Ok(entries) = fs_err::read_dir(folder) else {
            return Vec::new();
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect();
        paths.sort();
        paths
    }

    fn sorted_dirs(folder: &Path) -> Vec<PathBuf> {
        Self::sorted_entries(folder)
            .into_iter()
            .filter(|path| path.is_dir() && !file_name(path).starts_with('.'))
            .collect()
    }

    fn check_same_layer_duplicates(&mut self) {
        let mut seen: std::collections::HashMap<(Kind, &str, &Layer), &str> =
            std::collections::HashMap::new();
        let mut errors = Vec::new();
        for item in &self.items {
            let key = (item.kind, item.id.as_str(), &item.layer);
            if let Some(first) = seen.insert(key, &item.source_path) {
                errors.push(Error::invalid_as(
                    InvalidKind::DuplicateId,
                    &item.source_path,
                    None,
                    format!(
                        "{} `{}` is defined twice in the same layer: {first} and {}; rename or remove one",
                        item.kind.noun(),
                        item.id,
                        item.source_path
                    ),
                ));
            }
        }
        self.errors.extend(errors);
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}
