//! What would make a run's writes fail partway, found before the first of them: a file name
//! longer than file systems allow, or a folder this process may not create files in. A run
//! that writes some outputs and then stops leaves the project between two states; most such
//! stops come from these two causes, which can be seen in advance.

use std::collections::HashSet;

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{Access, AtFlags};
use rustix::io::Errno;

use super::{ProjectDir, resolve};
use crate::error::{Error, Result};

/// The longest file or folder name, in bytes, that Linux file systems (ext4, xfs, btrfs,
/// tmpfs), APFS and NTFS all accept.
pub(super) const MAX_NAME_BYTES: usize = 255;

/// Checks that no component of `paths` (project-relative) is over [`MAX_NAME_BYTES`] bytes,
/// without touching the disk, so `--check` and `--dry-run` refuse such a path as a write would.
///
/// Errors: [`Error::Refused`] naming the first path with a name too long, its length in bytes
/// and what to do; the message says that nothing was written.
pub(crate) fn check_name_lengths<'a>(paths: impl IntoIterator<Item = &'a str>) -> Result<()> {
    for path in paths {
        if let Some(name) = path.split('/').find(|name| name.len() > MAX_NAME_BYTES) {
            let shown: String = name.chars().take(40).collect();
            return Err(Error::refused(
                path,
                format!(
                    "the name `{shown}...` is {} bytes, over the {MAX_NAME_BYTES} bytes file systems allow; nothing was written. Give what it is named after a shorter name (for an item, rename its file under .ai-rulez/) and run again",
                    name.len()
                ),
            ));
        }
    }
    Ok(())
}

impl ProjectDir {
    /// Checks that each of `paths` (project-relative files about to be written, in any order)
    /// could be written: every component is at most [`MAX_NAME_BYTES`] bytes, and the nearest
    /// folder on the way that exists lets this process create entries (checked with
    /// `faccessat(2)` on the effective user, once per folder; a process that may write
    /// anywhere, such as root, passes). Nothing is written or created.
    ///
    /// Errors: [`Error::Refused`] naming the first path that could not be written, why, and
    /// what to do; the message says that nothing was written. Folders that cannot be opened
    /// (a symlink, a file on the way) are left to the write itself, which refuses them.
    pub fn check_writable<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Result<()> {
        let mut checked = HashSet::new();
        for path in paths {
            check_name_lengths([path])?;
            let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
            if !checked.insert(folder.to_owned()) {
                continue;
            }
            let Some((existing, handle)) = self.nearest_existing_folder(folder) else {
                continue;
            };
            match rustix::fs::accessat(
                &handle,
                ".",
                Access::WRITE_OK | Access::EXEC_OK,
                AtFlags::EACCESS,
            ) {
                Err(Errno::ACCESS | Errno::PERM) => {
                    let shown = if existing.is_empty() { "." } else { existing };
                    return Err(Error::refused(
                        path,
                        format!(
                            "{shown} does not let this user create files in it (permission denied); nothing was written. Make it writable (`chmod u+w {shown}`, or run as its owner) and run again"
                        ),
                    ));
                }
                Err(Errno::ROFS) => {
                    let shown = if existing.is_empty() { "." } else { existing };
                    return Err(Error::refused(
                        path,
                        format!(
                            "{shown} is on a read-only file system; nothing was written. Run where the project can be written"
                        ),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `folder` or the nearest folder above it that exists (the project root at the latest),
    /// with a handle on it; `None` when one on the way cannot be opened for another reason
    /// than being absent.
    fn nearest_existing_folder<'a>(&self, folder: &'a str) -> Option<(&'a str, OwnedFd)> {
        let mut candidate = folder;
        loop {
            match resolve::open_folder(self.handle().as_fd(), candidate) {
                Ok(handle) => return Some((candidate, handle)),
                Err(Errno::NOENT) if !candidate.is_empty() => {
                    candidate = candidate.rsplit_once('/').map_or("", |(parent, _)| parent);
                }
                Err(_) => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_over_the_limit_is_refused_before_anything_is_written() {
        let folder = tempfile::tempdir().unwrap();
        let dir = ProjectDir::open(folder.path()).unwrap();
        let long = "l".repeat(MAX_NAME_BYTES + 1);
        let fits = "f".repeat(MAX_NAME_BYTES);
        assert!(dir.check_writable([format!("a/{fits}").as_str()]).is_ok());
        let error = dir
            .check_writable(["ok.md", format!("a/{long}.md").as_str()])
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            format!(
                "a/{long}.md: the name `{}...` is 259 bytes, over the 255 bytes file systems allow; nothing was written. Give what it is named after a shorter name (for an item, rename its file under .ai-rulez/) and run again",
                "l".repeat(40)
            )
        );
        assert_eq!(fs_err::read_dir(folder.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_folder_this_user_may_not_write_in_is_named_with_the_way_out() {
        if rustix::process::geteuid().is_root() {
            eprintln!("skipped: root may write in any folder, so permissions cannot be tested");
            return;
        }
        let folder = tempfile::tempdir().unwrap();
        fs_err::create_dir_all(folder.path().join(".cursor/rules")).unwrap();
        let locked = folder.path().join(".cursor/rules");
        std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o555))
            .unwrap();
        let dir = ProjectDir::open(folder.path()).unwrap();
        let error = dir
            .check_writable(["CLAUDE.md", ".cursor/rules/a/b.mdc"])
            .unwrap_err()
            .to_string();
        std::fs::set_permissions(&locked, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert_eq!(
            error,
            ".cursor/rules/a/b.mdc: .cursor/rules does not let this user create files in it (permission denied); nothing was written. Make it writable (`chmod u+w .cursor/rules`, or run as its owner) and run again"
        );
    }
}
