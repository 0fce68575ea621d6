//! Splits a Markdown file into YAML frontmatter and body, and parses the frontmatter. This is the
//! only module that knows the YAML crate (serde-saphyr), so swapping it touches one file.
//!
//! Strict about structure, lenient about real-world spellings:
//! - accepted: UTF-8 BOM, CRLF line ends, empty frontmatter, frontmatter holding only comments, a
//!   body containing `---` lines (only the first fence pair counts), a file that is only
//!   frontmatter without a final newline, and Cursor's unquoted `globs: *.tsx` (which strict YAML
//!   reads as an alias);
//! - refused with file and line: invalid UTF-8, invalid YAML, duplicate keys, a frontmatter that is
//!   not a mapping, and an opening fence that is never closed.

use indexmap::IndexMap;
use serde_json::Value;

use crate::error::{Error, InvalidKind, Result};

/// Keys whose values are glob lists and may be written unquoted in Cursor's style.
const GLOB_KEYS: [&str; 4] = ["globs", "paths", "fileMatchPattern", "applyTo"];

/// A Markdown file split into its frontmatter and body. Line ends are normalised to LF and a BOM
/// is removed, so the body is exactly what outputs carry.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Parsed frontmatter keys in file order; empty when the file has none.
    pub values: IndexMap<String, Value>,
    /// The YAML text between the fences (LF line ends, ends with `\n` unless empty); `None` when
    /// the file has no frontmatter.
    pub yaml: Option<String>,
    /// Everything after the closing fence (LF line ends).
    pub body: String,
    /// 1-based line number of the first body line in the original file.
    pub body_line: usize,
}

/// Splits and parses `bytes`, the content of the file at `path` (used in error messages).
///
/// Errors: [`Error::Invalid`] naming `path` and the line, of kind [`InvalidKind::NotUtf8`],
/// [`InvalidKind::UnclosedFrontmatter`], [`InvalidKind::Yaml`], [`InvalidKind::DuplicateKey`] or
/// [`InvalidKind::FrontmatterNotMapping`].
pub fn parse(path: &str, bytes: &[u8]) -> Result<Document> {
    let text = decode_utf8(path, bytes)?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let text = text.replace("\r\n", "\n");
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| (text == "---").then_some(""))
    else {
        return Ok(Document {
            values: IndexMap::new(),
            yaml: None,
            body: text,
            body_line: 1,
        });
    };
    let Some((yaml, body, yaml_lines)) = split_at_closing_fence(after_open) else {
        return Err(Error::invalid_as(
            InvalidKind::UnclosedFrontmatter,
            path,
            Some(1),
            "frontmatter opened with `---` on line 1 is never closed; add a line holding only `---` after the last key",
        ));
    };
    let values = parse_yaml(path, &yaml)?;
    Ok(Document {
        values,
        yaml: Some(yaml),
        body: body.to_owned(),
        body_line: yaml_lines + 3,
    })
}

/// Decodes `bytes`, the content of the file at `path`, as UTF-8. Shared by every reader of
/// project text so that all of them report bad bytes the same way.
///
/// Errors: [`Error::Invalid`] of kind [`InvalidKind::NotUtf8`] naming `path`, the 1-based line
/// and column of the first invalid byte, and the byte itself.
pub(crate) fn decode_utf8<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|error| {
        let valid = &bytes[..error.valid_up_to()];
        let line = valid.split(|&byte| byte == b'\n').count();
        let column = valid.len()
            - valid
                .iter()
                .rposition(|&byte| byte == b'\n')
                .map_or(0, |index| index + 1)
            + 1;
        let byte = bytes.get(error.valid_up_to()).copied().unwrap_or_default();
        Error::invalid_as(
            InvalidKind::NotUtf8,
            path,
            Some(line),
            format!(
                "not valid UTF-8 (byte 0x{byte:02X} at column {column}); save the file as UTF-8"
            ),
        )
    })
}

/// Returns (yaml text, body, number of yaml lines) when a closing fence exists.
fn split_at_closing_fence(after_open: &str) -> Option<(String, &str, usize)> {
    let mut offset = 0;
    for (lines, line) in after_open.split_inclusive('\n').enumerate() {
        let content = line.strip_suffix('\n').unwrap_or(line);
        if content.trim_end() == "---" {
            let yaml = after_open[..offset].to_owned();
            let body = &after_open[offset + line.len()..];
            return Some((yaml, body, lines));
        }
        offset += line.len();
    }
    None
}

fn parse_yaml(path: &str, yaml: &str) -> Result<IndexMap<String, Value>> {
    if yaml
        .lines()
        .all(|line| line.trim().is_empty() || line.trim_start().starts_with('#'))
    {
        return Ok(IndexMap::new());
    }
    let lenient = quote_bare_glob_values(yaml);
    let options = serde_saphyr::options! { strict_booleans: true };
    // Line 1 of the YAML text is line 2 of the file.
    let value: Value = serde_saphyr::from_str_with_options(&lenient, options)
        .map_err(|error| yaml_error(path, &lenient, &error, 1, "invalid YAML frontmatter"))?;
    match value {
        Value::Object(map) => Ok(map.into_iter().collect()),
        Value::Null => Ok(IndexMap::new()),
        _ => Err(Error::invalid_as(
            InvalidKind::FrontmatterNotMapping,
            path,
            Some(2),
            "frontmatter must be a mapping of `key: value` lines",
        )),
    }
}

/// [`InvalidKind::DuplicateKey`] when the YAML reader refused a key written twice (looking
/// through the wrappers that add a source snippet or an alias's location), else
/// [`InvalidKind::Yaml`].
fn yaml_error_kind(error: &serde_saphyr::Error) -> InvalidKind {
    let mut inner = error;
    while let serde_saphyr::Error::WithSnippet { error, .. }
    | serde_saphyr::Error::AliasError { error, .. } = inner
    {
        inner = error;
    }
    if matches!(inner, serde_saphyr::Error::DuplicateMappingKey { .. }) {
        InvalidKind::DuplicateKey
    } else {
        InvalidKind::Yaml
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

/// Whether `yaml` (frontmatter text) parses as strict YAML as written, that is without the
/// lenient quoting of bare glob values that [`parse`] applies. Outputs keep a user's frontmatter
/// text only when this holds, since assistants read it with strict parsers.
#[must_use]
pub fn is_strict_yaml(yaml: &str) -> bool {
    quote_bare_glob_values(yaml) == yaml
}

/// Cursor documents `globs: *.tsx` unquoted; in YAML a leading `*` starts an alias, `!` a tag,
/// `{` a flow mapping (`{src,lib}/**`), and `@` or a backtick are reserved, so such values are
/// single-quoted before parsing. None of these can start a valid glob list, so quoting them
/// loses nothing; a leading `[` (a flow list) or `|`/`>` (block text) is left to YAML.
fn quote_bare_glob_values(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len() + 8);
    for line in yaml.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        let rewritten = GLOB_KEYS.iter().find_map(|key| {
            let value = content.strip_prefix(key)?.strip_prefix(':')?;
            let trimmed = value.trim();
            (value.starts_with([' ', '\t']) && trimmed.starts_with(['*', '!', '{', '@', '`']))
                .then(|| format!("{key}: '{}'", trimmed.replace('\'', "''")))
        });
        match rewritten {
            Some(text) => {
                out.push_str(&text);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Rewrites frontmatter YAML text for an output: removes the top-level `drop` keys (with their
/// nested lines and comments directly above them stay), keeps every other line byte for byte,
/// and puts `prepend` lines first (already rendered `key: value` lines). Keeping the user's text
/// keeps their comments, quoting and key order in the outputs.
#[must_use]
pub fn rewrite_top_level(yaml: &str, drop: &[&str], prepend: &[String]) -> String {
    let mut out = String::with_capacity(yaml.len());
    for line in prepend {
        out.push_str(line);
        out.push('\n');
    }
    let mut dropping = false;
    for line in yaml.split_inclusive('\n') {
        let starts_key =
            line.starts_with(|character: char| !character.is_whitespace() && character != '#');
        if starts_key {
            dropping = drop.iter().any(|key| top_level_key(line) == Some(key));
        } else if line.starts_with('#') {
            // A comment at column 0 belongs to what follows it, not to a dropped key above.
            dropping = false;
        }
        if !dropping {
            out.push_str(line);
            if !line.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out
}

/// Frontmatter YAML text `base` with the top-level entries of `overlay` whose key `take`
/// accepts merged in. Each taken entry stands where `base` had an entry of the same slot
/// (`slot` maps a key to its slot, so that `scope` takes the place of `globs`); `base`'s other
/// entries of that slot go, and a taken entry whose slot `base` lacks is added at the end, in
/// `overlay`'s order. Every other line of `base` (entries, comments, unknown keys) is kept byte
/// for byte, so a merge shows in `git diff` as exactly the lines that changed.
#[must_use]
pub(crate) fn merge_top_level(
    base: &str,
    overlay: &str,
    take: impl Fn(&str) -> bool,
    slot: impl Fn(&str) -> &str,
) -> String {
    let taken: Vec<(&str, String)> = top_level_entries(overlay)
        .into_iter()
        .filter_map(|(key, text)| key.filter(|key| take(key)).map(|key| (key, text)))
        .collect();
    let mut placed = vec![false; taken.len()];
    let mut out = String::with_capacity(base.len() + overlay.len());
    for (key, text) in top_level_entries(base) {
        let Some(key) = key else {
            out.push_str(&text);
            continue;
        };
        let key_slot = slot(key);
        if !taken
            .iter()
            .any(|(taken_key, _)| slot(taken_key) == key_slot)
        {
            out.push_str(&text);
            continue;
        }
        for ((taken_key, taken_text), done) in taken.iter().zip(placed.iter_mut()) {
            if !*done && slot(taken_key) == key_slot {
                out.push_str(taken_text);
                *done = true;
            }
        }
    }
    for ((_, taken_text), done) in taken.iter().zip(&placed) {
        if !done {
            out.push_str(taken_text);
        }
    }
    out
}

/// The top-level entries of YAML text, in order: each with its key (`None` for a comment or
/// blank line at column 0 before any entry, or a comment at column 0 between entries) and its
/// text with nested lines, every line ending in a new line.
fn top_level_entries(yaml: &str) -> Vec<(Option<&str>, String)> {
    let mut entries: Vec<(Option<&str>, String)> = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let starts_key =
            line.starts_with(|character: char| !character.is_whitespace() && character != '#');
        if starts_key {
            entries.push((top_level_key(line), String::new()));
        } else if line.starts_with('#') || entries.is_empty() {
            entries.push((None, String::new()));
        }
        if let Some((_, text)) = entries.last_mut() {
            text.push_str(line);
            if !line.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    entries
}

fn top_level_key(line: &str) -> Option<&str> {
    let key = line.split(':').next()?;
    let key = key.trim();
    let key = key.trim_matches(|character| character == '"' || character == '\'');
    Some(key)
}

/// Renders a string as a YAML scalar: plain when that reads back as the same string, otherwise
/// double-quoted with JSON escapes (JSON strings are valid YAML double-quoted scalars).
#[must_use]
pub(crate) fn yaml_string(value: &str) -> String {
    if is_plain_safe(value) {
        value.to_owned()
    } else {
        serde_json::to_string(value).unwrap_or_default()
    }
}

/// Renders a JSON value as a one-line YAML value (flow style for lists and maps).
#[must_use]
pub(crate) fn yaml_value(value: &Value) -> String {
    match value {
        Value::String(text) => yaml_string(text),
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(yaml_value).collect();
            format!("[{}]", parts.join(", "))
        }
        Value::Object(map) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(key, value)| format!("{}: {}", yaml_string(key), yaml_value(value)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        other => other.to_string(),
    }
}

fn is_plain_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let reserved_start = "-?:,[]{}#&*!|>'\"%@`".contains(first) || first.is_whitespace();
    let special_word = matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off" | "y" | "n"
    );
    let number_like = value.parse::<f64>().is_ok();
    !reserved_start
        && !special_word
        && !number_like
        && !value.ends_with(char::is_whitespace)
        && !value.contains(": ")
        && !value.contains(" #")
        && !value.contains('\n')
        && !value.ends_with(':')
        && value.chars().all(|character| !character.is_control())
}

/// Parses a whole YAML document (the v3 `config.yaml`) into a JSON value.
///
/// Errors: [`Error::Invalid`] of kind [`InvalidKind::Yaml`] (or [`InvalidKind::DuplicateKey`])
/// naming `path` and the line of the YAML error.
pub(crate) fn parse_yaml_document(path: &str, text: &str) -> Result<Value> {
    let options = serde_saphyr::options! { strict_booleans: true };
    serde_saphyr::from_str_with_options(text, options)
        .map_err(|error| yaml_error(path, text, &error, 0, "invalid YAML"))
}

/// One message shape for every YAML error (frontmatter and `config.yaml`): the error names the
/// file and its 1-based line in that file (the YAML reader's line plus `lines_before`, the file
/// lines above the YAML text), and the message says `what` and the problem at a column, with
/// no second, differently counted line number and none of the reader's advice to its callers.
fn yaml_error(
    path: &str,
    yaml: &str,
    error: &serde_saphyr::Error,
    lines_before: usize,
    what: &str,
) -> Error {
    let location = error.location();
    let line =
        location.map(|location| usize::try_from(location.line()).unwrap_or(0) + lines_before);
    let mut problem = first_line(&error.to_string());
    if let Some(rest) = problem.strip_prefix("error: ") {
        problem = rest.to_owned();
    }
    // The reader prefixes its own `line L column C: `; the line is already in the error.
    if problem.starts_with("line ")
        && let Some((_, rest)) = problem.split_once(": ")
    {
        problem = rest.to_owned();
    }
    // The reader's alias budget (a "billion laughs" document) prints its internal counter.
    if problem.starts_with("budget breached") {
        "it expands to too many values (aliases of aliases); write the values out instead of repeating anchors".clone_into(&mut problem);
    }
    if let Some(key) = problem.strip_prefix("duplicate mapping key: ") {
        let key = key
            .split_once(", set DuplicateKeyPolicy")
            .map_or(key, |(key, _)| key);
        problem = format!("duplicate key `{key}`; each key may appear once");
    }
    // The usual cause is a plain value holding `: ` (`description: Use this: always`), which
    // YAML reads as a second key on the line: the hint shows that line with its value quoted.
    if problem.starts_with("mapping values are not allowed") {
        let quoted = location
            .and_then(|location| usize::try_from(location.line()).ok())
            .and_then(|line| yaml.lines().nth(line.checked_sub(1)?))
            .and_then(|line| {
                let (key, value) = line.split_once(": ")?;
                let value = value.trim();
                (!value.starts_with(['"', '\''])).then(|| {
                    format!(
                        "`{key}: \"{}\"`",
                        value.replace('\\', "\\\\").replace('"', "\\\"")
                    )
                })
            });
        match quoted {
            Some(quoted) => {
                problem.push_str(&format!("; a value holding `: ` must be quoted: {quoted}"));
            }
            None => problem.push_str("; a value holding `: ` must be quoted"),
        }
    }
    // A tab that indents a line is the usual cause of errors YAML reports elsewhere (often on
    // the next line), since YAML indents with spaces only.
    let error_line = location.and_then(|location| usize::try_from(location.line()).ok());
    if !problem.contains("tab")
        && let Some(index) = yaml
            .lines()
            .take(error_line.unwrap_or(usize::MAX))
            .position(|text| text.starts_with('\t'))
    {
        problem.push_str(&format!(
            " (line {} starts with a tab; YAML indents with spaces only)",
            index + 1 + lines_before
        ));
    }
    let message = match location {
        Some(location) => format!("{what} at column {}: {problem}", location.column()),
        None => format!("{what}: {problem}"),
    };
    Error::invalid_as(yaml_error_kind(error), path, line, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parsed(text: &str) -> Document {
        parse("rules/x.md", text.as_bytes()).expect("parses")
    }

    #[test]
    fn a_colon_in_a_plain_value_says_to_quote_it() {
        let error = parse("r.md", b"---\ndescription: Use this: always\n---\nBody.\n")
            .expect_err("a second `: ` on the line is not YAML");
        assert_eq!(
            error.to_string(),
            "r.md:2: invalid YAML frontmatter at column 22: mapping values are not allowed in this context; a value holding `: ` must be quoted: `description: \"Use this: always\"`"
        );
    }

    #[test]
    fn horizontal_rules_and_dashes_in_values_are_body_text() {
        let document = parsed(
            "---\ndescription: Uses a rule---like dash\npriority: high\n---\nFirst part.\n\n---\n\nSecond part.\n",
        );
        assert_eq!(
            document.values["description"],
            json!("Uses a rule---like dash")
        );
        assert_eq!(document.values["priority"], json!("high"));
        assert_eq!(document.body, "First part.\n\n---\n\nSecond part.\n");
        let no_frontmatter = parsed("# Heading\n\n---\n\nkey: value looking text\n");
        assert!(no_frontmatter.yaml.is_none());
        assert_eq!(
            no_frontmatter.body,
            "# Heading\n\n---\n\nkey: value looking text\n"
        );
    }

    #[test]
    fn crlf_bom_empty_and_only_frontmatter() {
        let crlf = parse("r.md", b"\xef\xbb\xbf---\r\npriority: high\r\ndescription: CRLF rule\r\n---\r\n\r\nBody line.\r\n").expect("parses");
        assert_eq!(crlf.values["priority"], json!("high"));
        assert_eq!(crlf.body, "\nBody line.\n");
        assert!(parsed("---\n---\n\nJust a body.\n").values.is_empty());
        assert!(
            parsed("---\n# only a comment\n---\nComment-only metadata.\n")
                .values
                .is_empty()
        );
        let only = parsed("---\npriority: low\n---");
        assert_eq!(only.values["priority"], json!("low"));
        assert_eq!(only.body, "");
    }

    #[test]
    fn cursor_unquoted_globs_are_accepted() {
        let document = parsed(
            "---\ndescription: React conventions\nglobs: *.tsx\nalwaysApply: false\n---\nUse function components.\n",
        );
        assert_eq!(document.values["globs"], json!("*.tsx"));
        assert_eq!(document.values["alwaysApply"], json!(false));
        for glob in ["{src,lib}/**/*.ts", "@app/**", "**/*.ts, *.tsx"] {
            let document = parsed(&format!("---\nglobs: {glob}\n---\nx\n"));
            assert_eq!(document.values["globs"], json!(glob));
        }
        let list = parsed("---\nglobs: [\"a/**\", b]\n---\nx\n");
        assert_eq!(list.values["globs"], json!(["a/**", "b"]));
    }

    #[test]
    fn an_alias_bomb_is_named_in_words_not_by_the_readers_counter() {
        let mut yaml = String::from("---\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        let mut previous = 'a';
        for name in 'b'..='i' {
            let refs = vec![format!("*{previous}"); 9].join(", ");
            yaml.push_str(&format!("{name}: &{name} [{refs}]\n"));
            previous = name;
        }
        yaml.push_str("---\nbody\n");
        let error = parse("r.md", yaml.as_bytes()).unwrap_err().to_string();
        assert!(
            error.ends_with(": it expands to too many values (aliases of aliases); write the values out instead of repeating anchors"),
            "{error}"
        );
    }

    #[test]
    fn a_tab_that_indents_a_line_is_named_with_its_line() {
        let error = parse(
            "r.md",
            b"---\ntitle: x\n\tpriority: high\nmore: [\n---\nx\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("tab") && error.starts_with("r.md:"),
            "{error}"
        );
        let error = crate::frontmatter::parse_yaml_document("c.yaml", "\tname: x\npresets: [a]\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.ends_with(" (line 1 starts with a tab; YAML indents with spaces only)"),
            "{error}"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let duplicate = parse("r.md", b"---\npriority: low\npriority: high\n---\nx\n").unwrap_err();
        assert!(
            duplicate
                .to_string()
                .starts_with("r.md:3: invalid YAML frontmatter"),
            "{duplicate}"
        );
        let latin1 = parse("latin1.md", b"---\npriority: low\n---\nCaf\xe9 rules\n").unwrap_err();
        assert_eq!(
            latin1.to_string(),
            "latin1.md:4: not valid UTF-8 (byte 0xE9 at column 4); save the file as UTF-8"
        );
        let unclosed = parse("u.md", b"---\npriority: [unclosed\n---\nBroken.\n").unwrap_err();
        assert!(
            unclosed
                .to_string()
                .starts_with("u.md:2: invalid YAML frontmatter"),
            "{unclosed}"
        );
    }

    #[test]
    fn errors_carry_their_kind() {
        let kind_of = |text: &[u8]| match parse("r.md", text) {
            Err(Error::Invalid { kind, .. }) => Some(kind),
            _ => None,
        };
        assert_eq!(
            kind_of(b"---\npriority: low\npriority: high\n---\nx\n"),
            Some(InvalidKind::DuplicateKey)
        );
        assert_eq!(
            kind_of(b"---\npriority: [unclosed\n---\nx\n"),
            Some(InvalidKind::Yaml)
        );
        assert_eq!(kind_of(b"Caf\xe9\n"), Some(InvalidKind::NotUtf8));
        assert_eq!(
            kind_of(b"---\npriority: low\n"),
            Some(InvalidKind::UnclosedFrontmatter)
        );
        assert_eq!(
            kind_of(b"---\n- a\n- b\n---\nx\n"),
            Some(InvalidKind::FrontmatterNotMapping)
        );
        assert!(matches!(
            parse_yaml_document("c.yaml", "name: a\nname: b\n"),
            Err(Error::Invalid {
                kind: InvalidKind::DuplicateKey,
                line: Some(2),
                ..
            })
        ));
    }

    #[test]
    fn rewrite_keeps_user_text() {
        let yaml = "description: >-\n  folded\n  text\npriority: high\n# note\nlicense: MIT\n";
        assert_eq!(
            rewrite_top_level(yaml, &["priority"], &["name: x".to_owned()]),
            "name: x\ndescription: >-\n  folded\n  text\n# note\nlicense: MIT\n"
        );
    }

    #[test]
    fn yaml_strings_round_trip() {
        for text in ["plain", "a: b", "*.tsx", "true", "12", "", "x #y", "- item"] {
            let yaml = format!("k: {}\n", yaml_string(text));
            let document = parsed(&format!("---\n{yaml}---\n"));
            assert_eq!(document.values["k"], json!(text), "{yaml}");
        }
    }
}
