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
        /// Project-relative path of the file.
        path: String,
        /// 1-based line, when known.
        line: Option<usize>,
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

    /// The command line or a preset spec asked for something impossible.
    #[error("{0}")]
    Usage(String),

    /// An I/O failure; `fs-err` puts the path into the message.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Library result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Shorthand for [`Error::Invalid`].
    pub fn invalid(
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self::Invalid {
            path: path.into(),
            line,
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
