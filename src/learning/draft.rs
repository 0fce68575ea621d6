//! A new rule file written by the learning tools: its frontmatter (title, triggers, always,
//! scope, status, source, evidence, refs, created, revises) rendered in one fixed order, its id
//! chosen from the title, and the file created no-clobber under `.ai-rulez/rules/`. The caller
//! holds the project's writer lock.

use crate::authoring::{self, ItemLocation};
use crate::content::{self, Kind, Source, Status};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::project::Project;

/// Longest id chosen from a title, in characters (a suffix such as `-2` may follow).
const MAX_ID_CHARS: usize = 48;

/// How many numbered ids (`<id>-2` … `<id>-99`) are tried before giving up.
const MAX_ID_SUFFIX: usize = 99;

/// The content of a rule the learning tools save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Draft {
    /// Short title (3–6 words for proposals).
    pub title: String,
    /// Rule text (Markdown, no frontmatter).
    pub body: String,
    /// Words or phrases a task contains when the rule matters.
    pub triggers: Vec<String>,
    /// Sent on every `get_rules` call for its scope.
    pub always: bool,
    /// `section:<folder>` or `glob:<patterns>`; `None` for a global rule.
    pub scope: Option<String>,
    /// Pending or active.
    pub status: Status,
    /// How the rule came to be.
    pub source: Source,
    /// Why it exists, in a few words.
    pub evidence: Option<String>,
    /// Paths, URLs or commit ids it came from.
    pub refs: Vec<String>,
    /// For a revision: the id of the active rule it would replace.
    pub revises: Option<String>,
}

/// A rule file that was created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Saved {
    /// Rule id (file stem).
    pub id: String,
    /// Project-relative path.
    pub path: String,
    /// The exact file text written.
    pub text: String,
}

/// The file text of `draft` saved on the day `created` (`YYYY-MM-DD`): frontmatter keys in a
/// fixed order (empty ones left out), then the body with one final new line.
#[must_use]
pub(crate) fn render(draft: &Draft, created: &str) -> String {
    let mut lines = vec![format!("title: {}", frontmatter::yaml_string(&draft.title))];
    if !draft.triggers.is_empty() {
        lines.push(format!("triggers: {}", flow_list(&draft.triggers)));
    }
    if draft.always {
        lines.push("always: true".to_owned());
    }
    if let Some(scope) = &draft.scope {
        lines.push(format!("scope: {}", frontmatter::yaml_string(scope)));
    }
    if draft.status != Status::Active {
        lines.push(format!("status: {}", draft.status.name()));
    }
    lines.push(format!("source: {}", draft.source.name()));
    if let Some(revises) = &draft.revises {
        lines.push(format!("revises: {}", frontmatter::yaml_string(revises)));
    }
    if let Some(evidence) = &draft.evidence {
        lines.push(format!("evidence: {}", frontmatter::yaml_string(evidence)));
    }
    if !draft.refs.is_empty() {
        lines.push(format!("refs: {}", flow_list(&draft.refs)));
    }
    lines.push(format!("created: {created}"));
    format!("---\n{}\n---\n{}\n", lines.join("\n"), draft.body.trim())
}

/// A YAML flow list of `items`: plain words stay plain, anything else (a URL, a comma, a
/// bracket, which a flow list would misread) is written as a JSON string, which YAML reads as
/// a double-quoted scalar.
pub(crate) fn flow_list(items: &[String]) -> String {
    let rendered: Vec<String> = items
        .iter()
        .map(|item| {
            let plain_word = item
                .chars()
                .all(|character| character.is_alphanumeric() || " _-.".contains(character));
            let plain = frontmatter::yaml_string(item);
            if plain_word && plain == *item {
                plain
            } else {
                serde_json::to_string(item).unwrap_or_default()
            }
        })
        .collect();
    format!("[{}]", rendered.join(", "))
}

/// Creates the rule file of `draft` under the project's `rules/` folder, with an id made from
/// the title (or `base_id` when given), numbered (`-2`, `-3`, ...) past ids already taken by a
/// loaded rule or an existing file. The text is checked as loading would check it before
/// anything is written. The caller holds the writer lock.
///
/// Errors: [`Error::Invalid`] when the rendered file would not load (a bad scope or trigger);
/// [`Error::Refused`] when no free id is left or the file appeared meanwhile; I/O.
pub(crate) fn save(project: &Project, draft: &Draft, base_id: Option<&str>) -> Result<Saved> {
    let base = base_id.map_or_else(|| id_from_title(&draft.title), str::to_owned);
    let text = render(
        draft,
        &crate::learning::day::format(crate::learning::day::today()),
    );
    for number in 1..=MAX_ID_SUFFIX {
        let id = if number == 1 {
            base.clone()
        } else {
            format!("{base}-{number}")
        };
        let taken = project
            .tree
            .items
            .iter()
            .any(|item| item.kind == Kind::Rule && item.id == id);
        let location = ItemLocation {
            kind: Kind::Rule,
            name: id.clone(),
            domain: None,
            local: false,
        };
        let path = authoring::item_path(project, &location)?;
        if taken || project.dir.info(&path)?.is_some() {
            continue;
        }
        let document = frontmatter::parse(&path, text.as_bytes())?;
        content::check(Kind::Rule, &id, &path, document)?;
        project.dir.create_new(&path, text.as_bytes(), 0o644)?;
        return Ok(Saved { id, path, text });
    }
    Err(Error::refused(
        format!("{}/rules", project.config_dir_relative),
        format!(
            "ids `{base}` to `{base}-{MAX_ID_SUFFIX}` are all taken; give the rule another title"
        ),
    ))
}

/// An id from a title: its slug, cut at a dash to at most [`MAX_ID_CHARS`] characters; `rule`
/// when the title has no letters or digits.
fn id_from_title(title: &str) -> String {
    let slug = content::slug(title);
    let mut id = String::new();
    for part in slug.split('-') {
        if !id.is_empty() && id.len() + 1 + part.len() > MAX_ID_CHARS {
            break;
        }
        if !id.is_empty() {
            id.push('-');
        }
        id.push_str(part);
    }
    id.truncate(MAX_ID_CHARS);
    if id.is_empty() { "rule".to_owned() } else { id }
}

/// The title of a one-sentence rule: its first six words, without closing punctuation.
#[must_use]
pub(crate) fn title_from_sentence(sentence: &str) -> String {
    let words: Vec<&str> = sentence.split_whitespace().take(6).collect();
    words
        .join(" ")
        .trim_end_matches(|character: char| character.is_ascii_punctuation())
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draft_renders_keys_in_a_fixed_order() {
        let draft = Draft {
            title: "Query builder: always".to_owned(),
            body: "Use the query builder.\n".to_owned(),
            triggers: vec!["sql".to_owned(), "query".to_owned()],
            always: true,
            scope: Some("section:src/db".to_owned()),
            status: Status::Pending,
            source: Source::Feedback,
            evidence: Some("user said so".to_owned()),
            refs: vec!["src/db/a.rs".to_owned()],
            revises: None,
        };
        assert_eq!(
            render(&draft, "2026-01-01"),
            "---\ntitle: \"Query builder: always\"\ntriggers: [sql, query]\nalways: true\nscope: section:src/db\nstatus: pending\nsource: feedback\nevidence: user said so\nrefs: [\"src/db/a.rs\"]\ncreated: 2026-01-01\n---\nUse the query builder.\n"
        );
    }

    #[test]
    fn ids_and_titles_come_from_the_words() {
        assert_eq!(
            id_from_title("Use the query builder"),
            "use-the-query-builder"
        );
        assert_eq!(id_from_title("!!!"), "rule");
        assert_eq!(
            title_from_sentence("Never unwrap input in library code, ever."),
            "Never unwrap input in library code"
        );
    }
}
