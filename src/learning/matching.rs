//! Finding the existing rule a new one repeats or reverses, in the same scope. Candidates are
//! the active rules of the default view that share a search term with the new text (found with
//! the catalog's BM25 index, so a 5,000-rule project compares a handful of rules, not all), and
//! every rule outside that view (pending, rejected, or in a domain no profile selects), which is
//! few. Each candidate with the same globs is compared line by line
//! ([`similarity::relation_to`]) in the comparison form the catalog keeps for it, so a rule is
//! tokenized once per catalog, not once per check.

use serde::Serialize;

use super::similarity::{self, Relation, Statement};
use crate::content::{Item, Kind, Status};
use crate::retrieval::Catalog;

/// An existing rule the new text relates to.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct Related {
    /// Rule id.
    pub id: String,
    /// Project-relative path of its file.
    pub path: String,
    /// Its status: `active`, `pending` or `rejected`.
    pub status: String,
    /// `duplicate` or `contradiction`.
    pub relation: String,
    /// Jaccard similarity of content terms, 0 to 1, two decimals.
    pub similarity: f64,
}

/// The rule `text` (with scope `globs`, sorted as the loader keeps them) repeats, else the
/// active rule it most likely reverses; `None` when neither. A duplicate of any status wins
/// over a contradiction (which only an active rule can be); ties go to the smaller id. The rule
/// `skip_id` (the one `text` comes from, when it is saved already) is never compared.
#[must_use]
pub(crate) fn related_rule(
    catalog: &Catalog,
    text: &str,
    globs: &[String],
    skip_id: Option<&str>,
) -> Option<Related> {
    let statement = Statement::of(text);
    if statement.terms.is_empty() {
        return None;
    }
    let items = &catalog.project.tree.items;
    let mut in_view = vec![false; items.len()];
    for position in catalog.rule_positions() {
        in_view[*position] = true;
    }
    // A line with a Jaccard similarity of at least the lower threshold shares at least that
    // share of the statement's terms, so a rule holding fewer of them anywhere cannot match.
    let least = similarity::least_shared(statement.terms.len());
    let in_scope =
        |item: &Item| same_scope(&item.globs, globs) && Some(item.id.as_str()) != skip_id;
    let candidates = catalog
        .rules_holding(&statement.terms, least, in_scope)
        .into_iter()
        .chain(
            items
                .iter()
                .enumerate()
                .filter(|(position, item)| {
                    item.kind == Kind::Rule && !in_view[*position] && in_scope(item)
                })
                .map(|(position, _)| position),
        );
    let mut best: Option<(bool, f64, &Item)> = None;
    for position in candidates {
        let item = &items[position];
        let (is_duplicate, value) =
            match similarity::relation_to(&statement, catalog.rule_lines(position)) {
                Some(Relation::Duplicate(value)) => (true, value),
                Some(Relation::Contradiction(value)) if item.status == Status::Active => {
                    (false, value)
                }
                _ => continue,
            };
        let better = best.is_none_or(|(best_duplicate, best_value, best_item)| {
            (is_duplicate, value, std::cmp::Reverse(&item.id))
                > (best_duplicate, best_value, std::cmp::Reverse(&best_item.id))
        });
        if better {
            best = Some((is_duplicate, value, item));
        }
    }
    best.map(|(is_duplicate, value, item)| Related {
        id: item.id.clone(),
        path: item.source_path.clone(),
        status: item.status.name().to_owned(),
        relation: relation_name(is_duplicate).to_owned(),
        similarity: rounded(value),
    })
}

/// Whether two glob lists name the same scope (same patterns, in any order).
pub(crate) fn same_scope(left: &[String], right: &[String]) -> bool {
    if left.len() != right.len() {
        return false;
    }
    if left == right {
        return true;
    }
    let mut left: Vec<&String> = left.iter().collect();
    let mut right: Vec<&String> = right.iter().collect();
    left.sort();
    right.sort();
    left == right
}

/// Most suspected pairs reported by [`suspected_pairs`].
pub(crate) const MAX_PAIRS: usize = 50;

/// Two rules of one scope that look like a duplicate or a contradiction.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct SuspectedPair {
    /// The id that sorts first.
    pub first: String,
    /// The other id.
    pub second: String,
    /// `duplicate` or `contradiction`.
    pub relation: String,
    /// Jaccard similarity of content terms of the closest lines, 0 to 1, two decimals.
    pub similarity: f64,
    /// The two closest lines, quoted, and what they share.
    pub why: String,
}

/// Pairs of rules with `status` in `statuses` and the same scope whose closest lines are a
/// near-duplicate or (both active) a likely contradiction, sorted by relation (duplicates
/// first), then similarity (highest first), then ids; at most [`MAX_PAIRS`]. Only rules sharing
/// a content term are compared, found through an index of terms to rules.
#[must_use]
pub(crate) fn suspected_pairs(items: &[Item], statuses: &[Status]) -> Vec<SuspectedPair> {
    let rules: Vec<&Item> = items
        .iter()
        .filter(|item| item.kind == Kind::Rule && statuses.contains(&item.status))
        .collect();
    let lines: Vec<Vec<(String, Statement)>> = rules
        .iter()
        .map(|rule| {
            rule.body
                .lines()
                .map(|line| {
                    line.trim()
                        .trim_start_matches(['-', '*', '+', '#', '>'])
                        .trim()
                })
                .filter(|line| !line.is_empty())
                .map(|line| (line.to_owned(), Statement::of(line)))
                .filter(|(_, statement)| !statement.terms.is_empty())
                .collect()
        })
        .collect();
    let mut by_term: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (number, rule_lines) in lines.iter().enumerate() {
        let mut terms: Vec<&str> = rule_lines
            .iter()
            .flat_map(|(_, statement)| statement.terms.iter().map(String::as_str))
            .collect();
        terms.sort_unstable();
        terms.dedup();
        for term in terms {
            by_term.entry(term).or_default().push(number);
        }
    }
    let mut pairs = Vec::new();
    for (left, left_lines) in lines.iter().enumerate() {
        let mut partners: Vec<usize> = left_lines
            .iter()
            .flat_map(|(_, statement)| statement.terms.iter())
            .filter_map(|term| by_term.get(term.as_str()))
            .flatten()
            .copied()
            .filter(|right| *right > left)
            .collect();
        partners.sort_unstable();
        partners.dedup();
        for right in partners {
            if !same_scope(&rules[left].globs, &rules[right].globs) {
                continue;
            }
            let both_active =
                rules[left].status == Status::Active && rules[right].status == Status::Active;
            if let Some(pair) = closest(
                rules[left],
                rules[right],
                left_lines,
                &lines[right],
                both_active,
            ) {
                pairs.push(pair);
            }
        }
    }
    pairs.sort_by(|left, right| {
        (left.relation != "duplicate")
            .cmp(&(right.relation != "duplicate"))
            .then(right.similarity.total_cmp(&left.similarity))
            .then_with(|| (&left.first, &left.second).cmp(&(&right.first, &right.second)))
    });
    pairs.truncate(MAX_PAIRS);
    pairs
}

/// The strongest relation between any line of `left` and any line of `right`.
fn closest(
    left: &Item,
    right: &Item,
    left_lines: &[(String, Statement)],
    right_lines: &[(String, Statement)],
    contradiction_possible: bool,
) -> Option<SuspectedPair> {
    let mut best: Option<(bool, f64, &str, &str)> = None;
    for (left_text, left_statement) in left_lines {
        for (right_text, right_statement) in right_lines {
            let value = left_statement.similarity(right_statement);
            let opposite = left_statement.polarity.opposes(right_statement.polarity);
            let found = if opposite {
                (contradiction_possible && value >= similarity::CONTRADICTION_JACCARD)
                    .then_some(false)
            } else {
                (value >= similarity::DUPLICATE_JACCARD).then_some(true)
            };
            let Some(is_duplicate) = found else {
                continue;
            };
            if best.is_none_or(|(best_duplicate, best_value, _, _)| {
                (is_duplicate, value) > (best_duplicate, best_value)
            }) {
                best = Some((is_duplicate, value, left_text, right_text));
            }
        }
    }
    let (is_duplicate, value, left_text, right_text) = best?;
    let (first, second, left_text, right_text) = if left.id <= right.id {
        (left, right, left_text, right_text)
    } else {
        (right, left, right_text, left_text)
    };
    let scope = if left.globs.is_empty() {
        "global".to_owned()
    } else {
        left.globs.join(", ")
    };
    let how = if is_duplicate {
        "say the same"
    } else {
        "point opposite ways about the same thing"
    };
    Some(SuspectedPair {
        first: first.id.clone(),
        second: second.id.clone(),
        relation: relation_name(is_duplicate).to_owned(),
        similarity: rounded(value),
        why: format!(
            "same scope ({scope}); `{}` and `{}` {how} ({}% of content words shared)",
            shorten(left_text),
            shorten(right_text),
            (value * 100.0).round()
        ),
    })
}

/// `text` cut to 80 characters with `…`.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 80 {
        text.to_owned()
    } else {
        let cut: String = text.chars().take(79).collect();
        format!("{cut}…")
    }
}

/// The name a reply gives a relation: `duplicate`, else `contradiction`.
fn relation_name(is_duplicate: bool) -> &'static str {
    if is_duplicate {
        "duplicate"
    } else {
        "contradiction"
    }
}

/// A similarity rounded to two decimals, as replies show it.
fn rounded(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}
