//! Where review comments come from: the `gh` CLI (the user's own GitHub login, for the
//! repository of the project's `origin` remote only), a JSON file the user names on the command
//! line, or a JSON file inside the project (the MCP tool's `file`, read through the confined
//! project folder). No other repository can be asked for: there is no repository parameter.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};
use crate::project::Project;

/// Largest input read, in bytes (about 20,000 comments).
const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// The way to provide input, named in the error when none is available.
pub(crate) const HOW_TO_PROVIDE: &str = "install the GitHub CLI `gh` and log in (`gh auth login`), or save the comments with `gh api --paginate repos/OWNER/REPO/pulls/comments > comments.json` and pass that file (`ai-rulez learn reviews --from comments.json`, or the MCP tool's `file`)";

/// Where to read review comments from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ReviewSource {
    /// `gh api --paginate repos/{owner}/{repo}/pulls/comments?since=...` for the project's
    /// repository.
    GitHubCli,
    /// A file the user named (absolute, or relative to the working directory); not a project
    /// file, so it is read directly.
    UserFile(PathBuf),
    /// A project-relative file, read through the confined project folder.
    ProjectFile(String),
}

/// Raw comment JSON and a name for it in messages (`gh api repos/acme/shop/pulls/comments`,
/// or the file's path).
#[derive(Debug)]
pub(crate) struct RawComments {
    /// Names the input in replies and errors.
    pub origin: String,
    /// The JSON as read.
    pub bytes: Vec<u8>,
}

/// Reads the comments of `source` for `project`; for `gh`, only comments updated on or after
/// `since_date` (`YYYY-MM-DD`) are asked for.
///
/// Errors: [`Error::Usage`] when `gh` is not on PATH (saying how to provide input instead), when
/// the repository cannot be named, or when `gh` fails (with its message); [`Error::Invalid`]
/// when a project file is missing or too large; I/O for a user file.
pub(crate) fn read(
    project: &Project,
    source: &ReviewSource,
    since_date: &str,
) -> Result<RawComments> {
    match source {
        ReviewSource::GitHubCli => read_with_gh(&project.root, since_date),
        ReviewSource::UserFile(path) => read_user_file(path),
        ReviewSource::ProjectFile(relative) => {
            let Some((bytes, _)) = project.dir.read(relative, MAX_INPUT_BYTES)? else {
                return Err(Error::invalid(
                    relative,
                    None,
                    "no such file in the project; pass the path of a JSON file of review comments",
                ));
            };
            Ok(RawComments {
                origin: relative.clone(),
                bytes,
            })
        }
    }
}

/// Reads a file the user named on the command line.
fn read_user_file(path: &Path) -> Result<RawComments> {
    let size = match fs_err::metadata(path) {
        Ok(metadata) => metadata.len(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Usage(format!(
                "{}: no such file; pass the JSON file of review comments that `gh api --paginate repos/OWNER/REPO/pulls/comments` wrote",
                path.display()
            )));
        }
        Err(error) => return Err(error.into()),
    };
    if size > MAX_INPUT_BYTES {
        return Err(Error::invalid(
            path.display().to_string(),
            None,
            format!(
                "is {size} bytes, over the {MAX_INPUT_BYTES}-byte limit; pass fewer comments (for example a shorter --since-days)"
            ),
        ));
    }
    Ok(RawComments {
        origin: path.display().to_string(),
        bytes: fs_err::read(path)?,
    })
}

/// Asks `gh` for the review comments of the project's repository since `since_date`.
fn read_with_gh(root: &Path, since_date: &str) -> Result<RawComments> {
    let repository = if let Some(name) = origin_repository(root) {
        name
    } else {
        let output = run_gh(
            root,
            &[
                "repo",
                "view",
                "--json",
                "nameWithOwner",
                "--jq",
                ".nameWithOwner",
            ],
        )?;
        let name = String::from_utf8_lossy(&output).trim().to_owned();
        if !is_repository_name(&name) {
            return Err(Error::Usage(format!(
                "`gh repo view` named no GitHub repository for {} (got `{name}`); add a GitHub `origin` remote, or {HOW_TO_PROVIDE}",
                root.display()
            )));
        }
        name
    };
    let endpoint =
        format!("repos/{repository}/pulls/comments?per_page=100&since={since_date}T00:00:00Z");
    let bytes = run_gh(root, &["api", "--paginate", &endpoint])?;
    Ok(RawComments {
        origin: format!("gh api repos/{repository}/pulls/comments"),
        bytes,
    })
}

/// Runs `gh` with `arguments` in `root`; its stdout.
fn run_gh(root: &Path, arguments: &[&str]) -> Result<Vec<u8>> {
    let output = Command::new("gh")
        .args(arguments)
        .current_dir(root)
        .output()
        .map_err(|error| {
            if error.kind() == std::io::ErrorKind::NotFound {
                Error::Usage(format!(
                    "no review comments to read: the GitHub CLI `gh` is not on PATH and no file was given; {HOW_TO_PROVIDE}"
                ))
            } else {
                Error::Usage(format!("cannot run `gh`: {error}; {HOW_TO_PROVIDE}"))
            }
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first_line = stderr
            .lines()
            .find(|line| !line.trim().is_empty())
            .unwrap_or("no message");
        return Err(Error::Usage(format!(
            "`gh {}` failed: {}; check `gh auth status`, or {HOW_TO_PROVIDE}",
            arguments.first().copied().unwrap_or_default(),
            first_line.trim()
        )));
    }
    Ok(output.stdout)
}

/// `owner/name` of the GitHub repository the `origin` remote of the git repository around
/// `root` points to; `None` outside a repository, without `origin`, or for another host.
fn origin_repository(root: &Path) -> Option<String> {
    let repository = gix::discover(root).ok()?;
    let remote = repository.find_remote("origin").ok()?;
    let url = remote.url(gix::remote::Direction::Fetch)?;
    if url.host() != Some("github.com") {
        return None;
    }
    let path = url.path.to_string();
    let name = path
        .trim_start_matches('/')
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .to_owned();
    is_repository_name(&name).then_some(name)
}

/// Whether `name` looks like `owner/repo` (one slash, GitHub's name characters).
fn is_repository_name(name: &str) -> bool {
    let mut parts = name.split('/');
    let valid = |part: Option<&str>| {
        part.is_some_and(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|character| character.is_ascii_alphanumeric() || "-_.".contains(character))
        })
    };
    valid(parts.next()) && valid(parts.next()) && parts.next().is_none()
}
