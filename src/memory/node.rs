//! Node paths and memory ids: the place in the repository a memory belongs to (a folder, or `_`
//! for the whole project), checked lexically before any file is touched, so an agent's argument
//! can never name a place outside the project, behind a symlink, or inside the trash.
//!
//! A node path is written as the repository writes folders: project-relative, `/`-separated, no
//! `.`, `..`, empty, absolute or backslash parts. A memory id is `<node path>/<slug>`
//! (`src/api/retry-policy`, `_/release-steps`); it is also the memory's file path below the
//! memories folder without `.md`.

use crate::confined_fs::{EntryKind, ProjectDir};

/// How the whole project is written as a node path (and as the folder of its memories).
pub(crate) const PROJECT_NODE: &str = "_";

/// The folder inside the memories folder that holds soft-deleted memories.
pub(crate) const TRASH_FOLDER: &str = ".trash";

/// Longest node path accepted, in bytes.
const MAX_NODE_PATH_BYTES: usize = 512;

/// Longest slug, in bytes.
pub(crate) const MAX_SLUG_BYTES: usize = 60;

/// Why a node path or a memory id is refused; each message names the value and what to do.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum NodeError {
    /// The text breaks one of the lexical rules (absolute, `..`, backslash, control character,
    /// empty part, too long, a reserved first part).
    #[error("node path `{text}` {reason}")]
    Lexical {
        /// The node path as given (escaped).
        text: String,
        /// What is wrong and what to write instead.
        reason: &'static str,
    },
    /// The node path does not name a folder of the repository.
    #[error("node path `{text}` {reason}")]
    NotAFolder {
        /// The node path.
        text: String,
        /// What is there instead and what to do.
        reason: String,
    },
    /// A memory id that is not `<node path>/<slug>`.
    #[error(
        "memory id `{text}` is not `<node path>/<slug>` (for example `src/api/retry-policy` or `_/release-steps`); take ids from list_memories or get_context"
    )]
    BadId {
        /// The id as given (escaped).
        text: String,
    },
}

/// A checked node path: the repository folder (empty for the whole project).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct NodePath(String);

impl NodePath {
    /// The whole project.
    #[must_use]
    pub(crate) fn project() -> Self {
        Self(String::new())
    }

    /// The repository folder, project-relative; empty for the whole project.
    #[must_use]
    pub(crate) fn folder(&self) -> &str {
        &self.0
    }

    /// The node path as shown and stored: the folder, or `_` for the whole project.
    #[must_use]
    pub(crate) fn shown(&self) -> &str {
        if self.0.is_empty() {
            PROJECT_NODE
        } else {
            &self.0
        }
    }

    /// The node itself, then each enclosing folder, then the whole project (nearest first).
    #[must_use]
    pub(crate) fn with_ancestors(&self) -> Vec<NodePath> {
        let mut chain = vec![self.clone()];
        let mut current = self.0.as_str();
        while let Some((parent, _)) = current.rsplit_once('/') {
            chain.push(Self(parent.to_owned()));
            current = parent;
        }
        if !self.0.is_empty() {
            chain.push(Self::project());
        }
        chain
    }

    /// How many folders deep the node lies (0 for the whole project).
    #[must_use]
    pub(crate) fn depth(&self) -> usize {
        if self.0.is_empty() {
            0
        } else {
            self.0.split('/').count()
        }
    }
}

/// A checked memory id: its node and its slug.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct MemoryId {
    /// Where the memory belongs.
    pub(crate) node: NodePath,
    /// The file name without `.md`: lower-case ASCII letters, digits and `-`.
    pub(crate) slug: String,
}

impl std::fmt::Display for MemoryId {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "{}/{}", self.node.shown(), self.slug)
    }
}

/// Parses a node path as an agent or a person writes it: `_` (or `.`) for the whole project,
/// else a project-relative folder; one trailing `/` is allowed.
///
/// Errors: [`NodeError::Lexical`] for an absolute path, a backslash, `..` or `.` or empty parts,
/// control characters, over 512 bytes, a first part `_` or `.trash` (reserved in the memories
/// folder), or a path inside `.git`.
pub(crate) fn parse_node(text: &str) -> Result<NodePath, NodeError> {
    let refuse = |reason: &'static str| NodeError::Lexical {
        text: text.escape_debug().to_string(),
        reason,
    };
    if text == PROJECT_NODE || text == "." {
        return Ok(NodePath::project());
    }
    if text.is_empty() {
        return Err(refuse(
            "is empty; write `_` for the whole project or a folder such as `src/api`",
        ));
    }
    if text.len() > MAX_NODE_PATH_BYTES {
        return Err(refuse(
            "is over 512 bytes; attach the memory to a shorter folder",
        ));
    }
    if text.starts_with('/') || text.as_bytes().get(1) == Some(&b':') {
        return Err(refuse(
            "is absolute; write the folder relative to the project root, such as `src/api`",
        ));
    }
    if text.contains('\\') {
        return Err(refuse(
            "contains a backslash; separate folders with `/`, such as `src/api`",
        ));
    }
    if text.chars().any(char::is_control) {
        return Err(refuse(
            "contains a control character; write a plain folder path",
        ));
    }
    let trimmed = text.strip_suffix('/').unwrap_or(text);
    let parts: Vec<&str> = trimmed.split('/').collect();
    if parts.contains(&"..") {
        return Err(refuse(
            "contains `..`; memories stay inside the project, so write the folder from the project root",
        ));
    }
    if parts.iter().any(|part| part.is_empty() || *part == ".") {
        return Err(refuse(
            "has an empty or `.` part; write each folder once, separated by single `/`",
        ));
    }
    if parts.len() > crate::limits::MAX_FOLDER_DEPTH {
        return Err(refuse(
            "nests over 32 folders; attach the memory to a shallower folder",
        ));
    }
    match parts[0] {
        PROJECT_NODE => Err(refuse(
            "starts with `_`, which names the whole project; write `_` alone, or another folder",
        )),
        TRASH_FOLDER => Err(refuse(
            "starts with `.trash`, where deleted memories are kept; use restore_memory to bring one back",
        )),
        ".git" => Err(refuse(
            "lies inside `.git`; attach the memory to a folder of the work tree",
        )),
        _ => Ok(NodePath(trimmed.to_owned())),
    }
}

/// Parses a memory id `<node path>/<slug>`.
///
/// Errors: [`NodeError::BadId`] when there is no `/` or the slug is not lower-case ASCII
/// letters, digits and `-` (at most [`MAX_SLUG_BYTES`]); the errors of [`parse_node`] for the
/// node part.
pub(crate) fn parse_id(text: &str) -> Result<MemoryId, NodeError> {
    let bad = || NodeError::BadId {
        text: text.escape_debug().to_string(),
    };
    let (node, slug) = text.rsplit_once('/').ok_or_else(bad)?;
    if !is_slug(slug) {
        return Err(bad());
    }
    Ok(MemoryId {
        node: parse_node(node)?,
        slug: slug.to_owned(),
    })
}

/// Whether `text` is a slug: 1 to [`MAX_SLUG_BYTES`] lower-case ASCII letters, digits and `-`,
/// starting with a letter or digit.
#[must_use]
pub(crate) fn is_slug(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= MAX_SLUG_BYTES
        && text
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !text.starts_with('-')
}

/// The slug of a title: lower-case ASCII letters and digits, every other run of characters one
/// `-`, at most [`MAX_SLUG_BYTES`]; `memory` when nothing is left (a title in another script);
/// `-memory` appended to a name Windows reserves (`con`, `aux`).
#[must_use]
pub(crate) fn slug_of(title: &str) -> String {
    let mut slug = String::new();
    for character in title.chars() {
        if character.is_ascii_alphanumeric() {
            slug.push(character.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
        if slug.len() >= MAX_SLUG_BYTES {
            break;
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        return "memory".to_owned();
    }
    // `con.md`, `aux.md` and the other device names cannot be checked out on Windows.
    if crate::portable::windows_problem(&format!("{slug}.md")).is_some() {
        return format!("{slug}-memory");
    }
    slug.to_owned()
}

/// Checks that `node` names a real folder of the repository, seen without following symlinks,
/// so a memory is never attached to a typo or to a place a link leads out of the project.
///
/// Errors: [`NodeError::NotAFolder`] for a missing path, a file, a symlink, or a folder on the
/// way that is a symlink.
pub(crate) fn check_folder(dir: &ProjectDir, node: &NodePath) -> Result<(), NodeError> {
    if node.folder().is_empty() {
        return Ok(());
    }
    let not_a_folder = |reason: String| NodeError::NotAFolder {
        text: node.shown().to_owned(),
        reason,
    };
    match dir.info(node.folder()) {
        Ok(Some(info)) if info.kind == EntryKind::Folder => Ok(()),
        Ok(Some(info)) if info.kind == EntryKind::Symlink => Err(not_a_folder(
            "is a symlink; memories attach to real folders of the repository, so name the folder the link points to".to_owned(),
        )),
        Ok(Some(info)) if info.kind == EntryKind::File => {
            let parent = node.folder().rsplit_once('/').map_or(PROJECT_NODE, |(parent, _)| parent);
            Err(not_a_folder(format!(
                "is a file; memories attach to folders, so use its folder `{parent}`"
            )))
        }
        Ok(Some(_)) => Err(not_a_folder(
            "is not a folder; memories attach to folders of the repository".to_owned(),
        )),
        Ok(None) => Err(not_a_folder(
            "is not a folder of this project; create the folder first or pick an existing one (`_` for the whole project)".to_owned(),
        )),
        Err(error) => Err(not_a_folder(format!("cannot be used: {error}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_paths_are_checked_lexically() {
        assert_eq!(parse_node("_"), Ok(NodePath::project()));
        assert_eq!(
            parse_node("src/api/").map(|node| node.0),
            Ok("src/api".to_owned())
        );
        for bad in [
            "",
            "/etc",
            "C:/x",
            "a\\b",
            "a/../b",
            "..",
            "a//b",
            "./a",
            "_/x",
            ".trash/a",
            ".git/hooks",
            "a\nb",
        ] {
            assert!(parse_node(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn ids_slugs_and_ancestors() {
        let id = parse_id("src/api/retry-policy").expect("id");
        assert_eq!(id.to_string(), "src/api/retry-policy");
        assert_eq!(parse_id("_/notes").expect("id").to_string(), "_/notes");
        assert!(parse_id("notes").is_err());
        assert!(parse_id("src/Bad").is_err());
        assert_eq!(slug_of("  Retry policy: 3x!"), "retry-policy-3x");
        assert_eq!(slug_of("日本"), "memory");
        assert_eq!(slug_of("Con"), "con-memory");
        let chain: Vec<String> = id
            .node
            .with_ancestors()
            .iter()
            .map(|node| node.shown().to_owned())
            .collect();
        assert_eq!(chain, ["src/api", "src", "_"]);
    }
}
