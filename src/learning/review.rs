//! A person's review of learned rules (`ai-rulez review`): the pending rules with their
//! evidence and what they may repeat or contradict, suspected pairs among the rules, rules not
//! sent lately; and the decisions. Approving removes `status` from a pending rule (or, for a
//! revision, merges its body and the frontmatter entries it sets into the rule it revises,
//! keeping that rule's other entries, and removes the revision file), rejecting
//! sets `status: rejected` with an optional `reason`, unpinning removes `always: true`. Every
//! decision is an ordinary edit of a rule file, so it shows in `git diff` and in the lock.

use std::sync::Arc;

use serde::Serialize;

use super::matching::{self, Related, SuspectedPair};
use super::organize::write_rule;
use super::usage;
use crate::content::{Item, Kind, Layer, Status};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::project::Project;
use crate::retrieval::Catalog;

/// A rule waiting for review, with what it may repeat or contradict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PendingRule {
    /// Rule id.
    pub id: String,
    /// Project-relative path.
    pub path: String,
    /// Title.
    pub title: String,
    /// `global` or its globs.
    pub scope: String,
    /// `source`, when written.
    pub source: Option<String>,
    /// `evidence`, when written.
    pub evidence: Option<String>,
    /// `refs`.
    pub refs: Vec<String>,
    /// `created`, when written.
    pub created: Option<String>,
    /// For a revision: the id of the rule it would replace.
    pub revises: Option<String>,
    /// Whether it is pinned (`always: true`).
    pub always: bool,
    /// The rule text.
    pub body: String,
    /// An existing rule it repeats or may contradict.
    pub related: Option<Related>,
}

/// What `ai-rulez review` lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ReviewList {
    /// Pending rules, sorted by id.
    pub pending: Vec<PendingRule>,
    /// How many rules are rejected.
    pub rejected: usize,
    /// Suspected duplicates and contradictions among active and pending rules.
    pub pairs: Vec<SuspectedPair>,
    /// Active rules not sent by `get_rules` in 90 days.
    pub unused: Vec<String>,
    /// Open requests to refresh an item ([`crate::memory::refresh`]), sorted by id.
    pub refresh_requests: Vec<crate::memory::refresh::RefreshRequest>,
    /// Refresh request files that could not be read, each naming the file and the fix.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refresh_problems: Vec<String>,
}

/// Lists what a person reviews in `project` (consumed: its catalog is built here).
#[must_use]
pub(crate) fn review_list(project: Project) -> ReviewList {
    let catalog = Catalog::new(Arc::new(project), Vec::new());
    let project = &catalog.project;
    let mut pending: Vec<PendingRule> = project
        .tree
        .items
        .iter()
        .filter(|item| item.kind == Kind::Rule && item.status == Status::Pending)
        .map(|item| pending_rule(&catalog, item))
        .collect();
    pending.sort_by(|left, right| left.id.cmp(&right.id));
    let rejected = project
        .tree
        .items
        .iter()
        .filter(|item| item.kind == Kind::Rule && item.status == Status::Rejected)
        .count();
    let (refresh_requests, refresh_problems) =
        crate::memory::refresh::list_requests(project, false)
            .unwrap_or_else(|error| (Vec::new(), vec![error.to_string()]));
    ReviewList {
        pending,
        rejected,
        pairs: matching::suspected_pairs(&project.tree.items, &[Status::Active, Status::Pending]),
        unused: usage::unused_rules(project),
        refresh_requests,
        refresh_problems,
    }
}

/// One rule in full for `review show`: its facts and its file text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ShownRule {
    /// `active`, `pending` or `rejected`.
    pub status: String,
    /// The facts `review` lists.
    #[serde(flatten)]
    pub rule: PendingRule,
    /// The whole file text.
    pub text: String,
}

/// The rule `id` of `project` for `review show`.
///
/// Errors: no rule has that id; its file cannot be read.
pub(crate) fn review_show(project: Project, id: &str) -> Result<ShownRule> {
    let catalog = Catalog::new(Arc::new(project), Vec::new());
    let item = find_rule(&catalog.project, id)?;
    let (bytes, _) = catalog
        .project
        .dir
        .read(&item.source_path, 8 * 1024 * 1024)?
        .ok_or_else(|| Error::refused(&item.source_path, "was removed meanwhile"))?;
    Ok(ShownRule {
        status: item.status.name().to_owned(),
        rule: pending_rule(&catalog, item),
        text: String::from_utf8_lossy(&bytes).into_owned(),
    })
}

fn pending_rule(catalog: &Catalog, item: &Item) -> PendingRule {
    let string = |key: &str| {
        item.frontmatter
            .get(key)
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    };
    let related = if item.revises.is_some() {
        None
    } else {
        matching::related_rule(catalog, &item.body, &item.globs, Some(&item.id))
    };
    PendingRule {
        id: item.id.clone(),
        path: item.source_path.clone(),
        title: item.title.clone(),
        scope: if item.globs.is_empty() {
            "global".to_owned()
        } else {
            item.globs.join(", ")
        },
        source: string("source"),
        evidence: item.evidence.clone(),
        refs: item.refs.clone(),
        created: item.created.clone(),
        revises: item.revises.clone(),
        always: item.always,
        body: item.body.trim().to_owned(),
        related,
    }
}

/// The outcome of one decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Decision {
    /// The rule id given.
    pub id: String,
    /// `approved`, `rejected`, `unpinned`, `unchanged` or `failed`.
    pub outcome: String,
    /// What happened, in one sentence (the file changed, or why nothing was done).
    pub message: String,
}

/// Approves each of `ids`: a pending or rejected rule becomes active; a revision replaces the
/// rule it revises. Each id is decided on its own; one failure does not stop the others.
///
/// Errors: [`Error::Busy`] when the writer lock is held elsewhere.
pub(crate) fn approve(project: &Project, ids: &[String]) -> Result<Vec<Decision>> {
    let _lock = project.dir.lock()?;
    Ok(ids
        .iter()
        .map(|id| decide(id, "approved", approve_one(project, id)))
        .collect())
}

/// Rejects each of `ids` (`status: rejected`, with `reason` when given).
///
/// Errors: [`Error::Busy`] when the writer lock is held elsewhere.
pub(crate) fn reject(
    project: &Project,
    ids: &[String],
    reason: Option<&str>,
) -> Result<Vec<Decision>> {
    let _lock = project.dir.lock()?;
    Ok(ids
        .iter()
        .map(|id| decide(id, "rejected", reject_one(project, id, reason)))
        .collect())
}

/// Unpins rule `id` (removes `always: true`).
///
/// Errors: [`Error::Busy`] when the writer lock is held elsewhere.
pub(crate) fn unpin(project: &Project, id: &str) -> Result<Decision> {
    let _lock = project.dir.lock()?;
    Ok(decide(id, "unpinned", unpin_one(project, id)))
}

fn decide(id: &str, done: &str, result: Result<Option<String>>) -> Decision {
    let (outcome, message) = match result {
        Ok(Some(message)) => (done, message),
        Ok(None) => (
            "unchanged",
            format!("rule `{id}` already is as asked; nothing changed"),
        ),
        Err(error) => ("failed", error.to_string()),
    };
    Decision {
        id: id.to_owned(),
        outcome: outcome.to_owned(),
        message,
    }
}

/// The rule `id`, written in this project's `.ai-rulez/` (not an include).
fn find_rule<'a>(project: &'a Project, id: &str) -> Result<&'a Item> {
    let item = project
        .tree
        .items
        .iter()
        .find(|item| item.kind == Kind::Rule && item.id == id)
        .ok_or_else(|| {
            Error::Usage(format!(
                "no rule has the id `{id}`; `ai-rulez review` lists the pending ones"
            ))
        })?;
    if let Layer::Include(_) = item.layer {
        return Err(Error::refused(
            &item.source_path,
            format!("rule `{id}` comes from an include; review it where it is written"),
        ));
    }
    Ok(item)
}

/// The file text of `item` with the top-level `drop` keys removed and `add` lines put first.
fn rewritten(item: &Item, drop: &[&str], add: &[String]) -> String {
    let yaml = frontmatter::rewrite_top_level(item.yaml.as_deref().unwrap_or_default(), drop, add);
    if yaml.is_empty() {
        item.body.clone()
    } else {
        format!("---\n{yaml}---\n{}", item.body)
    }
}

fn approve_one(project: &Project, id: &str) -> Result<Option<String>> {
    let item = find_rule(project, id)?;
    if item.is_active() {
        return Ok(None);
    }
    let Some(target) = &item.revises else {
        let text = rewritten(item, &["status", "reason"], &[]);
        write_rule(project, item, &text)?;
        return Ok(Some(format!(
            "rule `{id}` is active ({})",
            item.source_path
        )));
    };
    let original = find_rule(project, target)?;
    if !original.is_active() {
        return Err(Error::refused(
            &item.source_path,
            format!(
                "revises `{target}`, which is {}; approve or edit that rule first",
                original.status.name()
            ),
        ));
    }
    let text = merged_revision(original, item);
    write_rule(project, original, &text)?;
    project.dir.remove_file(&item.source_path)?;
    Ok(Some(format!(
        "rule `{target}` ({}) now has the revised text; the revision file {} is removed",
        original.source_path, item.source_path
    )))
}

/// Keys of a revision that describe the revision itself, not the rule: never copied onto the
/// rule it revises (which keeps its own `created` and `source`).
const REVISION_ONLY_KEYS: [&str; 5] = ["status", "revises", "reason", "created", "source"];

/// Keys that say where a rule applies; a revision that sets one replaces all of them.
const SCOPE_KEYS: [&str; 3] = ["scope", "globs", "paths"];

/// The file text of `original` revised by `revision`: the revision's body, and every
/// frontmatter entry the revision sets (title, triggers, always, scope when it differs,
/// evidence, refs, ...) in place of the original's; the original's other entries (priority,
/// created, source, keys ai-rulez does not know, comments) are kept as written.
fn merged_revision(original: &Item, revision: &Item) -> String {
    // A revision proposed without a scope carries the original's globs as a `scope`; the
    // original's own spelling of the same scope is then kept.
    let same_scope = matching::same_scope(&original.globs, &revision.globs);
    let yaml = frontmatter::merge_top_level(
        original.yaml.as_deref().unwrap_or_default(),
        revision.yaml.as_deref().unwrap_or_default(),
        |key| !(REVISION_ONLY_KEYS.contains(&key) || (same_scope && SCOPE_KEYS.contains(&key))),
        |key| {
            if SCOPE_KEYS.contains(&key) {
                "scope"
            } else {
                key
            }
        },
    );
    if yaml.is_empty() {
        revision.body.clone()
    } else {
        format!("---\n{yaml}---\n{}", revision.body)
    }
}

fn reject_one(project: &Project, id: &str, reason: Option<&str>) -> Result<Option<String>> {
    let item = find_rule(project, id)?;
    let current_reason = item
        .frontmatter
        .get("reason")
        .and_then(serde_json::Value::as_str);
    if item.status == Status::Rejected && reason.is_none_or(|reason| Some(reason) == current_reason)
    {
        return Ok(None);
    }
    let mut add = vec!["status: rejected".to_owned()];
    if let Some(reason) = reason.map(str::trim).filter(|reason| !reason.is_empty()) {
        add.push(format!("reason: {}", frontmatter::yaml_string(reason)));
    }
    let text = rewritten(item, &["status", "reason"], &add);
    write_rule(project, item, &text)?;
    Ok(Some(format!(
        "rule `{id}` is rejected ({}); it is neither generated nor served",
        item.source_path
    )))
}

fn unpin_one(project: &Project, id: &str) -> Result<Option<String>> {
    let item = find_rule(project, id)?;
    if !item.always {
        return Ok(None);
    }
    let text = rewritten(item, &["always"], &[]);
    write_rule(project, item, &text)?;
    Ok(Some(format!(
        "rule `{id}` is no longer sent on every call ({})",
        item.source_path
    )))
}
