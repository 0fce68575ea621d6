//! The paths an item's text names (`src/backends/<lang>/`, `src/codegen/naming.rs`,
//! `CHANGELOG.md`): a rule without globs that names the folder a change is in is scoped there
//! in all but its frontmatter. `get_rules` weighs how specific such a named path is to the
//! call's paths as evidence beside the globs.

use std::sync::OnceLock;

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

/// The named paths of a list of items, each item's found on first use. A call needs only the
/// items eligible for its paths (on a project of 100,000 rules, a tenth of them or fewer), so
/// the first call scans those texts instead of every item's.
#[derive(Debug, Default)]
pub(crate) struct MentionIndex {
    /// Per item position: the distinct paths its texts name, in text order.
    named: Vec<OnceLock<Vec<NamedPath>>>,
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
    // Nearly every word of prose has neither, and a path needs one: this test keeps the first
    // `get_rules` from splitting (and allocating for) every word of every eligible body.
    if !word.contains(['/', '.']) {
        return None;
    }
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
    /// An index over `count` items, none of them scanned yet; positions run from 0 to `count`.
    #[must_use]
    pub(crate) fn new(count: usize) -> Self {
        Self {
            named: std::iter::repeat_with(OnceLock::new).take(count).collect(),
        }
    }

    /// Finds the named paths of the items at `positions` not scanned yet (`item_at` gives the
    /// item at a position), on every core: the first `get_rules` of a large project scans a
    /// thousand eligible texts or more (5,000 items: 4 ms on one core). Items already scanned
    /// cost one look each, and no thread is started when none is left. Unknown positions are
    /// skipped.
    pub(crate) fn find_all<'item>(
        &self,
        positions: &[usize],
        item_at: impl Fn(usize) -> &'item Item,
    ) {
        let unscanned: Vec<(&OnceLock<Vec<NamedPath>>, &Item)> = positions
            .iter()
            .filter_map(|position| {
                let slot = self.named.get(*position)?;
                slot.get().is_none().then(|| (slot, item_at(*position)))
            })
            .collect();
        if unscanned.is_empty() {
            return;
        }
        crate::parallel::map_in_order(&unscanned, |(slot, item)| {
            slot.get_or_init(|| named_paths(item));
        });
    }

    /// The highest [`specificity`] to any of `paths` (project-relative) among the paths that
    /// `item`'s title, description and body name, 0 to 1 (0 when none covers them). `position`
    /// is the item's position in the list (its named paths are found once and kept); 0 for an
    /// unknown position.
    #[must_use]
    pub(crate) fn covering(&self, position: usize, item: &Item, paths: &[&str]) -> f64 {
        let Some(slot) = self.named.get(position) else {
            return 0.0;
        };
        let named = slot.get_or_init(|| named_paths(item));
        let mut best: f64 = 0.0;
        for named in named {
            for path in paths {
                best = best.max(specificity(named, path));
            }
        }
        best
    }
}

/// The distinct paths `item`'s title, description and body name, in text order.
fn named_paths(item: &Item) -> Vec<NamedPath> {
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
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(word: &str) -> NamedPath {
        named_path(word).expect("a named path")
    }

    #[test]
    fn finding_every_items_paths_at_once_gives_what_finding_them_one_by_one_gives() {
        let items: Vec<Item> = (0..200)
            .map(|number| {
                let text = format!(
                    "# Rule {number}\n\nEdit src/backends/b{}/mod.rs and keep CHANGELOG.md current.\n",
                    number % 7
                );
                crate::content::root_rule_from_bytes(
                    &format!(".ai-rulez/rules/r{number}.md"),
                    text.as_bytes(),
                )
                .expect("a rule")
            })
            .collect();
        let paths = ["src/backends/b3/mod.rs"];
        let one_by_one = MentionIndex::new(items.len());
        let expected: Vec<f64> = (0..items.len())
            .map(|position| one_by_one.covering(position, &items[position], &paths))
            .collect();
        let at_once = MentionIndex::new(items.len());
        let positions: Vec<usize> = (0..items.len() + 3).collect();
        at_once.find_all(&positions, |position| &items[position]);
        assert!(at_once.named.iter().all(|slot| slot.get().is_some()));
        let found: Vec<f64> = (0..items.len())
            .map(|position| at_once.covering(position, &items[position], &paths))
            .collect();
        assert_eq!(found, expected);
        assert!((found[3] - 1.0).abs() < f64::EPSILON, "{}", found[3]);
        assert!(found[4] < 1.0, "{}", found[4]);
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
