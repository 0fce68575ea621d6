//! Judging text an agent wants to save as a rule, with the one screening function
//! ([`lint::screen::screen`](crate::lint::screen::screen)). Some findings make the text unfit to
//! store at all: credentials, hidden characters, HTML comments, fake role tags and oversized
//! text are refused. Everything else the screening reports (a download piped into a shell,
//! phrases aimed at the model, destructive commands, ...) and any web address whose host no
//! active rule or context of the project mentions is a risk: the rule is saved, but only as
//! pending, with the reasons, so a person reads it before any agent does.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use crate::lint::Severity;
use crate::lint::screen::{ScreenKind, screen};
use crate::project::Project;

/// Codes whose text is never written to disk, even as pending: a credential would be committed,
/// and hidden characters, HTML comments and fake role tags hide text from the reviewer who is
/// meant to approve it.
const REFUSED_CODES: [&str; 5] = ["AR001", "AR002", "AR003", "AR018", "AR900"];

/// A web address and its host (the first group).
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\bhttps?://([a-z0-9.-]+)").unwrap_or_else(|_| unreachable!("valid regex"))
});

/// What the screening says about one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Judgement {
    /// Why it must not be saved (`AR002 on line 1: ...`); empty when it may be.
    pub refusals: Vec<String>,
    /// Why it may only be saved pending (`AR005: ...`, `links to evil.example, ...`).
    pub risks: Vec<String>,
}

/// Judges `text` (a rule's title, body and triggers joined by new lines) for `project`.
///
/// Output: refusals and risks in screening order (line, code), then unknown hosts sorted.
#[must_use]
pub(crate) fn judge(project: &Project, text: &str) -> Judgement {
    let mut judgement = Judgement::default();
    for finding in screen(text, ScreenKind::Rule) {
        let reason = match finding.line {
            Some(line) => format!("{} on line {line}: {}", finding.code, finding.message),
            None => format!("{}: {}", finding.code, finding.message),
        };
        if REFUSED_CODES.contains(&finding.code) {
            judgement.refusals.push(reason);
        } else if finding.severity != Severity::Info {
            judgement.risks.push(reason);
        }
    }
    let refused_comment = judgement
        .refusals
        .iter()
        .any(|reason| reason.starts_with("AR003"));
    if !refused_comment && let Some(offset) = text.find("<!--") {
        let line = text[..offset].matches('\n').count() + 1;
        judgement.refusals.push(format!(
            "AR003 on line {line}: an HTML comment; reviewers of the rendered rule do not see it, so write it as visible text"
        ));
    }
    for host in unknown_hosts(project, text, "") {
        judgement.risks.push(format!(
            "links to {host}, which no active rule or context of this project mentions"
        ));
    }
    judgement
}

/// The hosts of the web addresses in `text` (lower-cased, sorted) that neither an active rule
/// or context of `project` nor the text `already` (the file being replaced) links to.
#[must_use]
pub(crate) fn unknown_hosts(project: &Project, text: &str, already: &str) -> Vec<String> {
    let hosts = hosts_in(text);
    if hosts.is_empty() {
        return Vec::new();
    }
    let mut known = known_hosts(project);
    known.extend(hosts_in(already));
    hosts.difference(&known).cloned().collect()
}

/// Lower-cased hosts of the web addresses in `text`.
fn hosts_in(text: &str) -> BTreeSet<String> {
    URL.captures_iter(text)
        .filter_map(|captures| captures.get(1))
        .map(|host| host.as_str().trim_end_matches('.').to_ascii_lowercase())
        .collect()
}

/// Hosts the project's active rules and context already link to.
fn known_hosts(project: &Project) -> BTreeSet<String> {
    project
        .tree
        .items
        .iter()
        .filter(|item| item.is_active())
        .flat_map(|item| hosts_in(&item.body))
        .collect()
}
