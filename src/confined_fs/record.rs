//! A record of every fact the confined file layer told one run: each path looked at or read
//! (what was there: nothing, a folder, or a file's size, times, inode and mode) and each
//! folder listed (its entry names and kinds). A run whose whole result follows from the files
//! it read (`generate`, see [`crate::run_memo`]) can then be skipped later when every one of
//! those facts is still true.
//!
//! The record belongs to the thread that started it, and to the threads that thread hands
//! work to through [`crate::parallel`] or the writer's two threads (which carry it over with
//! [`current`] and [`carry`]), so two runs in one process (tests, the MCP server) never mix
//! their facts. Anything the run did that such facts cannot describe (a write, a file-layer
//! error, a look outside the layer such as a git query) marks the record tainted, and a
//! tainted record is never used.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use super::{EntryKind, Info};

/// One fact about a path as the run saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Fact {
    /// Nothing was there (or a folder on the way was missing).
    Absent,
    /// A folder. Its times are left out on purpose: they move whenever an entry is added,
    /// including the run's own local state; what a run reads of a folder is its listing.
    Folder,
    /// A file, symlink or other entry, with its facts.
    Present(Info),
    /// The folder's entries (name and kind), sorted by name.
    Listing(Vec<(String, EntryKind)>),
}

impl Fact {
    /// The fact a look at a path gives: [`Fact::Folder`] for a folder, else its facts.
    pub(crate) fn of(info: Option<Info>) -> Self {
        match info {
            None => Self::Absent,
            Some(info) if info.kind == EntryKind::Folder => Self::Folder,
            Some(info) => Self::Present(info),
        }
    }
}

/// What one run recorded.
#[derive(Debug, Default)]
pub(crate) struct Recording {
    /// (absolute path, fact), in the order seen (a path may appear more than once).
    pub facts: Vec<(PathBuf, Fact)>,
    /// Environment variables the run looked up, with their values.
    pub environment: Vec<(String, Option<String>)>,
    /// Whether the run did something the facts cannot describe.
    pub tainted: bool,
}

/// The shared record of one run.
pub(crate) type Handle = Arc<Mutex<Recording>>;

thread_local! {
    static CURRENT: RefCell<Option<Handle>> = const { RefCell::new(None) };
}

/// Starts recording on this thread (a record already running is replaced).
pub(crate) fn start() {
    CURRENT.with(|slot| *slot.borrow_mut() = Some(Arc::new(Mutex::new(Recording::default()))));
}

/// Stops recording on this thread and returns what was recorded; `None` when nothing was.
pub(crate) fn finish() -> Option<Recording> {
    let handle = CURRENT.with(|slot| slot.borrow_mut().take())?;
    Some(match Arc::try_unwrap(handle) {
        Ok(mutex) => mutex.into_inner().unwrap_or_else(PoisonError::into_inner),
        // A thread still holds it (it cannot, once the scoped threads are joined): take a copy.
        Err(shared) => {
            let mut recording = shared.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::take(&mut *recording)
        }
    })
}

/// The record running on this thread, to hand to a worker thread with [`carry`].
pub(crate) fn current() -> Option<Handle> {
    CURRENT.with(|slot| slot.borrow().clone())
}

/// Runs `work` with `handle` as this thread's record (for a worker thread doing part of the
/// recorded run), then restores what was there.
pub(crate) fn carry<T>(handle: Option<Handle>, work: impl FnOnce() -> T) -> T {
    let previous = CURRENT.with(|slot| slot.replace(handle));
    let result = work();
    CURRENT.with(|slot| *slot.borrow_mut() = previous);
    result
}

/// Runs `work` without recording what it reads: for files that are only hints and cannot
/// change a result (the writer's record of output stats).
pub(crate) fn unobserved<T>(work: impl FnOnce() -> T) -> T {
    carry(None, work)
}

fn with_recording(change: impl FnOnce(&mut Recording)) {
    CURRENT.with(|slot| {
        if let Some(handle) = slot.borrow().as_ref() {
            change(&mut handle.lock().unwrap_or_else(PoisonError::into_inner));
        }
    });
}

/// Whether a record runs on this thread (so callers build a fact only when it is wanted).
pub(super) fn active() -> bool {
    CURRENT.with(|slot| slot.borrow().is_some())
}

/// Notes `fact` about `relative` below `root`.
pub(super) fn note(root: &Path, relative: &str, fact: Fact) {
    if !active() {
        return;
    }
    let path = if relative.is_empty() {
        root.to_path_buf()
    } else {
        root.join(relative)
    };
    with_recording(|recording| recording.facts.push((path, fact)));
}

/// Marks the running record (if any) as unusable.
pub(crate) fn taint() {
    with_recording(|recording| recording.tainted = true);
}

/// Notes that the run looked up the environment variable `name` and found `value`.
pub(crate) fn environment(name: &str, value: Option<&str>) {
    with_recording(|recording| {
        recording
            .environment
            .push((name.to_owned(), value.map(str::to_owned)));
    });
}
