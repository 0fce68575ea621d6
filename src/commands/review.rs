//! `ai-rulez review`: a person's review of learned rules (list, show, approve, reject, unpin),
//! printed for people or as JSON. Each decision is one call into [`crate::learning::review`].

use super::{Global, is_json, out, print_json, print_warnings};
use crate::cli::{ReviewArgs, ReviewCommand};
use crate::learning::review::{self, Decision, ReviewList, ShownRule};

/// Runs the review action; returns 0, or 1 when a decision failed.
///
/// Errors: no project, load errors, a busy writer lock, an unknown id for `show`.
pub(crate) fn run(global: &Global, args: &ReviewArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let json = is_json(args.format);
    let decisions = match &args.action {
        None => {
            let list = review::review_list(project);
            if json {
                print_json(&serde_json::to_value(&list)?);
            } else {
                out(list_text(&list).trim_end());
            }
            return Ok(0);
        }
        Some(ReviewCommand::Show { id }) => {
            let shown = review::review_show(project, id)?;
            if json {
                print_json(&serde_json::to_value(&shown)?);
            } else {
                out(show_text(&shown).trim_end());
            }
            return Ok(0);
        }
        Some(ReviewCommand::Approve { ids }) => review::approve(&project, ids)?,
        Some(ReviewCommand::Reject { ids, reason }) => {
            review::reject(&project, ids, reason.as_deref())?
        }
        Some(ReviewCommand::Unpin { id }) => vec![review::unpin(&project, id)?],
    };
    if json {
        print_json(&serde_json::to_value(&decisions)?);
    } else {
        for decision in &decisions {
            out(&format!("{}: {}", decision.outcome, decision.message));
        }
    }
    Ok(u8::from(
        decisions
            .iter()
            .any(|decision: &Decision| decision.outcome == "failed"),
    ))
}

/// The list for people: pending rules with evidence, suspected pairs, unused rules.
fn list_text(list: &ReviewList) -> String {
    let mut text = String::new();
    if list.pending.is_empty() {
        text.push_str("No rule waits for review.\n");
    } else {
        text.push_str(&format!("{} pending rule(s):\n", list.pending.len()));
    }
    for rule in &list.pending {
        text.push_str(&format!(
            "- {} [{}] {} ({})\n",
            rule.id, rule.scope, rule.title, rule.path
        ));
        for line in rule.body.lines() {
            text.push_str(&format!("    {line}\n"));
        }
        let origin = [rule.source.as_deref(), rule.created.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        if !origin.is_empty() {
            text.push_str(&format!("    from: {origin}\n"));
        }
        if let Some(evidence) = &rule.evidence {
            text.push_str(&format!("    evidence: {evidence}\n"));
        }
        if !rule.refs.is_empty() {
            text.push_str(&format!("    refs: {}\n", rule.refs.join(", ")));
        }
        if let Some(target) = &rule.revises {
            text.push_str(&format!(
                "    revises: {target} (approving merges it into that rule)\n"
            ));
        }
        if let Some(related) = &rule.related {
            let how = if related.relation == "duplicate" {
                "repeats"
            } else {
                "may contradict"
            };
            text.push_str(&format!(
                "    {how}: {} ({}, {:.0}% of content words shared)\n",
                related.id,
                related.status,
                related.similarity * 100.0
            ));
        }
    }
    if !list.pairs.is_empty() {
        text.push_str(&format!("{} suspected pair(s):\n", list.pairs.len()));
        for pair in &list.pairs {
            text.push_str(&format!(
                "- {} / {} ({}): {}\n",
                pair.first, pair.second, pair.relation, pair.why
            ));
        }
    }
    if !list.unused.is_empty() {
        text.push_str(&format!(
            "Not sent by get_rules in 90 days: {}\n",
            list.unused.join(", ")
        ));
    }
    if !list.refresh_requests.is_empty() {
        text.push_str(&format!(
            "{} open refresh request(s) (resolve with the MCP tool resolve_refresh, or set `status: applied` or `status: rejected` in the file):\n",
            list.refresh_requests.len()
        ));
        text.push_str(&crate::memory::refresh::requests_text(
            &list.refresh_requests,
        ));
    }
    for problem in &list.refresh_problems {
        text.push_str(&format!("Refresh request not read: {problem}\n"));
    }
    if list.rejected > 0 {
        text.push_str(&format!(
            "{} rejected rule(s) are kept and never served.\n",
            list.rejected
        ));
    }
    if !list.pending.is_empty() {
        text.push_str("Approve with `ai-rulez review approve <id>...`; reject with `ai-rulez review reject <id>... --reason \"...\"`.\n");
    }
    text
}

fn show_text(shown: &ShownRule) -> String {
    let rule = &shown.rule;
    let mut text = format!("{} ({}, {})\n", rule.id, shown.status, rule.path);
    if let Some(related) = &rule.related {
        text.push_str(&format!(
            "{} rule `{}` ({}); similarity {:.2}\n",
            if related.relation == "duplicate" {
                "repeats"
            } else {
                "may contradict"
            },
            related.id,
            related.status,
            related.similarity
        ));
    }
    text.push_str(&shown.text);
    text
}
