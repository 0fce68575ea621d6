//! `record_feedback`: one short imperative sentence from a user's correction becomes a rule
//! file. The text is screened ([`risk::judge`]); a near-duplicate of a rule in the same scope
//! saves nothing ("already known"); a likely contradiction of an active rule is saved pending
//! and names that rule; otherwise the rule starts pending, or active when `[learning]
//! auto_activate = true`. The reply says which, and how a person undoes it.

use serde::Serialize;

use super::draft::{self, Draft, Saved};
use super::matching::{self, Related};
use super::risk;
use crate::confined_fs::ProjectLock;
use crate::content::{Source, Status};
use crate::error::{Error, Result};
use crate::retrieval::{self, Catalog};

/// Longest accepted sentence, in characters: a correction is one short sentence.
pub(crate) const MAX_FEEDBACK_CHARS: usize = 300;

/// What `record_feedback` was asked to save.
#[derive(Debug, Clone, Default)]
pub(crate) struct FeedbackRequest {
    /// One short imperative sentence.
    pub rule: String,
    /// Files the correction concerned (absolute or project-relative); the first one's folder
    /// is the default scope.
    pub paths: Vec<String>,
    /// `global`, `section:<folder>` or `glob:<patterns>`; wins over `paths`.
    pub scope: Option<String>,
    /// The user's wording of the correction.
    pub evidence: Option<String>,
}

/// The reply of `record_feedback`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct FeedbackReply {
    /// `saved` or `already_known`.
    pub outcome: String,
    /// The saved rule's id, or the id of the rule that already says it.
    pub id: String,
    /// Project-relative path of that rule's file.
    pub path: String,
    /// That rule's status: `active`, `pending` or `rejected`.
    pub status: String,
    /// Where the rule applies: `global`, `section:<folder>` or `glob:<patterns>`.
    pub scope: String,
    /// The active rule the new one may contradict, when one does.
    pub contradicts: Option<Related>,
    /// Why the rule was kept pending although auto-activation is on (screening findings).
    pub risks: Vec<String>,
    /// What happened and how to undo it, in one or two sentences for the user.
    pub message: String,
}

/// Saves `request` as a rule of the catalog's project (see the module documentation). The
/// caller holds the project's writer lock (`_held`) and took it before bringing `catalog` up
/// to date, so the duplicate check sees every rule saved before, by any process. Returns the
/// reply and the file written (none when the rule was already known).
///
/// Errors: [`Error::Refused`] starting `Not saved:` when the sentence is empty, longer than
/// [`MAX_FEEDBACK_CHARS`], spans lines, fails the screening, or has a bad scope or a path
/// outside the project; I/O.
pub(crate) fn record_feedback(
    catalog: &Catalog,
    request: &FeedbackRequest,
    _held: &ProjectLock,
) -> Result<(FeedbackReply, Option<Saved>)> {
    let project = &catalog.project;
    let rules_folder = format!("{}/rules", project.config_dir_relative);
    let refuse = |reason: String| Error::refused(&rules_folder, format!("Not saved: {reason}"));
    let sentence = request.rule.trim();
    if sentence.is_empty() {
        return Err(refuse(
            "`rule` is empty; write one short imperative sentence".to_owned(),
        ));
    }
    if sentence.chars().count() > MAX_FEEDBACK_CHARS {
        return Err(refuse(format!(
            "`rule` is {} characters long; write one short sentence of at most {MAX_FEEDBACK_CHARS}",
            sentence.chars().count()
        )));
    }
    if sentence.contains('\n') {
        return Err(refuse(
            "`rule` spans several lines; write one sentence".to_owned(),
        ));
    }
    let evidence = super::fields::evidence(request.evidence.as_deref()).map_err(refuse)?;
    let scope = resolve_scope(project, request).map_err(refuse)?;
    let globs = crate::scope::scope_globs(&scope).unwrap_or_default();
    let screened_text = format!("{sentence}\n{}", evidence.as_deref().unwrap_or_default());
    let judgement = risk::judge(project, &screened_text);
    if !judgement.refusals.is_empty() {
        return Err(refuse(judgement.refusals.join("; ")));
    }
    let related = matching::related_rule(catalog, sentence, &globs, None);
    if let Some(known) = related.clone()
        && known.relation == "duplicate"
    {
        let reply = FeedbackReply {
            outcome: "already_known".to_owned(),
            message: format!(
                "Already known: rule `{}` ({}, {}) says this; nothing was saved.",
                known.id, known.path, known.status
            ),
            id: known.id,
            path: known.path,
            status: known.status,
            scope,
            contradicts: None,
            risks: Vec::new(),
        };
        return Ok((reply, None));
    }
    let contradicts = related.filter(|related| related.relation == "contradiction");
    let active = project.config.learning_auto_activate
        && judgement.risks.is_empty()
        && contradicts.is_none();
    let draft = Draft {
        title: draft::title_from_sentence(sentence),
        body: sentence.to_owned(),
        triggers: Vec::new(),
        always: false,
        scope: (scope != "global").then(|| scope.clone()),
        status: if active {
            Status::Active
        } else {
            Status::Pending
        },
        source: Source::Feedback,
        evidence,
        refs: Vec::new(),
        revises: None,
    };
    let saved = draft::save(project, &draft, None)?;
    let message = saved_message(
        &saved.id,
        &saved.path,
        active,
        contradicts.as_ref(),
        &judgement.risks,
    );
    let reply = FeedbackReply {
        outcome: "saved".to_owned(),
        id: saved.id.clone(),
        path: saved.path.clone(),
        status: draft.status.name().to_owned(),
        scope,
        contradicts,
        risks: judgement.risks,
        message,
    };
    Ok((reply, Some(saved)))
}

/// The user-facing sentence for a saved rule: its state, why it waits, and how to undo it.
fn saved_message(
    id: &str,
    path: &str,
    active: bool,
    contradicts: Option<&Related>,
    risks: &[String],
) -> String {
    if active {
        return format!(
            "Saved and activated rule `{id}` ({path}); it is served from now on. Tell the user in one line; they undo it with `ai-rulez review reject {id}`."
        );
    }
    let why = if let Some(other) = contradicts {
        format!(
            " because it may contradict active rule `{}` ({})",
            other.id, other.path
        )
    } else if !risks.is_empty() {
        format!(" because it looks risky ({})", risks.join("; "))
    } else {
        String::new()
    };
    format!(
        "Saved as pending rule `{id}` ({path}){why}. It is not served until a person approves it with `ai-rulez review approve {id}` (or drops it with `ai-rulez review reject {id}`); tell the user."
    )
}

/// The scope of the new rule: `request.scope` when given (checked), else the folder of the
/// first path as `section:<folder>`, else `global` (also for a file at the project root).
fn resolve_scope(
    project: &crate::project::Project,
    request: &FeedbackRequest,
) -> std::result::Result<String, String> {
    if let Some(scope) = &request.scope {
        return super::fields::scope(scope);
    }
    let Some(first) = request.paths.first() else {
        return Ok("global".to_owned());
    };
    let relative = retrieval::project_relative(&project.root, first)
        .ok_or_else(|| format!("`{first}` is outside the project"))?;
    Ok(match relative.rsplit_once('/') {
        Some((folder, _)) if !folder.is_empty() => format!("section:{folder}"),
        _ => "global".to_owned(),
    })
}
