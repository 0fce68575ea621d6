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

/// An address and its host (the group `host`), spelt as a browser or a client would still
/// follow it: any scheme of two letters or more (`C:\\` is a drive) followed by slashes or backslashes (`https:/x`, `https:\\x`, `ftp://`,
/// `ws://`), a protocol-relative `//host`, a bare `www.host`, or `mailto:`; a user part before
/// `@` is skipped (`http://known.example@evil.example` goes to `evil.example`), and a host
/// may be an IPv6 literal or hold letters outside ASCII (a lookalike of a known host is then
/// unknown); a name without a dot is not a host on the web.
static URL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:\b[a-z][a-z0-9+.-]+:[/\\]{1,3}|(?:^|[\s("'<\[])//|\bwww\.|\bmailto:)(?:[^\s/\\@?#"'<>]*@)?(?P<host>\[[0-9a-f:.]+\]|[^\s/\\:?#@"'<>()\[\]*`]+)"#,
    )
    .unwrap_or_else(|_| unreachable!("valid regex"))
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
        .filter_map(|captures| captures.name("host"))
        .map(|host| {
            host.as_str()
                .trim_end_matches(['.', ',', ';'])
                .to_lowercase()
        })
        // A name without a dot (`localhost`, `//TODO` in a code comment) is no host on the web.
        .filter(|host| host.contains('.') || host.starts_with('['))
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

#[cfg(test)]
mod tests {
    use super::hosts_in;

    #[test]
    fn hosts_are_found_as_a_client_would_follow_the_address() {
        let text = "See http://docs.known.dev@evil.example/x, https:/a.example, https:\\\\b.example, \
            //c.example/x, www.d.example/x, ftp://e.example/f, ws://f.example, mailto:me@g.example, \
            http://[::1]:8080/x, https://\u{430}pple.com/, C:\\Users\\x, //TODO later, \
            http://localhost:8080, src//lib.rs";
        let found: Vec<String> = hosts_in(text).into_iter().collect();
        assert_eq!(
            found,
            [
                "[::1]",
                "a.example",
                "b.example",
                "c.example",
                "d.example",
                "e.example",
                "evil.example",
                "f.example",
                "g.example",
                "\u{430}pple.com",
            ]
        );
    }
}
