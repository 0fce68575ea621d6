//! The `memory` toolset's learnings, refresh queue and activity log: claims an agent read from
//! the code, trusted only while those files are unchanged (`record_learning`,
//! `review_learnings`, `retire_learning`); requests to refresh an item, stored as files the team
//! reviews (`request_refresh`, `list_refresh_requests`, `resolve_refresh`); and the machine-local
//! log of what agents did where (`log_activity`, `recent_activity`). Each handler is one call
//! into [`crate::memory`].

use super::super::args::{
    ListRefreshRequestsArgs, LogActivityArgs, RecentActivityArgs, RecordLearningArgs,
    RefreshOutcomeArg, RefreshRequestList, RequestRefreshArgs, ResolveRefreshArgs,
    RetireLearningArgs, ReviewLearningsArgs,
};
use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, ToolSpec, Toolset};
use crate::error::Error;
use crate::memory::activity::{self, Logged, RecentActivity};
use crate::memory::learnings::{self, LearningRequest, RecordedLearning, RetiredLearning};
use crate::memory::learnings_review::{self, LearningsReview};
use crate::memory::refresh::{self, NewRequest, RefreshRequest};
use crate::project::Project;

/// The toolset's tools handled here, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        record_learning(),
        review_learnings(),
        retire_learning(),
        request_refresh(),
        list_refresh_requests(),
        resolve_refresh(),
        log_activity(),
        recent_activity(),
    ]
}

/// `path` made project-relative; `None` stays `None`.
///
/// Errors: [`Error::Usage`] when it leaves the project.
fn relative_path(project: &Project, path: Option<&str>) -> Result<Option<String>, Error> {
    path.map(|path| {
        crate::retrieval::project_relative(&project.root, path).ok_or_else(|| {
            Error::Usage(format!(
                "`path` {} is outside the project; pass a project-relative path",
                path.escape_debug()
            ))
        })
    })
    .transpose()
}

fn record_learning() -> ToolSpec {
    ToolSpec {
        name: "record_learning".into(),
        title: "Record what you learned from the code".into(),
        description: "Saves a fact you read from the code (not a rule) with the files it rests on; their git blob ids are recorded now, and the learning is served by get_context only while every one of them is unchanged. Pass `replaces` with the id of a learning this one corrects. Learnings are never turned into rules by themselves.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people write facts into context files or rules"),
        handler: Handler::new(|server, args: RecordLearningArgs| -> Reply<RecordedLearning> {
            let request = LearningRequest {
                claim: args.claim,
                files_read: args.files_read,
                replaces: args.replaces,
            };
            server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let recorded = learnings::record_learning(&catalog.project, &request)?;
                // Learnings are read from disk on every call; the catalog holds none of them.
                Ok(Answer::text(recorded.message.clone(), recorded))
            })
        }),
    }
}

fn review_learnings() -> ToolSpec {
    ToolSpec {
        name: "review_learnings".into(),
        title: "Learnings: current, stale, conflicting".into(),
        description: "Checks every learning (or those read from files at or below `path`) against the files as they are now: current, or stale naming each file that changed or vanished (listed first, at most `limit`); and pairs of current learnings that contradict each other. Retire what is wrong with retire_learning, or record a corrected one with `replaces`.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("learnings"),
        handler: Handler::new(|server, args: ReviewLearningsArgs| -> Reply<LearningsReview> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let project = &catalog.project;
                let path = relative_path(project, args.path.as_deref())?;
                let mut review = learnings_review::review_learnings(project, path.as_deref())?;
                review.keep_first(args.limit.map_or(100, |limit| limit.clamp(1, 5000) as usize));
                Ok(Answer::text(learnings_review::review_text(&review), review))
            })
        }),
    }
}

fn retire_learning() -> ToolSpec {
    ToolSpec {
        name: "retire_learning".into(),
        title: "Retire a learning".into(),
        description: "Retires a learning that is wrong or no longer useful: it stays in its file for history and is never served again.".into(),
        // Retiring again changes nothing more: the learning is already out of service.
        hints: Hints::REPLACE,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people delete or edit the learning file"),
        handler: Handler::new(|server, args: RetireLearningArgs| -> Reply<RetiredLearning> {
            server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let retired = learnings::retire_learning(&catalog.project, &args.id)?;
                Ok(Answer::text(retired.message.clone(), retired))
            })
        }),
    }
}

fn request_refresh() -> ToolSpec {
    ToolSpec {
        name: "request_refresh".into(),
        title: "Ask for an item to be refreshed".into(),
        description: "Flags a learning, rule, other item or memory that is stale, contradictory, duplicated, too narrow or unclear, with a note saying what you noticed. The request is a file under .ai-rulez/refresh-requests/, so the team sees it in the pull request; `ai-rulez review` lists the open ones.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people edit the item directly, or open an issue"),
        handler: Handler::new(|server, args: RequestRefreshArgs| -> Reply<RefreshRequest> {
            let request = NewRequest {
                item: args.item_id,
                reason: args.reason.name().to_owned(),
                note: args.note,
            };
            server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let filed = refresh::request_refresh(&catalog.project, &request)?;
                let text = format!("refresh request `{}` filed ({})", filed.id, filed.path);
                Ok(Answer::text(text, filed))
            })
        }),
    }
}

fn list_refresh_requests() -> ToolSpec {
    ToolSpec {
        name: "list_refresh_requests".into(),
        title: "Refresh requests".into(),
        description: "Lists the open refresh requests (with `all`, resolved ones too): the item, why, and the note.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("review"),
        handler: Handler::new(|server, args: ListRefreshRequestsArgs| -> Reply<RefreshRequestList> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let (requests, problems) =
                    refresh::list_requests(&catalog.project, args.all.unwrap_or(false))?;
                let mut text = if requests.is_empty() {
                    "No refresh request is open.\n".to_owned()
                } else {
                    refresh::requests_text(&requests)
                };
                for problem in &problems {
                    text.push_str(&format!("not read: {problem}\n"));
                }
                Ok(Answer::text(
                    text.trim_end().to_owned(),
                    RefreshRequestList { requests, problems },
                ))
            })
        }),
    }
}

fn resolve_refresh() -> ToolSpec {
    ToolSpec {
        name: "resolve_refresh".into(),
        title: "Resolve a refresh request".into(),
        description: "Marks an open refresh request applied (the item was refreshed) or rejected (it stays as it is), with a one-line note; the request file keeps the decision for the pull request.".into(),
        hints: Hints::REPLACE,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people edit the request file's status"),
        handler: Handler::new(|server, args: ResolveRefreshArgs| -> Reply<RefreshRequest> {
            let outcome = match args.outcome {
                RefreshOutcomeArg::Applied => "applied",
                RefreshOutcomeArg::Rejected => "rejected",
            };
            server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let resolved = refresh::resolve_refresh(
                    &catalog.project,
                    &args.id,
                    outcome,
                    args.note.as_deref(),
                )?;
                let text = format!("refresh request `{}` is {outcome}", resolved.id);
                Ok(Answer::text(text, resolved))
            })
        }),
    }
}

fn log_activity() -> ToolSpec {
    ToolSpec {
        name: "log_activity".into(),
        title: "Log what you did".into(),
        description: "Appends one entry (action, paths, one-line summary) to this machine's activity log, .ai-rulez/local/activity.jsonl, which git ignores. Call it after finishing a piece of work so the next session sees what happened where.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Memory,
        pairing: Pairing::NoCommand("people have their shell history and git log"),
        handler: Handler::new(|server, args: LogActivityArgs| -> Reply<Logged> {
            server.write_beside_catalog(args.working_directory.as_deref(), |catalog| {
                let logged = activity::log_activity(
                    &catalog.project,
                    &args.action,
                    &args.paths,
                    &args.summary,
                )?;
                let mut text = format!("logged in {}", logged.log);
                if let Some(warning) = &logged.warning {
                    text.push_str(&format!("; warning: {warning}"));
                }
                Ok(Answer::text(text, logged))
            })
        }),
    }
}

fn recent_activity() -> ToolSpec {
    ToolSpec {
        name: "recent_activity".into(),
        title: "What agents did recently".into(),
        description: "Lists this machine's logged activity, newest first (default 20), optionally only entries touching a file or folder.".into(),
        hints: Hints::READ,
        toolset: Toolset::Memory,
        pairing: Pairing::Command("activity"),
        handler: Handler::new(|server, args: RecentActivityArgs| -> Reply<RecentActivity> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let project = &catalog.project;
                let path = relative_path(project, args.path.as_deref())?;
                let limit = args.limit.map_or(20, |limit| limit as usize);
                let recent = activity::recent_activity(project, path.as_deref(), limit)?;
                let text = if recent.entries.is_empty() {
                    "No activity logged.".to_owned()
                } else {
                    activity::entries_text(&recent.entries).trim_end().to_owned()
                };
                Ok(Answer::text(text, recent))
            })
        }),
    }
}
