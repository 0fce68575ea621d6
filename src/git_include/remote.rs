//! Talking to a git include's repository: fetching its branches and tags into the cache's bare
//! repository with gix (ai-rulez runs no `git` of its own; for `file://` URLs gix's local
//! transport runs `git-upload-pack`, as `git fetch` does), and finding the commit a `ref`
//! names among what was fetched. No prompt is ever shown: credentials come from the URL, the
//! user's git credential helpers or an SSH agent.

use std::path::Path;
use std::sync::atomic::AtomicBool;

use gix::ObjectId;

/// What a fetch copies: the remote's default branch, every branch and every tag. Tags are
/// force-updated so a tag that moved upstream shows as moved instead of failing the fetch.
const REFSPECS: [&str; 3] = [
    "+HEAD:refs/remotes/origin/HEAD",
    "+refs/heads/*:refs/remotes/origin/*",
    "+refs/tags/*:refs/tags/*",
];

/// Configuration every cache repository is opened with: never ask on the terminal (ai-rulez
/// may run in a pre-commit hook or an MCP server, where nobody could answer).
const CONFIG_OVERRIDES: [&str; 1] = ["gitoxide.credentials.terminalPrompt=false"];

/// The commit a `ref` resolved to, and whether it was a tag (tags are expected never to move).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Target {
    /// The commit.
    pub commit: ObjectId,
    /// Whether the ref was found among the tags.
    pub is_tag: bool,
}

/// Opens the bare repository at `path`, creating it when it does not exist yet.
///
/// Errors: gix's message when it cannot be created or opened (it holds no URL).
pub(crate) fn open_repository(path: &Path) -> Result<gix::Repository, String> {
    if !path.join("HEAD").is_file() {
        gix::init_bare(path).map_err(|error| chain(&error))?;
    }
    let options = gix::open::Options::default().config_overrides(CONFIG_OVERRIDES);
    gix::open_opts(path, options).map_err(|error| chain(&error))
}

/// The URL a fetch of `url` really uses: after the user's `url.<base>.insteadOf` rules (so an
/// `https://github.com/` source that git config sends over SSH is fetched over SSH).
///
/// Errors: gix's message for a URL it cannot parse.
pub(crate) fn effective_url(repository: &gix::Repository, url: &str) -> Result<String, String> {
    let remote = repository.remote_at(url).map_err(|error| chain(&error))?;
    Ok(remote
        .url(gix::remote::Direction::Fetch)
        .map_or_else(|| url.to_owned(), |found| found.to_bstring().to_string()))
}

/// Fetches every branch, every tag and the default branch of `url` into `repository`.
///
/// Errors: gix's message for a URL it cannot parse, a remote it cannot reach, refused
/// credentials or a broken transfer. The message may hold the URL: show it only masked.
pub(crate) fn fetch(repository: &gix::Repository, url: &str) -> Result<(), String> {
    // With the `https` feature, rustls needs one process-wide crypto provider; installing it
    // again (a second fetch) is a harmless no-op.
    #[cfg(feature = "https")]
    let _ = rustls::crypto::ring::default_provider().install_default();
    let remote = repository
        .remote_at(url)
        .and_then(|remote| remote.with_refspecs(REFSPECS, gix::remote::Direction::Fetch))
        .map_err(|error| chain(&error))?;
    let connection = remote
        .connect(gix::remote::Direction::Fetch)
        .map_err(|error| chain(&error))?;
    let interrupt = AtomicBool::new(false);
    connection
        .prepare_fetch(
            gix::progress::Discard,
            gix::remote::ref_map::Options::default(),
        )
        .map_err(|error| chain(&error))?
        .receive(gix::progress::Discard, &interrupt)
        .map_err(|error| chain(&error))?;
    Ok(())
}

/// The commit `git_ref` names in what `repository` holds (no network): `None` for the default
/// branch; a full 40-hex commit id; `refs/heads/<b>` or `refs/tags/<t>`; or a bare name, looked
/// up among the tags first and then the branches (the order git uses). `Ok(None)` when the
/// repository does not hold it (fetch, then ask again).
///
/// Errors: gix's message when the repository cannot be read, or when the name holds something
/// other than a commit (a tag of a tree, say).
pub(crate) fn resolve(
    repository: &gix::Repository,
    git_ref: Option<&str>,
) -> Result<Option<Target>, String> {
    let Some(git_ref) = git_ref else {
        return reference_target(repository, "refs/remotes/origin/HEAD", false);
    };
    if let Some(commit) = full_commit_id(git_ref) {
        return Ok(has_commit(repository, commit).then_some(Target {
            commit,
            is_tag: false,
        }));
    }
    if let Some(tag) = git_ref.strip_prefix("refs/tags/") {
        return reference_target(repository, &format!("refs/tags/{tag}"), true);
    }
    if let Some(branch) = git_ref.strip_prefix("refs/heads/") {
        return reference_target(repository, &format!("refs/remotes/origin/{branch}"), false);
    }
    if let Some(found) = reference_target(repository, &format!("refs/tags/{git_ref}"), true)? {
        return Ok(Some(found));
    }
    reference_target(repository, &format!("refs/remotes/origin/{git_ref}"), false)
}

/// gix's error with its causes, outermost first, joined by `: ` (a cause whose text an earlier
/// part already holds is left out), so "Transport handshake failed" says why.
fn chain(error: &gix::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.iter_errors() {
        let text = cause.to_string();
        let text = text.trim().trim_end_matches('.').to_owned();
        if !text.is_empty() && !parts.iter().any(|part| part.contains(&text)) {
            parts.push(text);
        }
    }
    parts.join(": ")
}

/// `text` as a commit id when it is exactly 40 hexadecimal digits.
#[must_use]
pub(crate) fn full_commit_id(text: &str) -> Option<ObjectId> {
    if text.len() != 40 || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    ObjectId::from_hex(text.to_ascii_lowercase().as_bytes()).ok()
}

/// Whether `repository` holds `commit` as a commit object.
#[must_use]
pub(crate) fn has_commit(repository: &gix::Repository, commit: ObjectId) -> bool {
    repository.find_commit(commit).is_ok()
}

fn reference_target(
    repository: &gix::Repository,
    name: &str,
    is_tag: bool,
) -> Result<Option<Target>, String> {
    let Some(mut reference) = repository
        .try_find_reference(name)
        .map_err(|error| chain(&error))?
    else {
        return Ok(None);
    };
    let id = reference.peel_to_id().map_err(|error| chain(&error))?;
    let commit = repository
        .find_commit(id.detach())
        .map_err(|_| format!("`{name}` does not name a commit"))?;
    Ok(Some(Target {
        commit: commit.id,
        is_tag,
    }))
}
