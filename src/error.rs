//! Typed errors of the library: every failure names the file, the line where there is one, what is
//! wrong and what to do about it.

use std::fmt;

/// Everything the library can fail with. The binary maps any of these to exit code 1 ("could not
/// run"); findings and drift are not errors and are reported through return values instead.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No `.ai-rulez/config.toml` (or another accepted config) between the start directory and the
    /// repository root or the home directory.
    #[error(
        "no ai-rulez project found from {start} up to {stop}: looked for .ai-rulez/config.toml, \
         .ai-rulez/config.yaml, .config/ai-rulez/config.toml and ai-rulez.toml; run `ai-rulez init` to create one"
    )]
    NoProject {
        /// Directory the search started in.
        start: String,
        /// Directory the search stopped at (git root or home).
        stop: String,
    },

    /// A file of the project could not be parsed or holds an invalid value.
    #[error("{}", located(path, *line, message))]
    Invalid {
        /// What kind of problem it is; `validate` chooses its finding code by this alone.
        kind: InvalidKind,
        /// Project-relative path of the file.
        path: String,
        /// 1-based line, when known.
        line: Option<usize>,
        /// Dotted path of the config key the error is about (`mcp_servers[0].command`), when it
        /// is about one key of a config file; a reader can find the key's line from it.
        key_path: Option<String>,
        /// What is wrong and what to do.
        message: String,
    },

    /// Several errors found while loading the tree; nothing is written when any exists.
    #[error("{}", join_errors(.0))]
    Many(Vec<Error>),

    /// A write or delete the tool refuses because the target is not provably its own.
    #[error("{path}: {reason}")]
    Refused {
        /// Project-relative path of the output.
        path: String,
        /// Why, and the way out.
        reason: String,
    },

    /// `generate` refuses to replace files it cannot prove it wrote, or that were edited by
    /// hand since: nothing is written. `files` holds each such path (project-relative, sorted)
    /// with why and the way out; `after` says that nothing was written, with any warning that
    /// explains the refusal and the diffs of the files in the way.
    #[error("{}", outputs_in_the_way(.files, .after))]
    OutputsInTheWay {
        /// `(path, why and the way out)` per refused output, sorted by path.
        files: Vec<(String, String)>,
        /// "nothing was written", then the diffs.
        after: String,
    },

    /// A write that failed after others of the same run were made: `cause` is the failure,
    /// `done` the project-relative paths already written or deleted, in the order they were.
    /// The journal of the run is still there, so the next run counts those files as its own and
    /// finishes the change.
    #[error("{}", partly_applied(.cause, .done))]
    PartlyApplied {
        /// What failed.
        cause: Box<Error>,
        /// Paths written or deleted before it, in order.
        done: Vec<String>,
    },

    /// Literal secrets in the sources (each a `file:line: AR001 message` line with the secret
    /// masked): `generate` and `lock` refuse before writing anything, since every assistant's
    /// files would carry a copy.
    #[error(
        "{} literal secret(s) in the sources; nothing was written, because the generated files would copy them:\n{}\nremove each one, rotate it (it may already be in git history) and read it from the environment; for a false positive, put `ai-rulez-ignore AR001` on that line or the line above",
        .0.len(),
        .0.iter().map(|line| format!("  {line}")).collect::<Vec<_>>().join("\n")
    )]
    LiteralSecrets(Vec<String>),

    /// Another ai-rulez process held the project's writer lock for longer than the wait.
    #[error(
        "{root}: another ai-rulez process is changing this project (waited {waited_ms} ms for it); nothing was changed, retry in a moment"
    )]
    Busy {
        /// The project root.
        root: String,
        /// How long this process waited, in milliseconds.
        waited_ms: u64,
    },

    /// The MCP client cancelled the call before it wrote anything.
    #[error("the client cancelled this call; nothing was written")]
    Cancelled,

    /// The command line or a preset spec asked for something impossible.
    #[error("{0}")]
    Usage(String),

    /// An I/O failure; `fs-err` puts the path into the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// What kind of problem an [`Error::Invalid`] is. Set where the error is made, so that
/// consumers (the finding codes of `validate`) never read the message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InvalidKind {
    /// Bytes that are not UTF-8.
    NotUtf8,
    /// YAML that does not parse (a frontmatter or a v3 `config.yaml`).
    Yaml,
    /// A key written twice in one YAML mapping.
    DuplicateKey,
    /// A frontmatter opened with `---` and never closed.
    UnclosedFrontmatter,
    /// A frontmatter that is not a mapping of keys.
    FrontmatterNotMapping,
    /// TOML that does not parse.
    Toml,
    /// A symlink in the tree, to a file or a folder (never followed).
    Symlink,
    /// A folder, pipe or device where a file belongs.
    NotRegularFile,
    /// A content file over the size limit.
    TooLarge,
    /// A file or folder the process may not read, or whose read failed (permission denied,
    /// an I/O error).
    Unreadable,
    /// A file name holding a control character.
    ControlCharacterInName,
    /// Two items of one kind with one id at one precedence.
    DuplicateId,
    /// An item's frontmatter value that is invalid or contradicts another.
    FrontmatterValue,
    /// An `[[includes]]` source that is not a folder.
    IncludeNotFolder,
    /// A git `[[includes]]` entry that cannot be fetched, resolved or checked out.
    GitInclude,
    /// A config value that is missing, of the wrong type or unknown (outside `[[mcp_servers]]`).
    ConfigValue,
    /// An `[[mcp_servers]]` entry that cannot be used.
    McpServer,
    /// Anything else: the kind of [`Error::invalid`], for files no finding is made from (lock
    /// file, manifest, `.gitignore` block, ...).
    Other,
}

/// Library result type.
pub(crate) type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::Invalid`] of kind [`InvalidKind::Other`]: `path` is project-relative, `line`
    /// 1-based, `message` says what is wrong and what to do.
    pub fn invalid(
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self::invalid_as(InvalidKind::Other, path, line, message)
    }

    /// An [`Error::Invalid`] of `kind` (not about one config key); the other inputs as for
    /// [`Error::invalid`].
    pub fn invalid_as(
        kind: InvalidKind,
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self::Invalid {
            kind,
            path: path.into(),
            line,
            key_path: None,
            message: message.into(),
        }
    }

    /// An [`Error::Invalid`] about the config key at `key_path` (dotted, with `[index]` for
    /// list entries) of the config file at `path`; the line is left for readers to find.
    pub fn config_key(
        kind: InvalidKind,
        path: impl Into<String>,
        key_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self::Invalid {
            kind,
            path: path.into(),
            line: None,
            key_path: Some(key_path.into()),
            message: message.into(),
        }
    }

    /// Shorthand for [`Error::Refused`].
    pub fn refused(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::Refused {
            path: path.into(),
            reason: reason.into(),
        }
    }

    /// Turns a list of errors into one: nothing when empty, itself when alone, [`Error::Many`] otherwise.
    #[must_use]
    pub fn from_list(mut errors: Vec<Error>) -> Option<Self> {
        match errors.len() {
            0 => None,
            1 => errors.pop(),
            _ => Some(Self::Many(errors)),
        }
    }
}

fn located(path: &str, line: Option<usize>, message: &str) -> String {
    match line {
        Some(line) => format!("{path}:{line}: {message}"),
        None => format!("{path}: {message}"),
    }
}

/// One refused output reads `path: why` on the error line; several get a line each under one
/// heading, so no reason runs into the next path.
fn outputs_in_the_way(files: &[(String, String)], after: &str) -> String {
    if let [(path, reason)] = files {
        return format!("{path}: {reason}\n{after}");
    }
    let mut text = format!("{} files are in the way:", files.len());
    for (path, reason) in files {
        fmt::Write::write_fmt(&mut text, format_args!("\n  {path}: {reason}")).ok();
    }
    text.push('\n');
    text.push_str(after);
    text
}

/// The failure, then what had changed before it (up to 20 paths), then how to finish.
fn partly_applied(cause: &Error, done: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut shown = done
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if done.len() > SHOWN {
        fmt::Write::write_fmt(&mut shown, format_args!(" and {} more", done.len() - SHOWN)).ok();
    }
    format!(
        "{cause}\nthis stopped the run after {} file(s) had changed: {shown}. Fix the cause, then run the same command again: it counts those files as its own and finishes the change",
        done.len()
    )
}

fn join_errors(errors: &[Error]) -> String {
    let mut text = String::new();
    for (index, error) in errors.iter().enumerate() {
        if index > 0 {
            text.push('\n');
        }
        fmt::Write::write_fmt(&mut text, format_args!("{error}")).ok();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_stopped_partway_names_what_changed_and_how_to_finish() {
        let error = Error::PartlyApplied {
            cause: Box::new(Error::Usage(
                "writing x: No space left on device".to_owned(),
            )),
            done: (1..=22).map(|number| format!("f{number}.md")).collect(),
        };
        let listed: Vec<String> = (1..=20).map(|number| format!("f{number}.md")).collect();
        assert_eq!(
            error.to_string(),
            format!(
                "writing x: No space left on device\nthis stopped the run after 22 file(s) had changed: {} and 2 more. Fix the cause, then run the same command again: it counts those files as its own and finishes the change",
                listed.join(", ")
            )
        );
    }
}
