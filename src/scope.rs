//! Which files an item applies to: glob lists as users write them (YAML lists or comma strings),
//! brace expansion for presets whose glob strings are comma-separated, and matching a path.
//! This is the one selector used by generation, and later by `explain` and MCP `get_rules`.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde_json::Value;

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
    let mut depth = 0_i32;
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
                depth -= 1;
                current.push(character);
            }
            ',' if depth <= 0 => parts.push(std::mem::take(&mut current)),
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
/// braces expand recursively; an unbalanced brace is kept literally.
#[must_use]
pub fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_owned()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut splits = Vec::new();
    for (index, character) in pattern[open..].char_indices() {
        match character {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + index);
                    break;
                }
            }
            ',' if depth == 1 => splits.push(open + index),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![pattern.to_owned()];
    };
    if splits.is_empty() {
        return expand_braces(&format!(
            "{}\u{0}{}",
            &pattern[..close],
            &pattern[close + 1..]
        ))
        .into_iter()
        .map(|expanded| expanded.replacen('\u{0}', "}", 1))
        .collect();
    }
    let prefix = &pattern[..open];
    let suffix = &pattern[close + 1..];
    let mut bounds = vec![open];
    bounds.extend(&splits);
    bounds.push(close);
    let mut expanded = Vec::new();
    for window in bounds.windows(2) {
        let alternative = &pattern[window[0] + 1..window[1]];
        expanded.extend(expand_braces(&format!("{prefix}{alternative}{suffix}")));
    }
    expanded
}

/// Builds a matcher for project-relative `/`-separated paths. A pattern without `/` matches the
/// file name at any depth (as in `.gitignore`); a pattern with `/` is anchored at the project
/// root. `*` never crosses `/`; `**` does.
///
/// Returns `None` when a pattern is not a valid glob.
#[must_use]
pub fn matcher(patterns: &[String]) -> Option<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let pattern = pattern.trim_start_matches("./");
        let anchored = if pattern.contains('/') {
            pattern.trim_start_matches('/').to_owned()
        } else {
            format!("**/{pattern}")
        };
        let glob = GlobBuilder::new(&anchored)
            .literal_separator(true)
            .build()
            .ok()?;
        builder.add(glob);
    }
    builder.build().ok()
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
    fn matching_follows_gitignore_style_anchoring() {
        let set = matcher(&["src/**/*.{ts,tsx}".to_owned(), "*.yml".to_owned()]).expect("valid");
        assert!(set.is_match("src/a.tsx"));
        assert!(set.is_match("src/deep/a.ts"));
        assert!(!set.is_match("src/a.js"));
        assert!(set.is_match("config/app.yml"));
        assert!(!set.is_match("lib/src/a.ts"));
    }
}
