//! Splitting one instruction file (CLAUDE.md, AGENTS.md, copilot-instructions.md, ...) into
//! rules, one per `## ` section, so each becomes an item that can be scoped and edited alone.

use crate::content::Kind;
use crate::import::draft::Draft;

/// The text of the first `# ` heading of `body` (outside code fences), if any.
pub(crate) fn title(body: &str) -> Option<String> {
    let mut fence: Option<&str> = None;
    for line in body.lines() {
        if toggles_fence(line, &mut fence) || fence.is_some() {
            continue;
        }
        if let Some(text) = line.strip_prefix("# ") {
            let text = text.trim().trim_end_matches('#').trim();
            if !text.is_empty() {
                return Some(text.to_owned());
            }
        }
    }
    None
}

/// One always-on rule per `## ` section of `text` (headings inside code fences do not count),
/// from the file `origin`. The text before the first section (without a leading `# ` title) is
/// one more rule named `file_id`, first; a file without sections is one rule named `file_id`.
/// Each section's body is its heading raised to `# ` and its lines as written.
pub(crate) fn split(text: &str, file_id: &str, origin: &str) -> Vec<Draft> {
    let mut parts: Vec<(Option<String>, String)> = vec![(None, String::new())];
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let in_code = toggles_fence(bare, &mut fence) || fence.is_some();
        if !in_code && let Some(heading) = bare.strip_prefix("## ") {
            let heading = heading.trim().trim_end_matches('#').trim().to_owned();
            parts.push((Some(heading), String::new()));
            continue;
        }
        if let Some((_, body)) = parts.last_mut() {
            body.push_str(line);
        }
    }
    let only_preamble = parts.len() == 1;
    let mut drafts = Vec::new();
    for (heading, body) in parts {
        let body = body.trim_matches('\n').to_owned();
        let draft = match heading {
            None if only_preamble => {
                if body.trim().is_empty() {
                    continue;
                }
                Draft::new(Kind::Rule, file_id, origin, format!("{body}\n"))
            }
            None => {
                let rest = strip_title(&body);
                if rest.trim().is_empty() {
                    continue;
                }
                Draft::new(Kind::Rule, file_id, origin, format!("{body}\n"))
            }
            Some(heading) => {
                let id = crate::content::slug(&heading);
                let id = if id.is_empty() {
                    file_id.to_owned()
                } else {
                    id
                };
                let text = if body.is_empty() {
                    format!("# {heading}\n")
                } else {
                    format!("# {heading}\n\n{body}\n")
                };
                Draft::new(Kind::Rule, &id, origin, text)
            }
        };
        drafts.push(draft);
    }
    drafts
}

/// `body` without a leading `# ` title line.
fn strip_title(body: &str) -> &str {
    let trimmed = body.trim_start_matches('\n');
    match trimmed.strip_prefix("# ") {
        Some(rest) => rest.split_once('\n').map_or("", |(_, after)| after),
        None => trimmed,
    }
}

/// Tracks fenced code blocks (three backticks or three tildes): returns true when `line` opens
/// or closes one.
fn toggles_fence<'a>(line: &'a str, fence: &mut Option<&'a str>) -> bool {
    let trimmed = line.trim_start();
    let marker = if trimmed.starts_with("```") {
        "```"
    } else if trimmed.starts_with("~~~") {
        "~~~"
    } else {
        return false;
    };
    match fence {
        Some(open) if *open == marker => {
            *fence = None;
            true
        }
        Some(_) => false,
        None => {
            *fence = Some(marker);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{split, title};

    #[test]
    fn sections_become_rules_and_code_fences_do_not_split() {
        let text = "# Project\n\nIntro line.\n\n## Build\n\n```sh\n## not a heading\nmake\n```\n\n## Code style ##\nShort functions.\n";
        let drafts = split(text, "agents", "AGENTS.md");
        let got: Vec<(&str, &str)> = drafts
            .iter()
            .map(|draft| (draft.id.as_str(), draft.body.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("agents", "# Project\n\nIntro line.\n"),
                ("build", "# Build\n\n```sh\n## not a heading\nmake\n```\n"),
                ("code-style", "# Code style\n\nShort functions.\n"),
            ]
        );
        assert_eq!(title(text).as_deref(), Some("Project"));
    }

    #[test]
    fn a_title_alone_before_the_first_section_is_no_rule() {
        let drafts = split("# Title\n\n## One\nx\n", "claude", "CLAUDE.md");
        assert_eq!(drafts.len(), 1);
        assert_eq!(drafts[0].id, "one");
    }
}
