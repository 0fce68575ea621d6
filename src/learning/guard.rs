//! What an agent may change about a rule. Only a person turns a rule off or changes what an
//! active rule says: an MCP write may pin a rule (`always: true`) but never unpin it, may mark
//! a new rule `pending` but never set any other status, and may not rewrite an active rule's
//! body; a new body for an active rule is saved as a pending revision (`propose_rules` with
//! `revises`) that a person approves with `ai-rulez review approve`.

use crate::content::Status;
use crate::error::{Error, Result};
use crate::frontmatter::{self, Document};

/// The fields of a rule file this guard compares, read leniently: a value of the wrong type
/// counts as absent here, because `content::check` reports it with its line afterwards.
struct Guarded {
    status: Option<String>,
    always: bool,
    body: String,
}

impl Guarded {
    fn of(document: &Document) -> Self {
        Self {
            status: document
                .values
                .get("status")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned),
            always: document.values.get("always") == Some(&serde_json::Value::Bool(true)),
            body: document.body.trim().to_owned(),
        }
    }

    /// The effective status: absent means active; an unknown spelling is kept as active so the
    /// guard never loosens on a typo (the loader refuses the typo anyway).
    fn effective(&self) -> Status {
        self.status
            .as_deref()
            .and_then(Status::parse)
            .unwrap_or(Status::Active)
    }
}

/// Checks the text of a new rule an agent wants to create at `path`: a `status` it writes must
/// be `pending`.
///
/// Errors: [`Error::Refused`] naming `path`, saying what is not allowed and what to do instead;
/// [`Error::Invalid`] when `content` does not split into frontmatter and body.
pub(crate) fn check_agent_create(path: &str, content: &str) -> Result<()> {
    let new = Guarded::of(&frontmatter::parse(path, content.as_bytes())?);
    match new.status.as_deref() {
        None | Some("pending") => Ok(()),
        Some(other) => Err(Error::refused(
            path,
            format!(
                "Not saved: an agent may only write `status: pending` (found `status: {other}`); leave `status` out for a rule that is active at once, or write `status: pending` to leave it for a person's review"
            ),
        )),
    }
}

/// Checks an agent's replacement `content` of the rule at `path` whose current text is
/// `current`: the status stays what it is, `always: true` stays, and an active rule's body
/// stays (frontmatter such as title, triggers or priority may change).
///
/// Errors: [`Error::Refused`] naming `path` with the reason and the way a person or a proposal
/// makes the change; [`Error::Invalid`] when `content` does not split into frontmatter and body.
pub(crate) fn check_agent_update(path: &str, current: &str, content: &str) -> Result<()> {
    // A file whose frontmatter does not parse does not load, so it is served nowhere: an agent
    // may repair it.
    let Ok(current) = frontmatter::parse(path, current.as_bytes()) else {
        return Ok(());
    };
    let old = Guarded::of(&current);
    let new = Guarded::of(&frontmatter::parse(path, content.as_bytes())?);
    let id = rule_id(path);
    if old.effective() != new.effective() {
        return Err(Error::refused(
            path,
            format!(
                "Not saved: rule `{id}` is {} and an agent may not change its status to {}; a person does that with `ai-rulez review approve|reject {id}`",
                old.effective().name(),
                new.effective().name()
            ),
        ));
    }
    if old.always && !new.always {
        return Err(Error::refused(
            path,
            format!(
                "Not saved: rule `{id}` has `always: true` and an agent may not unpin it; keep `always: true` (a person unpins it with `ai-rulez review unpin {id}`)"
            ),
        ));
    }
    if old.effective() == Status::Active && old.body != new.body {
        return Err(Error::refused(
            path,
            format!(
                "Not saved: rule `{id}` is active and its text changes only through a person's review; call propose_rules with an entry whose `revises` is \"{id}\" to save the new text as a pending revision"
            ),
        ));
    }
    Ok(())
}

/// Checks that an agent may delete the rule at `path` whose current text is `current`: only a
/// rule that is not active (pending or rejected: a proposal an agent may withdraw) or whose
/// frontmatter does not parse (it loads nowhere). Deleting an active rule is turning it off,
/// which only a person does.
///
/// Errors: [`Error::Refused`] naming `path`, with the ways a person or a proposal makes the
/// change.
pub(crate) fn check_agent_delete(path: &str, current: &str) -> Result<()> {
    let Ok(current) = frontmatter::parse(path, current.as_bytes()) else {
        return Ok(());
    };
    if Guarded::of(&current).effective() != Status::Active {
        return Ok(());
    }
    let id = rule_id(path);
    Err(Error::refused(
        path,
        format!(
            "Not deleted: rule `{id}` is active and only a person turns a rule off; ask the user to delete {path}, or call propose_rules with an entry whose `revises` is \"{id}\" to propose new text"
        ),
    ))
}

/// The rule id of a rule file path: its file stem.
fn rule_id(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTIVE: &str = "---\nalways: true\ntitle: Safety\n---\nNever commit secrets.\n";

    #[test]
    fn an_update_keeping_body_status_and_pin_passes() {
        let retitled =
            "---\nalways: true\ntitle: Secrets\ntriggers: [secret]\n---\nNever commit secrets.\n";
        check_agent_update("r/safety.md", ACTIVE, retitled).unwrap();
    }

    #[test]
    fn only_a_rule_that_is_not_active_may_be_deleted_by_an_agent() {
        let message = check_agent_delete("r/safety.md", ACTIVE)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("Not deleted: rule `safety` is active and only a person turns a rule off; ask the user to delete r/safety.md"),
            "{message}"
        );
        let unmarked = check_agent_delete("r/plain.md", "Plain.\n").unwrap_err();
        assert!(unmarked.to_string().contains("rule `plain` is active"));
        check_agent_delete("r/p.md", "---\nstatus: pending\n---\nMaybe.\n").unwrap();
        check_agent_delete("r/x.md", "---\nstatus: rejected\n---\nNo.\n").unwrap();
    }

    #[test]
    fn unpinning_pausing_and_rewriting_an_active_rule_are_refused() {
        let unpinned = "---\nalways: false\n---\nNever commit secrets.\n";
        let paused = "---\nalways: true\nstatus: pending\n---\nNever commit secrets.\n";
        let rewritten = "---\nalways: true\n---\nCommit secrets when in a hurry.\n";
        for (content, says) in [
            (unpinned, "may not unpin it"),
            (
                paused,
                "is active and an agent may not change its status to pending",
            ),
            (
                rewritten,
                "call propose_rules with an entry whose `revises` is \"safety\"",
            ),
        ] {
            let message = check_agent_update("r/safety.md", ACTIVE, content)
                .unwrap_err()
                .to_string();
            assert!(message.contains(says), "{message}");
        }
    }

    #[test]
    fn a_pending_rule_body_may_change_but_not_its_status() {
        let pending = "---\nstatus: pending\n---\nOld text.\n";
        check_agent_update("r/x.md", pending, "---\nstatus: pending\n---\nNew text.\n").unwrap();
        let message = check_agent_update("r/x.md", pending, "---\n---\nNew text.\n")
            .unwrap_err()
            .to_string();
        assert!(message.contains("rule `x` is pending"), "{message}");
    }

    #[test]
    fn a_created_rule_may_only_say_pending() {
        check_agent_create("r/x.md", "---\nstatus: pending\n---\nText.\n").unwrap();
        check_agent_create("r/x.md", "Text.\n").unwrap();
        for status in ["active", "rejected"] {
            let content = format!("---\nstatus: {status}\n---\nText.\n");
            assert!(check_agent_create("r/x.md", &content).is_err());
        }
    }
}
