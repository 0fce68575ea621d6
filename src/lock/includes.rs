//! The lock's `[[include]]` rows: the commit each git include is pinned at, and the digest of
//! the folder it reads from that commit. Rows are matched to `[[includes]]` entries of the
//! config by name, source (credentials masked), `ref` and `path`, so a pin applies only to the
//! entry it was made for; comparing them needs nothing but the config and the lock, so
//! `lock --check` stays offline.
//!
//! The rows are not part of the lock's `tree` digest, so an ai-rulez from before git includes
//! still reads a lock that has them; each row is checked where it is used instead (the checkout
//! of its commit must have its digest).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Change;
use crate::config::Include;

/// One `[[include]]` row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PinnedInclude {
    /// The include's `name` (or its masked source when it has none).
    pub name: String,
    /// The include's `source` as written, with credentials masked (`****`).
    pub source: String,
    /// The include's `ref` as written; absent for the default branch.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    /// The include's `path` without leading or trailing `/`; absent for the repository root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The pinned commit, 40 lowercase hex digits.
    pub commit: String,
    /// `sha256:<hex>`: the item digest of kind `include` over every regular file of the
    /// included folder at that commit (paths relative to it).
    pub digest: String,
}

impl PinnedInclude {
    /// Whether this row was made for `include` (same name, masked source, `ref` and `path`).
    #[must_use]
    pub(crate) fn is_for(&self, include: &Include) -> bool {
        let (source, git_ref, path) = identity(include);
        self.name == include.name
            && self.source == source
            && self.git_ref == git_ref
            && self.path == path
    }
}

/// What identifies a git include in the lock besides its name: (masked source, `ref`, `path`
/// without outer slashes, `None` when empty).
#[must_use]
pub(crate) fn identity(include: &Include) -> (String, Option<String>, Option<String>) {
    (
        crate::redact::mask_url_credentials(&include.source).into_owned(),
        include.git_ref.clone(),
        normalised_path(include.path.as_deref()),
    )
}

/// `path` without leading and trailing `/`; `None` when nothing is left.
#[must_use]
pub(crate) fn normalised_path(path: Option<&str>) -> Option<String> {
    path.map(|path| path.trim_matches('/').to_owned())
        .filter(|path| !path.is_empty())
}

/// The differences between the git includes of the config and the lock's rows: an entry
/// without a row (`added`), a row for a name whose source, `ref` or `path` changed (`changed`),
/// a row whose name the config no longer has (`removed`). Sorted by name.
#[must_use]
pub(crate) fn include_changes(rows: &[PinnedInclude], includes: &[Include]) -> Vec<Change> {
    let by_name: BTreeMap<&str, &PinnedInclude> =
        rows.iter().map(|row| (row.name.as_str(), row)).collect();
    let mut changes = BTreeMap::new();
    for include in includes {
        let (source, _, _) = identity(include);
        let change = match by_name.get(include.name.as_str()) {
            None => "added",
            Some(row) if !row.is_for(include) => "changed",
            Some(_) => continue,
        };
        let old = by_name
            .get(include.name.as_str())
            .map(|row| row.commit.clone());
        changes.insert(
            include.name.clone(),
            change_of(change, &include.name, source, old),
        );
    }
    for row in rows {
        if !includes.iter().any(|include| include.name == row.name) {
            changes.insert(
                row.name.clone(),
                change_of(
                    "removed",
                    &row.name,
                    row.source.clone(),
                    Some(row.commit.clone()),
                ),
            );
        }
    }
    changes.into_values().collect()
}

fn change_of(change: &'static str, name: &str, source: String, old: Option<String>) -> Change {
    Change {
        scope: "include",
        change,
        kind: "include".to_owned(),
        id: name.to_owned(),
        domain: String::new(),
        path: source,
        old,
        new: None,
        diff: None,
        detail: None,
        edited_from: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn include(name: &str, source: &str, git_ref: Option<&str>) -> Include {
        Include {
            name: name.to_owned(),
            source: source.to_owned(),
            path: Some("/rules/".to_owned()),
            git_ref: git_ref.map(str::to_owned),
            key: "includes[0]".to_owned(),
        }
    }

    fn row(name: &str, source: &str) -> PinnedInclude {
        PinnedInclude {
            name: name.to_owned(),
            source: source.to_owned(),
            git_ref: Some("v1".to_owned()),
            path: Some("rules".to_owned()),
            commit: "a".repeat(40),
            digest: "sha256:x".to_owned(),
        }
    }

    #[test]
    fn rows_match_entries_by_name_masked_source_ref_and_path() {
        let entry = include("shared", "git+https://u:secret@h/r.git", Some("v1"));
        assert!(row("shared", "git+https://u:****@h/r.git").is_for(&entry));
        assert!(!row("shared", "git+https://u:secret@h/r.git").is_for(&entry));
        let changes = include_changes(
            &[
                row("shared", "git+https://u:****@h/r.git"),
                row("old", "git://h/o.git"),
            ],
            &[
                include("shared", "git+https://u:secret@h/r.git", Some("v2")),
                include("new", "git://h/n.git", None),
            ],
        );
        let lines: Vec<String> = changes.iter().map(Change::line).collect();
        assert_eq!(
            lines,
            [
                "include added new (git://h/n.git)",
                "include removed old (git://h/o.git)",
                "include changed shared (git+https://u:****@h/r.git)",
            ]
        );
    }
}
