//! Opening a project-relative path below a directory handle without following any symlink and
//! without leaving the directory. On Linux this is one `openat2` call with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, so the kernel resolves the whole path atomically (a
//! folder swapped for a symlink between two calls cannot redirect it). Where `openat2` is missing
//! (other systems, old kernels, sandboxes that filter it) each component is opened in turn with
//! `O_NOFOLLOW`, which gives the same guarantee one component at a time.

use std::sync::atomic::{AtomicU8, Ordering};

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

/// Whether `openat2` works here: 0 not tried yet, 1 works, 2 unavailable.
static OPENAT2_STATE: AtomicU8 = AtomicU8::new(0);

/// Opens `relative` (components joined with `/`, already checked to hold no empty, `.` or `..`
/// component) below `base` with `flags`. A symlink anywhere on the way, the last component
/// included, fails with `ELOOP`.
///
/// Errors: the `Errno` of the failing system call (`ENOENT`, `ENOTDIR`, `ELOOP`, ...).
pub(super) fn open_beneath(
    base: BorrowedFd<'_>,
    relative: &str,
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, Errno> {
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW | OFlags::NOCTTY;
    #[cfg(target_os = "linux")]
    if OPENAT2_STATE.load(Ordering::Relaxed) != 2 {
        use rustix::fs::ResolveFlags;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(base, relative, flags, mode, resolve) {
            // With O_DIRECTORY a trailing symlink reports ENOTDIR rather than ELOOP.
            Err(Errno::NOTDIR) => return Err(diagnose_not_a_folder(base, relative)),
            // ENOSYS: the kernel predates openat2; EPERM: a sandbox filters it.
            Err(Errno::NOSYS | Errno::PERM) if OPENAT2_STATE.load(Ordering::Relaxed) == 0 => {
                OPENAT2_STATE.store(2, Ordering::Relaxed);
            }
            Err(Errno::AGAIN) => return open_by_components(base, relative, flags, mode),
            result => {
                OPENAT2_STATE.store(1, Ordering::Relaxed);
                return result;
            }
        }
    }
    open_by_components(base, relative, flags, mode)
}

/// The portable fallback of [`open_beneath`]: every folder is opened with `O_NOFOLLOW |
/// O_DIRECTORY`, relative to the handle of the folder before it.
fn open_by_components(
    base: BorrowedFd<'_>,
    relative: &str,
    flags: OFlags,
    mode: Mode,
) -> Result<OwnedFd, Errno> {
    let mut components = relative.split('/').peekable();
    let mut current: Option<OwnedFd> = None;
    while let Some(component) = components.next() {
        let parent = current.as_ref().map_or(base, AsFd::as_fd);
        let last = components.peek().is_none();
        let component_flags = if last {
            flags
        } else {
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC | OFlags::NOFOLLOW
        };
        let opened =
            rustix::fs::openat(parent, component, component_flags, mode).map_err(|errno| {
                match errno {
                    Errno::NOTDIR => diagnose_not_a_folder(parent, component),
                    errno => errno,
                }
            })?;
        if last {
            return Ok(opened);
        }
        current = Some(opened);
    }
    Err(Errno::INVAL)
}

/// `ENOTDIR` from an open means a file where a folder was expected, or a symlink opened with
/// `O_DIRECTORY | O_NOFOLLOW`; the latter is reported as `ELOOP` like every other symlink. Only
/// the type of the last component is looked at (earlier symlinks were refused before).
fn diagnose_not_a_folder(base: BorrowedFd<'_>, relative: &str) -> Errno {
    match rustix::fs::statat(base, relative, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat)
            if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                == rustix::fs::FileType::Symlink =>
        {
            Errno::LOOP
        }
        _ => Errno::NOTDIR,
    }
}

/// Opens the folder `relative` below `base` (an empty string is `base` itself).
///
/// Errors: as [`open_beneath`].
pub(super) fn open_folder(base: BorrowedFd<'_>, relative: &str) -> Result<OwnedFd, Errno> {
    let relative = if relative.is_empty() { "." } else { relative };
    if relative == "." {
        return rustix::fs::openat(
            base,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        );
    }
    open_beneath(
        base,
        relative,
        OFlags::RDONLY | OFlags::DIRECTORY,
        Mode::empty(),
    )
}
