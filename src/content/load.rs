//! Reads every item of a project tree: the root folders, `domains/<d>/`, `local/`, local
//! `[[includes]]` and the rules written inline in the config.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Item, Kind, Layer, Resource, interpret, slug};
use crate::config::Config;
use crate::confined_fs::{Entry, EntryKind, ProjectDir};
use crate::error::{Error, InvalidKind, Result};
use crate::frontmatter::{self, Document};
use crate::git_include::FetchedInclude;

mod notices;
mod own_file;
mod parse_cache;
mod read_ahead;
mod skill_read_ahead;
pub(crate) mod snapshot;

pub(crate) use parse_cache::ParseCache;
use parse_cache::Stamp;

pub(crate) use own_file::{root_rule_from_bytes, root_rule_position};

/// Largest content file read, in bytes (8 MiB), so a stray binary cannot exhaust memory.
pub(crate) const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Folders of a skill that are copied verbatim next to its SKILL.md.
const SKILL_RESOURCE_FOLDERS: [&str; 3] = ["references", "scripts", "assets"];
/// Why a symlink in the tree is refused.
const SYMLINK_IN_TREE: &str = "is a symlink; ai-rulez never reads through symlinks (a committed link could point anywhere), so replace it with the real file or folder";

/// Everything found in the tree.
#[derive(Debug, Default)]
pub struct LoadedTree {
    /// Items of every layer, unsorted; precedence is applied when a view is built.
    pub items: Vec<Item>,
    /// Domain names found under `domains/`, sorted.
    pub domains: Vec<String>,
}

/// Loads every item of the project behind `dir`, keeping going past item errors: returns every
/// item that loaded and, separately, every error (`validate` reports them as findings; the
/// other commands stop on any). `config_dir` is the project-relative config folder (e.g.
/// `.ai-rulez`), `None` for a root `ai-rulez.toml` (only the config's inline items and includes);
/// `config_path` is the config file relative to the project root (for messages). Every file is
/// read through the confined file layer: a symlink anywhere in the tree is an error for that
/// entry, never followed. Git includes are read from their checkouts in `fetched` (in order,
/// after the local includes), their paths shown as `include:<name>/<path inside>`. Parses of
/// unchanged files are reused from `cache`, which is refreshed.
pub(crate) fn load_tree_cached(
    dir: &ProjectDir,
    config_dir: Option<&str>,
    config: &Config,
    fetched: &[FetchedInclude],
    config_path: &str,
    warnings: &mut Vec<String>,
    cache: Option<&mut ParseCache>,
) -> (LoadedTree, Vec<Error>) {
    let loaded_at = crate::file_times::now();
    let snapshot_path = config_dir.map(snapshot::path_in);
    let mut cache = cache;
    if let (Some(cache), Some(path)) = (cache.as_deref_mut(), &snapshot_path) {
        cache.pending_snapshot = None;
        cache.start_from_snapshot(dir, path);
    }
    let warm_cache = cache.as_ref().is_some_and(|cache| !cache.kept.is_empty());
    let mut loader = Loader {
        items: Vec::new(),
        errors: Vec::new(),
        warnings,
        cache,
        warm_cache,
        bytes_read: 0,
        parsed_files: 0,
        loaded_at,
        skills_ahead: skill_read_ahead::SkillsAhead::default(),
    };
    loader.inline_items(config, config_path);
    let project = Tree {
        dir,
        project_at: String::new(),
        shown_prefix: None,
    };
    let mut domains = Vec::new();
    if let Some(config_dir) = config_dir {
        loader.layer_folders(&project, config_dir, &Layer::Root);
        let domains_folder = join(config_dir, "domains");
        for name in loader.sorted_dirs(&project, &domains_folder) {
            loader.unportable_name(&project, &join(&domains_folder, &name), &name);
            loader.layer_folders(
                &project,
                &join(&domains_folder, &name),
                &Layer::Domain(name.clone()),
            );
            domains.push(name);
        }
        let local = join(config_dir, "local");
        if loader.kind_at(&project, &local) == Some(EntryKind::Folder) {
            let before = loader.items.len();
            loader.layer_folders(&project, &local, &Layer::Local);
            if loader.items.len() > before {
                loader.warnings.push(format!(
                    "{local}: machine-local items are loaded but not generated into shared files"
                ));
            }
        }
    }
    for include in &config.includes {
        loader.include(dir, include, config_path);
    }
    for include in fetched {
        loader.git_include(include);
    }
    loader.check_same_layer_duplicates();
    let parsed_files = loader.parsed_files;
    if let Some(cache) = loader.cache.as_deref_mut() {
        // Items not taken over belong to files that changed or went away.
        cache.kept.clear();
        if let Some(path) = snapshot_path
            && parsed_files >= snapshot::LEAST_PARSED
        {
            cache.pending_snapshot = Some(snapshot::PendingSnapshot::of(path, &cache.stamps));
        }
    }
    let errors = std::mem::take(&mut loader.errors);
    (
        LoadedTree {
            items: loader.items,
            domains,
        },
        errors,
    )
}

/// A folder tree items are read from: the project itself, or the repository holding it (for
/// `[[includes]]`). Paths are relative to `dir`; `project_at` is the project root relative to
/// `dir` (empty for the project itself), so messages and items show project-relative paths
/// (`../shared/rules/x.md` for an include beside the project).
struct Tree<'a> {
    dir: &'a ProjectDir,
    project_at: String,
    /// For a tree outside the project (a git include's checkout): what shown paths start with.
    shown_prefix: Option<String>,
}

impl Tree<'_> {
    fn shown(&self, relative: &str) -> String {
        if let Some(prefix) = &self.shown_prefix {
            return join(prefix, relative);
        }
        if self.project_at.is_empty() {
            return relative.to_owned();
        }
        let from: Vec<&str> = self.project_at.split('/').collect();
        let to: Vec<&str> = relative
            .split('/')
            .filter(|part| !part.is_empty())
            .collect();
        let shared = from
            .iter()
            .zip(&to)
            .take_while(|(left, right)| left == right)
            .count();
        let mut parts: Vec<&str> = vec![".."; from.len() - shared];
        parts.extend(&to[shared..]);
        parts.join("/")
    }
}

/// The folder `[[includes]]` may read from: the git work tree holding the project (the nearest
/// folder upwards with a `.git` entry), else the project root; and the project root relative to
/// it.
fn include_anchor(project_root: &Path) -> (PathBuf, String) {
    let mut folder = project_root;
    loop {
        if folder.join(".git").symlink_metadata().is_ok() {
            let inside = project_root
                .strip_prefix(folder)
                .ok()
                .and_then(|relative| relative.to_str())
                .unwrap_or_default()
                .to_owned();
            return (folder.to_path_buf(), inside);
        }
        match folder.parent() {
            Some(parent) => folder = parent,
            None => return (project_root.to_path_buf(), String::new()),
        }
    }
}

fn join(folder: &str, name: &str) -> String {
    if folder.is_empty() {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}

/// What the loader knows of an item file before it looks at it.
#[expect(
    clippy::large_enum_variant,
    reason = "made and taken apart once per file, never stored or copied"
)]
enum Known {
    /// Nothing: the file is looked at (for its stamp, with a parse cache) and read in order.
    Nothing,
    /// Its stamp, from the folder's listing.
    Stamp(Stamp),
    /// Its bytes and parse, read ahead.
    ReadAhead(read_ahead::ReadAhead),
}

struct Loader<'a> {
    items: Vec<Item>,
    errors: Vec<Error>,
    warnings: &'a mut Vec<String>,
    cache: Option<&'a mut ParseCache>,
    /// Whether `cache` held parses when this load began (a reload after an edit). Decided once:
    /// the cache fills as this load goes, and a first load must still read every folder ahead.
    warm_cache: bool,
    /// Bytes read so far, against [`crate::limits::MAX_TREE_BYTES`].
    bytes_read: u64,
    /// Files parsed (not taken over from the cache) so far.
    parsed_files: usize,
    /// When this load began (seconds, nanoseconds since the epoch): a parse is remembered only
    /// for a file settled by then ([`Stamp::is_settled_at`]).
    loaded_at: (i64, i64),
    /// Listings and reads of the skills folder being loaded, made ahead; empty otherwise (its
    /// paths are relative to that folder's tree).
    skills_ahead: skill_read_ahead::SkillsAhead,
}

impl Loader<'_> {
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

    /// Loads one `[[includes]]` tree. A relative `source` without `..` stays inside the project
    /// and is read through the project's own handle; any other source is a folder the config
    /// names explicitly, opened on its own (and still read without following symlinks).
    /// Loads one `[[includes]]` tree. Its folder must lie inside the git work tree holding the
    /// project (or inside the project when there is none), resolved lexically, and is read
    /// through a handle on that work tree with the same rules as the project itself: no
    /// symlink at any level, nothing outside read.
    fn include(&mut self, dir: &ProjectDir, include: &crate::config::Include, config_path: &str) {
        let mut source = include.source.trim_end_matches('/').to_owned();
        if let Some(path) = &include.path {
            source = join(&source, path.trim_matches('/'));
        }
        let (anchor, project_at) = include_anchor(dir.root());
        let resolved = (!Path::new(&source).is_absolute())
            .then(|| crate::confined_fs::normalise_relative(&join(&project_at, &source)))
            .flatten();
        let Some(base) = resolved else {
            self.errors.push(Error::invalid_as(
                InvalidKind::IncludeNotFolder,
                config_path,
                None,
                format!(
                    "`{}.source` = {:?}: an include must lie inside the repository ({}); ai-rulez reads nothing outside it, so copy the shared rules into the repository or use a git include",
                    include.key,
                    crate::redact::mask_url_credentials(&include.source),
                    anchor.display()
                ),
            ));
            return;
        };
        let opened;
        let tree = if project_at.is_empty() {
            Tree {
                dir,
                project_at: String::new(),
                shown_prefix: None,
            }
        } else {
            match ProjectDir::open(&anchor) {
                Ok(anchor_dir) => opened = anchor_dir,
                Err(error) => {
                    self.errors.push(error);
                    return;
                }
            }
            Tree {
                dir: &opened,
                project_at: project_at.clone(),
                shown_prefix: None,
            }
        };
        let wrapped = join(&base, ".ai-rulez");
        let base = match self.kind_at(&tree, &wrapped) {
            Some(EntryKind::Folder) => wrapped,
            _ => base,
        };
        if !base.is_empty() && self.kind_at(&tree, &base) != Some(EntryKind::Folder) {
            self.errors
                .push(not_a_folder(config_path, include, &source));
            return;
        }
        let layer = Layer::Include(include.name.clone());
        self.layer_folders(&tree, &base, &layer);
        let domains_folder = join(&base, "domains");
        for name in self.sorted_dirs(&tree, &domains_folder) {
            self.layer_folders(&tree, &join(&domains_folder, &name), &layer);
        }
    }

    /// Loads one git include from its checkout in the cache, read through its own confined
    /// handle: no symlink in it is followed, nothing outside it is read.
    fn git_include(&mut self, fetched: &FetchedInclude) {
        let checkout = match ProjectDir::open(&fetched.folder) {
            Ok(checkout) => checkout,
            Err(error) => {
                self.errors.push(error);
                return;
            }
        };
        let tree = Tree {
            dir: &checkout,
            project_at: String::new(),
            shown_prefix: Some(fetched.shown_prefix()),
        };
        let layer = Layer::Include(fetched.include.name.clone());
        self.layer_folders(&tree, "", &layer);
        for name in self.sorted_dirs(&tree, "domains") {
            self.layer_folders(&tree, &join("domains", &name), &layer);
        }
    }

    /// What is at `relative` (without following symlinks); a symlink is recorded as an error.
    fn kind_at(&mut self, tree: &Tree<'_>, relative: &str) -> Option<EntryKind> {
        if relative.is_empty() {
            return Some(EntryKind::Folder);
        }
        match tree.dir.info(relative) {
            Ok(Some(info)) if info.kind == EntryKind::Symlink => {
                self.errors.push(symlink_in_tree(tree, relative));
                None
            }
            Ok(found) => found.map(|info| info.kind),
            Err(error) => {
                self.errors.push(located(tree, relative, error));
                None
            }
        }
    }

    fn layer_folders(&mut self, tree: &Tree<'_>, base: &str, layer: &Layer) {
        // An include may point at any folder of the repository; only the project's own tree
        // is ai-rulez's to judge.
        if !matches!(layer, Layer::Include(_)) {
            self.unread_folders(tree, base, *layer == Layer::Root);
        }
        for kind in Kind::ALL {
            let folder = join(base, kind.folder());
            if self.kind_at(tree, &folder) != Some(EntryKind::Folder) {
                continue;
            }
            if kind == Kind::Skill {
                let names = self.sorted_dirs(tree, &folder);
                self.skills_ahead = skill_read_ahead::read_ahead(
                    tree,
                    &folder,
                    &names,
                    self.cache.is_some(),
                    crate::limits::MAX_TREE_BYTES.saturating_sub(self.bytes_read),
                );
                for name in names {
                    let skill_dir = join(&folder, &name);
                    self.unportable_name(tree, &skill_dir, &name);
                    self.skill(tree, &skill_dir, name, layer);
                }
                self.skills_ahead = skill_read_ahead::SkillsAhead::default();
                continue;
            }
            // With a warm parse cache (the MCP server after an edit, or started on a tree it
            // left a snapshot of) most files are only looked at: their stamps come with the
            // listing, from the one open folder, and only the files that changed are read.
            let (entries, mut listed_stamps) = if self.warm_cache {
                self.entries_with_stamps(tree, &folder)
            } else {
                (self.entries(tree, &folder), HashMap::new())
            };
            // Reading ahead only pays when every file is read.
            let mut ahead = if self.warm_cache {
                HashMap::new()
            } else {
                read_ahead::read_ahead(
                    tree,
                    kind,
                    &folder,
                    &entries,
                    layer,
                    self.cache.is_some(),
                    crate::limits::MAX_TREE_BYTES.saturating_sub(self.bytes_read),
                )
            };
            for entry in entries {
                let Some(id) = entry.name.strip_suffix(".md") else {
                    if !matches!(layer, Layer::Include(_)) {
                        self.unread_entry(tree, kind, &folder, &entry);
                    }
                    continue;
                };
                let id = id.to_owned();
                let relative = join(&folder, &entry.name);
                self.unportable_name(tree, &relative, &entry.name);
                match entry.kind {
                    EntryKind::File => {}
                    EntryKind::Symlink => {
                        self.errors.push(symlink_in_tree(tree, &relative));
                        continue;
                    }
                    // A folder named like an item file (`rules/a.md/`) holds no item: said,
                    // or the rule it replaced would vanish from every output in silence.
                    EntryKind::Folder => {
                        if !matches!(layer, Layer::Include(_)) {
                            self.unread_entry(tree, kind, &folder, &entry);
                        }
                        continue;
                    }
                    EntryKind::Other => {
                        self.errors.push(Error::invalid_as(
                            InvalidKind::NotRegularFile,
                            tree.shown(&relative),
                            None,
                            format!(
                                "is not a regular file (a pipe, socket or device), so no {} can be read from it; remove it, or put the {} file there",
                                kind.noun(),
                                kind.noun()
                            ),
                        ));
                        continue;
                    }
                }
                let known = match (ahead.remove(&relative), listed_stamps.remove(&entry.name)) {
                    (Some(read), _) => Known::ReadAhead(read),
                    (None, Some(stamp)) => Known::Stamp(stamp),
                    (None, None) => Known::Nothing,
                };
                self.item_file(tree, kind, id, &relative, layer, known);
            }
        }
    }

    /// The entries of a folder; a name that is not UTF-8 is an error (it could not be opened).
    fn entries(&mut self, tree: &Tree<'_>, folder: &str) -> Vec<Entry> {
        let listed = self
            .skills_ahead
            .take_listing(folder)
            .unwrap_or_else(|| tree.dir.list(folder));
        match listed {
            Ok(Some(entries)) => entries
                .into_iter()
                .filter(|entry| {
                    if !entry.exact_name {
                        self.errors.push(name_not_utf8(tree, folder, &entry.name));
                    }
                    entry.exact_name
                })
                .collect(),
            Ok(None) => Vec::new(),
            Err(error) => {
                self.errors.push(located(tree, folder, error));
                Vec::new()
            }
        }
    }

    /// The entries of a folder as [`Loader::entries`] gives them, with the stamp of each
    /// regular file by name.
    fn entries_with_stamps(
        &mut self,
        tree: &Tree<'_>,
        folder: &str,
    ) -> (Vec<Entry>, HashMap<String, Stamp>) {
        let listed = self
            .skills_ahead
            .take_listing_with_info(folder)
            .unwrap_or_else(|| tree.dir.list_with_info(folder));
        let listed = match listed {
            Ok(Some(listed)) => listed,
            Ok(None) => return (Vec::new(), HashMap::new()),
            Err(error) => {
                self.errors.push(located(tree, folder, error));
                return (Vec::new(), HashMap::new());
            }
        };
        let mut stamps = HashMap::with_capacity(listed.len());
        let mut entries = Vec::with_capacity(listed.len());
        for (entry, info) in listed {
            if !entry.exact_name {
                self.errors.push(name_not_utf8(tree, folder, &entry.name));
                continue;
            }
            if info.kind == EntryKind::File {
                stamps.insert(entry.name.clone(), Stamp::of(&info));
            }
            entries.push(entry);
        }
        (entries, stamps)
    }

    /// Sub-folders of `folder` not starting with `.`, sorted; symlinked ones are errors.
    fn sorted_dirs(&mut self, tree: &Tree<'_>, folder: &str) -> Vec<String> {
        let mut names = Vec::new();
        for entry in self.entries(tree, folder) {
            if entry.name.starts_with('.') {
                continue;
            }
            match entry.kind {
                EntryKind::Folder => names.push(entry.name),
                EntryKind::Symlink => self
                    .errors
                    .push(symlink_in_tree(tree, &join(folder, &entry.name))),
                EntryKind::File | EntryKind::Other => {}
            }
        }
        names
    }

    fn item_file(
        &mut self,
        tree: &Tree<'_>,
        kind: Kind,
        id: String,
        relative: &str,
        layer: &Layer,
        known: Known,
    ) -> Option<usize> {
        let shown = tree.shown(relative);
        if id.chars().any(char::is_control) {
            self.errors.push(Error::invalid_as(
                InvalidKind::ControlCharacterInName,
                shown.escape_debug().to_string(),
                None,
                "the file name contains a control character (such as a line break); rename the file",
            ));
            return None;
        }
        // A plain file whose size and time match the cache keeps its parse.
        // Without a cache (every CLI run) the stamp is not needed: one system call less per file.
        let stamp = match &known {
            Known::ReadAhead(ahead) => ahead.stamp,
            Known::Stamp(listed) => Some(*listed),
            Known::Nothing => self
                .cache
                .as_ref()
                .and_then(|_| tree.dir.info(relative).ok().flatten())
                .filter(|info| info.kind == EntryKind::File)
                .map(|info| Stamp::of(&info)),
        };
        if let (Some(stamp), Some(cache)) = (stamp, self.cache.as_deref_mut())
            && cache.stamps.get(&shown) == Some(&stamp)
            && let Some(item) = cache.kept.remove(&shown)
            && item.kind == kind
            && item.id == id
            && item.layer == *layer
        {
            // A file taken over counts against the byte budget as if it were read, so whether
            // the budget trips does not depend on what the cache holds.
            if !self.charge(
                tree,
                relative,
                usize::try_from(stamp.len).unwrap_or(usize::MAX),
            ) {
                return None;
            }
            self.items.push(item);
            return Some(self.items.len() - 1);
        }
        let parsed = if let Known::ReadAhead(ahead) = known {
            if !self.charge(tree, relative, ahead.length) {
                return None;
            }
            ahead.parsed
        } else {
            let bytes = match Self::read(tree, relative) {
                Ok(bytes) => bytes,
                Err(error) => {
                    self.errors.push(error);
                    return None;
                }
            };
            if !self.charge(tree, relative, bytes.len()) {
                return None;
            }
            frontmatter::parse(&shown, &bytes)
                .and_then(|document| interpret(kind, id, layer.clone(), shown, document))
        };
        match parsed {
            Ok(item) => {
                if let (Some(stamp), Some(cache)) = (stamp, self.cache.as_deref_mut()) {
                    self.parsed_files += 1;
                    if stamp.is_settled_at(self.loaded_at) {
                        cache.stamps.insert(item.source_path.clone(), stamp);
                    } else {
                        cache.stamps.remove(&item.source_path);
                    }
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

    fn skill(&mut self, tree: &Tree<'_>, skill_dir: &str, id: String, layer: &Layer) {
        let skill_file = join(skill_dir, "SKILL.md");
        // One listing of the skill folder gives SKILL.md's kind, its stamp for the parse cache
        // and the resource folders: 500 skills cost 500 listings instead of 1,500 look-ups.
        let (entries, mut stamps) = if self.cache.is_some() {
            self.entries_with_stamps(tree, skill_dir)
        } else {
            (self.entries(tree, skill_dir), HashMap::new())
        };
        match entries
            .iter()
            .find(|entry| entry.name == "SKILL.md")
            .map(|entry| entry.kind)
        {
            Some(EntryKind::File) => {}
            Some(EntryKind::Symlink) => {
                self.errors.push(symlink_in_tree(tree, &skill_file));
                return;
            }
            _ => {
                self.warnings.push(format!(
                    "{}: skill folder without SKILL.md is skipped",
                    tree.shown(skill_dir)
                ));
                return;
            }
        }
        let known = stamps
            .remove("SKILL.md")
            .map_or(Known::Nothing, Known::Stamp);
        let Some(index) = self.item_file(tree, Kind::Skill, id, &skill_file, layer, known) else {
            return;
        };
        let mut resources = Vec::new();
        for entry in entries {
            if entry.name == "SKILL.md" {
                continue;
            }
            let relative = join(skill_dir, &entry.name);
            if !SKILL_RESOURCE_FOLDERS.contains(&entry.name.as_str()) {
                self.warnings.push(format!(
                    "{}: not copied; skills ship only SKILL.md, references/, scripts/ and assets/",
                    tree.shown(&relative)
                ));
                continue;
            }
            self.resources(tree, skill_dir, &relative, entry.kind, &mut resources);
        }
        self.items[index].resources = resources;
    }

    /// Collects the files below `relative` (a resource folder of the skill at `skill_dir`), in
    /// name order, depth first.
    fn resources(
        &mut self,
        tree: &Tree<'_>,
        skill_dir: &str,
        relative: &str,
        kind: EntryKind,
        resources: &mut Vec<Resource>,
    ) {
        let depth = relative[skill_dir.len()..].matches('/').count();
        if depth > crate::limits::MAX_FOLDER_DEPTH {
            self.errors.push(Error::invalid_as(
                InvalidKind::TooLarge,
                tree.shown(relative),
                None,
                format!(
                    "nests folders deeper than {} levels inside a skill; flatten it",
                    crate::limits::MAX_FOLDER_DEPTH
                ),
            ));
            return;
        }
        match kind {
            EntryKind::Folder => {
                for entry in self.entries(tree, relative) {
                    let inner = join(relative, &entry.name);
                    self.resources(tree, skill_dir, &inner, entry.kind, resources);
                }
            }
            EntryKind::File => match self
                .skills_ahead
                .take_read(relative)
                .unwrap_or_else(|| tree.dir.read(relative, MAX_FILE_BYTES))
            {
                Ok(Some((bytes, mode))) => {
                    if self.charge(tree, relative, bytes.len()) {
                        resources.push(Resource {
                            relative_path: relative[skill_dir.len() + 1..].to_owned(),
                            bytes,
                            executable: mode & 0o111 != 0,
                        });
                    }
                }
                Ok(None) => {}
                Err(error) => self.errors.push(located(tree, relative, error)),
            },
            EntryKind::Symlink => {
                self.errors.push(symlink_in_tree(tree, relative));
            }
            EntryKind::Other => self.errors.push(Error::invalid_as(
                InvalidKind::NotRegularFile,
                tree.shown(relative),
                None,
                "is not a regular file (a pipe, socket or device); remove it from the skill",
            )),
        }
    }

    /// Counts `length` bytes read from `relative` against the whole load's budget; past it, one
    /// error names the file where the budget ran out, and nothing more is kept.
    fn charge(&mut self, tree: &Tree<'_>, relative: &str, length: usize) -> bool {
        let limit = crate::limits::MAX_TREE_BYTES;
        let before = self.bytes_read;
        self.bytes_read = before.saturating_add(length as u64);
        if self.bytes_read <= limit {
            return true;
        }
        if before <= limit {
            self.errors.push(Error::invalid_as(
                InvalidKind::TooLarge,
                tree.shown(relative),
                None,
                format!(
                    "the project's files add up to more than {} MiB here; ai-rulez stops reading to protect memory, so move large files (data, binaries) out of .ai-rulez/",
                    limit / (1024 * 1024)
                ),
            ));
        }
        false
    }

    /// Reads a content file through the confined layer, with the size cap.
    fn read(tree: &Tree<'_>, relative: &str) -> Result<Vec<u8>> {
        match tree.dir.read(relative, MAX_FILE_BYTES) {
            Ok(Some((bytes, _))) => Ok(bytes),
            Ok(None) => Err(Error::invalid(
                tree.shown(relative),
                None,
                "disappeared while being read; run again",
            )),
            Err(error) => Err(located(tree, relative, error)),
        }
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

/// The error for an entry of `folder` whose name is not UTF-8 (`name` is its lossy spelling).
fn name_not_utf8(tree: &Tree<'_>, folder: &str, name: &str) -> Error {
    Error::invalid(
        tree.shown(&join(folder, name)).escape_debug().to_string(),
        None,
        "the file name is not valid UTF-8; rename it",
    )
}

fn not_a_folder(config_path: &str, include: &crate::config::Include, source: &str) -> Error {
    Error::invalid_as(
        InvalidKind::IncludeNotFolder,
        config_path,
        None,
        format!(
            "include `{}`: `{}` is not a folder; fix `source`/`path` of this [[includes]] entry or remove it",
            include.name,
            crate::redact::mask_url_credentials(source).escape_debug()
        ),
    )
}

/// The error for a symlink at `relative` in the tree: never followed, named as the tree shows it.
fn symlink_in_tree(tree: &Tree<'_>, relative: &str) -> Error {
    Error::invalid_as(
        InvalidKind::Symlink,
        tree.shown(relative),
        None,
        SYMLINK_IN_TREE,
    )
}

/// Turns a refusal of the file layer into an error naming the path as the tree shows it, of the
/// kind the facts on disk give (not the message): a symlink, something that is not a regular
/// file, or a file over the size limit.
fn located(tree: &Tree<'_>, relative: &str, error: Error) -> Error {
    // A read that fails (permission denied) names the file as the tree shows it, so `validate`
    // can point at it.
    if let Error::Io(io) = &error {
        let why = if io.kind() == std::io::ErrorKind::PermissionDenied {
            "cannot be read: permission denied; make it readable (`chmod u+r`) or run as its owner"
                .to_owned()
        } else {
            format!("cannot be read ({io})")
        };
        return Error::invalid_as(InvalidKind::Unreadable, tree.shown(relative), None, why);
    }
    let Error::Refused { reason, .. } = error else {
        return error;
    };
    let kind = match tree.dir.info(relative) {
        Ok(Some(info)) => match info.kind {
            EntryKind::File if info.len > MAX_FILE_BYTES => InvalidKind::TooLarge,
            EntryKind::File | EntryKind::Folder => InvalidKind::Other,
            EntryKind::Symlink => InvalidKind::Symlink,
            EntryKind::Other => InvalidKind::NotRegularFile,
        },
        // The path passes through a symlinked folder.
        Err(Error::Refused { .. }) => InvalidKind::Symlink,
        _ => InvalidKind::Other,
    };
    Error::invalid_as(kind, tree.shown(relative), None, reason)
}
