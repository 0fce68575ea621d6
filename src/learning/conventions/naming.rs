//! Naming styles of identifiers and file names, and what a file's path says about where tests
//! live. Names with one lowercase word (`main`, `utils`) fit several styles and are not counted.

use super::language::Language;

/// The naming style of `name` (leading and trailing `_` ignored): `snake_case`, `kebab-case`,
/// `camelCase`, `PascalCase`, `SCREAMING_SNAKE_CASE`, or `None` when ambiguous (one lowercase
/// word, one uppercase word) or mixed.
#[must_use]
pub(super) fn style_of(name: &str) -> Option<&'static str> {
    let name = name.trim_matches('_');
    let first = name.chars().next()?;
    let has_lower = name.chars().any(|character| character.is_ascii_lowercase());
    let has_upper = name.chars().any(|character| character.is_ascii_uppercase());
    let plain = name
        .chars()
        .all(|character| character.is_ascii_alphanumeric() || character == '_' || character == '-');
    if !plain || !first.is_ascii_alphabetic() {
        return None;
    }
    let underscores = name.contains('_');
    let dashes = name.contains('-');
    match (underscores, dashes, has_lower, has_upper) {
        (true, false, true, false) => Some("snake_case"),
        (true, false, false, true) => Some("SCREAMING_SNAKE_CASE"),
        (false, true, true, false) => Some("kebab-case"),
        (false, false, true, true) if first.is_ascii_uppercase() => Some("PascalCase"),
        (false, false, true, true) => Some("camelCase"),
        _ => None,
    }
}

/// The style of a file's name (its part before the first `.`, so `user-card.test.ts` is
/// `user-card`); Python's `__init__` and `__main__` and other one-word names are not counted.
#[must_use]
pub(super) fn file_name_style(file_name: &str) -> Option<&'static str> {
    let stem = file_name.split('.').next().unwrap_or(file_name);
    style_of(stem)
}

/// Where a test file lives or how it is named, from its project-relative path; `None` for a
/// file that is not a test file by its path. Inline Rust test modules are found in the code.
#[must_use]
pub(super) fn test_layout_of(language: Language, relative: &str) -> Option<&'static str> {
    let (folder, file_name) = relative.rsplit_once('/').unwrap_or(("", relative));
    let in_folder = |name: &str| folder.split('/').any(|component| component == name);
    match language {
        Language::Rust => in_folder("tests").then_some("tests/ folder"),
        Language::Go => file_name
            .ends_with("_test.go")
            .then_some("*_test.go next to the code"),
        Language::TypeScript | Language::JavaScript => {
            if file_name.contains(".test.") {
                Some("*.test.* files")
            } else if file_name.contains(".spec.") {
                Some("*.spec.* files")
            } else if in_folder("__tests__") {
                Some("__tests__/ folders")
            } else {
                None
            }
        }
        Language::Python => {
            if file_name.starts_with("test_") {
                Some("test_*.py files")
            } else if file_name.ends_with("_test.py") {
                Some("*_test.py files")
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn styles_are_told_apart_and_one_word_names_are_not_counted() {
        let cases = [
            ("load_project", Some("snake_case")),
            ("_private_helper", Some("snake_case")),
            ("MAX_SIZE", Some("SCREAMING_SNAKE_CASE")),
            ("user-card", Some("kebab-case")),
            ("loadProject", Some("camelCase")),
            ("UserCard", Some("PascalCase")),
            ("main", None),
            ("ID", None),
            ("mixed_Case", None),
            ("9lives", None),
        ];
        for (name, style) in cases {
            assert_eq!(style_of(name), style, "{name}");
        }
        assert_eq!(file_name_style("user-card.test.ts"), Some("kebab-case"));
        assert_eq!(file_name_style("__init__.py"), None);
    }
}
