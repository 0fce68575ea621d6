//! The project's writer lock: every ai-rulez process that changes a project (a CLI `generate`,
//! `clean` or `lock`, an MCP server's authoring tools) holds it across read-compare-write, so two
//! writers never interleave and a compare-and-swap (`expected_hash`) cannot lose an update.
//!
//! It is an advisory `flock` on the project's root folder itself, so no lock file appears in the
//! tree and nothing has to be kept out of git; the kernel releases it when the holder exits, even
//! after `kill -9`. Waits are bounded: past the patience the caller gets [`Error::Busy`].

use std::cell::RefCell;
use std::time::{Duration, Instant};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{FlockOperation, Mode, OFlags};
use rustix::io::Errno;

use super::ProjectDir;
use crate::error::{Error, Result};

/// Environment variable overriding how long a writer waits for the lock, in milliseconds
/// (default 10000).
pub(crate) const LOCK_WAIT_ENV: &str = "AI_RULEZ_LOCK_WAIT_MS";

thread_local! {
    /// Whether the caller on this thread has given up (an MCP client cancelled the call): a
    /// writer checks it while waiting for the lock and once more after taking it, so a cancelled
    /// call stops before it writes anything.
    static GIVEN_UP: RefCell<Option<Box<dyn Fn() -> bool>>> = const { RefCell::new(None) };
}

/// Runs `run` on this thread with `given_up` consulted by every lock taken meanwhile: once it
/// returns `true`, taking the lock fails with [`Error::Cancelled`] (and a lock just taken is
/// released), so nothing is written. Returns what `run` returns.
pub(crate) fn while_cancellable<T>(
    given_up: impl Fn() -> bool + 'static,
    run: impl FnOnce() -> T,
) -> T {
    let previous = GIVEN_UP.with(|slot| slot.replace(Some(Box::new(given_up))));
    let outcome = run();
    GIVEN_UP.with(|slot| slot.replace(previous));
    outcome
}

/// Whether the caller on this thread has given up (see [`while_cancellable`]).
fn given_up() -> bool {
    GIVEN_UP.with(|slot| slot.borrow().as_ref().is_some_and(|given_up| given_up()))
}

/// Default wait for the lock.
const DEFAULT_PATIENCE: Duration = Duration::from_secs(10);

/// A held writer lock; dropping it releases the lock.
#[derive(Debug)]
pub struct ProjectLock {
    _handle: OwnedFd,
}

/// Takes the lock on `project`, retrying with growing pauses (1 ms up to 50 ms) until the
/// patience ([`LOCK_WAIT_ENV`]) runs out.
///
/// Errors: [`Error::Busy`] after the wait; I/O errors from opening the folder.
pub(super) fn acquire(project: &ProjectDir) -> Result<ProjectLock> {
    // A fresh open file description: flock is per description, so this lock also excludes
    // other handles on the same folder inside this process.
    let handle = rustix::fs::openat(
        project.handle().as_fd(),
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|errno| Error::Io(std::io::Error::from(errno)))?;
    let patience = patience();
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        if given_up() {
            return Err(Error::Cancelled);
        }
        match rustix::fs::flock(&handle, FlockOperation::NonBlockingLockExclusive) {
            // Checked again once held: the cancel may have come while the lock was taken.
            // Dropping the handle releases the lock.
            Ok(()) if given_up() => return Err(Error::Cancelled),
            Ok(()) => return Ok(ProjectLock { _handle: handle }),
            Err(Errno::WOULDBLOCK | Errno::INTR) => {}
            Err(errno) => return Err(Error::Io(std::io::Error::from(errno))),
        }
        let waited = started.elapsed();
        if waited >= patience {
            return Err(Error::Busy {
                root: project.root().display().to_string(),
                waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
            });
        }
        std::thread::sleep(pause.min(patience.saturating_sub(waited)));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

fn patience() -> Duration {
    std::env::var(LOCK_WAIT_ENV)
        .ok()
        .and_then(|value| value.trim().parse::<u64>().ok())
        .map_or(DEFAULT_PATIENCE, Duration::from_millis)
}
