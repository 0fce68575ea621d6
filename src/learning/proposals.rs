//! `propose_rules`: a batch of rules an agent decided to keep, each checked and saved on its
//! own, so one bad entry never blocks the others. Each entry is validated (title of 3–6 words,
//! at most 12 triggers of 40 characters, scope, evidence, refs), screened ([`risk::judge`]),
//! compared with the project's rules and the entries saved before it in the same call, and then
//! saved: active only when `[learning] auto_activate` is on and nothing is risky or
//! contradictory, else pending. An entry with `revises` saves a pending revision of an active
//! rule (`<id>-revision.md`), which `ai-rulez review approve` turns into the rule's new text.
//! Links the agent dismissed are remembered in the ledger (`.ai-rulez/local/ledger.json`).

use serde::Serialize;

use super::draft::{self, Draft, Saved};
use super::ledger;
use super::matching::{self, Related};
use super::similarity::{self, Statement};
use super::{fields, risk};
use crate::confined_fs::ProjectLock;
use crate::content::{Item, Kind, Source, Status};
use crate::error::Result;
use crate::retrieval::Catalog;

/// Most entries read from one call; the rest are named as ignored.
pub(crate) const MAX_PROPOSALS: usize = 40;

/// Longest rule body of a proposal, in characters.
pub(crate) const MAX_BODY_CHARS: usize = 2_000;

/// One proposed rule.
#[derive(Debug, Clone, Default)]
pub(crate) struct Proposal {
    /// 3–6 words.
    pub title: String,
    /// The rule text: short, imperative, self-contained.
    pub body: String,
    /// Words or phrases a task contains when the rule matters.
    pub triggers: Vec<String>,
    /// Sent on every `get_rules` call for its scope.
    pub always: bool,
    /// `global` (default), `section:<folder>` or `glob:<patterns>`.
    pub scope: Option<String>,
    /// Why, in a few words.
    pub evidence: Option<String>,
    /// Links, paths or commit ids it came from.
    pub refs: Vec<String>,
    /// The id of an active rule this entry would replace after review.
    pub revises: Option<String>,
}

/// What happened to one entry.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ProposalResult {
    /// Position of the entry in the call, from 0.
    pub index: usize,
    /// `saved`, `already_known` or `refused`.
    pub outcome: String,
    /// The saved rule's id, or the id of the rule that already says it.
    pub id: Option<String>,
    /// Project-relative path of that rule's file.
    pub path: Option<String>,
    /// `active` or `pending` for a saved entry; the known rule's status for `already_known`.
    pub status: Option<String>,
    /// Why it was refused.
    pub reason: Option<String>,
    /// Why it is pending although auto-activation is on: screening findings.
    pub risks: Vec<String>,
    /// The active rule it may contradict.
    pub contradicts: Option<Related>,
}

/// The reply of `propose_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ProposalsReply {
    /// One result per entry read, in call order.
    pub results: Vec<ProposalResult>,
    /// How many entries beyond the first 40 were not read.
    pub ignored: usize,
    /// How many dismissed links were added to the ledger.
    pub dismissed: usize,
    /// A summary for the user: counts, what was activated, what waits for approval.
    pub message: String,
}

/// Saves `proposals` (the first [`MAX_PROPOSALS`]) into the catalog's project and records the
/// `dismiss` links (see the module documentation). The caller holds the project's writer lock
/// (`_held`) and took it before bringing `catalog` up to date, so the duplicate checks see every
/// rule saved before, by any process. Returns the reply and the rule files written, in entry
/// order.
///
/// Errors: a ledger that ai-rulez did not write, I/O. A bad entry is a `refused` result, never
/// an error.
pub(crate) fn propose_rules(
    catalog: &Catalog,
    proposals: &[Proposal],
    dismiss: &[String],
    _held: &ProjectLock,
) -> Result<(ProposalsReply, Vec<Saved>)> {
    let project = &catalog.project;
    let mut written = Vec::new();
    let mut saved_here: Vec<(Statement, Vec<String>, String, String)> = Vec::new();
    let mut results = Vec::new();
    for (index, proposal) in proposals.iter().take(MAX_PROPOSALS).enumerate() {
        let result = match check(catalog, proposal, &saved_here) {
            Err(reason) => refused(index, reason),
            Ok(Checked::Known(known)) => ProposalResult {
                index,
                outcome: "already_known".to_owned(),
                id: Some(known.id),
                path: Some(known.path),
                status: Some(known.status),
                reason: None,
                risks: Vec::new(),
                contradicts: None,
            },
            Ok(Checked::Save(draft, globs, risks, contradicts)) => {
                let base = draft.revises.as_ref().map(|id| format!("{id}-revision"));
                match draft::save(project, &draft, base.as_deref()) {
                    Ok(saved) => {
                        saved_here.push((
                            Statement::of(&draft.body),
                            globs,
                            saved.id.clone(),
                            saved.path.clone(),
                        ));
                        let result = ProposalResult {
                            index,
                            outcome: "saved".to_owned(),
                            id: Some(saved.id.clone()),
                            path: Some(saved.path.clone()),
                            status: Some(draft.status.name().to_owned()),
                            reason: None,
                            risks,
                            contradicts,
                        };
                        written.push(saved);
                        result
                    }
                    Err(error) => refused(index, error.to_string()),
                }
            }
        };
        results.push(result);
    }
    let refs: Vec<String> = proposals
        .iter()
        .take(MAX_PROPOSALS)
        .flat_map(|proposal| proposal.refs.iter().cloned())
        .collect();
    let dismissed = if dismiss.is_empty() && refs.is_empty() {
        0
    } else {
        ledger::remember(project, dismiss, &refs)?
    };
    let ignored = proposals.len().saturating_sub(MAX_PROPOSALS);
    let message = summary(&results, ignored);
    let reply = ProposalsReply {
        results,
        ignored,
        dismissed,
        message,
    };
    Ok((reply, written))
}

fn refused(index: usize, reason: String) -> ProposalResult {
    ProposalResult {
        index,
        outcome: "refused".to_owned(),
        id: None,
        path: None,
        status: None,
        reason: Some(reason),
        risks: Vec::new(),
        contradicts: None,
    }
}

/// What checking one entry decided.
enum Checked {
    /// A rule already says it.
    Known(Related),
    /// Save this draft (with its scope's globs, its risks and the rule it may contradict).
    Save(Box<Draft>, Vec<String>, Vec<String>, Option<Related>),
}

/// Validates, screens and compares one entry.
///
/// Errors: the reason it is refused, in one sentence.
fn check(
    catalog: &Catalog,
    proposal: &Proposal,
    saved_here: &[(Statement, Vec<String>, String, String)],
) -> std::result::Result<Checked, String> {
    let project = &catalog.project;
    let title = fields::title(&proposal.title)?;
    let body = proposal.body.trim();
    if body.is_empty() {
        return Err("`body` is empty; write the rule as one short imperative text".to_owned());
    }
    let length = body.chars().count();
    if length > MAX_BODY_CHARS {
        return Err(format!(
            "`body` is {length} characters long; keep a rule to {MAX_BODY_CHARS}"
        ));
    }
    let triggers = fields::triggers(&proposal.triggers)?;
    let evidence = fields::evidence(proposal.evidence.as_deref())?;
    let refs = fields::refs(&proposal.refs)?;
    let revised = match &proposal.revises {
        None => None,
        Some(id) => Some(revised_rule(catalog, id)?),
    };
    let scope = match (&proposal.scope, revised) {
        (Some(scope), _) => fields::scope(scope)?,
        (None, Some(rule)) if !rule.globs.is_empty() => {
            format!("glob:{}", rule.globs.join(","))
        }
        (None, _) => "global".to_owned(),
    };
    let globs = crate::scope::scope_globs(&scope).unwrap_or_default();
    let screened = format!(
        "{title}\n{body}\n{}\n{}",
        triggers.join("\n"),
        evidence.as_deref().unwrap_or_default()
    );
    let judgement = risk::judge(project, &screened);
    if !judgement.refusals.is_empty() {
        return Err(judgement.refusals.join("; "));
    }
    let mut contradicts = None;
    if revised.is_none() {
        let statement = Statement::of(body);
        for (earlier, earlier_globs, id, path) in saved_here {
            let same = matching::same_scope(earlier_globs, &globs);
            if same
                && statement.similarity(earlier) >= similarity::DUPLICATE_JACCARD
                && statement.polarity == earlier.polarity
            {
                return Ok(Checked::Known(Related {
                    id: id.clone(),
                    path: path.clone(),
                    status: "saved in this call".to_owned(),
                    relation: "duplicate".to_owned(),
                    similarity: (statement.similarity(earlier) * 100.0).round() / 100.0,
                }));
            }
        }
        match matching::related_rule(catalog, body, &globs, None) {
            Some(known) if known.relation == "duplicate" => return Ok(Checked::Known(known)),
            other => contradicts = other,
        }
    }
    let active = project.config.learning_auto_activate
        && judgement.risks.is_empty()
        && contradicts.is_none()
        && revised.is_none();
    let always = proposal.always || revised.is_some_and(|rule| rule.always);
    let draft = Draft {
        title,
        body: body.to_owned(),
        triggers,
        always,
        scope: (scope != "global").then_some(scope),
        status: if active {
            Status::Active
        } else {
            Status::Pending
        },
        source: Source::Proposed,
        evidence,
        refs,
        revises: proposal.revises.clone(),
    };
    Ok(Checked::Save(
        Box::new(draft),
        globs,
        judgement.risks,
        contradicts,
    ))
}

/// The active rule `id` a revision would replace.
///
/// Errors: no such rule, or it is not active.
fn revised_rule<'a>(catalog: &'a Catalog, id: &str) -> std::result::Result<&'a Item, String> {
    let rule = catalog
        .project
        .tree
        .items
        .iter()
        .find(|item| item.kind == Kind::Rule && item.id == id)
        .ok_or_else(|| format!("`revises` names `{id}`, which is no rule of this project"))?;
    if rule.is_active() {
        Ok(rule)
    } else {
        Err(format!(
            "`revises` names `{id}`, which is {}; change a pending rule's text with update_rule",
            rule.status.name()
        ))
    }
}

/// The user-facing summary: counts, then the ids activated without review and the ids waiting
/// for approval, each with what to tell the user.
fn summary(results: &[ProposalResult], ignored: usize) -> String {
    let count = |outcome: &str| {
        results
            .iter()
            .filter(|result| result.outcome == outcome)
            .count()
    };
    let ids = |status: &str| -> Vec<String> {
        results
            .iter()
            .filter(|result| result.outcome == "saved" && result.status.as_deref() == Some(status))
            .filter_map(|result| result.id.clone())
            .collect()
    };
    let (active, pending) = (ids("active"), ids("pending"));
    let mut message = format!(
        "Saved {} rule(s), {} active and {} pending; {} already known; {} refused.",
        count("saved"),
        active.len(),
        pending.len(),
        count("already_known"),
        count("refused")
    );
    if ignored > 0 {
        message.push_str(&format!(
            " Only the first {MAX_PROPOSALS} entries were read; {ignored} were ignored: send them again."
        ));
    }
    if !active.is_empty() {
        message.push_str(&format!(
            "\nActivated without review: {}. Tell the user in one line; `ai-rulez review reject <id>` undoes any of them.",
            active.join(", ")
        ));
    }
    if !pending.is_empty() {
        message.push_str(&format!(
            "\nWaiting for the user's approval: {}. Tell the user to run `ai-rulez review`.",
            pending.join(", ")
        ));
    }
    message
}
