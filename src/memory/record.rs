//! The memory file: `.ai-rulez/memories/<node path>/<slug>.md`, a YAML frontmatter of `id`,
//! `title`, `source`, `created` and `updated` (days as `YYYY-MM-DD`) followed by the Markdown
//! text. This module reads and writes that format and checks what may be saved in it; where the
//! files live and how they change is [`super::memories`].

use serde::Serialize;

use super::memories::{MemoryError, Result};
use super::node::MemoryId;

/// Largest memory file read, in bytes (256 KiB).
pub(super) const MAX_MEMORY_FILE_BYTES: u64 = 256 * 1024;
/// Largest memory text saved, in bytes (64 KiB): a memory is a note, not a document.
const MAX_CONTENT_BYTES: usize = 64 * 1024;
/// Longest title, in characters.
const MAX_TITLE_CHARS: usize = 120;
/// Longest preview, in characters.
const PREVIEW_CHARS: usize = 120;

/// Who saved a memory, recorded in its `source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// An agent through an MCP tool.
    Mcp,
    /// A person through `ai-rulez memory`.
    Cli,
}

impl Source {
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::Cli => "cli",
        }
    }
}

/// One memory as read: its place, its metadata, its text and its version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct MemoryRecord {
    /// `<node path>/<slug>`: pass it to `read_memory`, `update_memory` and `delete_memory`.
    pub(crate) id: String,
    /// The folder it belongs to (`_`: the whole project).
    pub(crate) node: String,
    /// Its title.
    pub(crate) title: String,
    /// Who saved it last: `mcp`, `cli` or what a person wrote.
    pub(crate) source: String,
    /// Day it was created (`YYYY-MM-DD`).
    pub(crate) created: String,
    /// Day it was last changed (`YYYY-MM-DD`).
    pub(crate) updated: String,
    /// The memory text (Markdown, without the frontmatter).
    pub(crate) content: String,
    /// `sha256:<hex>` of the file: pass it as `expected_version_id` to change or delete it.
    pub(crate) version_id: String,
    /// Project-relative path of its file.
    pub(crate) path: String,
}

impl MemoryRecord {
    /// The first non-empty line of the text, cut at 120 characters.
    #[must_use]
    pub(crate) fn preview(&self) -> String {
        let line = self
            .content
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty())
            .unwrap_or("");
        if line.chars().count() > PREVIEW_CHARS {
            let cut: String = line.chars().take(PREVIEW_CHARS - 1).collect();
            format!("{cut}…")
        } else {
            line.to_owned()
        }
    }
}

/// Interprets a memory file: frontmatter keys `id`, `title`, `source`, `created`, `updated`
/// (all optional when read; the id always comes from the path), then the text.
pub(super) fn parse_record(id: &MemoryId, path: &str, bytes: &[u8]) -> Result<MemoryRecord> {
    let document = crate::frontmatter::parse(path, bytes)?;
    let text = |key: &str| {
        document
            .values
            .get(key)
            .and_then(|value| match value {
                serde_json::Value::String(text) => Some(text.clone()),
                serde_json::Value::Null => None,
                other => Some(other.to_string()),
            })
            .unwrap_or_default()
    };
    let title = Some(text("title"))
        .filter(|title| !title.is_empty())
        .unwrap_or_else(|| id.slug.clone());
    Ok(MemoryRecord {
        id: id.to_string(),
        node: id.node.shown().to_owned(),
        title,
        source: text("source"),
        created: text("created"),
        updated: text("updated"),
        content: document.body.trim_start_matches('\n').to_owned(),
        version_id: crate::hash::content_digest(path, bytes),
        path: path.to_owned(),
    })
}

/// The file text of a memory: frontmatter (values quoted as JSON strings, which YAML reads as
/// the same strings) and the text, ending in one `\n`.
pub(super) fn render(
    id: &MemoryId,
    title: &str,
    source: &str,
    created: &str,
    updated: &str,
    content: &str,
) -> String {
    let quoted = |value: &str| serde_json::Value::String(value.to_owned()).to_string();
    format!(
        "---\nid: {}\ntitle: {}\nsource: {}\ncreated: {}\nupdated: {}\n---\n{}\n",
        quoted(&id.to_string()),
        quoted(title),
        quoted(source),
        quoted(created),
        quoted(updated),
        content.trim_end_matches('\n')
    )
}

/// Checks a title: one line, 1 to 120 characters, passing the screening of untrusted text.
pub(super) fn check_title(title: &str) -> Result<String> {
    let title = title.trim();
    if title.is_empty() || title.contains('\n') || title.chars().count() > MAX_TITLE_CHARS {
        return Err(MemoryError::Refused(
            "a memory title is one line of 1 to 120 characters; say in a few words what the memory is about".to_owned(),
        ));
    }
    // The title is shown to agents in every listing, so it is screened like the text.
    let problems =
        crate::lint::screen::untrusted_refusals(title, crate::lint::screen::ScreenKind::Context);
    if !problems.is_empty() {
        return Err(MemoryError::Refused(format!(
            "the memory title is not saved: {}",
            problems.join("; ")
        )));
    }
    Ok(title.to_owned())
}

/// Checks a memory text: not empty, at most 64 KiB, and passing the screening every untrusted
/// text passes (hidden characters, HTML comments, prompt-injection phrases, secrets).
pub(super) fn check_content(shown: &str, content: &str) -> Result<()> {
    if content.trim().is_empty() {
        return Err(MemoryError::Refused(format!(
            "{shown}: the memory text is empty; write what the next person or agent should know"
        )));
    }
    if content.len() > MAX_CONTENT_BYTES {
        return Err(MemoryError::Refused(format!(
            "{shown}: the memory text is {} bytes, over the 65536-byte limit; keep a memory short and link to documents",
            content.len()
        )));
    }
    let problems =
        crate::lint::screen::untrusted_refusals(content, crate::lint::screen::ScreenKind::Context);
    if !problems.is_empty() {
        return Err(MemoryError::Refused(format!(
            "{shown}: not saved: {}",
            problems.join("; ")
        )));
    }
    Ok(())
}
