//! The managed section: ai-rulez's part of a hand-written root file, kept between BEGIN and END
//! markers so the user's own text around it is never touched.

use std::borrow::Cow;

use crate::hash::{SHA256_MARKER, sha256_hex, sha256_tagged};

use super::{Operation, State, Status};
use crate::manifest::Manifest;

const SECTION_BEGIN: &str = "<!-- BEGIN ai-rulez";
const SECTION_END: &str = "<!-- END ai-rulez -->";

impl State<'_> {
    /// Keeps a hand-written root file and maintains ai-rulez's part between markers in it.
    /// `old` is the manifest of the previous run, which says whether the text had its own
    /// final new line before the section was added.
    pub(super) fn section(
        &mut self,
        path: &str,
        body: &[u8],
        (disk, disk_mode): (&[u8], Option<u32>),
        old: &Manifest,
    ) {
        // Judged with LF line ends, so a CRLF checkout is neither stale nor edited. The text
        // around the section is written back exactly as it is on disk (a CRLF file stays CRLF,
        // a lone CR stays), so only the section's own bytes ever change.
        let original = disk;
        let lf_view = crate::hash::lf_line_ends(original);
        let (Ok(original), Ok(text)) =
            (std::str::from_utf8(original), std::str::from_utf8(&lf_view))
        else {
            self.record(path, Status::Blocked, Some("exists, is not UTF-8 and was not written by ai-rulez; move it away or use --force".to_owned()));
            return;
        };
        let body = String::from_utf8_lossy(body);
        // The BEGIN line states the body's length, so an END marker quoted inside the body (a
        // rule about these very markers) cannot end the section early.
        let block = format!(
            "{SECTION_BEGIN}: generated section ({} bytes); edit .ai-rulez/ and run `ai-rulez generate`. {SHA256_MARKER}{} -->\n{body}{SECTION_END}\n",
            body.len(),
            sha256_hex(body.as_bytes())
        );
        self.manifest
            .sections
            .insert(path.to_owned(), sha256_tagged(body.as_bytes()));
        let found = find_section(text);
        let unterminated = match &found {
            // The section is added now: the text as it is says whether it ends in a new line.
            Ok(None) => !text.is_empty() && !text.ends_with('\n'),
            Ok(Some(_)) | Err(_) => old.sections_unterminated.contains(path),
        };
        if unterminated {
            self.manifest.sections_unterminated.insert(path.to_owned());
        }
        let (status, new_text) = match found {
            Err(message) => {
                self.record(path, Status::Blocked, Some(message));
                return;
            }
            Ok(None) => {
                // A file that ends its lines with CRLF gets the section with CRLF too.
                let line_end = line_end_at(original, 0);
                // After a lone CR the added line ends are CRLF whatever the style: an LF
                // there would join that CR into a pair, and `clean` could not tell it apart.
                let separator = if original.ends_with('\r') {
                    "\r\n"
                } else {
                    line_end
                };
                let mut new_text = original.to_owned();
                if unterminated {
                    new_text.push_str(separator);
                }
                if !new_text.is_empty() {
                    new_text.push_str(separator);
                }
                new_text.push_str(&with_line_end(&block, line_end));
                (Status::Create, new_text)
            }
            Ok(Some(section)) => {
                let current = &text[section.start..section.end];
                // Built only when the file is written or refused: the text around the section
                // as it is on disk, and the section with the line ends it has there.
                let replaced = || {
                    let start = original_offset(original.as_bytes(), section.start);
                    let end = original_offset(original.as_bytes(), section.end);
                    let line_end = line_end_at(original, start);
                    format!(
                        "{}{}{}",
                        &original[..start],
                        with_line_end(&block, line_end),
                        &original[end..]
                    )
                };
                if current == block {
                    (Status::Unchanged, String::new())
                } else if !section.unedited && !self.settings.force {
                    self.refused_content
                        .insert(path.to_owned(), Cow::Owned(replaced().into_bytes()));
                    self.record(path, Status::Edited, Some("the ai-rulez section was edited by hand; to keep the edit, move it outside the markers or into .ai-rulez/ and run `ai-rulez generate`; to drop it, run `ai-rulez generate --force`, which replaces only the section (your text outside it stays) and saves the file as {path}.orig first".replace("{path}", path)));
                    return;
                } else {
                    if !section.unedited {
                        // Forced over a hand edit of the section: the whole file is saved first.
                        self.originals.push((
                            path.to_owned(),
                            original.as_bytes().to_vec(),
                            disk_mode.unwrap_or(0o644),
                        ));
                    }
                    (Status::Update, replaced())
                }
            }
        };
        if status != Status::Unchanged {
            self.operations.push(Operation::Write {
                path: path.to_owned(),
                bytes: Cow::Owned(new_text.into_bytes()),
                mode: disk_mode.unwrap_or(0o644),
            });
        }
        self.record_section(path, status, None);
    }
}

/// The offset in `original` of the byte at `lf_offset` in its LF view
/// ([`crate::hash::lf_line_ends`]): every CRLF pair before it adds the CR the view left out.
/// The offsets of a [`Section`] always follow an LF (or are 0 or the end), so they land on the
/// same character in both.
pub(super) fn original_offset(original: &[u8], lf_offset: usize) -> usize {
    let mut removed = 0;
    for pair in memchr::memmem::find_iter(original, b"\r\n") {
        // In the LF view, this pair's LF sits at `pair - removed`.
        if pair - removed >= lf_offset {
            break;
        }
        removed += 1;
    }
    lf_offset + removed
}

/// The line end (`"\r\n"` or `"\n"`) of the first line of `text` that ends at or after byte
/// `start`; `"\n"` when no line ends there.
fn line_end_at(text: &str, start: usize) -> &'static str {
    match text[start..].find('\n') {
        Some(offset) if text[..start + offset].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// `block` (LF line ends) with `line_end` ending each line instead.
fn with_line_end<'block>(block: &'block str, line_end: &str) -> Cow<'block, str> {
    if line_end == "\n" {
        Cow::Borrowed(block)
    } else {
        Cow::Owned(block.replace('\n', line_end))
    }
}

pub(super) struct Section {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) unedited: bool,
}

/// Finds the managed section: from the first BEGIN line (at a line start) through its END line
/// and newline. The body length written in the BEGIN line locates the END marker; when the
/// section was edited (length or hash off), the last END marker after BEGIN closes it.
pub(super) fn find_section(text: &str) -> std::result::Result<Option<Section>, String> {
    let Some(begin) = text
        .match_indices(SECTION_BEGIN)
        .map(|(index, _)| index)
        .find(|index| *index == 0 || text.as_bytes()[index - 1] == b'\n')
    else {
        return Ok(None);
    };
    let begin_line_end = text[begin..]
        .find('\n')
        .map_or(text.len(), |offset| begin + offset + 1);
    let begin_line = &text[begin..begin_line_end];
    let claimed_hash = begin_line.split(SHA256_MARKER).nth(1).map(|rest| {
        rest.chars()
            .take_while(char::is_ascii_hexdigit)
            .collect::<String>()
    });
    let claimed_length: Option<usize> = begin_line
        .split_once("section (")
        .and_then(|(_, rest)| rest.split_once(" bytes)"))
        .and_then(|(digits, _)| digits.parse().ok());
    let stated_end = claimed_length
        .map(|length| begin_line_end + length)
        .filter(|end| {
            text.get(*end..)
                .is_some_and(|rest| rest.starts_with(SECTION_END))
        });
    let Some(end) = stated_end.or_else(|| {
        text[begin_line_end..]
            .rfind(SECTION_END)
            .map(|offset| begin_line_end + offset)
    }) else {
        return Err(
            "its ai-rulez section has a BEGIN marker but no END marker; fix the markers by hand"
                .to_owned(),
        );
    };
    let body = &text[begin_line_end..end];
    let unedited = stated_end.is_some()
        && claimed_hash.as_deref() == Some(sha256_hex(body.as_bytes()).as_str());
    let mut end_of_block = end + SECTION_END.len();
    if text[end_of_block..].starts_with('\n') {
        end_of_block += 1;
    }
    Ok(Some(Section {
        start: begin,
        end: end_of_block,
        unedited,
    }))
}

/// The body of the managed section in `text`, if there is exactly one.
#[must_use]
pub(crate) fn section_body(text: &str) -> Option<&str> {
    let section = find_section(text).ok().flatten()?;
    let begin_line_end = text[section.start..]
        .find('\n')
        .map(|offset| section.start + offset + 1)?;
    let end = text[..section.end].rfind(SECTION_END)?;
    text.get(begin_line_end..end)
}

/// `text` without its managed section (the BEGIN line through the END line and its new line),
/// when it has one whose markers are whole; `None` otherwise.
#[must_use]
pub(crate) fn without_section(text: &str) -> Option<String> {
    let section = find_section(text).ok().flatten()?;
    Some(format!(
        "{}{}",
        &text[..section.start],
        &text[section.end..]
    ))
}
