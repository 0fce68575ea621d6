//! Paged replies: the tools whose replies grow with the project (`list_items`, `generate_outputs`,
//! `validate_config`) send at most `limit` entries from `offset` and say where the rest starts,
//! so a project of thousands of items never sends a megabyte in one reply. One scheme for all:
//! the arguments `offset` (0-based, default 0) and `limit` (1-1000, default [`DEFAULT_LIMIT`]),
//! and a `page` object in the reply with `offset`, `total` and `next_offset` (`null` on the last
//! page). Entries keep the order of the whole list, so pages of an unchanged project join up.

use schemars::JsonSchema;
use serde::Serialize;

use crate::authoring::ItemSummary;
use crate::summary::{GenerateReport, PathStatus, ValidationReport};

/// Entries per page when a call gives no `limit`.
pub(crate) const DEFAULT_LIMIT: usize = 100;

/// Where a reply's entries lie in the whole list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub(crate) struct Page {
    /// Position of this reply's first entry in the whole list (0-based).
    pub(crate) offset: usize,
    /// Entries in the whole list.
    pub(crate) total: usize,
    /// The `offset` that fetches the next entries; `null` when this reply holds the last.
    pub(crate) next_offset: Option<usize>,
}

/// Keeps the entries of `all` from `offset` (default 0) on, at most `limit` (default
/// [`DEFAULT_LIMIT`]); the schema bounds `limit` to 1-1000, and an offset past the end gives
/// no entries. Returns the kept entries and their [`Page`].
pub(crate) fn cut<T>(all: Vec<T>, offset: Option<u32>, limit: Option<u32>) -> (Vec<T>, Page) {
    let total = all.len();
    let offset = offset.map_or(0, |offset| offset as usize).min(total);
    let limit = limit.map_or(DEFAULT_LIMIT, |limit| limit as usize).max(1);
    let end = offset.saturating_add(limit).min(total);
    let kept = all.into_iter().skip(offset).take(end - offset).collect();
    let next_offset = (end < total).then_some(end);
    (
        kept,
        Page {
            offset,
            total,
            next_offset,
        },
    )
}

/// `list_items` reply: one page of items.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ItemList {
    /// Items, by priority then name.
    pub(crate) items: Vec<ItemSummary>,
    /// Where these items lie among all matching items.
    pub(crate) page: Page,
}

/// `generate_outputs` reply: the run's status, and one page of its entries (every path status,
/// sorted by path, then every warning).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct GeneratePage {
    /// `ok`, or `drift` when a check found differences (over every path, not only this page).
    pub(crate) status: String,
    /// Path statuses of this page.
    pub(crate) changes: Vec<PathStatus>,
    /// Warnings of this page.
    pub(crate) warnings: Vec<String>,
    /// Where these entries lie in the list of every path status followed by every warning.
    pub(crate) page: Page,
}

impl GeneratePage {
    /// The page of `report` from `offset`, at most `limit` entries.
    pub(crate) fn of(report: GenerateReport, offset: Option<u32>, limit: Option<u32>) -> Self {
        let entries: Vec<Either<PathStatus, String>> = report
            .changes
            .into_iter()
            .map(Either::First)
            .chain(report.warnings.into_iter().map(Either::Second))
            .collect();
        let (kept, page) = cut(entries, offset, limit);
        let (changes, warnings) = split(kept);
        Self {
            status: report.status,
            changes,
            warnings,
            page,
        }
    }
}

/// An entry of a reply that pages over two lists as one: an entry of the first or the second.
enum Either<A, B> {
    First(A),
    Second(B),
}

/// Splits a page of [`Either`] entries back into its two lists, each in page order.
fn split<A, B>(entries: Vec<Either<A, B>>) -> (Vec<A>, Vec<B>) {
    let mut first = Vec::new();
    let mut second = Vec::new();
    for entry in entries {
        match entry {
            Either::First(value) => first.push(value),
            Either::Second(value) => second.push(value),
        }
    }
    (first, second)
}

/// `validate_config` reply: validity over every finding, and one page of findings (errors
/// first, then warnings).
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ValidationPage {
    /// Whether no error-severity finding remains (over every finding, not only this page).
    pub(crate) valid: bool,
    /// Error findings of this page (`file:line: CODE message`).
    pub(crate) errors: Vec<String>,
    /// Warning findings of this page (`file:line: CODE message`).
    pub(crate) warnings: Vec<String>,
    /// Where these findings lie in the list of every error followed by every warning.
    pub(crate) page: Page,
}

impl ValidationPage {
    /// The page of `report` from `offset`, at most `limit` findings.
    pub(crate) fn of(report: ValidationReport, offset: Option<u32>, limit: Option<u32>) -> Self {
        let valid = report.errors.is_empty();
        let findings: Vec<Either<String, String>> = report
            .errors
            .into_iter()
            .map(Either::First)
            .chain(report.warnings.into_iter().map(Either::Second))
            .collect();
        let (kept, page) = cut(findings, offset, limit);
        let (errors, warnings) = split(kept);
        Self {
            valid,
            errors,
            warnings,
            page,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_join_up_and_the_last_has_no_next_offset() {
        let all: Vec<u32> = (0..250).collect();
        let (first, page) = cut(all.clone(), None, None);
        assert_eq!(first, (0..100).collect::<Vec<_>>());
        assert_eq!(
            page,
            Page {
                offset: 0,
                total: 250,
                next_offset: Some(100)
            }
        );
        let (last, page) = cut(all.clone(), Some(200), Some(100));
        assert_eq!(last, (200..250).collect::<Vec<_>>());
        assert_eq!(page.next_offset, None);
        let (past, page) = cut(all, Some(900), None);
        assert!(past.is_empty());
        assert_eq!(
            page,
            Page {
                offset: 250,
                total: 250,
                next_offset: None
            }
        );
    }
}
