//! The confined file layer: the only way ai-rulez reads, lists, writes or deletes a file of a
//! project. Every path is project-relative (`/`-separated), opened relative to a handle on the
//! project root, and may hold no symlink and no `..` in any component, so a committed symlink
//! (`.ai-rulez/skills -> /elsewhere`) can never lead a read, a write or a delete outside the
//! project, and a folder swapped for a link between two steps cannot either. Writes are atomic
//! (a temporary file in the same folder, then a rename); creation never replaces (rename with
//! `RENAME_NOREPLACE`, else a hard link); writers of one project meet at one lock ([`lock`]).
//!
//! Guarantees hold against other processes and crashes of ai-rulez itself (a `kill -9` leaves
//! either the old or the new bytes of each file); files are not `fsync`ed, so a power loss may
//! still lose the latest writes, as with git's own checkout.

mod lock;
mod preflight;
pub(crate) use preflight::check_name_lengths;
pub(crate) mod record;
mod resolve;
pub(crate) mod temporary;

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::{Error, Result};

pub(crate) use lock::{ProjectLock, while_cancellable};

/// The reason given for any path that is, or passes through, a symlink.
pub(crate) const SYMLINK_REFUSAL: &str = "is (or is inside) a symlink; ai-rulez never reads or writes through symlinks (a committed link could point anywhere), so replace the link with a real file or folder";

/// Prefix and suffix of every temporary file ai-rulez creates next to a file it replaces
/// (`.ai-rulez-<16 hex>-<8 hex>.tmp`, see [`temporary`]); the managed `.gitignore` block covers
/// the pattern and the next run removes leftovers of an interrupted one.
pub(crate) const TEMP_PREFIX: &str = ".ai-rulez-";
/// See [`TEMP_PREFIX`].
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// What is at a path, seen without following symlinks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Folder,
    /// A symbolic link (never followed).
    Symlink,
    /// A pipe, socket or device.
    Other,
}

/// One entry of a folder listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name; names that are not UTF-8 are listed lossily and cannot be opened.
    pub name: String,
    /// Whether `name` is the exact (UTF-8) name on disk.
    pub exact_name: bool,
    /// What it is.
    pub kind: EntryKind,
}

/// Facts about one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    /// What it is.
    pub kind: EntryKind,
    /// Size in bytes.
    pub len: u64,
    /// Permission bits (`0o777` mask).
    pub mode: u32,
    /// Modification time as (seconds, nanoseconds) since the epoch.
    pub modified: (i64, i64),
    /// Status change time as (seconds, nanoseconds) since the epoch: moved on by every write,
    /// rename and `touch`, and not settable by a program (unlike `modified`).
    pub changed: (i64, i64),
    /// The inode number (a replaced file gets a new one).
    pub inode: u64,
}

/// A handle on a project's root folder. Cheap to share between threads; every method is
/// relative to it.
#[derive(Debug)]
pub struct ProjectDir {
    root: PathBuf,
    handle: OwnedFd,
}

impl ProjectDir {
    /// Opens the folder `root` (which may itself be reached through symlinks: the user chose it).
    ///
    /// Errors: [`Error::Io`] when it is not an openable folder.
    pub fn open(root: &Path) -> Result<Self> {
        let handle = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| io_error(&root.display().to_string(), "opening", errno))?;
        Ok(Self {
            root: root.to_path_buf(),
            handle,
        })
    }

    /// The root folder's path as given to [`ProjectDir::open`] (for messages and for tools that
    /// need a path, such as git).
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What is at `relative`, without following a symlink there; `None` when nothing is (or a
    /// folder on the way is missing or is a file).
    ///
    /// Errors: [`Error::Refused`] when a folder on the way is a symlink or the path is not a
    /// plain relative path; other I/O errors.
    pub fn info(&self, relative: &str) -> Result<Option<Info>> {
        let found = self.info_unrecorded(relative);
        self.observe(relative, &found);
        found
    }

    /// What this folder itself is (its times move on when an entry is added, removed or
    /// renamed in it).
    ///
    /// Errors: [`Error::Io`] when the kernel refuses `fstat` on the open folder.
    pub fn own_info(&self) -> Result<Info> {
        rustix::fs::fstat(&self.handle)
            .map(|stat| info_of(&stat))
            .map_err(|errno| io_error(&self.root.display().to_string(), "reading", errno))
    }

    /// Notes in the running record (see [`record`]) what a look at `relative` found; an error
    /// taints the record.
    fn observe(&self, relative: &str, found: &Result<Option<Info>>) {
        if !record::active() {
            return;
        }
        match found {
            Ok(info) => record::note(&self.root, relative, record::Fact::of(*info)),
            Err(_) => record::taint(),
        }
    }

    fn info_unrecorded(&self, relative: &str) -> Result<Option<Info>> {
        let (folder, name) = split_checked(relative)?;
        if folder.is_empty() {
            // Directly in this folder: no folder to open first.
            return match rustix::fs::statat(&self.handle, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(stat) => Ok(Some(info_of(&stat))),
                Err(errno) => absent_or(relative, "reading", errno),
            };
        }
        let parent = match resolve::open_folder(self.handle.as_fd(), folder) {
            Ok(parent) => parent,
            Err(errno) => return absent_or(relative, "reading", errno),
        };
        match rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(info_of(&stat))),
            Err(errno) => absent_or(relative, "reading", errno),
        }
    }

    /// The first leading folder of the project-relative `relative` that exists but is not a
    /// folder (a file, pipe or device), where creating `relative` would fail; `None` when every
    /// existing one is a folder. Reading `relative` reports such a path as absent, so a writer
    /// asks this before it writes anything. Folders found to be folders are added to `seen`,
    /// so paths sharing them are looked at once.
    ///
    /// Errors: [`Error::Refused`] when a folder on the way is a symlink or the path is not a
    /// plain relative path; other I/O errors.
    pub fn not_a_folder_on_the_way(
        &self,
        relative: &str,
        seen: &mut std::collections::HashSet<String>,
    ) -> Result<Option<String>> {
        let mut end = 0;
        while let Some(offset) = relative[end..].find('/') {
            end += offset;
            let folder = &relative[..end];
            end += 1;
            if seen.contains(folder) {
                continue;
            }
            match self.info(folder)? {
                None => return Ok(None),
                Some(info) if info.kind == EntryKind::Folder => {
                    seen.insert(folder.to_owned());
                }
                Some(info) if info.kind == EntryKind::Symlink => {
                    return Err(Error::refused(folder, SYMLINK_REFUSAL));
                }
                Some(_) => return Ok(Some(folder.to_owned())),
            }
        }
        Ok(None)
    }

    /// The first of the project-relative `relative`'s leading folders, or `relative` itself,
    /// that is a symlink (`web` for `web/src/a.ts` when `web` is a link), without following
    /// any; `None` when none is, or the path stops existing (or stops being a folder) before
    /// one is met. A part that cannot be looked at ends the search too: a caller naming links
    /// for the user must not stop on one it could not see.
    #[must_use]
    pub fn first_link_on_the_way(&self, relative: &str) -> Option<String> {
        let parts: Vec<&str> = relative
            .split('/')
            .filter(|part| !part.is_empty())
            .collect();
        for end in 1..=parts.len() {
            let prefix = parts[..end].join("/");
            match self.info(&prefix).ok()??.kind {
                EntryKind::Symlink => return Some(prefix),
                EntryKind::Folder => {}
                EntryKind::File | EntryKind::Other => return None,
            }
        }
        None
    }

    /// Where the symlink at `relative` points, as a project-relative path resolved lexically
    /// against the link's folder (`AGENTS.md -> ./CLAUDE.md` gives `CLAUDE.md`). The link is
    /// read, never followed. `None` when nothing is there, it is not a symlink, or its target is
    /// absolute or climbs out of the project: such a link can never be one of ours.
    ///
    /// Errors: [`Error::Refused`] when a folder on the way is a symlink or the path is not a
    /// plain relative path; other I/O errors.
    pub fn link_target(&self, relative: &str) -> Result<Option<String>> {
        if record::active() {
            // The link's own facts: replacing or retargeting it gives it a new inode and
            // status-change time.
            let found = self.info_unrecorded(relative);
            self.observe(relative, &found);
        }
        let (folder, name) = split_checked(relative)?;
        let parent = match resolve::open_folder(self.handle.as_fd(), folder) {
            Ok(parent) => parent,
            Err(errno) => return absent_or(relative, "reading", errno),
        };
        let target = match rustix::fs::readlinkat(&parent, name, Vec::new()) {
            Ok(target) => target,
            // EINVAL: the entry is not a symlink.
            Err(Errno::INVAL) => return Ok(None),
            Err(errno) => return absent_or(relative, "reading", errno),
        };
        let Ok(target) = target.into_string() else {
            return Ok(None);
        };
        if target.starts_with('/') {
            return Ok(None);
        }
        let joined = if folder.is_empty() {
            target
        } else {
            format!("{folder}/{target}")
        };
        Ok(normalise_relative(&joined).filter(|path| check_relative(path).is_ok()))
    }

    /// The folder at `relative` as a handle of its own, for many accesses to the entries in it
    /// without resolving its path again for each; `None` when it is absent. It is as confined
    /// as this one: it was opened without passing a symlink or `..`, and every access through
    /// it is confined beneath it. Paths it takes and names are relative to it.
    ///
    /// Errors: [`Error::Refused`] when the folder is or passes through a symlink or a file;
    /// other I/O.
    pub fn folder(&self, relative: &str) -> Result<Option<ProjectDir>> {
        check_relative(relative)?;
        let opened = match resolve::open_folder(self.handle.as_fd(), relative) {
            Ok(handle) => Ok(Some(ProjectDir {
                root: self.root.join(relative),
                handle,
            })),
            Err(errno) => absent_or(relative, "opening", errno),
        };
        if record::active() {
            match &opened {
                Ok(Some(_)) => record::note(&self.root, relative, record::Fact::Folder),
                Ok(None) => record::note(&self.root, relative, record::Fact::Absent),
                Err(_) => record::taint(),
            }
        }
        opened
    }

    /// Reads the regular file at `relative` with its permission bits; `None` when it is absent.
    ///
    /// Errors: [`Error::Refused`] for a symlink on the way or at the path, for anything but a
    /// regular file (a folder, a pipe, a device), or for a file over `max_bytes`; other I/O.
    pub fn read(&self, relative: &str, max_bytes: u64) -> Result<Option<(Vec<u8>, u32)>> {
        Ok(self
            .read_with_info(relative, max_bytes)?
            .map(|(bytes, info)| (bytes, info.mode)))
    }

    /// Like [`ProjectDir::read`], with what the open file was (size, times, inode, permission
    /// bits) just before it was read.
    ///
    /// Errors: as [`ProjectDir::read`].
    pub fn read_with_info(
        &self,
        relative: &str,
        max_bytes: u64,
    ) -> Result<Option<(Vec<u8>, Info)>> {
        let read = self.read_unrecorded(relative, max_bytes);
        if record::active() {
            match &read {
                Ok(found) => record::note(
                    &self.root,
                    relative,
                    record::Fact::of(found.as_ref().map(|(_, info)| *info)),
                ),
                Err(_) => record::taint(),
            }
        }
        read
    }

    fn read_unrecorded(&self, relative: &str, max_bytes: u64) -> Result<Option<(Vec<u8>, Info)>> {
        check_relative(relative)?;
        // O_NONBLOCK: opening a pipe must not wait for a writer; the type is checked right after.
        let file = match resolve::open_beneath(
            self.handle.as_fd(),
            relative,
            OFlags::RDONLY | OFlags::NONBLOCK,
            Mode::empty(),
        ) {
            Ok(file) => file,
            Err(errno) => return absent_or(relative, "reading", errno),
        };
        let stat =
            rustix::fs::fstat(&file).map_err(|errno| io_error(relative, "reading", errno))?;
        let info = info_of(&stat);
        if info.kind != EntryKind::File {
            return Err(Error::refused(
                relative,
                "is not a regular file (a folder, a pipe or a device); move it away",
            ));
        }
        if info.len > max_bytes {
            return Err(Error::refused(
                relative,
                format!(
                    "is {} bytes, over the {max_bytes}-byte limit for this kind of file; move it away",
                    info.len
                ),
            ));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(info.len).unwrap_or(0));
        std::fs::File::from(file)
            .take(max_bytes.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| wrap_io(relative, "reading", &error))?;
        if bytes.len() as u64 > max_bytes {
            return Err(Error::refused(
                relative,
                format!("grew over the {max_bytes}-byte limit while being read; move it away"),
            ));
        }
        Ok(Some((bytes, info)))
    }

    /// Lists the folder at `relative` (empty string: the root), sorted by name; `None` when it
    /// is absent. Entries are described without following symlinks.
    ///
    /// Errors: [`Error::Refused`] when the folder is or passes through a symlink; other I/O.
    pub fn list(&self, relative: &str) -> Result<Option<Vec<Entry>>> {
        let listed = self.list_unrecorded(relative);
        if record::active() {
            match &listed {
                Ok(Some(entries)) => record::note(
                    &self.root,
                    relative,
                    record::Fact::Listing(
                        entries
                            .iter()
                            .map(|entry| (entry.name.clone(), entry.kind))
                            .collect(),
                    ),
                ),
                Ok(None) => record::note(&self.root, relative, record::Fact::Absent),
                Err(_) => record::taint(),
            }
        }
        listed
    }

    fn list_unrecorded(&self, relative: &str) -> Result<Option<Vec<Entry>>> {
        if !relative.is_empty() {
            check_relative(relative)?;
        }
        let folder = match resolve::open_folder(self.handle.as_fd(), relative) {
            Ok(folder) => folder,
            Err(errno) => return absent_or(relative, "listing", errno),
        };
        let shown = if relative.is_empty() { "." } else { relative };
        let mut entries = Vec::new();
        let reader = rustix::fs::Dir::read_from(&folder)
            .map_err(|errno| io_error(shown, "listing", errno))?;
        for entry in reader {
            let entry = entry.map_err(|errno| io_error(shown, "listing", errno))?;
            let raw = entry.file_name().to_bytes();
            if raw == b"." || raw == b".." {
                continue;
            }
            let (name, exact_name) = match std::str::from_utf8(raw) {
                Ok(name) => (name.to_owned(), true),
                Err(_) => (String::from_utf8_lossy(raw).into_owned(), false),
            };
            let mut kind = kind_of(entry.file_type());
            if entry.file_type() == FileType::Unknown {
                kind = rustix::fs::statat(&folder, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
                    .map_or(EntryKind::Other, |stat| info_of(&stat).kind);
            }
            entries.push(Entry {
                name,
                exact_name,
                kind,
            });
        }
        entries.sort_by(|left, right| left.name.cmp(&right.name));
        Ok(Some(entries))
    }

    /// Lists the folder at `relative` as [`ProjectDir::list`] does, with the facts of each
    /// entry (size, modification time), read relative to the one open folder; `None` when it
    /// is absent. For callers that keep parsed files and re-read only the changed ones.
    ///
    /// Errors: [`Error::Refused`] when the folder is or passes through a symlink; other I/O.
    pub fn list_with_info(&self, relative: &str) -> Result<Option<Vec<(Entry, Info)>>> {
        // Not used by any recorded run; a record that met it would not describe it.
        record::taint();
        check_relative(relative)?;
        let folder = match resolve::open_folder(self.handle.as_fd(), relative) {
            Ok(folder) => folder,
            Err(errno) => return absent_or(relative, "listing", errno),
        };
        let mut entries = Vec::new();
        let reader = rustix::fs::Dir::read_from(&folder)
            .map_err(|errno| io_error(relative, "listing", errno))?;
        for entry in reader {
            let entry = entry.map_err(|errno| io_error(relative, "listing", errno))?;
            let raw = entry.file_name().to_bytes();
            if raw == b"." || raw == b".." {
                continue;
            }
            // An entry removed between the listing and its stat is left out.
            let Ok(stat) =
                rustix::fs::statat(&folder, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW)
            else {
                continue;
            };
            let (name, exact_name) = match std::str::from_utf8(raw) {
                Ok(name) => (name.to_owned(), true),
                Err(_) => (String::from_utf8_lossy(raw).into_owned(), false),
            };
            let info = info_of(&stat);
            entries.push((
                Entry {
                    name,
                    exact_name,
                    kind: info.kind,
                },
                info,
            ));
        }
        entries.sort_by(|left, right| left.0.name.cmp(&right.0.name));
        Ok(Some(entries))
    }

    /// Writes `bytes` to `relative` atomically (temporary file, then rename), creating missing
    /// folders; an existing file is replaced.
    ///
    /// Errors: [`Error::Refused`] for a symlink on the way or at the path, or a folder at the
    /// path; other I/O.
    pub fn write(&self, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
        self.install(relative, bytes, mode, Install::Replace)
    }

    /// Creates `relative` with `bytes` only if nothing is there, atomically: of two processes
    /// creating one path at once, exactly one succeeds.
    ///
    /// Errors: [`Error::Refused`] naming the path when something already exists there, and as
    /// [`ProjectDir::write`].
    pub fn create_new(&self, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
        self.install(relative, bytes, mode, Install::NoClobber)
    }

    fn install(&self, relative: &str, bytes: &[u8], mode: u32, how: Install) -> Result<()> {
        // A run that changes the project is not one a record of reads can stand for.
        record::taint();
        let (folder, name) = split_checked(relative)?;
        let parent = self.create_folders(folder)?;
        match rustix::fs::statat(&parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if info_of(&stat).kind == EntryKind::Symlink => {
                return Err(Error::refused(relative, SYMLINK_REFUSAL));
            }
            Ok(stat) if info_of(&stat).kind == EntryKind::Folder => {
                return Err(Error::refused(
                    relative,
                    "is a folder; ai-rulez only writes regular files, so move it away",
                ));
            }
            Ok(_) if how == Install::NoClobber => return Err(already_exists(relative)),
            _ => {}
        }
        let (temporary, file) = create_temporary(&parent, name, relative)?;
        let written = write_and_chmod(file, bytes, mode, relative);
        let installed = written.and_then(|()| match how {
            Install::Replace => rustix::fs::renameat(&parent, temporary.as_str(), &parent, name)
                .map_err(|errno| io_error(relative, "replacing", errno)),
            Install::NoClobber => rename_no_clobber(&parent, &temporary, name, relative),
        });
        if installed.is_err() {
            rustix::fs::unlinkat(&parent, temporary.as_str(), AtFlags::empty()).ok();
        }
        temporary::sweep_stale_once(&parent, &self.root.join(folder));
        installed
    }

    /// Appends `line` (which should end in `\n`) to the file at `relative` with one `write` in
    /// append mode, creating the file (mode `0o644`) and its folders when missing. For a log of
    /// short lines: writers that each append one line never interleave inside a line on a local
    /// file system, and a crash can leave at most a cut last line, which readers skip.
    ///
    /// Errors: [`Error::Refused`] for a symlink on the way or at the path, or anything but a
    /// regular file there; other I/O.
    pub fn append_line(&self, relative: &str, line: &[u8]) -> Result<()> {
        // A run that changes the project is not one a record of reads can stand for.
        record::taint();
        let (folder, _) = split_checked(relative)?;
        self.create_folders(folder)?;
        let file = resolve::open_beneath(
            self.handle.as_fd(),
            relative,
            OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::NONBLOCK,
            Mode::from_bits_truncate(0o644),
        )
        .map_err(|errno| refusal_or_io(relative, "appending to", errno))?;
        let stat =
            rustix::fs::fstat(&file).map_err(|errno| io_error(relative, "appending to", errno))?;
        if info_of(&stat).kind != EntryKind::File {
            return Err(Error::refused(
                relative,
                "is not a regular file (a pipe or a device); move it away",
            ));
        }
        std::fs::File::from(file)
            .write_all(line)
            .map_err(|error| wrap_io(relative, "appending to", &error))
    }

    /// Creates the folders of `relative` (an empty string is the root) and returns a handle on
    /// the last one.
    ///
    /// Errors: [`Error::Refused`] when a component is a symlink or a file; other I/O.
    fn create_folders(&self, relative: &str) -> Result<OwnedFd> {
        match resolve::open_folder(self.handle.as_fd(), relative) {
            Ok(folder) => return Ok(folder),
            Err(Errno::NOENT) => {}
            Err(errno) => return Err(refusal_or_io(relative, "opening", errno)),
        }
        let mut current = resolve::open_folder(self.handle.as_fd(), "")
            .map_err(|errno| io_error(".", "opening", errno))?;
        for component in relative.split('/') {
            match rustix::fs::mkdirat(&current, component, Mode::from_bits_truncate(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(errno) => return Err(io_error(relative, "creating the folder", errno)),
            }
            current = resolve::open_folder(current.as_fd(), component)
                .map_err(|errno| refusal_or_io(relative, "opening", errno))?;
        }
        Ok(current)
    }

    /// Deletes the file (or symlink, which is never followed) at `relative`; returns whether
    /// something was deleted.
    ///
    /// Errors: [`Error::Refused`] when a folder on the way is a symlink, or a folder is at the
    /// path; other I/O.
    pub fn remove_file(&self, relative: &str) -> Result<bool> {
        // A run that changes the project is not one a record of reads can stand for.
        record::taint();
        let (folder, name) = split_checked(relative)?;
        let parent = match resolve::open_folder(self.handle.as_fd(), folder) {
            Ok(parent) => parent,
            Err(errno) => return absent_or::<()>(relative, "deleting", errno).map(|_| false),
        };
        match rustix::fs::unlinkat(&parent, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(Errno::ISDIR | Errno::PERM) => Err(Error::refused(
                relative,
                "is a folder, not a file; ai-rulez deleted nothing",
            )),
            Err(errno) => Err(io_error(relative, "deleting", errno)),
        }
    }

    /// Deletes the folder `relative` and everything in it. Symlinks inside are removed as links;
    /// nothing they point to is touched.
    ///
    /// Errors: [`Error::Refused`] when the folder is or passes through a symlink; other I/O.
    pub fn remove_tree(&self, relative: &str) -> Result<()> {
        // A run that changes the project is not one a record of reads can stand for.
        record::taint();
        let (folder, name) = split_checked(relative)?;
        let parent = resolve::open_folder(self.handle.as_fd(), folder)
            .map_err(|errno| refusal_or_io(relative, "deleting", errno))?;
        let target = resolve::open_folder(parent.as_fd(), name)
            .map_err(|errno| refusal_or_io(relative, "deleting", errno))?;
        empty_folder(&target, relative, 0)?;
        rustix::fs::unlinkat(&parent, name, AtFlags::REMOVEDIR)
            .map_err(|errno| io_error(relative, "deleting", errno))
    }

    /// Removes the folders holding `relative` that are now empty, deepest first, stopping at the
    /// first folder that is not empty (or at the root).
    pub fn remove_empty_parents(&self, relative: &str) {
        // A run that changes the project is not one a record of reads can stand for.
        record::taint();
        let mut current = relative;
        while let Some((folder, _)) = current.rsplit_once('/') {
            let (grandparent, name) = folder.rsplit_once('/').unwrap_or(("", folder));
            let Ok(parent) = resolve::open_folder(self.handle.as_fd(), grandparent) else {
                return;
            };
            if rustix::fs::unlinkat(&parent, name, AtFlags::REMOVEDIR).is_err() {
                return;
            }
            current = folder;
        }
    }

    /// Takes the project's writer lock, waiting at most the configured time (see [`lock`]).
    ///
    /// Errors: [`Error::Busy`] when another process holds it past the wait; I/O.
    pub fn lock(&self) -> Result<ProjectLock> {
        lock::acquire(self)
    }

    fn handle(&self) -> &OwnedFd {
        &self.handle
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Install {
    Replace,
    NoClobber,
}

/// Creates a temporary file (mode `0o600`, empty) with a name of its own next to `name` in
/// `parent`, for one write of `relative`; returns its name and handle. A name already taken
/// (two writers drawing the same 32 bits) is never reused: the next fresh name is tried.
///
/// Errors: [`Error::Io`] naming `relative` when no temporary file can be created.
fn create_temporary(parent: &OwnedFd, name: &str, relative: &str) -> Result<(String, OwnedFd)> {
    let mut attempts = 0;
    loop {
        let temporary = temporary::fresh_name(name);
        match rustix::fs::openat(
            parent,
            temporary.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC | OFlags::NOFOLLOW,
            Mode::from_bits_truncate(0o600),
        ) {
            Ok(file) => return Ok((temporary, file)),
            Err(Errno::EXIST) if attempts < 8 => attempts += 1,
            Err(errno) => return Err(io_error(relative, "creating a temporary file for", errno)),
        }
    }
}

/// A project-relative path with the shape of a temporary file of one write of `relative` (see
/// [`temporary`]); each call gives a new one. For tests that stage an interrupted write.
#[must_use]
pub fn temporary_path(relative: &str) -> String {
    match relative.rsplit_once('/') {
        Some((folder, name)) => format!("{folder}/{}", temporary::fresh_name(name)),
        None => temporary::fresh_name(relative),
    }
}

/// Writes the temporary file of the write of `relative`; errors name `relative`, the file the
/// user knows, not the temporary one.
fn write_and_chmod(file: OwnedFd, bytes: &[u8], mode: u32, relative: &str) -> Result<()> {
    rustix::fs::fchmod(&file, Mode::from_bits_truncate(mode))
        .map_err(|errno| io_error(relative, "setting the mode of the new", errno))?;
    let mut file = std::fs::File::from(file);
    file.write_all(bytes)
        .map_err(|error| wrap_io(relative, "writing the new", &error))
}

fn rename_no_clobber(parent: &OwnedFd, temporary: &str, name: &str, relative: &str) -> Result<()> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match rustix::fs::renameat_with(
        parent,
        temporary,
        parent,
        name,
        rustix::fs::RenameFlags::NOREPLACE,
    ) {
        Ok(()) => return Ok(()),
        Err(Errno::EXIST) => return Err(already_exists(relative)),
        // Some file systems cannot do RENAME_NOREPLACE; a hard link is as exclusive.
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
        Err(errno) => return Err(io_error(relative, "creating", errno)),
    }
    match rustix::fs::linkat(parent, temporary, parent, name, AtFlags::empty()) {
        Ok(()) => {
            rustix::fs::unlinkat(parent, temporary, AtFlags::empty()).ok();
            Ok(())
        }
        Err(Errno::EXIST) => Err(already_exists(relative)),
        Err(errno) => Err(io_error(relative, "creating", errno)),
    }
}

fn empty_folder(folder: &OwnedFd, relative: &str, depth: usize) -> Result<()> {
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return Err(Error::refused(
            relative,
            format!(
                "nests folders deeper than {} levels; ai-rulez deleted what it could above them, delete the rest by hand",
                crate::limits::MAX_FOLDER_DEPTH
            ),
        ));
    }
    let mut names = Vec::new();
    let reader =
        rustix::fs::Dir::read_from(folder).map_err(|errno| io_error(relative, "listing", errno))?;
    for entry in reader {
        let entry = entry.map_err(|errno| io_error(relative, "listing", errno))?;
        let name = entry.file_name().to_owned();
        if name.to_bytes() == b"." || name.to_bytes() == b".." {
            continue;
        }
        names.push(name);
    }
    for name in names {
        let stat = rustix::fs::statat(folder, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)
            .map_err(|errno| io_error(relative, "deleting", errno))?;
        let shown = format!("{relative}/{}", name.to_string_lossy());
        if info_of(&stat).kind == EntryKind::Folder {
            let inner = rustix::fs::openat(
                folder,
                name.as_c_str(),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|errno| refusal_or_io(&shown, "deleting", errno))?;
            empty_folder(&inner, &shown, depth + 1)?;
            rustix::fs::unlinkat(folder, name.as_c_str(), AtFlags::REMOVEDIR)
                .map_err(|errno| io_error(&shown, "deleting", errno))?;
        } else {
            rustix::fs::unlinkat(folder, name.as_c_str(), AtFlags::empty())
                .map_err(|errno| io_error(&shown, "deleting", errno))?;
        }
    }
    Ok(())
}

/// Checks that `relative` is a plain relative path: components separated by `/`, none empty,
/// `.` or `..`, and no NUL byte.
///
/// Errors: [`Error::Refused`] naming the path.
pub(crate) fn check_relative(relative: &str) -> Result<()> {
    let plain = !relative.is_empty()
        && !relative.contains('\0')
        && relative
            .split('/')
            .all(|component| !component.is_empty() && component != "." && component != "..");
    if plain {
        Ok(())
    } else {
        Err(Error::refused(
            relative.escape_debug().to_string(),
            "is not a plain project-relative path (no leading `/`, no empty, `.` or `..` parts)",
        ))
    }
}

/// Resolves `.` and `..` in a `/`-separated relative path lexically (never through the file
/// system, which would follow links); `None` when it climbs above its start.
pub(crate) fn normalise_relative(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

fn split_checked(relative: &str) -> Result<(&str, &str)> {
    check_relative(relative)?;
    Ok(relative.rsplit_once('/').unwrap_or(("", relative)))
}

fn info_of(stat: &rustix::fs::Stat) -> Info {
    Info {
        kind: kind_of(FileType::from_raw_mode(stat.st_mode)),
        len: u64::try_from(stat.st_size).unwrap_or(0),
        mode: stat.st_mode & 0o777,
        modified: (
            stat.st_mtime,
            i64::try_from(stat.st_mtime_nsec).unwrap_or(0),
        ),
        changed: (
            stat.st_ctime,
            i64::try_from(stat.st_ctime_nsec).unwrap_or(0),
        ),
        inode: stat.st_ino,
    }
}

fn kind_of(file_type: FileType) -> EntryKind {
    match file_type {
        FileType::RegularFile => EntryKind::File,
        FileType::Directory => EntryKind::Folder,
        FileType::Symlink => EntryKind::Symlink,
        _ => EntryKind::Other,
    }
}

fn already_exists(relative: &str) -> Error {
    Error::refused(
        relative,
        "already exists; nothing was replaced (another writer may have created it just now)",
    )
}

/// `ENOENT`/`ENOTDIR` mean nothing is there; `ELOOP` means a symlink; the rest is an I/O error.
fn absent_or<T>(relative: &str, doing: &str, errno: Errno) -> Result<Option<T>> {
    match errno {
        Errno::NOENT | Errno::NOTDIR => Ok(None),
        errno => Err(refusal_or_io(relative, doing, errno)),
    }
}

fn refusal_or_io(relative: &str, doing: &str, errno: Errno) -> Error {
    match errno {
        Errno::LOOP | Errno::XDEV => Error::refused(relative, SYMLINK_REFUSAL),
        Errno::NOTDIR => Error::refused(
            relative,
            "passes through a file where a folder is expected; move that file away",
        ),
        errno => io_error(relative, doing, errno),
    }
}

fn io_error(relative: &str, doing: &str, errno: Errno) -> Error {
    let error = std::io::Error::from(errno);
    wrap_io(relative, doing, &error)
}

fn wrap_io(relative: &str, doing: &str, error: &std::io::Error) -> Error {
    Error::Io(std::io::Error::new(
        error.kind(),
        format!("{doing} {relative}: {error}"),
    ))
}
