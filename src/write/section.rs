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
        // Judged with LF line ends, so a CRLF checkout is neither stale nor edited; a file that
        // must change anyway is written back with LF (git's `autocrlf` converts it on checkout).
        let disk = crate::hash::lf_line_ends(disk);
        let Ok(text) = std::str::from_utf8(&disk) else {
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
                let mut new_text = text.to_owned();
                if unterminated {
                    new_text.push('\n');
                }
                if !new_text.is_empty() {
                    new_text.push('\n');
                }
                new_text.push_str(&block);
                (Status::Create, new_text)
            }
            Ok(Some(section)) => {
                let current = &text[section.start..section.end];
                if current == block {
                    (Status::Unchanged, text.to_owned())
                } else if !section.unedited && !self.settings.force {
                    let replaced =
                        format!("{}{block}{}", &text[..section.start], &text[section.end..]);
                    self.refused_content
                        .insert(path.to_owned(), Cow::Owned(replaced.into_bytes()));
                    self.record(path, Status::Edited, Some("the ai-rulez section was edited by hand; to keep the edit, move it outside the markers or into .ai-rulez/ and run `ai-rulez generate`; to drop it, run `ai-rulez generate --force`, which replaces only the section (your text outside it stays) and saves the file as {path}.orig first".replace("{path}", path)));
                    return;
                } else {
                    if !section.unedited {
                        // Forced over a hand edit of the section: the whole file is saved first.
                        self.originals.push((
                            path.to_owned(),
                            disk.to_vec(),
                            disk_mode.unwrap_or(0o644),
                        ));
                    }
                    (
                        Status::Update,
                        format!("{}{block}{}", &text[..section.start], &text[section.end..]),
                    )
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
