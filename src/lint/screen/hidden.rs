//! Hidden characters: invisible and bidirectional-control code points that make a reviewer
//! and an assistant read different text, with the joiners and selectors real scripts and emoji
//! need left alone.

use unicode_general_category::{GeneralCategory, get_general_category};

use super::{Finding, LineIndex, limits};

/// AR002: one finding per line listing the invisible characters found on it.
pub(super) fn hidden_characters(text: &str, lines: &LineIndex<'_>, findings: &mut Vec<Finding>) {
    if text.is_ascii() && !text.bytes().any(is_control_byte) && !text.contains('\r') {
        return;
    }
    for (index, line) in text.split('\n').enumerate() {
        let bare_return = line.trim_end_matches('\r').contains('\r');
        if line.is_ascii() && !line.bytes().any(is_control_byte) && !bare_return {
            continue;
        }
        let characters: Vec<char> = line.chars().collect();
        let hits: Vec<(usize, char)> = hidden_positions(&characters, index == 0)
            .into_iter()
            .map(|at| (at + 1, characters[at]))
            .collect();
        if hits.is_empty() {
            continue;
        }
        let listed = crate::message_list::named_then_counted(
            hits.iter().map(|(column, character)| {
                format!(
                    "U+{:04X} {} at column {column}",
                    u32::from(*character),
                    char_name(*character)
                )
            }),
            limits::HIDDEN_LISTED,
        );
        findings.push(Finding::new(
            "AR002",
            "",
            Some(index + 1),
            lines.text(index + 1),
            format!(
                "{} hidden character{}: {}; delete {}",
                hits.len(),
                if hits.len() == 1 { "" } else { "s" },
                listed.join(", "),
                if hits.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
}

/// `text` with every character a reader would not see or would read as a line break escaped
/// as Rust writes it (`\n`, `\u{1b}`, `\u{200b}`): controls, the line and paragraph
/// separators, and what [`hidden_characters`] reports (in the same context, so an emoji's
/// joiner or a flag's tags stay). For names printed to a model or a terminal.
pub(super) fn escape_unreadable(text: &str) -> String {
    let characters: Vec<char> = text.chars().collect();
    let hidden = hidden_positions(&characters, true);
    let mut escaped = String::with_capacity(text.len());
    for (at, &character) in characters.iter().enumerate() {
        if !breaks_lines(character) && hidden.binary_search(&at).is_err() {
            escaped.push(character);
        } else if character.is_ascii() {
            escaped.extend(character.escape_debug());
        } else {
            escaped.push_str(&format!("\\u{{{:x}}}", u32::from(character)));
        }
    }
    escaped
}

/// The places (0-based, ascending) of the hidden characters in `characters`, one line of text
/// (the first of its text when `first_line`, where a leading byte-order mark is ordinary): what
/// AR002 reports, judged with their neighbours so that emoji joiners, script joiners, variation
/// selectors and the tags of a subdivision flag are kept.
fn hidden_positions(characters: &[char], first_line: bool) -> Vec<usize> {
    let mut found = Vec::new();
    let mut in_flag_tags = false;
    for (at, &character) in characters.iter().enumerate() {
        let previous = at
            .checked_sub(1)
            .and_then(|before| characters.get(before))
            .copied();
        let next = characters.get(at + 1).copied();
        let code = u32::from(character);
        if (0xE0020..=0xE007F).contains(&code) {
            in_flag_tags = in_flag_tags || previous == Some('\u{1F3F4}');
            if !in_flag_tags {
                found.push(at);
            }
            if code == 0xE007F {
                in_flag_tags = false;
            }
            continue;
        }
        in_flag_tags = false;
        if is_hidden(character, previous, next, first_line && at == 0) {
            found.push(at);
        }
    }
    found
}

/// Whether `character` ends a line for some reader: a control character (newline, NUL,
/// escape, NEL) or the Unicode line and paragraph separators, which many renderers and
/// tokenizers take as line breaks.
pub(super) fn breaks_lines(character: char) -> bool {
    character.is_control() || matches!(character, '\u{2028}' | '\u{2029}')
}

fn is_hidden(
    character: char,
    previous: Option<char>,
    next: Option<char>,
    at_text_start: bool,
) -> bool {
    let code = u32::from(character);
    match code {
        // A carriage return ending a CRLF line is ordinary; one inside a line overwrites text.
        0x0D => next.is_some(),
        0xFEFF => !at_text_start,
        0x200D => !(joins_emoji(previous, next) || joins_script(previous, next)),
        0x200C => !joins_script(previous, next),
        0xFE00..=0xFE0F => match previous {
            None => true,
            Some(before) => {
                before.is_ascii_alphabetic()
                    || before.is_whitespace()
                    || is_variation_selector(before)
            }
        },
        0xE0100..=0xE01EF => !previous.is_some_and(is_cjk),
        // C0 controls other than tab (NUL, escape sequences, backspaces) and DEL can hide or
        // overwrite text in a terminal.
        0x00..=0x08
        | 0x0A..=0x0C
        | 0x0E..=0x1F
        | 0x7F
        | 0x115F
        | 0x1160
        | 0x3164
        | 0xFFA0
        | 0x034F
        | 0x2800
        | 0x00AD => true,
        // Prepended concatenation marks are visible signs in Arabic, Syriac and Kaithi text.
        // A tab is ordinary whitespace.
        0x09 | 0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890 | 0x0891 | 0x08E2 | 0x110BD | 0x110CD => {
            false
        }
        _ => get_general_category(character) == GeneralCategory::Format,
    }
}

fn is_variation_selector(character: char) -> bool {
    matches!(u32::from(character), 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

fn is_cjk(character: char) -> bool {
    matches!(
        u32::from(character),
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF
    )
}

fn is_emoji_like(character: char) -> bool {
    matches!(
        u32::from(character),
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2300..=0x23FF | 0x2B00..=0x2BFF | 0x2190..=0x21FF
            | 0xFE0F | 0x20E3 | 0x00A9 | 0x00AE | 0x203C | 0x2049 | 0x2122
    )
}

fn joins_emoji(previous: Option<char>, next: Option<char>) -> bool {
    previous.is_some_and(is_emoji_like) && next.is_some_and(is_emoji_like)
}

/// Joiners between letters of scripts that need them (Arabic, Persian, Indic, ...).
fn joins_script(previous: Option<char>, next: Option<char>) -> bool {
    let letter = |character: char| {
        !character.is_ascii()
            && !character.is_whitespace()
            && !is_emoji_like(character)
            && get_general_category(character) != GeneralCategory::Format
    };
    previous.is_some_and(letter) && next.is_some_and(letter)
}

/// A control byte other than tab and carriage return (a line feed never reaches a line).
fn is_control_byte(byte: u8) -> bool {
    (byte < 0x20 && byte != b'\t' && byte != b'\r') || byte == 0x7F
}

fn char_name(character: char) -> &'static str {
    match u32::from(character) {
        0x00 => "NUL",
        0x08 => "BACKSPACE",
        0x0D => "CARRIAGE RETURN",
        0x1B => "ESCAPE",
        0x01..=0x1F | 0x7F => "CONTROL CHARACTER",
        0x00AD => "SOFT HYPHEN",
        0x034F => "COMBINING GRAPHEME JOINER",
        0x061C => "ARABIC LETTER MARK",
        0x115F | 0x1160 | 0x3164 | 0xFFA0 => "HANGUL FILLER",
        0x180E => "MONGOLIAN VOWEL SEPARATOR",
        0x200B => "ZERO WIDTH SPACE",
        0x200C => "ZERO WIDTH NON-JOINER",
        0x200D => "ZERO WIDTH JOINER",
        0x200E => "LEFT-TO-RIGHT MARK",
        0x200F => "RIGHT-TO-LEFT MARK",
        0x202A..=0x202E => "BIDI EMBEDDING/OVERRIDE",
        0x2060 => "WORD JOINER",
        0x2061..=0x2064 => "INVISIBLE OPERATOR",
        0x2066..=0x2069 => "BIDI ISOLATE",
        0x2800 => "BRAILLE PATTERN BLANK",
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => "VARIATION SELECTOR",
        0xFEFF => "ZERO WIDTH NO-BREAK SPACE (BOM)",
        0xE0000..=0xE007F => "TAG CHARACTER",
        _ => "FORMAT CHARACTER",
    }
}
