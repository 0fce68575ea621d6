//! The one ranked candidate set of a `get_rules` call: every rule, context file and skill that
//! applies to the paths, with the evidence that it matters for the task (how specific its scope
//! is, how well its fields match the task, its priority, `always`), and the decision to send it.
//! The weights and the threshold were chosen on the labelled cases of `bench/selection/`
//! (`bench/selection/tune.py` prints them); see that README for the numbers.

use std::borrow::Cow;

use globset::Candidate;
use serde::Serialize;

use super::relevance::{Field, Query, count_as_float};
use super::{Catalog, RulesRequest, applies_with, estimate_tokens, is_pinned};
use crate::content::{Item, Kind, Priority};

/// The weights of the evidence, fitted by `bench/selection/tune.py` (a class-balanced logistic
/// regression on the tuning projects of the labelled set): the strength of a candidate is
/// `BIAS` plus each weight times its feature, a log-odds that the item must be read, plus
/// `log_tokens` times ln(tokens / 100), the cost of its size, which the tuner chose with the
/// thresholds after the fit rather than fitting it as evidence.
struct Weights {
    scope: f64,
    priority: f64,
    scoped_priority: f64,
    relative: f64,
    score: f64,
    head: f64,
    coverage: f64,
    path: f64,
    trigger: f64,
    skill: f64,
    context: f64,
    log_tokens: f64,
    score_rank: f64,
    path_rank: f64,
    mention: f64,
}

const WEIGHTS: Weights = Weights {
    scope: 1.852,
    priority: 1.564,
    scoped_priority: 1.502,
    relative: 2.152,
    score: 1.692,
    head: 1.829,
    coverage: 1.225,
    path: 1.664,
    trigger: 1.491,
    skill: -2.157,
    context: -2.031,
    score_rank: 1.160,
    path_rank: 1.898,
    mention: 0.311,
    log_tokens: -1.000,
};
const BIAS: f64 = -4.519;
/// Half-saturation points that squash unbounded BM25 scores into 0..1 (`x / (x + half)`).
const SCORE_HALF: f64 = 4.0;
const HEAD_HALF: f64 = 2.0;
/// A rule or context file is sent when its strength reaches this; chosen by `tune.py` as the
/// highest recall on the tuning projects within 24 % of the eligible tokens.
const THRESHOLD: f64 = -0.5;
/// A skill (a whole procedure, often long) is sent when its strength reaches this.
const SKILL_THRESHOLD: f64 = -0.5;
/// When every item the decision leaves out costs, all together, at most this share of the
/// tokens of the items it sends, they are sent too: the agent then has everything that applies
/// for at most a quarter more reading, and no left-out item can be the one it needed. The
/// labelled set's tuning projects cannot tell shares from 0.1 to 0.5 apart (none of their cases
/// changes); on the held-out projects 0.1 to 0.5 also act alike, so a quarter is a round value
/// inside that range, not a fitted one (see `bench/selection/README.md`).
pub(crate) const COMPLETION_SHARE: f64 = 0.25;
/// The reason an item sent by [`COMPLETION_SHARE`] carries; it names that share.
const COMPLETION_REASON: &str =
    "sent with the rest: what was left out adds at most a quarter to this reply";
/// Items left out whose strength is within this of the threshold are listed with a summary
/// line; the others by kind and id only, to keep the reply small.
pub(crate) const NEAR_MISS: f64 = 2.0;

/// An item that applies to the call's paths: its number in the catalog's `knowledge`, how
/// specific the most specific glob that matched is, and why it applies.
#[derive(Debug, Clone)]
pub(crate) struct Eligible {
    pub(crate) number: usize,
    pub(crate) scope: f64,
    pub(crate) exact: bool,
    /// A fixed phrase for global items (most of a large project's candidates), so listing them
    /// allocates nothing.
    pub(crate) why: Cow<'static, str>,
}

/// What ranking reads of one item of the catalog on every call, kept apart from the item so a
/// call over hundreds of candidates reads one short array instead of each item's fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EntryFacts {
    pub(crate) kind: Kind,
    /// Sent whatever the task ([`is_pinned`]).
    pub(crate) pinned: bool,
    /// [`priority_value`] of its priority.
    pub(crate) priority: f64,
    /// [`item_tokens`].
    pub(crate) tokens: usize,
    /// Estimated tokens of its body alone.
    pub(crate) body_tokens: usize,
}

impl EntryFacts {
    /// The facts of `item`.
    pub(crate) fn of(item: &Item) -> Self {
        Self {
            kind: item.kind,
            pinned: is_pinned(item),
            priority: priority_value(item.priority),
            tokens: item_tokens(item),
            body_tokens: estimate_tokens(item.body.trim()),
        }
    }
}

/// The evidence about one eligible item, as `bench/selection/tune.py` reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CandidateFeatures {
    /// `rule`, `context` or `skill`.
    pub kind: &'static str,
    /// Item id (filled in by [`candidate_features`] only: a `get_rules` call does not need it).
    pub id: String,
    /// Sent whatever the task (`always: true`, or an explicit `activation: always`).
    pub always: bool,
    /// Scope specificity, 0 (global) to 1.
    pub scope: f64,
    /// Whether a glob without wildcards names one of the paths: the item was written for
    /// exactly this file, so it is sent whatever the task says.
    pub exact: bool,
    /// Priority as a number: critical 1, high 0.75, medium 0.5, low 0.25, minimal 0.
    pub priority: f64,
    /// BM25F score of the item against the task (0 without one).
    pub score: f64,
    /// `score` over the best score among the call's candidates that are not `always`.
    pub relative: f64,
    /// The part of `score` from the title, triggers and description.
    pub head: f64,
    /// The share of the task's words the item holds, 0 to 1.
    pub coverage: f64,
    /// BM25F score of the item against the words of the paths (folders, file names).
    pub path: f64,
    /// Whether every word of one of its triggers is in the task.
    pub trigger: bool,
    /// 1 / its place among the candidates by `score` (0 when `score` is 0).
    pub score_rank: f64,
    /// 1 / its place among the candidates by `path` (0 when `path` is 0).
    pub path_rank: f64,
    /// How specific a path its text names is to the call's paths, 0 (none covers them) to 1
    /// (it names one of them); see `mentions.rs`.
    pub mention: f64,
    /// Estimated tokens of its full text as a reply carries it (body, title and framing).
    pub tokens: usize,
    /// Estimated tokens of its body alone.
    pub body_tokens: usize,
    /// Estimated tokens of its line in the list of items left out.
    pub listed_tokens: usize,
    /// Whether the decision sends it.
    pub chosen: bool,
    /// Whether it is sent only because everything the decision left out is small next to what
    /// it sends (see [`COMPLETION_SHARE`]).
    pub completes: bool,
}

/// How specific one glob is, from 0 to 1: a quarter per literal folder level (at most three)
/// and a quarter for a file-name part other than `*` or `**`; a glob without wildcards names
/// one file and is 1.
fn glob_specificity(glob: &str) -> f64 {
    let pattern = glob.trim_start_matches("./").trim_start_matches('/');
    if !pattern.contains(['*', '?', '[', '{']) {
        return 1.0;
    }
    let levels = super::glob_prefix(pattern).matches('/').count().min(3);
    let name = pattern.rsplit('/').next().unwrap_or_default();
    let named = usize::from(name != "*" && name != "**");
    f64::from(u32::try_from(levels + named).unwrap_or(4).min(4)) / 4.0
}

/// Priority as a number (see [`CandidateFeatures::priority`]).
fn priority_value(priority: Priority) -> f64 {
    match priority {
        Priority::Critical => 1.0,
        Priority::High => 0.75,
        Priority::Medium => 0.5,
        Priority::Low => 0.25,
        Priority::Minimal => 0.0,
    }
}

/// Everything in `catalog` that applies to the project-relative `paths` (each with whether it
/// is a folder), in `knowledge` order; an empty `paths` means the whole project.
pub(crate) fn eligible(catalog: &Catalog, paths: &[(String, bool)], whole: bool) -> Vec<Eligible> {
    if whole {
        return (0..catalog.knowledge.len())
            .map(|number| Eligible {
                number,
                scope: 0.0,
                exact: false,
                why: Cow::Borrowed(if catalog.is_global(number) {
                    "applies everywhere"
                } else {
                    "covers the project"
                }),
            })
            .collect();
    }
    if paths.is_empty() {
        return Vec::new();
    }
    // Each scoped item a path matches, in the order the paths and items are visited; a call
    // matches a few of a large project's items, so they are gathered apart and merged with the
    // global ones, instead of filling a slot for every item.
    let mut found: Vec<Eligible> = Vec::new();
    for (path, folder) in paths {
        let candidate = Candidate::new(path.as_str());
        // A folder may be covered by globs inside it, which the prefix table cannot find, so
        // folders test every scoped item; files test only the items filed under their folders.
        let numbers: Vec<usize> = if *folder {
            (0..catalog.knowledge.len()).collect()
        } else {
            catalog.candidates_for_file(path)
        };
        for number in numbers {
            let Some(matcher) = catalog.matcher(number) else {
                continue;
            };
            let item = catalog.entry(number);
            let Some(why) = applies_with(item, matcher, &candidate, path, *folder) else {
                continue;
            };
            let matching_globs = matcher.matches_candidate(&candidate);
            let exact = !*folder
                && matching_globs
                    .iter()
                    .filter_map(|index| item.globs.get(*index))
                    .any(|glob| !glob.contains(['*', '?', '[', '{']));
            let specificity = if matching_globs.is_empty() {
                item.globs
                    .iter()
                    .map(|glob| glob_specificity(glob))
                    .fold(0.0, f64::max)
            } else {
                matching_globs
                    .iter()
                    .filter_map(|index| item.globs.get(*index))
                    .map(|glob| glob_specificity(glob))
                    .fold(0.0, f64::max)
            };
            found.push(Eligible {
                number,
                scope: specificity,
                exact,
                why: Cow::Owned(why),
            });
        }
    }
    // Of an item's matches, the best one ([`is_better_match`]) gives the scope and the reason,
    // and any exact one makes the item exact; neither depends on the order of the paths.
    found.sort_by_key(|entry| entry.number);
    let mut scoped: Vec<Eligible> = Vec::with_capacity(found.len());
    for entry in found {
        match scoped.last_mut() {
            Some(kept) if kept.number == entry.number => {
                let exact = kept.exact || entry.exact;
                if is_better_match(&entry, kept) {
                    *kept = entry;
                }
                kept.exact = exact;
            }
            _ => scoped.push(entry),
        }
    }
    let globals = catalog.global_numbers().iter().map(|number| Eligible {
        number: *number,
        scope: 0.0,
        exact: false,
        why: Cow::Borrowed("applies everywhere"),
    });
    let mut all: Vec<Eligible> = Vec::with_capacity(scoped.len() + catalog.global_numbers().len());
    let mut scoped = scoped.into_iter().peekable();
    for global in globals {
        while let Some(entry) = scoped.next_if(|entry| entry.number < global.number) {
            all.push(entry);
        }
        all.push(global);
    }
    all.extend(scoped);
    all
}

/// Whether `candidate` describes why an item applies better than `kept` (two matches of the
/// same item, from different paths or globs): the more specific scope wins, then an exact
/// match, then the reason that sorts first, so the reply is the same whatever the order of the
/// paths the caller gave.
fn is_better_match(candidate: &Eligible, kept: &Eligible) -> bool {
    candidate
        .scope
        .total_cmp(&kept.scope)
        .then(candidate.exact.cmp(&kept.exact))
        .then(kept.why.cmp(&candidate.why))
        .is_gt()
}

/// The evidence for each of `eligible` against `query` (in the same order), with the decision.
pub(crate) fn features(
    catalog: &Catalog,
    eligible: &[Eligible],
    query: &Query,
    paths: &[(String, bool)],
) -> Vec<CandidateFeatures> {
    let known = catalog.relevance().known(query);
    let path_terms = path_query(paths);
    let named_paths: Vec<&str> = paths.iter().map(|(path, _)| path.as_str()).collect();
    let numbers: Vec<usize> = eligible.iter().map(|entry| entry.number).collect();
    let matches = catalog.relevance().score_many(&known, &numbers);
    let path_known = catalog.relevance().known(&path_terms);
    let path_matches = catalog.relevance().score_many(&path_known, &numbers);
    catalog.find_mentions(&numbers);
    let best = eligible
        .iter()
        .zip(&matches)
        .filter(|(entry, _)| !catalog.facts(entry.number).pinned)
        .map(|(_, found)| found.score)
        .fold(0.0, f64::max);
    let mut all: Vec<CandidateFeatures> = eligible
        .iter()
        .zip(matches)
        .zip(path_matches)
        .map(|((entry, found), path_found)| {
            let facts = catalog.facts(entry.number);
            CandidateFeatures {
                kind: facts.kind.noun(),
                id: String::new(),
                always: facts.pinned,
                scope: entry.scope,
                exact: entry.exact,
                priority: facts.priority,
                score: found.score,
                relative: if best > 0.0 { found.score / best } else { 0.0 },
                head: found.head,
                coverage: found.coverage,
                path: path_found.score,
                trigger: found.trigger,
                score_rank: 0.0,
                path_rank: 0.0,
                mention: catalog.mention(entry.number, &named_paths),
                tokens: facts.tokens,
                body_tokens: facts.body_tokens,
                // Only the tuner needs this; `candidate_features` fills it in.
                listed_tokens: 0,
                chosen: false,
                completes: false,
            }
        })
        .collect();
    rank_among_candidates(
        &mut all,
        |features| features.score,
        |features, rank| {
            features.score_rank = rank;
        },
    );
    rank_among_candidates(
        &mut all,
        |features| features.path,
        |features, rank| {
            features.path_rank = rank;
        },
    );
    for (features, entry) in all.iter_mut().zip(eligible) {
        let kind = catalog.facts(entry.number).kind;
        features.chosen =
            features.always || features.exact || strength(features) >= threshold(kind);
    }
    complete_when_the_rest_is_small(&mut all);
    all
}

/// Marks every candidate left out as chosen (and `completes`) when their tokens all together are
/// at most [`COMPLETION_SHARE`] of the chosen candidates' tokens; a call that chooses nothing
/// stays empty.
fn complete_when_the_rest_is_small(all: &mut [CandidateFeatures]) {
    let tokens_where = |chosen: bool| {
        all.iter()
            .filter(|features| features.chosen == chosen)
            .map(|features| features.tokens)
            .sum::<usize>()
    };
    let sent = tokens_where(true);
    let rest = tokens_where(false);
    if rest == 0 || sent == 0 || count_as_float(rest) > COMPLETION_SHARE * count_as_float(sent) {
        return;
    }
    for features in all.iter_mut().filter(|features| !features.chosen) {
        features.chosen = true;
        features.completes = true;
    }
}

/// Sets each candidate's place among those not pinned, by `value` (best first, ties in
/// candidate order), as 1 / place; 0 for a pinned candidate or a value of 0.
fn rank_among_candidates(
    all: &mut [CandidateFeatures],
    value: impl Fn(&CandidateFeatures) -> f64,
    set: impl Fn(&mut CandidateFeatures, f64),
) {
    let mut order: Vec<usize> = (0..all.len()).filter(|index| !all[*index].always).collect();
    order.sort_by(|left, right| value(&all[*right]).total_cmp(&value(&all[*left])));
    for (place, index) in order.into_iter().enumerate() {
        if value(&all[index]) > 0.0 {
            let place = f64::from(u32::try_from(place + 1).unwrap_or(u32::MAX));
            set(&mut all[index], 1.0 / place);
        }
    }
}

/// How strongly the evidence says the item matters: a log-odds (see [`WEIGHTS`]).
#[must_use]
pub(crate) fn strength(features: &CandidateFeatures) -> f64 {
    let flag = |set: bool| if set { 1.0 } else { 0.0 };
    let tokens = f64::from(u32::try_from(features.tokens.max(1)).unwrap_or(u32::MAX));
    BIAS + WEIGHTS.scope * features.scope
        + WEIGHTS.priority * features.priority
        + WEIGHTS.scoped_priority * features.scope * features.priority
        + WEIGHTS.relative * features.relative
        + WEIGHTS.score * features.score / (features.score + SCORE_HALF)
        + WEIGHTS.head * features.head / (features.head + HEAD_HALF)
        + WEIGHTS.coverage * features.coverage
        + WEIGHTS.path * features.path / (features.path + SCORE_HALF)
        + WEIGHTS.trigger * flag(features.trigger)
        + WEIGHTS.skill * flag(features.kind == "skill")
        + WEIGHTS.context * flag(features.kind == "context")
        + WEIGHTS.log_tokens * (tokens / 100.0).ln()
        + WEIGHTS.score_rank * features.score_rank
        + WEIGHTS.path_rank * features.path_rank
        + WEIGHTS.mention * features.mention
}

/// The strength at which an item of `kind` is sent.
pub(crate) fn threshold(kind: Kind) -> f64 {
    if kind == Kind::Skill {
        SKILL_THRESHOLD
    } else {
        THRESHOLD
    }
}

/// The words of the call's paths as a query: folder and file names name what a change touches
/// (`CHANGELOG.md`, `migrations`, `Cargo.toml`), and items often name them too.
fn path_query(paths: &[(String, bool)]) -> Query {
    let text: Vec<&str> = paths.iter().map(|(path, _)| path.as_str()).collect();
    Query::of(&text.join(" "))
}

/// Estimated tokens of an item's full text as a reply carries it.
pub(crate) fn item_tokens(item: &Item) -> usize {
    estimate_tokens(item.body.trim()) + estimate_tokens(&item.title) + 20
}

/// Why a chosen item was sent, in a few words: whether its scope matched, the task's words it
/// holds, the words related to the task's it holds, and whether its text names a folder or
/// file of the paths (the heading it goes under shows its priority and globs already).
pub(crate) fn reason(
    catalog: &Catalog,
    entry: &Eligible,
    features: &CandidateFeatures,
    query: &Query,
) -> String {
    if features.completes {
        return COMPLETION_REASON.to_owned();
    }
    let mut parts = Vec::new();
    if features.scope > 0.0 {
        parts.push("scope matches".to_owned());
    }
    // Every sent item carries its reason, so the words are grouped by field in one short
    // clause ("task words: write, migration (title); adds (text)") rather than a sentence each.
    let words = catalog.relevance().matched_words(query, entry.number, 3);
    let mut held_by_field = Vec::new();
    for (field, name) in [
        (Field::Title, "title"),
        (Field::Triggers, "triggers"),
        (Field::Description, "description"),
        (Field::Body, "text"),
    ] {
        let held: Vec<&str> = words
            .iter()
            .filter(|(_, found)| *found == field)
            .map(|(word, _)| word.as_str())
            .collect();
        if !held.is_empty() {
            held_by_field.push(format!("{} ({name})", held.join(", ")));
        }
    }
    if !held_by_field.is_empty() {
        parts.push(format!("task words: {}", held_by_field.join("; ")));
    }
    let related = catalog.relevance().matched_related(query, entry.number, 3);
    if !related.is_empty() {
        parts.push(format!("related words: {}", related.join(", ")));
    }
    if features.mention > 0.0 {
        parts.push("its text names this path".to_owned());
    }
    if parts.is_empty() {
        "relevant to the task".to_owned()
    } else {
        parts.join("; ")
    }
}

/// The features of every candidate of a `get_rules` call with `request`, as the tuner reads
/// them, in the order of the catalog; empty without a task, or for a task of only stopwords,
/// punctuation or symbols, which `get_rules` does not rank either (it sends every rule that
/// applies).
#[must_use]
pub fn candidate_features(catalog: &Catalog, request: &RulesRequest) -> Vec<CandidateFeatures> {
    let query = Query::with_related(&super::rules::task_text(request));
    if !query.has_words() {
        return Vec::new();
    }
    let paths = super::rules::resolve_paths(catalog, &request.paths).0;
    let eligible = eligible(catalog, &paths, request.paths.is_empty());
    let mut all = features(catalog, &eligible, &query, &paths);
    for (features, entry) in all.iter_mut().zip(&eligible) {
        let item = catalog.entry(entry.number);
        features.id.clone_from(&item.id);
        features.listed_tokens = estimate_tokens(&super::left_out_line(item));
    }
    all
}

#[cfg(test)]
mod tests {
    use super::glob_specificity;

    #[test]
    fn deeper_and_narrower_globs_are_more_specific() {
        assert!((glob_specificity("services/ledger/src/**/*.rs") - 1.0).abs() < f64::EPSILON);
        assert!((glob_specificity("web/src/**/*.tsx") - 0.75).abs() < f64::EPSILON);
        assert!((glob_specificity("infra/**") - 0.25).abs() < f64::EPSILON);
        assert!((glob_specificity("**/*.md") - 0.25).abs() < f64::EPSILON);
        assert!((glob_specificity("ml/pyproject.toml") - 1.0).abs() < f64::EPSILON);
    }
}
