//! Reading served skills: `load_skill` (SKILL.md within a byte budget, with the list of the
//! skill's files), `list_skill_resources`, and `read_skill_file` (a byte window of one file).
//! A `skill://<name>/<path>` URI from a client is never turned into a file path: it is split
//! into a skill name and a path that must be exactly one of that skill's listed files, and
//! anything else (`..`, `.`, empty or absolute segments, backslashes, unlisted files) is refused.

use base64::Engine as _;
use serde::Serialize;

use super::skills::{SKILL_MD, SKILL_SCHEME, ServedSkill, SkillFile, SkillShelf};

/// Most bytes one `read_skill_file` call returns.
pub(crate) const MAX_WINDOW_BYTES: usize = 256 * 1024;

/// One file of a served skill, as listed.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct SkillFileEntry {
    /// Path inside the skill folder.
    pub path: String,
    /// `skill://<name>/<path>`, for `read_skill_file` and `resources/read`.
    pub uri: String,
    /// Size in bytes.
    pub size: usize,
    /// `sha256:` and 64 lower-case hex digits of the whole file.
    pub digest: String,
    /// Media type.
    pub mime_type: String,
    /// Whether the file has an execute bit (restore it when writing the file out).
    pub executable: bool,
}

fn entries(skill: &ServedSkill) -> Vec<SkillFileEntry> {
    skill
        .files
        .iter()
        .map(|file| SkillFileEntry {
            path: file.path.clone(),
            uri: skill.uri(&file.path),
            size: file.bytes.len(),
            digest: file.digest.clone(),
            mime_type: file.media_type.to_owned(),
            executable: file.executable,
        })
        .collect()
}

/// The `list_skill_resources` reply.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct SkillResources {
    /// The skill's name.
    pub name: String,
    /// Every file of the skill, SKILL.md first, then by path.
    pub resources: Vec<SkillFileEntry>,
}

/// `list_skill_resources`: every file of the served skill `name`.
///
/// Errors: as [`SkillShelf::get`].
pub(crate) fn list_resources(shelf: &SkillShelf, name: &str) -> Result<SkillResources, String> {
    let skill = shelf.get(name)?;
    Ok(SkillResources {
        name: skill.name.clone(),
        resources: entries(skill),
    })
}

/// The `load_skill` reply.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct LoadedSkill {
    /// The skill's name.
    pub name: String,
    /// URI of its SKILL.md.
    pub uri: String,
    /// What the skill is for.
    pub description: String,
    /// Its delivery (`served` or `both`; `static` when the project serves every skill).
    pub delivery: String,
    /// Project-relative path of the authored SKILL.md (`.ai-rulez/skills/<name>/SKILL.md`).
    pub source: String,
    /// SKILL.md as served, cut at the budget when `truncated`.
    pub text: String,
    /// Size in bytes of the whole SKILL.md.
    pub total_bytes: usize,
    /// Digest of the whole SKILL.md (`sha256:<hex>`).
    pub digest: String,
    /// Whether `text` stops before the end of SKILL.md (at `budget_bytes`, on a character
    /// boundary).
    pub truncated: bool,
    /// When truncated: the byte offset to pass to `read_skill_file` for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// Every file of the skill, SKILL.md first.
    pub resources: Vec<SkillFileEntry>,
}

/// `load_skill`: the SKILL.md of `name`, cut to at most `budget_bytes` bytes (on a UTF-8
/// character boundary) when given, with the list of the skill's files.
///
/// Errors: as [`SkillShelf::get`].
pub(crate) fn load(
    shelf: &SkillShelf,
    name: &str,
    budget_bytes: Option<usize>,
) -> Result<LoadedSkill, String> {
    let skill = shelf.get(name)?;
    let file = &skill.files[0];
    let text = String::from_utf8_lossy(&file.bytes);
    let total_bytes = file.bytes.len();
    let end = match budget_bytes {
        Some(budget) if budget < total_bytes => floor_char_boundary(&text, budget),
        _ => total_bytes,
    };
    let truncated = end < total_bytes;
    Ok(LoadedSkill {
        name: skill.name.clone(),
        uri: skill.uri(SKILL_MD),
        description: skill.description.clone(),
        delivery: skill.delivery.name().to_owned(),
        source: skill.source_path.clone(),
        text: text[..end].to_owned(),
        total_bytes,
        digest: file.digest.clone(),
        truncated,
        next_offset: truncated.then_some(end),
        resources: entries(skill),
    })
}

/// The text block of a `load_skill` reply: SKILL.md, a clear line where the budget cut it, and
/// the other files.
#[must_use]
pub(crate) fn loaded_text(loaded: &LoadedSkill) -> String {
    let mut text = loaded.text.clone();
    if loaded.truncated {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&format!(
            "[TRUNCATED: {} of {} bytes shown (budget_bytes). Read the rest with read_skill_file uri={} offset={}]\n",
            loaded.text.len(),
            loaded.total_bytes,
            loaded.uri,
            loaded.text.len()
        ));
    }
    let others: Vec<&SkillFileEntry> = loaded
        .resources
        .iter()
        .filter(|entry| entry.path != SKILL_MD)
        .collect();
    if !others.is_empty() {
        text.push_str("\nFiles of this skill (not on disk; read them with read_skill_file):\n");
        for entry in others {
            text.push_str(&format!("- {} ({} bytes)\n", entry.uri, entry.size));
        }
    }
    text
}

/// The `read_skill_file` reply: one window of a file.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct SkillFileWindow {
    /// The file's URI.
    pub uri: String,
    /// Media type.
    pub mime_type: String,
    /// Size in bytes of the whole file.
    pub size: usize,
    /// Digest of the whole file (`sha256:<hex>`), to verify the joined windows.
    pub digest: String,
    /// Byte offset of the window.
    pub offset: usize,
    /// Bytes in the window.
    pub length: usize,
    /// `text` (UTF-8, never split inside a character) or `base64` (a file that is not UTF-8).
    pub encoding: String,
    /// The window's bytes, in `encoding`.
    pub content: String,
    /// Where the next window starts, while bytes remain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// `read_skill_file`: `length` bytes (default and most [`MAX_WINDOW_BYTES`]) from `offset`
/// (default 0) of the file at `uri`, never more. A UTF-8 file's window ends on a character
/// boundary, so it may hold fewer bytes than `length`.
///
/// Errors: a URI that is not one of the served files (see [`file_of_uri`]), an offset past the
/// end of the file, an offset inside a UTF-8 character, or a `length` shorter than the UTF-8
/// character at `offset` (the message names the length needed).
pub(crate) fn read_window(
    shelf: &SkillShelf,
    uri: &str,
    offset: usize,
    length: Option<usize>,
) -> Result<SkillFileWindow, String> {
    let (skill, file) = file_of_uri(shelf, uri)?;
    let size = file.bytes.len();
    if offset > size {
        return Err(format!(
            "offset {offset} is past the end of {uri} ({size} bytes)"
        ));
    }
    let wanted = length.unwrap_or(MAX_WINDOW_BYTES).min(MAX_WINDOW_BYTES);
    let mut end = offset.saturating_add(wanted).min(size);
    let (encoding, content) = match std::str::from_utf8(&file.bytes) {
        Ok(text) => {
            if !text.is_char_boundary(offset) {
                return Err(format!(
                    "offset {offset} is inside a UTF-8 character of {uri}; use the next_offset of the previous window"
                ));
            }
            end = floor_char_boundary(text, end);
            if end == offset
                && let Some(character) = text[offset..].chars().next()
            {
                // The window cannot hold the character at `offset`. Widening it would return
                // more bytes than asked for, and an empty window would send the client back to
                // the same offset forever, so the client is told the length that works.
                let needed = character.len_utf8();
                return Err(format!(
                    "length {wanted} is shorter than the {needed}-byte character at byte {offset} of {uri}; ask for at least {needed}"
                ));
            }
            ("text", text[offset..end].to_owned())
        }
        Err(_) => (
            "base64",
            base64::engine::general_purpose::STANDARD.encode(&file.bytes[offset..end]),
        ),
    };
    Ok(SkillFileWindow {
        uri: skill.uri(&file.path),
        mime_type: file.media_type.to_owned(),
        size,
        digest: file.digest.clone(),
        offset,
        length: end - offset,
        encoding: encoding.to_owned(),
        content,
        next_offset: (end < size).then_some(end),
    })
}

/// The served skill and file a `skill://<name>/<path>` URI names.
///
/// Errors: a URI of another scheme, a name that is not a skill name, a path with an empty,
/// `.` or `..` segment, a backslash or a leading `/`, or a path that is not one of the skill's
/// files; a withheld or unknown skill (as [`SkillShelf::get`]).
pub(crate) fn file_of_uri<'shelf>(
    shelf: &'shelf SkillShelf,
    uri: &str,
) -> Result<(&'shelf ServedSkill, &'shelf SkillFile), String> {
    // Every part of the URI that reaches an error is escaped: a newline or escape sequence in
    // it would otherwise reach the model's text as if it were an instruction.
    let shown = uri.escape_debug();
    let Some(rest) = uri.strip_prefix(SKILL_SCHEME) else {
        return Err(format!(
            "`{shown}` is not a skill file URI; use skill://<name>/<path> as listed by list_skill_resources"
        ));
    };
    let Some((name, path)) = rest.split_once('/') else {
        if rest.is_empty() || !super::skills::is_skill_name(rest) {
            return Err(format!(
                "`{shown}` names no skill file; use skill://<name>/SKILL.md, such as skill://release-notes/SKILL.md, with a name find_skill lists"
            ));
        }
        return Err(format!(
            "`{shown}` names no file; use skill://{rest}/SKILL.md or a path listed by list_skill_resources"
        ));
    };
    if !super::skills::is_skill_name(name) {
        return Err(format!(
            "`{shown}` is refused: `{}` is not a skill name (1 to 64 lower-case letters, digits and single hyphens); use a name find_skill lists",
            name.escape_debug()
        ));
    }
    let unsafe_path = path.is_empty()
        || path.contains('\\')
        || path
            .split('/')
            .any(|segment| segment.is_empty() || segment == "." || segment == "..");
    if unsafe_path {
        return Err(format!(
            "`{shown}` is refused: a skill file URI is skill://<name>/<path> with a path inside the skill (no `..`, `.`, empty segments, leading `/` or backslashes)"
        ));
    }
    let skill = shelf.get(name)?;
    let file = skill
        .files
        .iter()
        .find(|file| file.path == path)
        .ok_or_else(|| {
            format!(
                "skill `{name}` has no file `{}`; list_skill_resources names its files",
                path.escape_debug()
            )
        })?;
    Ok((skill, file))
}

/// The largest index at most `index` that is a character boundary of `text`.
fn floor_char_boundary(text: &str, index: usize) -> usize {
    let mut index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}
