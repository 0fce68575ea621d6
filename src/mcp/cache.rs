//! Loaded projects kept between MCP calls: each project's catalog (search index, compiled
//! scopes) is reused until its file watcher reports a change, so a reading call only matches and
//! ranks, and a hand edit is still seen by the very next call. A change made by this server
//! itself (a rule file a learning tool just created, whose bytes it knows) updates the cached
//! catalog in place instead of reloading the whole project.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use crate::error::Result;
use crate::project;
use crate::retrieval::Catalog;

/// A file this server created, with its exact bytes: the change it expects the watcher to
/// report, which it can apply to the cached catalog without reloading the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OwnFile {
    /// Project-relative, `/`-separated path of a new rule file under the root `rules/` folder.
    pub path: String,
    /// The bytes written.
    pub bytes: Vec<u8>,
}

/// A loaded project with its catalog, reloaded when its watcher reports a change this server
/// did not make itself.
struct Cached {
    catalog: Arc<Catalog>,
    /// The load errors the catalog was built with (to build it again without a reload).
    load_problems: Vec<String>,
    changes: Arc<Mutex<Changes>>,
    /// Files created by this server since the catalog was last brought up to date.
    own_files: Vec<OwnFile>,
    barrier: Arc<Barrier>,
    /// Kept only so that the watcher lives as long as the entry.
    watcher: Option<notify::RecommendedWatcher>,
}

/// What the watcher reported since the catalog was last brought up to date: the absolute paths
/// of changed entries, or that anything may have changed (a watcher error, an event without
/// paths, a queue overflow, no watcher at all).
#[derive(Debug, Default)]
struct Changes {
    everything: bool,
    paths: BTreeSet<PathBuf>,
}

impl Changes {
    fn is_empty(&self) -> bool {
        !self.everything && self.paths.is_empty()
    }
}

/// Marks that anything may have changed, so the next call reloads the project.
fn mark_everything(changes: &Mutex<Changes>) {
    changes
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .everything = true;
}

/// The highest barrier number a project's watcher has seen. File events arrive on the watcher's
/// thread some time after the change; a call writes a numbered barrier file into a folder the
/// same watcher observes and waits for its event. Events of one watcher arrive in order, so once
/// the barrier is seen, every change made before the call has marked the cache stale: a hand edit
/// is seen by the very next call, without a race.
#[derive(Default)]
struct Barrier {
    seen: Mutex<u64>,
    changed: Condvar,
}

impl Barrier {
    fn advance(&self, number: u64) {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = (*seen).max(number);
            self.changed.notify_all();
        }
    }

    /// Waits until `number` is seen; false when it was not seen in time.
    fn wait_for(&self, number: u64) -> bool {
        let Ok(seen) = self.seen.lock() else {
            return false;
        };
        self.changed
            .wait_timeout_while(seen, BARRIER_PATIENCE, |seen| *seen < number)
            .is_ok_and(|(seen, _)| *seen >= number)
    }
}

/// How long a call waits for its barrier event before it reloads the project to be safe.
const BARRIER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// Every project this server has loaded, by root.
pub(crate) struct Projects {
    loaded: HashMap<PathBuf, Cached>,
    /// Parsed items per project root, reused across reloads: after an edit only the changed
    /// files are parsed again.
    parses: HashMap<PathBuf, crate::content::ParseCache>,
    /// Private folder for barrier files (see [`Barrier`]); `None` when it cannot be created, and
    /// then every call reloads the project.
    barriers: Option<tempfile::TempDir>,
    next_barrier: u64,
}

impl Projects {
    /// An empty cache with its barrier folder.
    pub(crate) fn new() -> Self {
        Self {
            loaded: HashMap::new(),
            parses: HashMap::new(),
            barriers: tempfile::Builder::new()
                .prefix("ai-rulez-mcp-")
                .tempdir()
                .ok(),
            next_barrier: 0,
        }
    }

    /// The fresh catalog of the project at `root` (a discovered project root).
    ///
    /// When the only changes since the last call are files this server created (see
    /// [`Projects::created`]) and each still holds the bytes written, the cached catalog is
    /// updated in place; any other change reloads the project.
    ///
    /// Errors: the config cannot be read or parsed. Broken item files do not fail: they are left
    /// out and named in the catalog's problems (and on stderr).
    pub(crate) fn catalog(&mut self, root: &Path) -> Result<Arc<Catalog>> {
        if let Some(mut cached) = self.loaded.remove(root) {
            self.next_barrier += 1;
            settle(self.barriers.as_ref(), self.next_barrier, &cached);
            let changes = std::mem::take(
                &mut *cached
                    .changes
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
            let own_files = std::mem::take(&mut cached.own_files);
            if changes.is_empty() && own_files.is_empty() {
                let catalog = cached.catalog.clone();
                self.loaded.insert(root.to_path_buf(), cached);
                return Ok(catalog);
            }
            if !changes.everything && is_own_change(&cached.catalog, &changes, &own_files) {
                let Cached {
                    catalog,
                    load_problems,
                    changes,
                    own_files: _,
                    barrier,
                    watcher,
                } = cached;
                if let Some(catalog) = with_own_files(catalog, &own_files, &load_problems) {
                    self.loaded.insert(
                        root.to_path_buf(),
                        Cached {
                            catalog: catalog.clone(),
                            load_problems,
                            changes,
                            own_files: Vec::new(),
                            barrier,
                            watcher,
                        },
                    );
                    return Ok(catalog);
                }
            } else {
                // The old tree's items go to the parse cache, so the reload parses only the
                // files that changed.
                self.parses
                    .entry(root.to_path_buf())
                    .or_default()
                    .keep_items(items_of(cached.catalog));
            }
        }
        self.reload(root)
    }

    /// Loads the project at `root` from disk and caches its catalog with a fresh watcher.
    fn reload(&mut self, root: &Path) -> Result<Arc<Catalog>> {
        let changes = Arc::new(Mutex::new(Changes::default()));
        let barrier = Arc::new(Barrier::default());
        let mut warnings = Vec::new();
        // On the first load of a project, its stored relevance index is read on another core
        // while the project loads: the first `get_rules` then only checks that it indexes
        // these items. A reload after an edit builds the index (a copy could rarely match).
        let prefetching = if self.parses.contains_key(root) {
            None
        } else {
            let root = root.to_path_buf();
            std::thread::Builder::new()
                .name("relevance-index".to_owned())
                .spawn(move || {
                    // It only fills the time the load leaves a core idle.
                    crate::local_state::lower_this_threads_priority();
                    crate::retrieval::prefetch_stored_index(&root)
                })
                .ok()
        };
        let parses = self.parses.entry(root.to_path_buf()).or_default();
        let folders = WatchedFolders::of(root)?;
        let barrier_folder = self.barriers.as_ref().map(tempfile::TempDir::path);
        // The watcher runs before the tree is read, so an edit made while the project loads
        // (or at any time after) marks the entry stale instead of being missed. Its setup walks
        // the config folder, which takes a while on a large project; meanwhile this thread
        // decodes the snapshot of parsed items, which looks at no project file (the load checks
        // every item's stamp afterwards).
        let watcher = std::thread::scope(|scope| {
            let watching = scope.spawn(|| watch(&folders, &changes, &barrier, barrier_folder));
            parses.start_from_snapshot_of(root, &folders.config_dir_relative);
            watching.join().unwrap_or_else(|_| {
                mark_everything(&changes);
                None
            })
        });
        // A file that does not load (invalid UTF-8, broken YAML) must not take the whole project
        // down: the other items are served and the reply names the broken file.
        let (loaded, errors) = project::load_lenient_cached(
            root,
            &mut warnings,
            Some(parses),
            crate::git_include::GitIncludes::Fetch,
        )?;
        let problems: Vec<String> = errors
            .iter()
            .flat_map(|error| {
                error
                    .to_string()
                    .lines()
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect();
        // Diagnostics go to stderr, the log stream; stdout carries only protocol messages.
        for problem in &problems {
            eprintln!("ai-rulez mcp: left out: {problem}");
        }
        let mut catalog = Catalog::new(Arc::new(loaded), problems.clone());
        catalog.note_load_errors(&errors);
        if let Some(prefetching) = prefetching {
            catalog.offer_stored_index(prefetching.join().ok().flatten());
        }
        let catalog = Arc::new(catalog);
        if let Some(pending) = self
            .parses
            .get_mut(root)
            .and_then(crate::content::ParseCache::take_pending_snapshot)
        {
            write_snapshot_in_background(pending, catalog.clone());
        }
        self.loaded.insert(
            root.to_path_buf(),
            Cached {
                catalog: catalog.clone(),
                load_problems: problems,
                changes,
                own_files: Vec::new(),
                barrier,
                watcher,
            },
        );
        Ok(catalog)
    }

    /// Marks the project at `root` stale, so the next call reloads it (after a write whose
    /// effect this cache cannot apply itself).
    pub(crate) fn mark_stale(&self, root: &Path) {
        if let Some(cached) = self.loaded.get(root) {
            mark_everything(&cached.changes);
        }
    }

    /// Records that this server created `files` in the project at `root`, so the next call
    /// adds them to the cached catalog instead of reloading the project, provided the watcher
    /// reports nothing else and each file still holds exactly these bytes.
    pub(crate) fn created(&mut self, root: &Path, files: Vec<OwnFile>) {
        if let Some(cached) = self.loaded.get_mut(root) {
            cached.own_files.extend(files);
        }
    }
}

/// Writes the snapshot of parsed items of `catalog`'s project in the background (see
/// [`crate::local_state::write_in_background`]); the next server started on the same tree reads
/// it instead of parsing every file. A failure is only logged: the snapshot is a hint.
fn write_snapshot_in_background(pending: crate::content::PendingSnapshot, catalog: Arc<Catalog>) {
    let path = pending.path().to_owned();
    crate::local_state::write_in_background(&path, move || {
        let project = &catalog.project;
        if let Err(error) = pending.write(&project.dir, &project.tree.items) {
            eprintln!("ai-rulez mcp: the snapshot of parsed items was not written: {error}");
        }
    });
}

/// Whether the watcher's `changes` are exactly the creation of `own_files` (and of their
/// temporary files), each still holding the bytes this server wrote.
fn is_own_change(catalog: &Catalog, changes: &Changes, own_files: &[OwnFile]) -> bool {
    if own_files.is_empty() {
        return false;
    }
    let root = &catalog.project.root;
    let is_expected = |changed: &PathBuf| {
        own_files.iter().any(|file| {
            let own = root.join(&file.path);
            if *changed == own {
                return true;
            }
            // A temporary file of the write: the same folder, a temporary of the same name.
            changed.parent() == own.parent()
                && changed
                    .file_name()
                    .and_then(|name| name.to_str())
                    .zip(own.file_name().and_then(|name| name.to_str()))
                    .is_some_and(|(changed_name, own_name)| {
                        crate::confined_fs::temporary::is_temporary_of(changed_name, own_name)
                    })
        })
    };
    changes.paths.iter().all(is_expected)
        && own_files.iter().all(|file| {
            catalog
                .project
                .dir
                .read(&file.path, crate::content::MAX_FILE_BYTES)
                .ok()
                .flatten()
                .is_some_and(|(bytes, _)| bytes == file.bytes)
        })
}

/// The items of `catalog`'s tree: moved out when nothing else holds the catalog or its project
/// (between calls this cache holds the only reference), else copied.
fn items_of(catalog: Arc<Catalog>) -> Vec<crate::content::Item> {
    match Arc::try_unwrap(catalog) {
        Ok(catalog) => match Arc::try_unwrap(catalog.project) {
            Ok(project) => project.tree.items,
            Err(project) => project.tree.items.clone(),
        },
        Err(catalog) => catalog.project.tree.items.clone(),
    }
}

/// `catalog` with the rules of `own_files` added, or `None` when a file does not load as a
/// rule or the catalog is still shared (then the project is reloaded).
fn with_own_files(
    catalog: Arc<Catalog>,
    own_files: &[OwnFile],
    load_problems: &[String],
) -> Option<Arc<Catalog>> {
    let items = own_files
        .iter()
        .map(|file| crate::content::root_rule_from_bytes(&file.path, &file.bytes))
        .collect::<Result<Vec<_>>>()
        .ok()?;
    // Between calls this cache holds the one reference to the catalog, so it can be changed
    // in place.
    let catalog = Arc::try_unwrap(catalog).ok()?;
    catalog.with_root_rules(items, load_problems).map(Arc::new)
}

/// Makes sure every file event from before this call has reached `cached` (see [`Barrier`]).
fn settle(barriers: Option<&tempfile::TempDir>, number: u64, cached: &Cached) {
    let Some(folder) = barriers else {
        mark_everything(&cached.changes);
        return;
    };
    let file = folder.path().join(number.to_string());
    if fs_err::write(&file, b"").is_err() || !cached.barrier.wait_for(number) {
        mark_everything(&cached.changes);
    }
    fs_err::remove_file(&file).ok();
}

/// The folders a project's watcher looks at, known from where its config is before any item
/// is loaded.
struct WatchedFolders {
    /// The folder watched recursively: the config folder, or the root for a root
    /// `ai-rulez.toml`.
    target: PathBuf,
    /// The machine-local folder, whose bookkeeping files change no item.
    local: PathBuf,
    /// The team-memory folders, read on every call and not part of the catalog.
    memory: [PathBuf; 3],
    /// The config folder relative to the root (empty for a root `ai-rulez.toml`).
    config_dir_relative: String,
}

impl WatchedFolders {
    /// The folders of the project at `root` (a discovered project root).
    ///
    /// Errors: as [`project::discover`] (no project, a symlinked config).
    fn of(root: &Path) -> Result<Self> {
        let (_, config_relative, _) = project::discover(root)?;
        let config_dir_relative = project::config_dir_of(config_relative).to_owned();
        let config_dir = root.join(&config_dir_relative);
        Ok(Self {
            target: if config_dir_relative.is_empty() {
                root.to_path_buf()
            } else {
                config_dir.clone()
            },
            local: config_dir.join("local"),
            memory: crate::memory::folders_of(&config_dir_relative).map(|folder| root.join(folder)),
            config_dir_relative,
        })
    }
}

/// Watches the project's config folder and records the paths of changed entries in `changes`
/// (an event without paths, or one asking for a rescan, means anything may have changed). The
/// same watcher observes the barrier folder and reports barrier numbers instead. Without a
/// watcher (for example when inotify is unavailable) the project is reloaded on every call.
fn watch(
    folders: &WatchedFolders,
    changes: &Arc<Mutex<Changes>>,
    barrier: &Arc<Barrier>,
    barriers: Option<&Path>,
) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let recorded = changes.clone();
    let seen = barrier.clone();
    let barrier_folder = barriers.map(Path::to_path_buf);
    let local_folder = folders.local.clone();
    let memory_folders = folders.memory.clone();
    let on_event = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            mark_everything(&recorded);
            return;
        };
        if let Some(folder) = &barrier_folder
            && !event.paths.is_empty()
            && event.paths.iter().all(|path| path.starts_with(folder))
        {
            let highest = event
                .paths
                .iter()
                .filter_map(|path| path.file_name()?.to_str()?.parse::<u64>().ok())
                .max();
            if let Some(number) = highest {
                seen.advance(number);
            }
            return;
        }
        // Reading the tree (the reload itself) reports access events; counting those would mark
        // the fresh cache stale at once and reload on every call. Any other event may mean a
        // change.
        if event.kind.is_access() {
            return;
        }
        // The machine-local bookkeeping files (usage counts, the ledger) and their temporary
        // files change no item, so writing them after a `get_rules` call must not force a reload.
        // Nor does making the machine-local folder itself, which the server's first cache
        // write does: an empty new folder holds no item (files later made in it are reported
        // one by one).
        let created = matches!(event.kind, notify::EventKind::Create(_));
        if !event.paths.is_empty()
            && event.paths.iter().all(|path| {
                (created && *path == local_folder)
                    || path.parent() == Some(local_folder.as_path())
                        && path
                            .file_name()
                            .and_then(|name| name.to_str())
                            .is_some_and(crate::learning::usage::is_bookkeeping_file)
            })
        {
            return;
        }
        // Team memory (memories, learnings, refresh requests) is read from disk on every call
        // and is not part of the catalog, so saving it must not force a reload either.
        if !event.paths.is_empty()
            && event
                .paths
                .iter()
                .all(|path| memory_folders.iter().any(|folder| path.starts_with(folder)))
        {
            return;
        }
        let mut recorded = recorded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if event.paths.is_empty() || event.need_rescan() {
            recorded.everything = true;
        } else {
            recorded.paths.extend(event.paths);
        }
    };
    // The loader never reads through a symlink, so the watcher does not follow one either:
    // following them would also make it walk whatever a committed link points at (a link to
    // `/` is the whole disk) and stat every file on the way.
    let watcher = notify::RecommendedWatcher::new(
        on_event,
        notify::Config::default().with_follow_symlinks(false),
    );
    let Ok(mut watcher) = watcher else {
        mark_everything(changes);
        return None;
    };
    if watcher
        .watch(&folders.target, notify::RecursiveMode::Recursive)
        .is_err()
        || barriers.is_some_and(|folder| {
            watcher
                .watch(folder, notify::RecursiveMode::NonRecursive)
                .is_err()
        })
    {
        mark_everything(changes);
        return None;
    }
    Some(watcher)
}
