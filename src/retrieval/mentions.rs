//! The paths an item's text names (`src/backends/<lang>/`, `src/codegen/naming.rs`,
//! `CHANGELOG.md`): a rule without globs that names the folder a change is in is scoped there
//! in all but its frontmatter. `get_rules` weighs how specific such a named path is to the
//! call's paths as evidence beside the globs.

use std::collections::HashMap;

use crate::content::Item;

/// File name endings that make a word without `/` a file name (`Cargo.toml`, `template_env.rs`).
const FILE_ENDINGS: &[&str] = &[
    "rs", "py", "ts", "tsx", "js", "jsx", "go", "java", "kt", "rb", "php", "cs", "swift", "ex",
    "exs", "toml", "yaml", "yml", "json", "md", "sql", "tf", "proto", "sh", "lock", "txt",
];

/// One part of a named path between slashes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    /// `*`, `<lang>`, `{name}` or any part holding one of them: any one folder or file name.
    Any,
    /// `**`: any number of folders.
    AnyDepth,
}

/// A path named in an item's text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NamedPath {
    segments: Vec<Segment>,
    /// It names a folder: it ends in `/`, or its last part has no `.`.
    folder: bool,
}

/// The named paths of a list of items, found by their first literal part so that a call tests
/// only those that can match its paths.
#[derive(Debug, Default)]
pub(crate) struct MentionIndex {
    /// (item position, named path) pairs.
    named: Vec<(usize, NamedPath)>,
    /// Positions in `named` by the first part when it is literal (`src` for `src/codegen/`);
    /// a bare file name (`Cargo.toml`) is filed under itself and tested against file names.
    by_first: HashMap<String, Vec<usize>>,
    /// Positions in `named` of paths that start with a wildcard.
    loose: Vec<usize>,
}

/// Whether `character` can be part of a named path.
fn path_character(character: char) -> bool {
    character.is_alphanumeric() || "_.<>{}*-/".contains(character)
}

/// The path `word` names, if it looks like one: it holds a `/` between names (not a URL and not
/// absolute), or it is a file name with a known ending.
fn named_path(word: &str) -> Option<NamedPath> {
    let word = word.trim_matches(|character: char| ".,;:-".contains(character));
    let word = word.strip_prefix("./").unwrap_or(word);
    if word.is_empty() || word.starts_with('/') || word.contains("//") {
        return None;
    }
    let folder_written = word.ends_with('/');
    let parts: Vec<&str> = word.trim_end_matches('/').split('/').collect();
    if parts.iter().any(|part| part.is_empty()) {
        return None;
    }
    let last = parts.last().copied().unwrap_or_default();
    if parts.len() == 1 {
        let ending = last.rsplit_once('.').map(|(_, ending)| ending);
        if folder_written || !ending.is_some_and(|ending| FILE_ENDINGS.contains(&ending)) {
            return None;
        }
    }
    let segments = parts
        .iter()
        .map(|part| {
            if *part == "**" {
                Segment::AnyDepth
            } else if part.contains(['*', '<', '{']) {
                Segment::Any
            } else {
                Segment::Literal((*part).to_owned())
            }
        })
        .collect();
    Some(NamedPath {
        segments,
        folder: folder_written || !last.contains('.'),
    })
}

/// Whether `segments` match all of `parts` (`**` matching any number of them).
fn matches_all(segments: &[Segment], parts: &[&str]) -> bool {
    match segments.split_first() {
        None => parts.is_empty(),
        Some((Segment::AnyDepth, rest)) => {
            (0..=parts.len()).any(|skipped| matches_all(rest, &parts[skipped..]))
        }
        Some((segment, rest)) => {
            let Some((part, others)) = parts.split_first() else {
                return false;
            };
            let fits = match segment {
                Segment::Literal(literal) => literal == part,
                _ => true,
            };
            fits && matches_all(rest, others)
        }
    }
}

/// How specific `named` is to the project-relative `path`, 0 to 1: 1 when it names the path
/// itself (or, as a bare file name, its file name); for a folder that holds the path, a quarter
/// per part (a deeper folder says more); 0 when it does not cover the path.
fn specificity(named: &NamedPath, path: &str) -> f64 {
    let parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    if matches_all(&named.segments, &parts) {
        return 1.0;
    }
    if let [Segment::Literal(name)] = named.segments.as_slice()
        && !named.folder
    {
        return if parts.last() == Some(&name.as_str()) {
            1.0
        } else {
            0.0
        };
    }
    if !named.folder || named.segments.len() >= parts.len() {
        return 0.0;
    }
    // The folder must match the first parts of the path exactly (a `**` inside it is not
    // followed here: such mentions are rare, and a prefix test keeps the look-up cheap).
    let prefix = &parts[..named.segments.len()];
    if matches_all(&named.segments, prefix) {
        (f64::from(u32::try_from(named.segments.len()).unwrap_or(4)) / 4.0).min(1.0)
    } else {
        0.0
    }
}

impl MentionIndex {
    /// The named paths of `items` (title, description and body); positions are indexes into
    /// `items`.
    #[must_use]
    pub(crate) fn build(items: &[&Item]) -> Self {
        let mut index = Self::default();
        for (position, item) in items.iter().enumerate() {
            let mut found: Vec<NamedPath> = Vec::new();
            let texts = [
                item.title.as_str(),
                item.description.as_deref().unwrap_or_default(),
                item.body.as_str(),
            ];
            for text in texts {
                for word in text.split(|character: char| !path_character(character)) {
                    if let Some(named) = named_path(word)
                        && !found.contains(&named)
                    {
                        found.push(named);
                    }
                }
            }
            for named in found {
                let slot = index.named.len();
                match named.segments.first() {
                    Some(Segment::Literal(first)) => {
                        index.by_first.entry(first.clone()).or_default().push(slot);
                    }
                    _ => index.loose.push(slot),
                }
                index.named.push((position, named));
            }
        }
        index
    }

    /// Per item position with a named path that covers one of `paths` (project-relative): the
    /// highest [`specificity`] among them, in position order.
    #[must_use]
    pub(crate) fn covering(&self, paths: &[&str]) -> Vec<(usize, f64)> {
        let mut best: HashMap<usize, f64> = HashMap::new();
        for path in paths {
            let first = path.split('/').find(|part| !part.is_empty());
            let name = path.rsplit('/').find(|part| !part.is_empty());
            let mut slots: Vec<usize> = self.loose.clone();
            for key in [first, name].into_iter().flatten() {
                if let Some(filed) = self.by_first.get(key) {
                    slots.extend(filed);
                }
            }
            slots.sort_unstable();
            slots.dedup();
            for slot in slots {
                let (position, named) = &self.named[slot];
                let value = specificity(named, path);
                if value > 0.0 {
                    let kept = best.entry(*position).or_insert(0.0);
                    *kept = kept.max(value);
                }
            }
        }
        let mut covering: Vec<(usize, f64)> = best.into_iter().collect();
        covering.sort_unstable_by_key(|(position, _)| *position);
        covering
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(word: &str) -> NamedPath {
        named_path(word).expect("a named path")
    }

    #[test]
    fn words_that_name_paths_are_found_and_prose_is_not() {
        assert!(named("src/backends/<lang>/").folder);
        assert!(!named("src/codegen/naming.rs").folder);
        assert!(!named("Cargo.toml").folder);
        assert_eq!(named_path("https://example.com/a"), None);
        assert_eq!(named_path("/sdcard/config.yaml"), None);
        assert_eq!(named_path("version."), None);
        assert_eq!(named_path("e.g."), None);
    }

    #[test]
    fn a_named_file_is_most_specific_and_a_deeper_folder_more_than_a_shallow_one() {
        let path = "src/backends/go/gen_bindings/functions.rs";
        assert!((specificity(&named("src/backends/<lang>/"), path) - 0.75).abs() < 1e-9);
        assert!((specificity(&named("src/backends/"), path) - 0.5).abs() < 1e-9);
        assert!(specificity(&named("src/codegen/"), path).abs() < 1e-9);
        assert!((specificity(&named("functions.rs"), path) - 1.0).abs() < 1e-9);
        assert!((specificity(&named("src/**/*.rs"), path) - 1.0).abs() < 1e-9);
        assert!((specificity(&named("CHANGELOG.md"), "CHANGELOG.md") - 1.0).abs() < 1e-9);
        assert!((specificity(&named("web/src/hooks/"), "web/src/hooks") - 1.0).abs() < 1e-9);
        assert!(specificity(&named("web/src/hooks/"), "web/src/api/keys.ts").abs() < 1e-9);
    }
}
