//! Which files an item applies to: glob lists as users write them (YAML lists or comma strings),
//! brace expansion for presets whose glob strings are comma-separated, and matching a path.
//! This is the one selector used by generation, and later by `explain` and MCP `get_rules`.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;

use crate::limits;

/// Splits a `paths`/`globs` value into patterns: a YAML list, or one string with commas between
/// patterns. Commas inside `{}` or `[]` do not split, `\,` stays a literal comma, patterns are
/// trimmed, and empty or repeated patterns are dropped (first occurrence kept).
///
/// Returns `None` when the value is neither a string nor a list of strings.
#[must_use]
pub fn split_globs(value: &Value) -> Option<Vec<String>> {
    let mut patterns: Vec<String> = Vec::new();
    let mut push = |pattern: &str| {
        let pattern = pattern.trim();
        if !pattern.is_empty() && !patterns.iter().any(|known| known == pattern) {
            patterns.push(pattern.to_owned());
        }
    };
    match value {
        Value::Null => {}
        Value::String(text) => {
            for pattern in split_comma_string(text) {
                push(&pattern);
            }
        }
        Value::Array(items) => {
            for item in items {
                let Value::String(text) = item else {
                    return None;
                };
                for pattern in split_comma_string(text) {
                    push(&pattern);
                }
            }
        }
        _ => return None,
    }
    Some(patterns)
}

fn split_comma_string(text: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut depth = 0_usize;
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '\\' if characters.peek() == Some(&',') => {
                current.push_str("\\,");
                characters.next();
            }
            '{' | '[' => {
                depth += 1;
                current.push(character);
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                current.push(character);
            }
            ',' if depth == 0 => parts.push(std::mem::take(&mut current)),
            _ => current.push(character),
        }
    }
    parts.push(current);
    parts
}

/// Turns a Lore-style `scope` value into globs: `global` → none (everywhere),
/// `section:<folder>` → `<folder>/**`, `glob:<patterns>` → the patterns.
///
/// Returns `None` for any other spelling.
#[must_use]
pub fn scope_globs(scope: &str) -> Option<Vec<String>> {
    let scope = scope.trim();
    if scope == "global" {
        return Some(Vec::new());
    }
    if let Some(folder) = scope.strip_prefix("section:") {
        let folder = folder.trim().trim_matches('/');
        return (!folder.is_empty()).then(|| vec![format!("{folder}/**")]);
    }
    let patterns = scope.strip_prefix("glob:")?;
    split_globs(&Value::String(patterns.to_owned())).filter(|globs| !globs.is_empty())
}

/// Expands `{a,b}` alternatives: `src/**/*.{ts,tsx}` → `src/**/*.ts`, `src/**/*.tsx`. Nested
/// braces expand recursively; a group without a comma (`{x}`) and an unbalanced brace are kept
/// literally. A pattern whose expansion would break a limit (see [`try_expand_braces`]) is
/// returned unexpanded; loading refuses such patterns, so this only guards other callers.
#[must_use]
pub fn expand_braces(pattern: &str) -> Vec<String> {
    try_expand_braces(pattern).unwrap_or_else(|_| vec![pattern.to_owned()])
}

/// [`expand_braces`], refusing input that would cost too much: longer than
/// [`limits::MAX_PATTERN_BYTES`], nested deeper than [`limits::MAX_PATTERN_NESTING`], or
/// expanding to more than [`limits::MAX_BRACE_EXPANSIONS`] patterns.
///
/// Errors: a sentence saying which limit the pattern breaks.
pub fn try_expand_braces(pattern: &str) -> Result<Vec<String>, String> {
    check_pattern_size(pattern)?;
    let mut expanded = Vec::new();
    expand_from(pattern, 0, &mut expanded)?;
    Ok(expanded)
}

/// Expands the first brace group at or after byte `from` and recurses on each alternative. The
/// recursion depth is bounded by the number of `{` in the pattern (each level consumes one), and
/// the output by [`limits::MAX_BRACE_EXPANSIONS`], checked before each push.
fn expand_from(pattern: &str, from: usize, expanded: &mut Vec<String>) -> Result<(), String> {
    let Some(open) = outside_classes(pattern, from)
        .find(|(_, character)| *character == '{')
        .map(|(index, _)| index)
    else {
        return push_expansion(pattern, expanded);
    };
    let mut depth = 0_usize;
    let mut close = None;
    let mut splits = Vec::new();
    for (index, character) in outside_classes(pattern, open) {
        match character {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(index);
                    break;
                }
            }
            ',' if depth == 1 => splits.push(index),
            _ => {}
        }
    }
    let Some(close) = close else {
        return push_expansion(pattern, expanded);
    };
    if splits.is_empty() {
        // `{x}` stays as written; groups inside and after it still expand.
        return expand_from(pattern, open + 1, expanded);
    }
    let prefix = &pattern[..open];
    let suffix = &pattern[close + 1..];
    let mut bounds = vec![open];
    bounds.extend(&splits);
    bounds.push(close);
    for window in bounds.windows(2) {
        let alternative = &pattern[window[0] + 1..window[1]];
        expand_from(&format!("{prefix}{alternative}{suffix}"), open, expanded)?;
    }
    Ok(())
}

/// The characters of `pattern` from byte `from` on, with their byte positions, leaving out
/// those inside a character class (`[{]`, `[,]`, `[]]`, `[!a]`): a brace or comma there is a
/// literal character, as [`globset::escape`] writes one, not part of a `{a,b}` group. A `[`
/// without its `]` is an ordinary character.
fn outside_classes(pattern: &str, from: usize) -> impl Iterator<Item = (usize, char)> + '_ {
    let mut skip_to = from;
    pattern[from..]
        .char_indices()
        .map(move |(offset, character)| (from + offset, character))
        .filter(move |(index, character)| {
            if *index < skip_to {
                return false;
            }
            if *character == '['
                && let Some(end) = class_end(pattern, *index)
            {
                skip_to = end + 1;
                return false;
            }
            true
        })
}

/// The byte position of the `]` closing the character class opened by the `[` at `open`: a
/// `]` right after the `[` (or after `[!` / `[^`) is part of the class. `None` when the class
/// never closes.
pub(crate) fn class_end(pattern: &str, open: usize) -> Option<usize> {
    let bytes = pattern.as_bytes();
    let mut index = open + 1;
    if matches!(bytes.get(index), Some(b'!' | b'^')) {
        index += 1;
    }
    if bytes.get(index) == Some(&b']') {
        index += 1;
    }
    pattern[index..].find(']').map(|offset| index + offset)
}

fn push_expansion(pattern: &str, expanded: &mut Vec<String>) -> Result<(), String> {
    if expanded.len() == limits::MAX_BRACE_EXPANSIONS {
        return Err(format!(
            "its `{{a,b}}` alternatives expand to more than {} patterns, the limit; list fewer alternatives",
            limits::MAX_BRACE_EXPANSIONS
        ));
    }
    expanded.push(pattern.to_owned());
    Ok(())
}

/// Checks the size and nesting of one pattern before any costly work is done with it.
fn check_pattern_size(pattern: &str) -> Result<(), String> {
    if pattern.len() > limits::MAX_PATTERN_BYTES {
        return Err(format!(
            "it is {} bytes long, over the limit of {} bytes per pattern; shorten it or split it into several patterns",
            pattern.len(),
            limits::MAX_PATTERN_BYTES
        ));
    }
    let mut depth = 0_usize;
    let mut deepest = 0_usize;
    let mut characters = pattern.chars();
    while let Some(character) = characters.next() {
        match character {
            '\\' => {
                characters.next();
            }
            '{' | '[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if deepest > limits::MAX_PATTERN_NESTING {
        return Err(format!(
            "its `{{}}`/`[]` groups nest {deepest} deep, over the limit of {}; flatten them",
            limits::MAX_PATTERN_NESTING
        ));
    }
    Ok(())
}

/// The start of `pattern` for messages: at most 40 characters, with `…` when cut.
fn preview(pattern: &str) -> String {
    match pattern.char_indices().nth(40) {
        Some((cut, _)) => format!("{}…", &pattern[..cut]),
        None => pattern.to_owned(),
    }
}

/// Checks the count of a list and the size of each entry; the message names the key.
fn check_list(key: &str, patterns: &[String]) -> Result<(), String> {
    if patterns.len() > limits::MAX_PATTERNS_PER_KEY {
        return Err(format!(
            "`{key}` lists {} patterns, over the limit of {} per key; merge them (for example with `{{a,b}}` or `**`) or split the item",
            patterns.len(),
            limits::MAX_PATTERNS_PER_KEY
        ));
    }
    for (index, pattern) in patterns.iter().enumerate() {
        check_pattern_size(pattern).map_err(|reason| {
            format!(
                "`{key}` pattern {} (`{}`): {reason}",
                index + 1,
                preview(pattern)
            )
        })?;
    }
    Ok(())
}

/// Checks a `paths`/`globs`/`scope` list the way it is used: within the limits of
/// [`crate::limits`], each pattern expands within [`limits::MAX_BRACE_EXPANSIONS`], and each is
/// a valid glob. `key` names the frontmatter key in the message. Only the glob syntax is parsed
/// here (cheap, so loading a large tree stays fast); the limits keep every accepted list's
/// compiled matcher under the glob library's own size limit, as a unit test below shows for the
/// costliest patterns.
///
/// Errors: a sentence naming the key, the 1-based pattern and what is wrong with it.
pub fn check_globs(key: &str, patterns: &[String]) -> Result<(), String> {
    check_list(key, patterns)?;
    for (index, pattern) in patterns.iter().enumerate() {
        let describe = |reason: String| {
            format!(
                "`{key}` pattern {} (`{}`): {reason}",
                index + 1,
                preview(pattern)
            )
        };
        try_expand_braces(pattern).map_err(describe)?;
        anchored_glob(pattern).map_err(describe)?;
    }
    Ok(())
}

/// Checks a `targets` list (`key` names it in the message): within the limits of
/// [`crate::limits`], and every entry, read as the glob [`target_matches`] uses, is valid.
///
/// Errors: a sentence naming the key, the 1-based entry and what is wrong with it.
pub fn check_targets(key: &str, targets: &[String]) -> Result<(), String> {
    check_list(key, targets)?;
    for (index, target) in targets.iter().enumerate() {
        target_glob(&normalize_target(target)).map_err(|reason| {
            format!(
                "`{key}` pattern {} (`{}`): {reason}",
                index + 1,
                preview(target)
            )
        })?;
    }
    Ok(())
}

/// Checks a list of plain words (`triggers`): count and length only, they are never compiled.
///
/// Errors: a sentence naming the key, the entry and the limit.
pub(crate) fn check_words(key: &str, words: &[String]) -> Result<(), String> {
    check_list(key, words)
}

/// A `targets` entry as it is compared: lower-case, `/` separators, no leading `./` or `/`.
#[must_use]
pub fn normalize_target(target: &str) -> String {
    let target = target.trim().replace('\\', "/").to_ascii_lowercase();
    target
        .trim_start_matches("./")
        .trim_start_matches('/')
        .to_owned()
}

/// Whether the normalised `target` (see [`normalize_target`]), read as a glob in which `*` may
/// cross folders, matches the lower-case output `path`. A target that is not a valid glob, or
/// breaks a limit, matches nothing (loading refuses such targets; this only guards other
/// callers).
#[must_use]
pub fn target_matches(target: &str, path: &str) -> bool {
    target_matcher(target).is_ok_and(|matcher| matcher.is_match(path))
}

/// A `targets` entry as a glob in which `*` may cross folders.
fn target_glob(target: &str) -> Result<Glob, String> {
    check_pattern_size(target)?;
    GlobBuilder::new(target)
        .build()
        .map_err(|error| describe_glob_error(error.kind()))
}

fn target_matcher(target: &str) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    builder.add(target_glob(target)?);
    builder
        .build()
        .map_err(|error| describe_glob_error(error.kind()))
}

/// Whether the `paths` pattern `pattern` may match a file below the project-relative folder
/// `folder` (`/`-separated, no trailing `/`), folder by folder: `src/a*/x` may (`src/api/x`),
/// `src/{a,b}/x` and `src/[a]/x` may not, `src/**` and a pattern without `/` (any depth) may.
/// A pattern that is not a valid glob may not.
#[must_use]
pub(crate) fn may_match_below(pattern: &str, folder: &str) -> bool {
    let folders: Vec<&str> = folder.split('/').filter(|part| !part.is_empty()).collect();
    expand_braces(pattern).iter().any(|expanded| {
        let expanded = expanded.trim_start_matches("./");
        if !expanded.contains('/') {
            return true;
        }
        let parts: Vec<&str> = expanded.trim_start_matches('/').split('/').collect();
        // The last part names files; the folder must lie along the parts before it.
        let (_, glob_folders) = parts.split_last().unwrap_or((&"", &[]));
        for (index, name) in folders.iter().enumerate() {
            let Some(part) = glob_folders.get(index) else {
                // Deeper than the pattern's folders: only a `**` reaches there, and none came.
                return expanded.ends_with('/');
            };
            if *part == "**" {
                return true;
            }
            let matches = if part.contains(['*', '?', '[', '\\']) {
                GlobBuilder::new(part)
                    .literal_separator(true)
                    .build()
                    .is_ok_and(|glob| glob.compile_matcher().is_match(name))
            } else {
                part == name
            };
            if !matches {
                return false;
            }
        }
        true
    })
}

/// A `paths`/`globs` pattern as the glob [`compile`] uses: without `/` it matches the file name
/// at any depth, with `/` it is anchored at the project root; `*` never crosses `/`.
fn anchored_glob(pattern: &str) -> Result<Glob, String> {
    let pattern = pattern.trim_start_matches("./");
    check_pattern_size(pattern)?;
    let anchored = if pattern.ends_with('/') {
        // A folder names every file below it, as the assistants' files get it
        // (see [`output_globs`]).
        format!("{}**", pattern.trim_start_matches('/'))
    } else if pattern.contains('/') {
        pattern.trim_start_matches('/').to_owned()
    } else {
        format!("**/{pattern}")
    };
    GlobBuilder::new(&anchored)
        .literal_separator(true)
        .build()
        .map_err(|error| describe_glob_error(error.kind()))
}

/// A glob library error as a sentence; a failure to compile (the library's regex stage) becomes
/// the size limit it almost always is, without echoing the generated regex.
fn describe_glob_error(kind: &globset::ErrorKind) -> String {
    match kind {
        globset::ErrorKind::Regex(_) => format!(
            "it compiles to a matcher over the glob library's limit of {} MiB; use shorter or fewer patterns",
            limits::MAX_COMPILED_GLOB_BYTES / (1024 * 1024)
        ),
        other => format!("not a valid glob: {other}"),
    }
}

/// The globs an assistant's rule file gets for a rule's `patterns`, in order, meaning what
/// [`matcher`] means by them: a pattern without `/` (`*.py`) matches at any depth here, so when
/// `root_anchored` (the assistant reads it at the root only: Claude Code and Cline document
/// `*.md` so, Kiro matches workspace-relative paths) it is written `**/*.py`; a folder written with a trailing `/` (`src/api/`) becomes
/// `src/api/**`, since every assistant reads globs as file patterns and a bare folder matches no
/// file; a `!` pattern is left out, since none of them documents negation (Claude Code, Cursor,
/// VS Code, Cline, Kiro, Windsurf; the harness audit of 2026-11-30). Returns (the globs, the
/// patterns left out).
#[must_use]
pub(crate) fn output_globs(patterns: &[String], root_anchored: bool) -> (Vec<String>, Vec<String>) {
    let mut globs = Vec::with_capacity(patterns.len());
    let mut left_out = Vec::new();
    for pattern in patterns {
        if pattern.starts_with('!') {
            left_out.push(pattern.clone());
        } else if pattern.ends_with('/') {
            globs.push(format!("{pattern}**"));
        } else if root_anchored && !pattern.contains('/') {
            globs.push(format!("**/{pattern}"));
        } else {
            globs.push(pattern.clone());
        }
    }
    (globs, left_out)
}

/// Builds a matcher for project-relative `/`-separated paths. A pattern without `/` matches the
/// file name at any depth (as in `.gitignore`); a pattern with `/` is anchored at the project
/// root. `*` never crosses `/`; `**` does.
///
/// Returns `None` when a pattern is not a valid glob or breaks a limit (see [`compile`]).
#[must_use]
pub fn matcher(patterns: &[String]) -> Option<GlobSet> {
    compile(patterns).ok()
}

/// [`matcher`] with the reason when it cannot be built.
///
/// Errors: a sentence naming the 1-based pattern that breaks a limit of [`crate::limits`] or is
/// not a valid glob, or saying that the whole list compiles to a matcher over the glob
/// library's size limit.
pub fn compile(patterns: &[String]) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for (index, pattern) in patterns.iter().enumerate() {
        let glob = anchored_glob(pattern).map_err(|reason| {
            format!("pattern {} (`{}`): {reason}", index + 1, preview(pattern))
        })?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|error| describe_glob_error(error.kind()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn comma_strings_split_outside_braces() {
        assert_eq!(
            split_globs(&json!("**/*.yml, **/*.yaml")).expect("globs"),
            ["**/*.yml", "**/*.yaml"]
        );
        assert_eq!(
            split_globs(&json!("src/**/*.{ts,tsx}")).expect("globs"),
            ["src/**/*.{ts,tsx}"]
        );
        assert_eq!(
            split_globs(&json!(["a/**", "b/*", "a/**"])).expect("globs"),
            ["a/**", "b/*"]
        );
        assert_eq!(split_globs(&json!(3)), None);
    }

    #[test]
    fn braces_expand() {
        assert_eq!(
            expand_braces("src/**/*.{ts,tsx}"),
            ["src/**/*.ts", "src/**/*.tsx"]
        );
        assert_eq!(expand_braces("{a,b{c,d}}.rs"), ["a.rs", "bc.rs", "bd.rs"]);
        assert_eq!(expand_braces("x{y"), ["x{y"]);
    }

    #[test]
    fn braces_and_commas_inside_a_character_class_are_literal() {
        // A folder named `{a,b}`, escaped as `globset::escape` writes it.
        let escaped = format!("app/{}/**/*.ts", globset::escape("{a,b}"));
        assert_eq!(escaped, "app/[{]a,b[}]/**/*.ts");
        assert_eq!(expand_braces(&escaped), [escaped.as_str()]);
        assert_eq!(expand_braces("a/[]]{x,y}"), ["a/[]]x", "a/[]]y"]);
        assert_eq!(expand_braces("a/[!,]{x,y}"), ["a/[!,]x", "a/[!,]y"]);
        assert_eq!(expand_braces("a/[{x,y}"), ["a/[x", "a/[y"]);
        let matcher = matcher(&[escaped]).expect("compiles");
        assert!(matcher.is_match("app/{a,b}/src/x.ts"));
        assert!(!matcher.is_match("app/a/src/x.ts"));
    }

    #[test]
    fn a_pattern_covers_a_folder_only_when_its_folders_can_lead_there() {
        for (pattern, folder, covers) in [
            ("src/a/x", "src/api", false),
            ("src/{a,b}/x", "src/api", false),
            ("src/[a]/x", "src/api", false),
            ("src/a*/x", "src/api", true),
            ("src/**/x.ts", "src/api/deep", true),
            ("*.ts", "src/api", true),
            ("src/api/x.ts", "src", true),
            ("src/api/x.ts", "src/api", true),
            ("src/api/x.ts", "src/api/deep", false),
            ("src/{api,web}/", "src/web/deep", true),
            ("src/api/", "src/api/deep", true),
            ("lib/**", "src", false),
            ("**/api/*.rs", "tools/api", true),
            ("*/api/**", "tools/api", true),
            ("*/api/**", "tools/web", false),
            ("{src,lib}/**", "lib", true),
            ("{src,lib}/x/**", "src/x", true),
            ("./src/", "src", true),
        ] {
            assert_eq!(
                may_match_below(pattern, folder),
                covers,
                "{pattern} in {folder}"
            );
        }
    }

    #[test]
    fn a_folder_pattern_names_every_file_below_it() {
        let matcher = matcher(&["pk/src/".to_owned()]).expect("compiles");
        assert!(matcher.is_match("pk/src/y.ts"));
        assert!(matcher.is_match("pk/src/deep/y.ts"));
        assert!(!matcher.is_match("pk/other/y.ts"));
    }

    #[test]
    fn the_limits_keep_the_costliest_lists_within_the_glob_librarys_compiled_size() {
        // The constructs that compile to the most automaton per byte, filling every pattern of
        // a list at both count and length limits.
        let eight_groups = "{*,?}".repeat(8);
        let nested = "{*,{*,{*,{*,{*,{*,{*,{*,?}}}}}}}}";
        for (head, unit) in [
            ("", "*a"),
            ("", "[\u{80}-\u{10FFFF}]"),
            ("", "*/"),
            (eight_groups.as_str(), "*a"),
            (nested, "*?"),
        ] {
            let repeated = format!(
                "{head}{}",
                unit.repeat(limits::MAX_PATTERN_BYTES / unit.len())
            );
            let list: Vec<String> = (0..limits::MAX_PATTERNS_PER_KEY)
                .map(|index| {
                    let mut pattern = format!("{index}{repeated}");
                    while pattern.len() > limits::MAX_PATTERN_BYTES {
                        pattern.pop();
                    }
                    pattern
                })
                .collect();
            assert_eq!(check_globs("paths", &list), Ok(()), "{unit}");
            assert!(compile(&list).is_ok(), "{unit}");
        }
    }

    #[test]
    fn over_the_limits_is_an_error_naming_the_limit() {
        assert_eq!(
            check_globs("paths", &["a".repeat(1025)]),
            Err(format!(
                "`paths` pattern 1 (`{}…`): it is 1025 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns",
                "a".repeat(40)
            ))
        );
        assert_eq!(
            try_expand_braces(&"{a,b}".repeat(9)).map(|list| list.len()),
            Err("its `{a,b}` alternatives expand to more than 256 patterns, the limit; list fewer alternatives".to_owned())
        );
        assert_eq!(
            try_expand_braces(&"{a,b}".repeat(8)).map(|list| list.len()),
            Ok(256)
        );
        assert_eq!(
            check_targets("targets", &["src/[a".to_owned()]),
            Err("`targets` pattern 1 (`src/[a`): not a valid glob: unclosed character class; missing ']'".to_owned())
        );
        assert!(!target_matches(&"*a".repeat(100_000), "a"));
        assert_eq!(expand_braces("{x}{a,b}"), ["{x}a", "{x}b"]);
    }

    #[test]
    fn matching_follows_gitignore_style_anchoring() {
        let set = matcher(&["src/**/*.{ts,tsx}".to_owned(), "*.yml".to_owned()]).expect("valid");
        assert!(set.is_match("src/a.tsx"));
        assert!(set.is_match("src/deep/a.ts"));
        assert!(!set.is_match("src/a.js"));
        assert!(set.is_match("config/app.yml"));
        assert!(!set.is_match("lib/src/a.ts"));
    }
}
