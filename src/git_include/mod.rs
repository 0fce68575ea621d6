//! Git includes: `[[includes]]` entries whose `source` is a git repository. Each is fetched
//! with gix into the user's cache ([`cache`]), the commit its `ref` names (or the commit the
//! lock pins) is written out there ([`checkout`]), and the content loader then reads that folder
//! through the confined file layer like a local include, below the project's own items.
//!
//! The network is used only when the cache cannot answer: a pinned commit that is not there
//! yet, or a `ref` never fetched. [`GitIncludes::CacheOnly`] (`generate --locked`) never uses it;
//! [`GitIncludes::Update`] (`lock --update-includes`) always fetches and moves every include to
//! what its `ref` names now. Every URL shown has its credentials masked.

pub(crate) mod cache;
mod checkout;
mod remote;

use std::path::{Path, PathBuf};

use crate::config::Include;
use crate::error::{Error, InvalidKind};
use crate::lock::includes::{PinnedInclude, normalised_path};
use checkout::CheckoutError;

/// How a run treats git includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GitIncludes {
    /// Use the lock's pin, else what the cache holds for the `ref`; fetch only what the cache
    /// lacks.
    #[default]
    Fetch,
    /// Never use the network: a pinned commit missing from the cache is an error.
    CacheOnly,
    /// Fetch every git include and use what its `ref` names now, whatever the lock pins.
    Update,
    /// Leave git includes out (commands that need no content, such as `clean`).
    Skip,
}

/// A git include made readable: its config entry, the commit used and the folder to read.
#[derive(Debug, Clone)]
pub struct FetchedInclude {
    /// The config entry.
    pub include: Include,
    /// The commit, 40 lowercase hex digits.
    pub commit: String,
    /// `sha256:<hex>` of the included folder (the lock's include digest).
    pub digest: String,
    /// The folder in the cache holding the included files.
    pub folder: PathBuf,
}

impl FetchedInclude {
    /// The lock row pinning this include.
    #[must_use]
    pub(crate) fn pin(&self) -> PinnedInclude {
        let (source, git_ref, path) = crate::lock::includes::identity(&self.include);
        PinnedInclude {
            name: self.include.name.clone(),
            source,
            git_ref,
            path,
            commit: self.commit.clone(),
            digest: self.digest.clone(),
        }
    }

    /// How paths inside this include are shown: `include:<name>/<path inside>`.
    #[must_use]
    pub(crate) fn shown_prefix(&self) -> String {
        format!("{SHOWN_PREFIX}{}", self.include.name)
    }
}

/// What the paths of items from git includes start with (they lie outside the project).
pub(crate) const SHOWN_PREFIX: &str = "include:";

/// Whether `source_path` (an item's) names a file of a git include rather than a project file.
#[must_use]
pub(crate) fn is_fetched_path(source_path: &str) -> bool {
    source_path.starts_with(SHOWN_PREFIX)
}

/// The `[[include]]` rows of the lock beside the config at `config_relative` (read through
/// `dir`), read only when `config` has git includes. A lock that cannot be read gives no pins,
/// with a warning saying so (`lock --check` reports the lock itself).
pub(crate) fn pins_from_lock(
    dir: &crate::confined_fs::ProjectDir,
    config_relative: &str,
    config: &crate::config::Config,
    warnings: &mut Vec<String>,
) -> Vec<PinnedInclude> {
    if config.git_includes.is_empty() {
        return Vec::new();
    }
    let lock_path = crate::lock::path_beside(config_relative);
    let text = match dir.read(&lock_path, crate::lock::MAX_LOCK_BYTES) {
        Ok(Some((bytes, _))) => String::from_utf8_lossy(&bytes).into_owned(),
        Ok(None) => return Vec::new(),
        Err(error) => {
            warnings.push(format!(
                "{error}; git includes are used without the lock's pins"
            ));
            return Vec::new();
        }
    };
    match crate::lock::LockFile::parse(&lock_path, &text) {
        Ok(lock) => lock.includes,
        Err(error) => {
            warnings.push(format!(
                "{error}; until then, git includes are used without the lock's pins"
            ));
            Vec::new()
        }
    }
}

/// Makes every git include of the config at `config_path` (project-relative, for messages)
/// readable, in config order, for the project at `project_root`: the include's lock row among
/// `pins` decides the commit unless `mode` is [`GitIncludes::Update`]. Returns the includes made
/// readable, and one [`Error::Invalid`] per include that could not be (about its config entry,
/// kind [`InvalidKind::GitInclude`]); warnings (a tag that moved, under `Update`) go to
/// `warnings`.
pub(crate) fn prepare(
    project_root: &Path,
    config_path: &str,
    includes: &[Include],
    pins: &[PinnedInclude],
    mode: GitIncludes,
    warnings: &mut Vec<String>,
) -> (Vec<FetchedInclude>, Vec<Error>) {
    let mut fetched = Vec::new();
    let mut errors = Vec::new();
    if mode == GitIncludes::Skip || includes.is_empty() {
        return (fetched, errors);
    }
    let root = match cache::root() {
        Ok(root) => root,
        Err(error) => return (fetched, vec![error]),
    };
    for include in includes {
        let pin = pins.iter().find(|pin| pin.is_for(include));
        let job = Job {
            include,
            config_path,
            cache_root: &root,
            project_root,
            pin,
            mode,
        };
        match job.run(warnings) {
            Ok(done) => fetched.push(done),
            Err(message) => errors.push(Error::config_key(
                InvalidKind::GitInclude,
                config_path,
                include.key.clone(),
                format!("{}: {message}", described(include)),
            )),
        }
    }
    (fetched, errors)
}

/// `` `includes[0]` (name, source) `` with the source masked; the name is left out when it is
/// the source itself.
fn described(include: &Include) -> String {
    let source = crate::redact::mask_url_credentials(&include.source);
    if include.name == source {
        format!("`{}` ({source})", include.key)
    } else {
        format!("`{}` (`{}`, {source})", include.key, include.name)
    }
}

/// The URL gix fetches from: the source without a leading `git+`.
fn fetch_url(source: &str) -> &str {
    source.strip_prefix("git+").unwrap_or(source)
}

/// Why this build cannot fetch from `url`, when it cannot.
fn transport_problem(url: &str) -> Option<String> {
    let scheme = url
        .split_once("://")
        .map(|(scheme, _)| scheme.to_ascii_lowercase());
    match scheme.as_deref() {
        Some("http" | "https") if !cfg!(feature = "https") => Some(
            "this ai-rulez was built without HTTPS support for git includes; use an SSH URL (`git+ssh://git@host/owner/repo.git` or `git@host:owner/repo.git`), send this one over SSH with git's `url.<base>.insteadOf`, or install a build with HTTPS (`cargo install --path . --features https`)".to_owned(),
        ),
        Some("ssh" | "git" | "file" | "http" | "https") | None => None,
        Some(other) => Some(format!(
            "`{other}://` is not a transport ai-rulez fetches git includes over; use `git+https://`, `git+ssh://`, `git@host:path`, `git://` or `git+file://`"
        )),
    }
}

/// One include being made readable.
struct Job<'a> {
    include: &'a Include,
    config_path: &'a str,
    cache_root: &'a Path,
    project_root: &'a Path,
    pin: Option<&'a PinnedInclude>,
    mode: GitIncludes,
}

impl Job<'_> {
    /// Returns the include made readable, or what went wrong and what to do (without the
    /// include's description, which the caller puts before it).
    fn run(&self, warnings: &mut Vec<String>) -> Result<FetchedInclude, String> {
        let url = fetch_url(&self.include.source);
        let path = self.path()?;
        let cache_key = crate::redact::mask_url_credentials(url);
        let cache = cache::open(self.cache_root, self.project_root, &cache_key)
            .map_err(|error| error.to_string())?;
        let _held = cache.lock().map_err(|error| error.to_string())?;
        let repository = remote::open_repository(&cache.repository()).map_err(|error| {
            format!(
                "cannot open its cache {}: {error}; delete that folder and run again",
                cache.folder.display()
            )
        })?;
        let fetch = || {
            let effective = remote::effective_url(&repository, url)
                .map_err(|error| crate::redact::mask_credentials_of(&error, url))?;
            if let Some(problem) = transport_problem(&effective) {
                return Err(problem);
            }
            remote::fetch(&repository, url).map_err(|error| {
                format!(
                    "cannot fetch it: {}; check the URL, the network and your credentials (a git credential helper or an SSH key; never write them into the URL), or remove the include",
                    crate::redact::mask_credentials_of(&error, url).trim_end_matches('.')
                )
            })
        };
        let git_ref = self.include.git_ref.as_deref();
        let resolve =
            || remote::resolve(&repository, git_ref).map_err(|error| self.unreadable(&error));
        let commit = match (self.mode, self.pin) {
            (GitIncludes::Update, _) => {
                fetch()?;
                let target = resolve()?.ok_or_else(|| self.ref_not_found())?;
                if let Some(pin) = self.pin
                    && target.is_tag
                    && remote::full_commit_id(&pin.commit) != Some(target.commit)
                {
                    warnings.push(format!(
                        "{}: {}: tag `{}` moved upstream from {} to {}; a released tag should not move, so review what changed before you commit",
                        self.config_path,
                        described(self.include),
                        git_ref.unwrap_or_default(),
                        pin.commit,
                        target.commit
                    ));
                }
                target.commit
            }
            (_, Some(pin)) => {
                let pinned = remote::full_commit_id(&pin.commit).ok_or_else(|| {
                    format!(
                        "the lock pins `{}`, which is not a commit id; run `ai-rulez lock --update-includes` to pin it again",
                        pin.commit.escape_debug()
                    )
                })?;
                if !remote::has_commit(&repository, pinned) {
                    if self.mode == GitIncludes::CacheOnly {
                        return Err(format!(
                            "the pinned commit {pinned} is not in the cache ({}), and `--locked` never fetches; run `ai-rulez generate --check` once without `--locked` to fetch it",
                            cache.folder.display()
                        ));
                    }
                    fetch()?;
                }
                if let Some(target) = resolve()?
                    && target.is_tag
                    && target.commit != pinned
                {
                    return Err(format!(
                        "tag `{}` now points to {} but the lock pins {pinned}: the tag was moved upstream, and a released tag should not move; check with the repository's maintainers, then run `ai-rulez lock --update-includes` to accept the new commit (or pin `ref` to the commit you trust)",
                        git_ref.unwrap_or_default(),
                        target.commit
                    ));
                }
                if !remote::has_commit(&repository, pinned) {
                    return Err(format!(
                        "the pinned commit {pinned} is no longer on any branch or tag of the repository (its history was rewritten?); run `ai-rulez lock --update-includes` to pin what `ref` names now"
                    ));
                }
                pinned
            }
            (_, None) => match resolve()? {
                Some(target) => target.commit,
                None if self.mode == GitIncludes::CacheOnly => {
                    return Err(
                        "it is not pinned in the lock, and `--locked` never fetches; run `ai-rulez lock` and commit the lock".to_owned(),
                    );
                }
                None => {
                    fetch()?;
                    resolve()?.ok_or_else(|| self.ref_not_found())?.commit
                }
            },
        };
        let made = checkout::checkout(
            &repository,
            &cache,
            commit,
            path.as_deref().unwrap_or_default(),
        )
        .map_err(|error| self.checkout_problem(error, commit))?;
        if let Some(pin) = self.pin
            && self.mode != GitIncludes::Update
            && pin.digest != made.digest
        {
            return Err(format!(
                "the files of commit {commit} have digest {}, but the lock records {}; the lock was edited or damaged, so run `ai-rulez lock --update-includes` to pin the include again",
                made.digest, pin.digest
            ));
        }
        Ok(FetchedInclude {
            include: self.include.clone(),
            commit: commit.to_string(),
            digest: made.digest,
            folder: made.tree,
        })
    }

    /// The entry's `path` without outer slashes (`None` for the repository root).
    ///
    /// Errors: an absolute path, or one with `.`, `..` or empty segments.
    fn path(&self) -> Result<Option<String>, String> {
        let path = normalised_path(self.include.path.as_deref());
        if let Some(path) = &path
            && path
                .split('/')
                .any(|segment| segment.is_empty() || segment == "." || segment == "..")
        {
            return Err(format!(
                "`path` = {:?} must be a plain folder path inside the repository (no `.`, `..` or empty segments)",
                self.include.path.as_deref().unwrap_or_default()
            ));
        }
        Ok(path)
    }

    fn ref_not_found(&self) -> String {
        match self.include.git_ref.as_deref() {
            None => "the repository has no default branch (is it empty?); set `ref` to a branch, a tag or a commit".to_owned(),
            Some(git_ref) if remote::full_commit_id(git_ref).is_some() => format!(
                "commit {git_ref} is not on any branch or tag of the repository; fix `ref`"
            ),
            Some(git_ref) => format!(
                "the repository has no branch or tag `{git_ref}`; fix `ref` (a branch, a tag or a full 40-character commit id)"
            ),
        }
    }

    fn unreadable(&self, error: &str) -> String {
        format!(
            "`ref` = {:?} cannot be read from the fetched repository: {error}",
            self.include
                .git_ref
                .as_deref()
                .unwrap_or("(default branch)")
        )
    }

    fn checkout_problem(&self, error: CheckoutError, commit: gix::ObjectId) -> String {
        let path = self.include.path.as_deref().unwrap_or_default();
        match error {
            CheckoutError::PathMissing => format!(
                "`path` = {path:?} does not exist in commit {commit}; fix `path` (relative to the repository root) or `ref`"
            ),
            CheckoutError::PathNotFolder => format!(
                "`path` = {path:?} is a file in commit {commit}, not a folder; name the folder holding the shared rules"
            ),
            CheckoutError::Invalid(reason) => {
                format!("commit {commit} cannot be read: {reason}")
            }
        }
    }
}
