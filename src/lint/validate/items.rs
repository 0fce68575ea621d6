//! Item checks: each item's frontmatter keys, body and skill name, and descriptions that
//! repeat or nearly repeat another item's.

use std::collections::{BTreeMap, HashMap};

use super::{Checker, line_text};
use crate::content::{self, Item, Kind, Layer};
use crate::lint::scan::{body_first_line, inline_first_line, item_text};

/// Longest Agent Skills name.
const SKILL_NAME_MAX_CHARS: usize = 64;
/// Word-set similarity at or above which two descriptions are near-duplicates.
const NEAR_DUPLICATE_JACCARD: f64 = 0.9;

impl Checker<'_> {
    pub(super) fn item(&mut self, item: &Item) {
        let inline = item.source_path == self.project.config_relative;
        let text = item_text(item);
        let body_line = body_first_line(item);
        let first_line = if inline {
            inline_first_line(self.project, item)
        } else {
            1
        };
        let file = item.source_path.clone();
        self.unknown_keys(item);
        if item.body.trim().is_empty() {
            let line = if inline {
                first_line
            } else {
                body_line.min(text.lines().count().max(1))
            };
            self.push(
                "AR805",
                &file,
                Some(line),
                "",
                format!(
                    "{} `{}` has an empty body; write its content or delete it",
                    item.kind.noun(),
                    item.id
                ),
            );
        }
        if item.kind == Kind::Skill {
            self.skill_name(item);
        }
        // A git include's links point into its own repository, which is not on disk here.
        if !inline && !crate::git_include::is_fetched_path(&item.source_path) {
            self.links(item, &text);
            self.texts.insert(
                file,
                (!matches!(item.layer, Layer::Include(_))).then(|| std::sync::Arc::from(text)),
            );
        }
    }

    fn unknown_keys(&mut self, item: &Item) {
        for unknown in content::keys::unknown_keys(item) {
            let flagged = line_text(&item_text(item), unknown.line).to_owned();
            self.push(
                "AR303",
                &item.source_path,
                unknown.line,
                &flagged,
                unknown.message,
            );
        }
    }

    fn skill_name(&mut self, item: &Item) {
        let written = item
            .frontmatter
            .get("name")
            .and_then(|value| value.as_str());
        let name = written.unwrap_or(&item.id);
        let mut problems = Vec::new();
        if name.is_empty() || name.chars().count() > SKILL_NAME_MAX_CHARS {
            problems.push(format!("must be 1 to {SKILL_NAME_MAX_CHARS} characters"));
        }
        if !name.chars().all(|character| {
            character.is_ascii_lowercase() || character.is_ascii_digit() || character == '-'
        }) {
            problems.push("may hold only lower-case letters, digits and hyphens".to_owned());
        }
        if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
            problems.push("may not start or end with a hyphen or hold two in a row".to_owned());
        }
        if written.is_some() && name != item.id {
            problems.push(format!("must equal the folder name `{}`", item.id));
        }
        if problems.is_empty() {
            return;
        }
        let yaml = item.yaml.as_deref().unwrap_or_default();
        let line = if written.is_some() {
            content::key_line(yaml, "name")
        } else {
            Some(1)
        };
        let flagged = line_text(&item_text(item), line).to_owned();
        self.push(
            "AR804",
            &item.source_path,
            line,
            &flagged,
            format!("skill name `{name}` {}", problems.join("; ")),
        );
    }

    pub(super) fn descriptions(&mut self) {
        let mut by_kind: BTreeMap<Kind, Vec<(&Item, String)>> = BTreeMap::new();
        for item in &self.project.tree.items {
            if matches!(item.layer, Layer::Local) {
                continue;
            }
            if let Some(description) = &item.description {
                let normalised = description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase();
                if !normalised.is_empty() {
                    by_kind
                        .entry(item.kind)
                        .or_default()
                        .push((item, normalised));
                }
            }
        }
        let mut findings = Vec::new();
        for items in by_kind.values() {
            let mut first_by_text: HashMap<&str, &Item> = HashMap::new();
            for (item, text) in items {
                if let Some(first) = first_by_text.get(text.as_str()) {
                    findings.push((
                        "AR701",
                        *item,
                        format!(
                            "{} `{}` has the same description as {}; describe what sets each apart",
                            item.kind.noun(),
                            item.id,
                            first.source_path
                        ),
                    ));
                } else {
                    first_by_text.insert(text, item);
                }
            }
            // Near-duplicates: word sets compared only between descriptions whose sizes could
            // reach the threshold, so the pass stays fast on thousands of items.
            let mut sets: Vec<(&Item, &str, Vec<&str>)> = items
                .iter()
                .map(|(item, text)| {
                    let mut words: Vec<&str> = text
                        .split(|character: char| !character.is_alphanumeric())
                        .filter(|word| !word.is_empty())
                        .collect();
                    words.sort_unstable();
                    words.dedup();
                    (*item, text.as_str(), words)
                })
                .collect();
            sets.sort_by_key(|(_, _, words)| words.len());
            for (index, (item, text, words)) in sets.iter().enumerate() {
                for (other, other_text, other_words) in &sets[index + 1..] {
                    #[expect(clippy::cast_precision_loss, reason = "word counts are small")]
                    let too_far =
                        (words.len() as f64) < (other_words.len() as f64) * NEAR_DUPLICATE_JACCARD;
                    if too_far {
                        break;
                    }
                    if text == other_text || words.len() < 4 {
                        continue;
                    }
                    let similarity = jaccard(words, other_words);
                    if similarity >= NEAR_DUPLICATE_JACCARD {
                        let (later, earlier) = if other.source_path > item.source_path {
                            (*other, *item)
                        } else {
                            (*item, *other)
                        };
                        findings.push(("AR702", later, format!(
                            "{} `{}` has nearly the same description as {} ({:.0}% of words shared)",
                            later.kind.noun(), later.id, earlier.source_path, similarity * 100.0
                        )));
                    }
                }
            }
        }
        for (code, item, message) in findings {
            let line = content::key_line(item.yaml.as_deref().unwrap_or_default(), "description");
            let flagged = line_text(&item_text(item), line).to_owned();
            self.push(code, &item.source_path, line, &flagged, message);
        }
    }
}

#[expect(clippy::cast_precision_loss, reason = "word counts are small")]
pub(super) fn jaccard(left: &[&str], right: &[&str]) -> f64 {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < left.len() && j < right.len() {
        match left[i].cmp(right[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = left.len() + right.len() - shared;
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}
