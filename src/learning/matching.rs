//! Finding the existing rule a new one repeats or reverses, in the same scope. Candidates are
//! the active rules of the default view that share a search term with the new text (found with
//! the catalog's BM25 index, so a 5,000-rule project compares a handful of rules, not all), and
//! every rule outside that view (pending, rejected, or in a domain no profile selects), which is
//! few. Each candidate with the same globs is compared line by line ([`similarity::relation`]).

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
/// over a contradiction (which only an active rule can be); ties go to the smaller id.
#[must_use]
pub(crate) fn related_rule(catalog: &Catalog, text: &str, globs: &[String]) -> Option<Related> {
    let statement = Statement::of(text);
    if statement.terms.is_empty() {
        return None;
    }
    let items = &catalog.project.tree.items;
    let mut in_view = vec![false; items.len()];
    for position in catalog.rule_positions() {
        in_view[*position] = true;
    }
    let candidates = catalog.rules_sharing_terms(text).into_iter().chain(
        items
            .iter()
            .zip(&in_view)
            .filter(|(item, seen)| item.kind == Kind::Rule && !**seen)
            .map(|(item, _)| item),
    );
    let mut best: Option<(bool, f64, &Item)> = None;
    for item in candidates {
        if !same_scope(&item.globs, globs) {
            continue;
        }
        let (is_duplicate, value) = match similarity::relation(&statement, &item.title, &item.body)
        {
            Some(Relation::Duplicate(value)) => (true, value),
            Some(Relation::Contradiction(value)) if item.status == Status::Active => (false, value),
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
        relation: if is_duplicate {
            "duplicate"
        } else {
            "contradiction"
        }
        .to_owned(),
        similarity: (value * 100.0).round() / 100.0,
    })
}

/// Whether two glob lists name the same scope (same patterns, in any order).
pub(crate) fn same_scope(left: &[String], right: &[String]) -> bool {
    if left.len() != right.len() {
        return false;
    }
    let mut left: Vec<&String> = left.iter().collect();
    let mut right: Vec<&String> = right.iter().collect();
    left.sort();
    right.sort();
    left == right
}
