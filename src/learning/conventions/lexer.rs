//! A small lexer per language, so that convention counts see only code: words inside comments
//! and quotes inside string literals never count. It is deliberately not a parser (see the
//! module documentation of [`super`] for why and for its limits).

use super::language::Language;

/// What a token is; the text is kept as a byte range of the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TokenKind {
    /// An identifier or keyword (ASCII letters, digits, `_`, `$`, and any non-ASCII character).
    Word,
    /// A number literal.
    Number,
    /// A string literal.
    Text(Quote),
    /// One punctuation character.
    Punct(u8),
}

/// How a string literal is delimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Quote {
    /// `'…'` (a JavaScript, TypeScript or Python string; never a Rust or Go character).
    Single,
    /// `"…"`.
    Double,
    /// Anything else: triple quotes, template literals, raw strings, characters and runes.
    Other,
}

/// One token: its kind, its byte range in the source, its 0-based line, and whether the string
/// literal holds the other quote character (such a literal picks its quotes to avoid escapes,
/// so it says nothing about the preferred quote).
#[derive(Debug, Clone, Copy)]
pub(super) struct Token {
    /// What it is.
    pub(super) kind: TokenKind,
    /// Start byte in the source.
    pub(super) start: usize,
    /// End byte (exclusive) in the source.
    pub(super) end: usize,
    /// 0-based line of its first byte.
    pub(super) line: usize,
    /// For a single- or double-quoted string: whether it contains the other quote character.
    pub(super) holds_other_quote: bool,
}

/// Splits `source` into tokens, skipping whitespace and comments, in source order.
///
/// Unterminated strings and comments end at the end of the file; the lexer never fails.
pub(super) fn tokenize(language: Language, source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::with_capacity(bytes.len() / 4);
    let mut position = 0;
    let mut line = 0;
    while position < bytes.len() {
        let byte = bytes[position];
        let start = position;
        let start_line = line;
        match byte {
            b'\n' => {
                line += 1;
                position += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                position += 1;
                continue;
            }
            b'#' if language == Language::Python => {
                position = line_end(bytes, position);
                continue;
            }
            b'/' if language != Language::Python && bytes.get(position + 1) == Some(&b'/') => {
                position = line_end(bytes, position);
                continue;
            }
            b'/' if language != Language::Python && bytes.get(position + 1) == Some(&b'*') => {
                position = block_comment_end(bytes, position, language == Language::Rust);
                line += count_lines(&bytes[start..position]);
                continue;
            }
            _ => {}
        }
        let (kind, end, holds_other_quote) = if is_word_start(byte) {
            word_or_prefixed_string(language, bytes, position)
        } else if byte.is_ascii_digit() {
            (TokenKind::Number, number_end(bytes, position), false)
        } else if let Some((quote, end, holds)) = string_at(language, bytes, position) {
            (TokenKind::Text(quote), end, holds)
        } else {
            (TokenKind::Punct(byte), position + 1, false)
        };
        line += count_lines(&bytes[start..end]);
        tokens.push(Token {
            kind,
            start,
            end,
            line: start_line,
            holds_other_quote,
        });
        position = end;
    }
    tokens
}

// The spans counted are single tokens or comments, too short for a vectorised count to pay.
#[allow(clippy::naive_bytecount)]
fn count_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&byte| byte == b'\n').count()
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(bytes.len(), |offset| from + offset)
}

/// The end of the block comment starting at `from` (`/*`); Rust block comments nest.
fn block_comment_end(bytes: &[u8], from: usize, nests: bool) -> usize {
    let mut depth = 0usize;
    let mut position = from;
    while position + 1 < bytes.len() {
        match (bytes[position], bytes[position + 1]) {
            (b'/', b'*') if nests || depth == 0 => {
                depth += 1;
                position += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                position += 2;
                if depth == 0 {
                    return position;
                }
            }
            _ => position += 1,
        }
    }
    bytes.len()
}

fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_' || byte == b'$' || byte >= 0x80
}

fn is_word_byte(byte: u8) -> bool {
    is_word_start(byte) || byte.is_ascii_digit()
}

fn number_end(bytes: &[u8], from: usize) -> usize {
    let mut position = from;
    while position < bytes.len()
        && (bytes[position].is_ascii_alphanumeric()
            || bytes[position] == b'_'
            || bytes[position] == b'.')
    {
        // A method call on a number (`1.max(2)`) or a range (`0..n`) ends the number.
        if bytes[position] == b'.' && !bytes.get(position + 1).is_some_and(u8::is_ascii_digit) {
            break;
        }
        position += 1;
    }
    position
}

/// A word, or a string literal with a letter prefix (`r"…"`, `b'…'`, `f"…"`, `r#"…"#`).
fn word_or_prefixed_string(
    language: Language,
    bytes: &[u8],
    from: usize,
) -> (TokenKind, usize, bool) {
    let mut end = from;
    while end < bytes.len() && is_word_byte(bytes[end]) {
        end += 1;
    }
    let prefix = &bytes[from..end];
    let next = bytes.get(end).copied();
    match language {
        Language::Python
            if prefix.len() <= 2
                && prefix.iter().all(|byte| b"rRbBuUfF".contains(byte))
                && matches!(next, Some(b'\'' | b'"')) =>
        {
            if let Some((quote, string_end, holds)) = string_at(language, bytes, end) {
                return (TokenKind::Text(quote), string_end, holds);
            }
        }
        Language::Rust
            if matches!(prefix, b"r" | b"br" | b"cr") && matches!(next, Some(b'"' | b'#')) =>
        {
            if let Some(string_end) = rust_raw_string_end(bytes, end) {
                return (TokenKind::Text(Quote::Other), string_end, false);
            }
        }
        Language::Rust if matches!(prefix, b"b" | b"c") && matches!(next, Some(b'"' | b'\'')) => {
            if let Some((_, string_end, _)) = string_at(language, bytes, end) {
                return (TokenKind::Text(Quote::Other), string_end, false);
            }
        }
        _ => {}
    }
    (TokenKind::Word, end, false)
}

/// The end of a Rust raw string whose hashes (or opening quote) start at `from`.
fn rust_raw_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let hashes = bytes[from..]
        .iter()
        .take_while(|&&byte| byte == b'#')
        .count();
    if bytes.get(from + hashes) != Some(&b'"') {
        return None;
    }
    let mut position = from + hashes + 1;
    while position < bytes.len() {
        if bytes[position] == b'"'
            && bytes[position + 1..]
                .iter()
                .take(hashes)
                .filter(|&&byte| byte == b'#')
                .count()
                == hashes
        {
            return Some(position + 1 + hashes);
        }
        position += 1;
    }
    Some(bytes.len())
}

/// A string (or character) literal starting at `from`: its quote style, end, and whether it
/// holds the other quote character; `None` when no literal starts there (a Rust lifetime).
fn string_at(language: Language, bytes: &[u8], from: usize) -> Option<(Quote, usize, bool)> {
    let quote = bytes[from];
    match (language, quote) {
        (Language::Python, b'\'' | b'"') if bytes[from..].starts_with(&[quote; 3]) => {
            Some((Quote::Other, triple_end(bytes, from, quote), false))
        }
        (Language::Rust, b'\'') => rust_char_end(bytes, from).map(|end| (Quote::Other, end, false)),
        (Language::Go, b'\'') => Some((Quote::Other, quoted_end(bytes, from, quote, false), false)),
        (Language::Go, b'`') => Some((Quote::Other, quoted_end(bytes, from, quote, true), false)),
        (Language::TypeScript | Language::JavaScript, b'`') => {
            Some((Quote::Other, quoted_end(bytes, from, quote, true), false))
        }
        (_, b'"' | b'\'') => {
            let multiline = language == Language::Rust;
            let end = quoted_end(bytes, from, quote, multiline);
            let other = if quote == b'"' { b'\'' } else { b'"' };
            let holds = bytes[from + 1..end.saturating_sub(1).max(from + 1)].contains(&other);
            let style = if quote == b'"' {
                Quote::Double
            } else {
                Quote::Single
            };
            Some((style, end, holds))
        }
        _ => None,
    }
}

/// The end of a literal quoted by `quote` with backslash escapes; single-line literals also end
/// at a line break (an unterminated literal must not swallow the file).
fn quoted_end(bytes: &[u8], from: usize, quote: u8, multiline: bool) -> usize {
    let mut position = from + 1;
    while position < bytes.len() {
        match bytes[position] {
            b'\\' => position += 2,
            b'\n' if !multiline => return position,
            byte if byte == quote => return position + 1,
            _ => position += 1,
        }
    }
    bytes.len()
}

fn triple_end(bytes: &[u8], from: usize, quote: u8) -> usize {
    let mut position = from + 3;
    while position < bytes.len() {
        if bytes[position] == b'\\' {
            position += 2;
            continue;
        }
        if bytes[position..].starts_with(&[quote; 3]) {
            return position + 3;
        }
        position += 1;
    }
    bytes.len()
}

/// A Rust character literal (`'a'`, `'\n'`, `'\u{1F600}'`, `'é'`) or `None` for a lifetime or
/// label (`'a`, `'static`).
fn rust_char_end(bytes: &[u8], from: usize) -> Option<usize> {
    let first = *bytes.get(from + 1)?;
    if first == b'\\' {
        // The escaped character itself may be a quote (`'\''`), so the search starts after it.
        let close = bytes
            .get(from + 3..)?
            .iter()
            .take(12)
            .position(|&byte| byte == b'\'')?;
        return Some(from + 3 + close + 1);
    }
    // One character of up to four UTF-8 bytes, then the closing quote.
    let width = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    (bytes.get(from + 1 + width) == Some(&b'\'')).then_some(from + 2 + width)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tokens of `source` as (kind, text) pairs.
    fn lexed(language: Language, source: &str) -> Vec<(TokenKind, &str)> {
        tokenize(language, source)
            .into_iter()
            .map(|token| (token.kind, &source[token.start..token.end]))
            .collect()
    }

    #[test]
    fn rust_comments_nest_and_lifetimes_are_not_characters() {
        let source = "/* a /* b */ c */ fn f<'a>(x: &'a str) -> char { '\\'' } // fn g";
        let words: Vec<&str> = lexed(Language::Rust, source)
            .into_iter()
            .filter(|(kind, _)| *kind == TokenKind::Word)
            .map(|(_, text)| text)
            .collect();
        assert_eq!(words, ["fn", "f", "a", "x", "a", "str", "char"]);
        assert!(lexed(Language::Rust, source).contains(&(TokenKind::Text(Quote::Other), "'\\''")));
        assert_eq!(
            lexed(Language::Rust, r##"r#"a "b" c"# b"x""##),
            [
                (TokenKind::Text(Quote::Other), r##"r#"a "b" c"#"##),
                (TokenKind::Text(Quote::Other), r#"b"x""#)
            ]
        );
    }

    #[test]
    fn python_prefixes_triple_quotes_and_hash_comments() {
        assert_eq!(
            lexed(
                Language::Python,
                "x = f'a' # 'b'\n\"\"\"it's\"\"\" \"it's\""
            ),
            [
                (TokenKind::Word, "x"),
                (TokenKind::Punct(b'='), "="),
                (TokenKind::Text(Quote::Single), "f'a'"),
                (TokenKind::Text(Quote::Other), "\"\"\"it's\"\"\""),
                (TokenKind::Text(Quote::Double), "\"it's\""),
            ]
        );
        let tokens = tokenize(Language::Python, "\"it's\"");
        assert!(tokens[0].holds_other_quote);
    }

    #[test]
    fn an_unterminated_string_stops_at_the_line_end_and_lines_are_counted() {
        let tokens = tokenize(Language::TypeScript, "a = 'open\nb = `x\ny`\nc");
        let lines: Vec<usize> = tokens.iter().map(|token| token.line).collect();
        assert_eq!(lines, [0, 0, 0, 1, 1, 1, 3]);
    }
}
