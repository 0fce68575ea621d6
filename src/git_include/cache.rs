//! Where fetched git includes live on this machine: one folder per repository URL under the
//! user's cache folder, never inside a project.
//!
//! ```text
//! <cache root>/git/<16 hex of SHA-256 of the URL without credentials>/
//!   source          the URL, credentials masked (for people looking at the cache)
//!   lock            taken (flock) while a process fetches or checks out
//!   repo/           a bare repository holding every fetched object
//!   trees/<commit>[-<12 hex of the path>]/
//!     tree/         the included folder of that commit, written out file by file
//!     digest        `sha256:<hex>` of `tree/` (the lock's include digest)
//! ```
//!
//! The cache root is `$AI_RULEZ_CACHE_DIR` when set, else `$XDG_CACHE_HOME/ai-rulez`, else
//! `~/.cache/ai-rulez` (`%LOCALAPPDATA%\ai-rulez` on Windows). Folders it creates are private
//! to the user (`0700`). Deleting the whole cache is always safe: the next run fetches again.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Environment variable naming the cache root (tests and unusual setups).
pub(crate) const CACHE_ENV: &str = "AI_RULEZ_CACHE_DIR";

/// The cache folder of one repository URL.
#[derive(Debug, Clone)]
pub(crate) struct RepositoryCache {
    /// `<cache root>/git/<hash>`.
    pub folder: PathBuf,
}

/// The cache root: `$AI_RULEZ_CACHE_DIR`, `$XDG_CACHE_HOME/ai-rulez`, `~/.cache/ai-rulez` (or
/// `%LOCALAPPDATA%\ai-rulez`), whichever is set first. Relative values are ignored, as the XDG
/// specification says, except for the explicit override, which is made absolute.
///
/// Errors: [`Error::Usage`] when none is set (no home folder).
pub(crate) fn root() -> Result<PathBuf> {
    if let Some(explicit) = std::env::var_os(CACHE_ENV).filter(|value| !value.is_empty()) {
        let explicit = PathBuf::from(explicit);
        return Ok(std::path::absolute(&explicit).unwrap_or(explicit));
    }
    let absolute = |name: &str| {
        std::env::var_os(name)
            .map(PathBuf::from)
            .filter(|path| path.is_absolute())
    };
    if let Some(xdg) = absolute("XDG_CACHE_HOME") {
        return Ok(xdg.join("ai-rulez"));
    }
    if cfg!(windows)
        && let Some(local) = absolute("LOCALAPPDATA")
    {
        return Ok(local.join("ai-rulez"));
    }
    if let Some(home) = absolute("HOME") {
        return Ok(home.join(".cache").join("ai-rulez"));
    }
    Err(Error::Usage(format!(
        "git includes need a cache folder, and neither {CACHE_ENV}, XDG_CACHE_HOME nor HOME is set; set {CACHE_ENV} to a folder outside the project"
    )))
}

/// The cache of the repository at `url_without_credentials` (the key: the same repository
/// reached with other credentials shares one cache), below `root`, created when missing. The
/// masked URL is written to `source` for people looking at the cache.
///
/// Errors: [`Error::Usage`] when `root` lies inside `project_root` (the cache must never end up
/// in a repository); I/O errors creating the folders.
pub(crate) fn open(
    root: &Path,
    project_root: &Path,
    url_without_credentials: &str,
) -> Result<RepositoryCache> {
    create_private_folder(root)?;
    let inside = match (
        fs_err::canonicalize(root),
        fs_err::canonicalize(project_root),
    ) {
        (Ok(root), Ok(project)) => root.starts_with(project),
        _ => false,
    };
    if inside {
        return Err(Error::Usage(format!(
            "the git include cache {} lies inside the project {}; ai-rulez keeps fetched repositories out of the project, so point {CACHE_ENV} at a folder outside it",
            root.display(),
            project_root.display()
        )));
    }
    let hash = crate::hash::sha256_hex(url_without_credentials.as_bytes());
    let folder = root.join("git").join(&hash[..16]);
    create_private_folder(&folder)?;
    let source = folder.join("source");
    let text = format!("{url_without_credentials}\n");
    if fs_err::read_to_string(&source).ok().as_deref() != Some(text.as_str()) {
        fs_err::write(&source, text)?;
    }
    Ok(RepositoryCache { folder })
}

impl RepositoryCache {
    /// The bare repository holding the fetched objects.
    #[must_use]
    pub(crate) fn repository(&self) -> PathBuf {
        self.folder.join("repo")
    }

    /// The folder of the checkout of `path` (relative to the repository root, `""` for all of
    /// it) at `commit` (40 hex).
    #[must_use]
    pub(crate) fn checkout(&self, commit: &str, path: &str) -> PathBuf {
        let name = if path.is_empty() {
            commit.to_owned()
        } else {
            let hash = crate::hash::sha256_hex(path.as_bytes());
            format!("{commit}-{}", &hash[..12])
        };
        self.folder.join("trees").join(name)
    }

    /// Takes this repository's cache lock, waiting for another process that fetches or checks
    /// out; released when the returned file is dropped.
    ///
    /// Errors: I/O errors opening or locking the lock file.
    pub(crate) fn lock(&self) -> Result<fs_err::File> {
        let file = fs_err::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(self.folder.join("lock"))?;
        file.lock()?;
        Ok(file)
    }
}

/// Creates `folder` and its missing parents; the folders created here are readable by the user
/// alone (fetched repositories may be private).
///
/// Errors: I/O errors.
pub(crate) fn create_private_folder(folder: &Path) -> Result<()> {
    if folder.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder).map_err(|error| {
        std::io::Error::new(
            error.kind(),
            format!("{error} (creating {})", folder.display()),
        )
    })?;
    Ok(())
}
