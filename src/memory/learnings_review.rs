//! Checking learnings against the code (`review_learnings`, `ai-rulez learnings`): each one
//! not retired is current while every file it was read from still has its recorded git blob
//! id, else stale naming the files that changed or vanished; current learnings about a shared
//! file whose claims point opposite ways are listed as conflicting.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::learning_file::{Learning, load_all};
use super::learnings::{BlobCache, StaleSource};
use crate::error::Result;
use crate::learning::similarity::{self, Statement};
use crate::project::Project;

/// One learning as `review_learnings` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ReviewedLearning {
    /// Id (file stem).
    pub id: String,
    /// Project-relative path of the learning file.
    pub path: String,
    /// `current` (every source has its recorded blob id) or `stale`.
    pub status: String,
    /// The claim.
    pub claim: String,
    /// Paths of the files it was read from.
    pub sources: Vec<String>,
    /// For a stale learning: which sources changed or vanished.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_sources: Vec<StaleSource>,
    /// `created`, when written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}

/// Two current learnings about a shared file whose claims point opposite ways.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ConflictingLearnings {
    /// The first id (sorted).
    pub first: String,
    /// The second id.
    pub second: String,
    /// A source file both name.
    pub shared_source: String,
    /// Share of content words in common (0 to 1).
    pub similarity: f64,
}

/// What `review_learnings` (and `ai-rulez learnings`) reports.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct LearningsReview {
    /// Learnings not retired (with a path: those naming a file at or below it): stale ones
    /// first, each group sorted by id.
    pub learnings: Vec<ReviewedLearning>,
    /// How many more learnings were checked but left out of `learnings` to keep the reply
    /// short (see [`LearningsReview::keep_first`]).
    pub omitted: usize,
    /// How many of them are current.
    pub current: usize,
    /// How many of them are stale.
    pub stale: usize,
    /// Pairs of current learnings that may contradict each other.
    pub conflicting: Vec<ConflictingLearnings>,
    /// How many learnings are retired (not listed).
    pub retired: usize,
    /// Learning files that could not be read, each naming the file and the fix.
    pub problems: Vec<String>,
}

/// Checks every learning that is not retired against the files as they are now. With `path`
/// (project-relative; empty means the whole project), only learnings naming a file at or below
/// it are listed. Current learnings that share a source file and whose claims point opposite
/// ways (the contradiction test of the learning loop) are listed as conflicting.
///
/// Errors: the learnings folder cannot be listed.
pub(crate) fn review_learnings(project: &Project, path: Option<&str>) -> Result<LearningsReview> {
    let (learnings, problems) = load_all(project)?;
    let mut cache = BlobCache::default();
    let mut reviewed = Vec::new();
    let mut retired = 0;
    for learning in &learnings {
        if learning.retired.is_some() {
            retired += 1;
            continue;
        }
        if !names_path_under(learning, path.unwrap_or_default()) {
            continue;
        }
        let stale_sources = cache.stale_sources(project, learning);
        reviewed.push(ReviewedLearning {
            id: learning.id.clone(),
            path: learning.path.clone(),
            status: if stale_sources.is_empty() {
                "current"
            } else {
                "stale"
            }
            .to_owned(),
            claim: learning.claim.clone(),
            sources: learning.sources.iter().map(|s| s.path.clone()).collect(),
            stale_sources,
            created: learning.created.clone(),
        });
    }
    let conflicting = conflicts(&reviewed);
    let current = reviewed.iter().filter(|l| l.status == "current").count();
    // Stale learnings need someone to act, so they come first; `sort_by_key` keeps id order.
    reviewed.sort_by_key(|learning| learning.status != "stale");
    Ok(LearningsReview {
        stale: reviewed.len() - current,
        current,
        learnings: reviewed,
        omitted: 0,
        conflicting,
        retired,
        problems,
    })
}

impl LearningsReview {
    /// Keeps the first `limit` learnings of the listing (stale ones come first) and counts the
    /// rest in `omitted`; the counts and conflicting pairs still cover every learning.
    pub(crate) fn keep_first(&mut self, limit: usize) {
        if self.learnings.len() > limit {
            self.omitted += self.learnings.len() - limit;
            self.learnings.truncate(limit);
        }
    }
}

/// Whether `learning` names a file at or below the project-relative `path` (empty: any).
pub(super) fn names_path_under(learning: &Learning, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path.is_empty()
        || learning.sources.iter().any(|source| {
            source.path == path
                || source
                    .path
                    .strip_prefix(path)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
}

/// Pairs of current learnings sharing a source file whose claims contradict, sorted by ids:
/// the two claims point opposite ways and share at least
/// [`similarity::CONTRADICTION_JACCARD`] of their content words (the contradiction test of the
/// learning loop, applied to each claim as a whole). Only learnings naming a common file are
/// compared, each claim is reduced once, and each pair is compared once, so the cost grows with
/// the learnings per file, not with the square of all learnings.
fn conflicts(reviewed: &[ReviewedLearning]) -> Vec<ConflictingLearnings> {
    let mut by_source: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (index, learning) in reviewed.iter().enumerate() {
        if learning.status != "current" {
            continue;
        }
        for source in &learning.sources {
            by_source.entry(source).or_default().push(index);
        }
    }
    let mut statements: HashMap<usize, Statement> = HashMap::new();
    for index in by_source
        .values()
        .filter(|indices| indices.len() > 1)
        .flatten()
    {
        statements
            .entry(*index)
            .or_insert_with(|| Statement::of(&reviewed[*index].claim));
    }
    let mut compared: HashSet<(usize, usize)> = HashSet::new();
    let mut found: BTreeMap<(usize, usize), ConflictingLearnings> = BTreeMap::new();
    for (source, indices) in &by_source {
        for (position, first) in indices.iter().enumerate() {
            for second in &indices[position + 1..] {
                if !compared.insert((*first, *second)) {
                    continue;
                }
                let (left, right) = (&statements[first], &statements[second]);
                if !left.polarity.opposes(right.polarity) {
                    continue;
                }
                let score = left.similarity(right);
                if score >= similarity::CONTRADICTION_JACCARD {
                    found.insert(
                        (*first, *second),
                        ConflictingLearnings {
                            first: reviewed[*first].id.clone(),
                            second: reviewed[*second].id.clone(),
                            shared_source: (*source).to_owned(),
                            similarity: (score * 100.0).round() / 100.0,
                        },
                    );
                }
            }
        }
    }
    found.into_values().collect()
}

/// The review as text for people and models: counts, then one line per learning (with the
/// stale sources below it), conflict and unreadable file.
#[must_use]
pub(crate) fn review_text(review: &LearningsReview) -> String {
    let mut text = format!(
        "{} learning(s): {} current, {} stale, {} conflicting pair(s); {} retired.\n",
        review.learnings.len(),
        review.current,
        review.stale,
        review.conflicting.len(),
        review.retired
    );
    for learning in &review.learnings {
        text.push_str(&format!(
            "- {} [{}] {}\n",
            learning.id,
            learning.status,
            learning.claim.replace('\n', " ")
        ));
        for source in &learning.stale_sources {
            text.push_str(&format!("    {} {}\n", source.path, source.reason));
        }
    }
    if review.omitted > 0 {
        text.push_str(&format!(
            "({} more current learning(s) not listed; pass a `path` or a higher `limit`)\n",
            review.omitted
        ));
    }
    for pair in &review.conflicting {
        text.push_str(&format!(
            "- conflicting: {} / {} (both read {})\n",
            pair.first, pair.second, pair.shared_source
        ));
    }
    for problem in &review.problems {
        text.push_str(&format!("- not read: {problem}\n"));
    }
    text.trim_end().to_owned()
}
