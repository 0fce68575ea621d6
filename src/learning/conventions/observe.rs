//! What one source file shows of each convention: counts of each option it uses, from its path
//! and from its tokens (never from comments or the inside of string literals).

use std::collections::BTreeMap;

use super::Aspect;
use super::language::Language;
use super::lexer::{Quote, Token, TokenKind, tokenize};
use super::naming::{file_name_style, style_of, test_layout_of};

/// One file's observations: how many times it uses each option of each aspect, and the first
/// segments of its absolute Python imports (`import os` → `os`), which count only when they
/// name a module of the scanned tree (known after the walk).
#[derive(Debug, Default)]
pub(super) struct FileObservations {
    /// (aspect, option) → number of observations in this file.
    pub(super) counts: BTreeMap<(Aspect, &'static str), u32>,
    /// First segments of absolute Python imports, in source order.
    pub(super) python_absolute_imports: Vec<String>,
}

impl FileObservations {
    fn add(&mut self, aspect: Aspect, option: &'static str) {
        *self.counts.entry((aspect, option)).or_insert(0) += 1;
    }
}

/// The option names of Rust and Go error handling, shared with the rule texts.
pub(super) const QUESTION_MARK: &str = "? operator";
/// See [`QUESTION_MARK`].
pub(super) const UNWRAP: &str = "unwrap()";
/// See [`QUESTION_MARK`].
pub(super) const EXPECT: &str = "expect(…)";
/// See [`QUESTION_MARK`].
pub(super) const ERR_NOT_NIL: &str = "if err != nil";
/// See [`QUESTION_MARK`].
pub(super) const PANIC: &str = "panic(…)";
/// The option name of inline Rust test modules.
pub(super) const INLINE_TESTS: &str = "inline #[cfg(test)] modules";

/// Observes the file at project-relative `relative` (`/`-separated) with text `source`.
#[must_use]
pub(super) fn observe_file(language: Language, relative: &str, source: &str) -> FileObservations {
    let mut observations = FileObservations::default();
    let file_name = relative.rsplit('/').next().unwrap_or(relative);
    if let Some(style) = file_name_style(file_name) {
        observations.add(Aspect::FileNaming, style);
    }
    let test_layout = test_layout_of(language, relative);
    if let Some(layout) = test_layout {
        observations.add(Aspect::TestLayout, layout);
    }
    let tokens = tokenize(language, source);
    if let Some(indentation) = indentation_of(source, &tokens) {
        observations.add(Aspect::Indentation, indentation);
    }
    let text = |token: &Token| &source[token.start..token.end];
    // JSX attributes take double quotes by custom and span lines without `;`, and the lexer
    // cannot tell them from code, so `.tsx` and `.jsx` files say nothing about either.
    let is_jsx = file_name
        .rsplit_once('.')
        .is_some_and(|(_, extension)| matches!(extension, "tsx" | "jsx"));
    let counts_quotes = language.has_quote_choice() && !is_jsx;
    let counts_semicolons = language.has_optional_semicolons() && !is_jsx;
    let is_test_code = test_layout.is_some() || relative.split('/').any(|part| part == "benches");
    let mut in_rust_test_module = false;
    let mut depth = 0i32;
    for (index, token) in tokens.iter().enumerate() {
        let next = tokens.get(index + 1);
        let word_after = |offset: usize| {
            tokens
                .get(index + offset)
                .filter(|token| token.kind == TokenKind::Word)
                .map(text)
        };
        let first_on_line = index == 0 || tokens[index - 1].line != token.line;
        match token.kind {
            TokenKind::Punct(b'(' | b'[') => depth += 1,
            TokenKind::Punct(b')' | b']') => depth -= 1,
            TokenKind::Text(quote @ (Quote::Single | Quote::Double))
                if counts_quotes && !token.holds_other_quote =>
            {
                observations.add(
                    Aspect::Quotes,
                    if quote == Quote::Single {
                        "single quotes"
                    } else {
                        "double quotes"
                    },
                );
            }
            _ => {}
        }
        if counts_semicolons
            && depth == 0
            && let Some(option) = semicolon_at(token, next, |token| text(token))
        {
            observations.add(Aspect::Semicolons, option);
        }
        if token.kind != TokenKind::Word {
            if language == Language::Rust
                && matches_sequence(
                    source,
                    &tokens[index..],
                    &["#", "[", "cfg", "(", "test", ")", "]"],
                )
            {
                if !in_rust_test_module {
                    observations.add(Aspect::TestLayout, INLINE_TESTS);
                }
                in_rust_test_module = true;
            }
            if language == Language::Rust
                && token.kind == TokenKind::Punct(b'?')
                && !is_test_code
                && !in_rust_test_module
                && word_after(1) != Some("Sized")
            {
                observations.add(Aspect::ErrorHandling, QUESTION_MARK);
            }
            continue;
        }
        let word = text(token);
        if let Some((aspect, name)) = declared_symbol(language, &tokens, index, source)
            && let Some(style) = style_of(name)
        {
            observations.add(aspect, style);
        }
        match language {
            Language::Rust if !is_test_code && !in_rust_test_module => {
                let after_dot = index > 0 && tokens[index - 1].kind == TokenKind::Punct(b'.');
                let called = next.is_some_and(|next| next.kind == TokenKind::Punct(b'('));
                if after_dot && called && word == "unwrap" {
                    observations.add(Aspect::ErrorHandling, UNWRAP);
                } else if after_dot && called && word == "expect" {
                    observations.add(Aspect::ErrorHandling, EXPECT);
                }
            }
            Language::Go if !is_test_code => {
                if word == "if"
                    && matches_sequence(source, &tokens[index + 1..], &["err", "!", "=", "nil"])
                {
                    observations.add(Aspect::ErrorHandling, ERR_NOT_NIL);
                } else if word == "panic"
                    && next.is_some_and(|next| next.kind == TokenKind::Punct(b'('))
                {
                    observations.add(Aspect::ErrorHandling, PANIC);
                }
            }
            _ => {}
        }
        if language == Language::Rust && word == "use" {
            match word_after(1) {
                Some("crate") => observations.add(Aspect::ImportStyle, "crate:: paths"),
                Some("super") => observations.add(Aspect::ImportStyle, "super:: paths"),
                _ => {}
            }
        }
        if matches!(language, Language::TypeScript | Language::JavaScript)
            && matches!(word, "from" | "import" | "require")
        {
            let specifier = tokens[index + 1..]
                .iter()
                .take(2)
                .find(|token| matches!(token.kind, TokenKind::Text(Quote::Single | Quote::Double)));
            if let Some(specifier) = specifier {
                let value = literal_inside(source, specifier);
                if value.starts_with("./")
                    || value.starts_with("../")
                    || value == "."
                    || value == ".."
                {
                    observations.add(Aspect::ImportStyle, "relative paths");
                } else if value.starts_with("@/")
                    || value.starts_with("~/")
                    || value.starts_with('#')
                {
                    observations.add(Aspect::ImportStyle, "path aliases");
                }
            }
        }
        if language == Language::Python && first_on_line && matches!(word, "from" | "import") {
            if word == "from" && next.is_some_and(|next| next.kind == TokenKind::Punct(b'.')) {
                observations.add(Aspect::ImportStyle, "relative imports");
            } else if let Some(module) = word_after(1) {
                observations.python_absolute_imports.push(module.to_owned());
            }
        }
    }
    observations
}

/// The text between a string literal's quotes (an unterminated literal has no closing quote).
fn literal_inside<'source>(source: &'source str, literal: &Token) -> &'source str {
    let text = &source[literal.start..literal.end];
    // The opening quote is one ASCII byte, so slicing after it stays on a character boundary.
    let opened = text.get(1..).unwrap_or("");
    opened.strip_suffix(&text[..1]).unwrap_or(opened)
}

/// Whether `tokens` start with the exact texts of `expected`.
fn matches_sequence(source: &str, tokens: &[Token], expected: &[&str]) -> bool {
    tokens.len() >= expected.len()
        && tokens
            .iter()
            .zip(expected)
            .all(|(token, text)| &source[token.start..token.end] == *text)
}

/// The symbol a declaration keyword at `index` declares: (function or type naming, its name).
fn declared_symbol<'source>(
    language: Language,
    tokens: &[Token],
    index: usize,
    source: &'source str,
) -> Option<(Aspect, &'source str)> {
    let text = |offset: usize| {
        tokens
            .get(index + offset)
            .map(|token| (token.kind, &source[token.start..token.end]))
    };
    let (_, keyword) = text(0)?;
    let aspect = match (language, keyword) {
        (Language::Rust, "fn")
        | (Language::Python, "def")
        | (Language::TypeScript | Language::JavaScript, "function")
        | (Language::Go, "func") => Aspect::FunctionNaming,
        (Language::Rust, "struct" | "enum" | "trait")
        | (Language::Python | Language::JavaScript, "class")
        | (Language::TypeScript, "class" | "interface" | "enum")
        | (Language::Go, "type") => Aspect::TypeNaming,
        (Language::TypeScript, "type")
            if matches!(text(2), Some((TokenKind::Punct(b'=' | b'<'), _))) =>
        {
            Aspect::TypeNaming
        }
        _ => return None,
    };
    let mut offset = 1;
    // A Go method's receiver comes before its name: `func (s *Server) Start()`.
    if language == Language::Go && matches!(text(1), Some((TokenKind::Punct(b'('), _))) {
        let close = tokens[index + 1..]
            .iter()
            .position(|token| token.kind == TokenKind::Punct(b')'))?;
        offset = close + 2;
    }
    match text(offset)? {
        (TokenKind::Word, name) => Some((aspect, name)),
        _ => None,
    }
}

/// Whether the token ends a JavaScript or TypeScript statement with or without `;`: a `;` at the
/// end of a line, or a value (word, number, string, `)` or `]`) at the end of a line whose next
/// line starts a new statement (a word or `}`), which is where `;` would go.
fn semicolon_at<'text>(
    token: &Token,
    next: Option<&Token>,
    text: impl Fn(&Token) -> &'text str,
) -> Option<&'static str> {
    let last_on_line = next.is_none_or(|next| next.line != token.line);
    if !last_on_line {
        return None;
    }
    if token.kind == TokenKind::Punct(b';') {
        return Some("semicolons");
    }
    let ends_value = matches!(
        token.kind,
        TokenKind::Word | TokenKind::Number | TokenKind::Text(_) | TokenKind::Punct(b')' | b']')
    );
    let next_starts_statement = next.is_none_or(|next| {
        next.kind == TokenKind::Punct(b'}')
            || (next.kind == TokenKind::Word
                && !matches!(
                    text(next),
                    "as" | "in" | "of" | "instanceof" | "extends" | "implements"
                ))
    });
    let open_word = token.kind == TokenKind::Word
        && matches!(
            text(token),
            "else" | "return" | "try" | "do" | "export" | "default" | "async" | "await"
        );
    (ends_value && next_starts_statement && !open_word).then_some("no semicolons")
}

/// The file's indentation from the leading whitespace of lines where code starts (lines inside
/// comments and multi-line strings have none): `tabs` when most indented lines start with a tab,
/// else `N spaces` where N is the most common step between consecutive indentation levels.
fn indentation_of(source: &str, tokens: &[Token]) -> Option<&'static str> {
    const WIDTHS: [&str; 8] = [
        "1 space", "2 spaces", "3 spaces", "4 spaces", "5 spaces", "6 spaces", "7 spaces",
        "8 spaces",
    ];
    let bytes = source.as_bytes();
    let mut tab_lines = 0u32;
    let mut space_lines = 0u32;
    let mut steps = [0u32; 8];
    let mut previous_width = 0usize;
    let mut previous_line = usize::MAX;
    for token in tokens {
        if token.line == previous_line {
            continue;
        }
        previous_line = token.line;
        let line_start = bytes[..token.start]
            .iter()
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |position| position + 1);
        let leading = &bytes[line_start..token.start];
        if leading.iter().any(|&byte| byte != b' ' && byte != b'\t') {
            continue;
        }
        if leading.first() == Some(&b'\t') {
            tab_lines += 1;
            continue;
        }
        let width = leading.len();
        if width > 0 {
            space_lines += 1;
        }
        if width > previous_width && width - previous_width <= steps.len() {
            steps[width - previous_width - 1] += 1;
        }
        previous_width = width;
    }
    if tab_lines == 0 && space_lines == 0 {
        return None;
    }
    if tab_lines > space_lines {
        return Some("tabs");
    }
    let (step, count) = steps
        .iter()
        .enumerate()
        .max_by_key(|&(step, count)| (*count, std::cmp::Reverse(step)))?;
    (*count > 0).then_some(WIDTHS[step])
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Any text, including broken literals and multi-byte characters, is observed without a
        /// panic in every language (tokens always end on character boundaries).
        #[test]
        fn any_text_is_observed_without_panicking(source in "(['\"`#/*\\\\ \t\nrbf{}()\\[\\];.?aé€_-]|import|from|fn|def){0,80}") {
            for language in [Language::Rust, Language::TypeScript, Language::JavaScript, Language::Python, Language::Go] {
                let _ = observe_file(language, "src/some_file.x", &source);
            }
        }
    }
}
