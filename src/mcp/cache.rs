//! Loaded projects kept between MCP calls: each project's catalog (search index, compiled
//! scopes) is reused until its file watcher reports a change, so a reading call only matches and
//! ranks, and a hand edit is still seen by the very next call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

use crate::error::Result;
use crate::project::{self, Project};
use crate::retrieval::Catalog;

/// A loaded project with its catalog, reloaded when its watcher reports a change.
struct Cached {
    catalog: Arc<Catalog>,
    dirty: Arc<AtomicBool>,
    barrier: Arc<Barrier>,
    _watcher: Option<notify::RecommendedWatcher>,
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
    /// Errors: the config cannot be read or parsed. Broken item files do not fail: they are left
    /// out and named in the catalog's problems (and on stderr).
    pub(crate) fn catalog(&mut self, root: &Path) -> Result<Arc<Catalog>> {
        if let Some(cached) = self.loaded.get(root) {
            self.next_barrier += 1;
            settle(self.barriers.as_ref(), self.next_barrier, cached);
            if !cached.dirty.load(Ordering::Acquire) {
                return Ok(cached.catalog.clone());
            }
        }
        let dirty = Arc::new(AtomicBool::new(false));
        let barrier = Arc::new(Barrier::default());
        let mut warnings = Vec::new();
        // A file that does not load (invalid UTF-8, broken YAML) must not take the whole project
        // down: the other items are served and the reply names the broken file.
        let parses = self.parses.entry(root.to_path_buf()).or_default();
        let (loaded, errors) = project::load_lenient_cached(root, &mut warnings, Some(parses))?;
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
        let loaded = Arc::new(loaded);
        // The watcher is set up before the catalog is built, so an edit made meanwhile marks
        // the fresh entry stale instead of being missed.
        let watcher = watch(
            &loaded,
            &dirty,
            &barrier,
            self.barriers.as_ref().map(tempfile::TempDir::path),
        );
        let catalog = Arc::new(Catalog::new(loaded, problems));
        self.loaded.insert(
            root.to_path_buf(),
            Cached {
                catalog: catalog.clone(),
                dirty,
                barrier,
                _watcher: watcher,
            },
        );
        Ok(catalog)
    }

    /// Marks the project at `root` stale, so the next call reloads it (after a write).
    pub(crate) fn mark_stale(&self, root: &Path) {
        if let Some(cached) = self.loaded.get(root) {
            cached.dirty.store(true, Ordering::Release);
        }
    }
}

/// Makes sure every file event from before this call has reached `cached` (see [`Barrier`]).
fn settle(barriers: Option<&tempfile::TempDir>, number: u64, cached: &Cached) {
    let Some(folder) = barriers else {
        cached.dirty.store(true, Ordering::Release);
        return;
    };
    let file = folder.path().join(number.to_string());
    if fs_err::write(&file, b"").is_err() || !cached.barrier.wait_for(number) {
        cached.dirty.store(true, Ordering::Release);
    }
    fs_err::remove_file(&file).ok();
}

/// Watches the project's config folder; any event marks the cache stale. The same watcher
/// observes the barrier folder and reports barrier numbers instead. Without a watcher (for
/// example when inotify is unavailable) the project is reloaded on every call.
fn watch(
    project: &Project,
    dirty: &Arc<AtomicBool>,
    barrier: &Arc<Barrier>,
    barriers: Option<&Path>,
) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher as _;
    let flag = dirty.clone();
    let seen = barrier.clone();
    let barrier_folder = barriers.map(Path::to_path_buf);
    let local_folder = project.config_dir.join("local");
    let memories_folder = project
        .root
        .join(crate::memory::memories::Store::of(project).base());
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else {
            flag.store(true, Ordering::Release);
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
        if !event.paths.is_empty()
            && event.paths.iter().all(|path| {
                path.parent() == Some(local_folder.as_path())
                    && path
                        .file_name()
                        .and_then(|name| name.to_str())
                        .is_some_and(crate::learning::usage::is_bookkeeping_file)
            })
        {
            return;
        }
        // Team memories are read from disk on every call and are not part of the catalog, so
        // saving one must not force a reload either.
        if !event.paths.is_empty()
            && event
                .paths
                .iter()
                .all(|path| path.starts_with(&memories_folder))
        {
            return;
        }
        flag.store(true, Ordering::Release);
    });
    let Ok(mut watcher) = watcher else {
        dirty.store(true, Ordering::Release);
        return None;
    };
    let target = if project.config_dir_relative.is_empty() {
        project.root.clone()
    } else {
        project.config_dir.clone()
    };
    if watcher
        .watch(&target, notify::RecursiveMode::Recursive)
        .is_err()
        || barriers.is_some_and(|folder| {
            watcher
                .watch(folder, notify::RecursiveMode::NonRecursive)
                .is_err()
        })
    {
        dirty.store(true, Ordering::Release);
        return None;
    }
    Some(watcher)
}
