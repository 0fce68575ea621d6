//! Learnings: claims an agent read from the code (`the pool is created once in main`), each
//! stored with the files it was read from and each file's git blob id at that moment, in
//! `.ai-rulez/learnings/<id>.md`. A learning is trusted only while every one of those files
//! still has its recorded blob id; once one changes or vanishes it is stale, never served, and
//! `review_learnings` names the file. A learning never becomes a rule by itself: it can be
//! proposed through the learning loop like anything else an agent learned.
//!
//! The file format is in [`super::learning_file`].

use std::collections::HashMap;

use serde::Serialize;

use super::learning_file::{
    Learning, MAX_LEARNING_BYTES, SourceFile, folder, load_all, parse, render,
};
use super::{check_id, today};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::project::Project;

/// The label every served learning carries: a learning is what an agent once read, not a rule.
pub(crate) const LABEL: &str = "verify before relying on it";

/// Most files one learning may name.
pub(crate) const MAX_SOURCES: usize = 50;

/// Longest claim, in characters.
pub(crate) const MAX_CLAIM_CHARS: usize = 2000;

/// Most learnings `get_context` adds for one path.
pub(crate) const MAX_SERVED: usize = 10;

/// Largest source file hashed, in bytes (64 MiB); a bigger one counts as unreadable.
const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

/// Longest generated id, in characters (cut at a dash).
const MAX_ID_CHARS: usize = 48;

/// Most numbered variants (`-2`, `-3`, ...) tried for a new id.
const MAX_ID_SUFFIX: usize = 99;

/// Why one source file no longer backs a learning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct StaleSource {
    /// Project-relative path.
    pub path: String,
    /// `changed` (another blob id now), `vanished` (no file there) or `unreadable` (a symlink,
    /// a folder, or too big to hash).
    pub reason: String,
}

/// The blob ids of the source files seen during one check, so a file many learnings name is
/// read and hashed once.
#[derive(Default)]
pub(crate) struct BlobCache {
    ids: HashMap<String, std::result::Result<String, &'static str>>,
}

impl BlobCache {
    /// The blob id of the project file at `path`, or why there is none (`vanished`,
    /// `unreadable`).
    fn id(&mut self, project: &Project, path: &str) -> std::result::Result<String, &'static str> {
        self.ids
            .entry(path.to_owned())
            .or_insert_with(|| match project.dir.read(path, MAX_SOURCE_BYTES) {
                Ok(Some((bytes, _))) => crate::git::worktree_blob_id(&bytes).ok_or("unreadable"),
                Ok(None) => Err("vanished"),
                Err(_) => Err("unreadable"),
            })
            .clone()
    }

    /// The sources of `learning` that no longer have their recorded blob id, in file order;
    /// empty when the learning is current.
    pub(crate) fn stale_sources(
        &mut self,
        project: &Project,
        learning: &Learning,
    ) -> Vec<StaleSource> {
        learning
            .sources
            .iter()
            .filter_map(|source| {
                let reason = match self.id(project, &source.path) {
                    Ok(id) if id == source.blob => return None,
                    Ok(_) => "changed",
                    Err(reason) => reason,
                };
                Some(StaleSource {
                    path: source.path.clone(),
                    reason: reason.to_owned(),
                })
            })
            .collect()
    }
}

/// What `record_learning` is asked to save.
#[derive(Debug, Clone)]
pub(crate) struct LearningRequest {
    /// The claim, one or a few sentences.
    pub claim: String,
    /// The files the claim was read from, project-relative (absolute paths inside the project
    /// are accepted and made relative).
    pub files_read: Vec<String>,
    /// The id of a learning this one replaces (it is retired).
    pub replaces: Option<String>,
}

/// What `record_learning` saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct RecordedLearning {
    /// The new learning's id.
    pub id: String,
    /// Project-relative path of its file.
    pub path: String,
    /// The files with the blob ids recorded now, sorted by path.
    pub sources: Vec<SourceFile>,
    /// The learning it replaced (now retired), when asked.
    pub replaced: Option<String>,
    /// One sentence for the agent.
    pub message: String,
}

/// Saves a learning: hashes each of `files_read` now and creates a new file under
/// `.ai-rulez/learnings/` (never replacing one), with an id made from the claim. With
/// `replaces`, the old learning is retired in the same locked step.
///
/// Errors: [`Error::Usage`] for an empty or oversized claim, no or too many files, a file
/// outside the project or absent, an unknown or retired `replaces`, or text the screening
/// refuses (credentials, hidden characters, text aimed at the model); [`Error::Busy`]; I/O.
pub(crate) fn record_learning(
    project: &Project,
    request: &LearningRequest,
) -> Result<RecordedLearning> {
    let claim = request.claim.trim();
    if claim.is_empty() {
        return Err(Error::Usage(
            "`claim` is empty; state what you learned from the files in a sentence or two"
                .to_owned(),
        ));
    }
    if claim.chars().count() > MAX_CLAIM_CHARS {
        return Err(Error::Usage(format!(
            "`claim` is longer than {MAX_CLAIM_CHARS} characters; keep a learning to a few sentences"
        )));
    }
    let judgement = crate::learning::risk::judge(project, claim);
    let blocking: Vec<&String> = judgement
        .refusals
        .iter()
        .chain(
            judgement
                .risks
                .iter()
                .filter(|risk| !risk.starts_with("links to")),
        )
        .collect();
    if !blocking.is_empty() {
        return Err(Error::Usage(format!(
            "the claim was not saved, since learnings are served to agents as written: {}",
            blocking
                .iter()
                .map(|reason| reason.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )));
    }
    let paths = source_paths(project, &request.files_read)?;
    if let Some(old) = &request.replaces {
        check_id(old)?;
    }
    let _lock = project.dir.lock()?;
    let mut sources = Vec::with_capacity(paths.len());
    for path in paths {
        let (bytes, _) = project.dir.read(&path, MAX_SOURCE_BYTES)?.ok_or_else(|| {
            Error::Usage(format!(
                "`files_read`: {path} does not exist; name only files you read (project-relative)"
            ))
        })?;
        let blob = crate::git::worktree_blob_id(&bytes).ok_or_else(|| {
            Error::refused(
                &path,
                "looks like a SHA-1 collision attack; it cannot back a learning",
            )
        })?;
        sources.push(SourceFile { path, blob });
    }
    let replaced = match &request.replaces {
        Some(old) => Some(find(project, old)?),
        None => None,
    };
    if let Some(old) = &replaced
        && old.retired.is_some()
    {
        return Err(Error::Usage(format!(
            "learning `{}` is already retired; record the new learning without `replaces`",
            old.id
        )));
    }
    let text = render(claim, &sources, request.replaces.as_deref());
    let (id, path) = create_with_free_id(project, &id_from_claim(claim), &text)?;
    if let Some(old) = &replaced {
        retire_file(project, old, Some(&id))?;
    }
    let message = match &replaced {
        Some(old) => format!(
            "learning `{id}` saved with {} source file(s); `{}` is retired",
            sources.len(),
            old.id
        ),
        None => format!(
            "learning `{id}` saved with {} source file(s)",
            sources.len()
        ),
    };
    Ok(RecordedLearning {
        id,
        path,
        sources,
        replaced: replaced.map(|old| old.id),
        message,
    })
}

/// The project-relative, de-duplicated, sorted paths of `files_read`.
///
/// Errors: [`Error::Usage`] for none, more than [`MAX_SOURCES`], or one outside the project.
fn source_paths(project: &Project, files_read: &[String]) -> Result<Vec<String>> {
    if files_read.is_empty() {
        return Err(Error::Usage(
            "`files_read` is empty; a learning names the files it was read from".to_owned(),
        ));
    }
    if files_read.len() > MAX_SOURCES {
        return Err(Error::Usage(format!(
            "`files_read` names {} files; at most {MAX_SOURCES}: name the files the claim rests on",
            files_read.len()
        )));
    }
    let mut paths = Vec::with_capacity(files_read.len());
    for given in files_read {
        let relative = crate::retrieval::project_relative(&project.root, given)
            .filter(|relative| !relative.is_empty())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "`files_read`: {given} is not a file inside the project; pass project-relative paths"
                ))
            })?;
        crate::confined_fs::check_relative(&relative)?;
        paths.push(relative);
    }
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// An id from a claim: its slug cut at a dash to at most [`MAX_ID_CHARS`] characters;
/// `learning` when it has no letters or digits.
fn id_from_claim(claim: &str) -> String {
    let slug = crate::content::slug(claim);
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
    if id.is_empty() {
        "learning".to_owned()
    } else {
        id
    }
}

/// Creates `<folder>/<base>.md` (or `-2`, `-3`, ... when taken) with `text`, never replacing a
/// file. The caller holds the writer lock. Returns (id, path).
///
/// Errors: [`Error::Refused`] when every numbered id is taken; I/O.
pub(super) fn create_with_free_id(
    project: &Project,
    base: &str,
    text: &str,
) -> Result<(String, String)> {
    let folder = folder(project);
    create_in_folder(project, &folder, base, text)
}

/// As [`create_with_free_id`], in `folder`.
pub(super) fn create_in_folder(
    project: &Project,
    folder: &str,
    base: &str,
    text: &str,
) -> Result<(String, String)> {
    for number in 1..=MAX_ID_SUFFIX {
        let id = if number == 1 {
            base.to_owned()
        } else {
            format!("{base}-{number}")
        };
        let path = format!("{folder}/{id}.md");
        if project.dir.info(&path)?.is_some() {
            continue;
        }
        project.dir.create_new(&path, text.as_bytes(), 0o644)?;
        return Ok((id, path));
    }
    Err(Error::refused(
        folder,
        format!("ids `{base}` to `{base}-{MAX_ID_SUFFIX}` are all taken; reword the text"),
    ))
}

/// The learning `id`.
///
/// Errors: [`Error::Usage`] when no learning file has that id, or it does not parse.
fn find(project: &Project, id: &str) -> Result<Learning> {
    check_id(id)?;
    let path = format!("{}/{id}.md", folder(project));
    let (bytes, _) = project
        .dir
        .read(&path, MAX_LEARNING_BYTES)?
        .ok_or_else(|| {
            Error::Usage(format!(
                "no learning has the id `{id}`; review_learnings lists them"
            ))
        })?;
    parse(&path, &bytes)
}

/// Marks `learning` retired today (with `replaced_by` when given), keeping the rest of its file
/// as written. The caller holds the writer lock.
fn retire_file(project: &Project, learning: &Learning, replaced_by: Option<&str>) -> Result<()> {
    let mut add = vec![format!("retired: {}", today())];
    if let Some(newer) = replaced_by {
        add.push(format!("replaced_by: {}", frontmatter::yaml_string(newer)));
    }
    let yaml = frontmatter::rewrite_top_level(&learning.yaml, &["retired", "replaced_by"], &add);
    let text = format!("---\n{yaml}---\n{}\n", learning.claim);
    project.dir.write(&learning.path, text.as_bytes(), 0o644)
}

/// What `retire_learning` did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct RetiredLearning {
    /// The learning's id.
    pub id: String,
    /// `retired`, or `unchanged` when it already was.
    pub outcome: String,
    /// One sentence for the agent.
    pub message: String,
}

/// Retires the learning `id`: it stays in its file for history (a `retired` date is added) and
/// is never served again.
///
/// Errors: [`Error::Usage`] for an unknown id or a file that does not parse; [`Error::Busy`]; I/O.
pub(crate) fn retire_learning(project: &Project, id: &str) -> Result<RetiredLearning> {
    let _lock = project.dir.lock()?;
    let learning = find(project, id)?;
    if learning.retired.is_some() {
        return Ok(RetiredLearning {
            id: id.to_owned(),
            outcome: "unchanged".to_owned(),
            message: format!("learning `{id}` was already retired"),
        });
    }
    retire_file(project, &learning, None)?;
    Ok(RetiredLearning {
        id: id.to_owned(),
        outcome: "retired".to_owned(),
        message: format!(
            "learning `{id}` is retired ({}); it is kept for history and never served",
            learning.path
        ),
    })
}

/// A fresh learning as `get_context` serves it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub(crate) struct ServedLearning {
    /// Id (file stem).
    pub id: String,
    /// The claim.
    pub claim: String,
    /// The files it was read from (each still has its recorded blob id).
    pub sources: Vec<String>,
    /// Always "verify before relying on it".
    pub label: String,
}

/// The current learnings naming a file at or below the project-relative `path`, newest first
/// (by `created`, then id), at most [`MAX_SERVED`]. Stale and retired learnings are never
/// served; unreadable learning files are skipped.
#[must_use]
pub(crate) fn fresh_for_path(project: &Project, path: &str) -> Vec<ServedLearning> {
    let Ok((mut learnings, _)) = load_all(project) else {
        return Vec::new();
    };
    learnings.retain(|learning| {
        learning.retired.is_none() && super::learnings_review::names_path_under(learning, path)
    });
    learnings.sort_by(|left, right| {
        right
            .created
            .cmp(&left.created)
            .then_with(|| left.id.cmp(&right.id))
    });
    let mut cache = BlobCache::default();
    learnings
        .iter()
        .filter(|learning| cache.stale_sources(project, learning).is_empty())
        .take(MAX_SERVED)
        .map(|learning| ServedLearning {
            id: learning.id.clone(),
            claim: learning.claim.clone(),
            sources: learning.sources.iter().map(|s| s.path.clone()).collect(),
            label: LABEL.to_owned(),
        })
        .collect()
}

/// The text block `get_context` adds for fresh learnings; empty when there are none.
#[must_use]
pub(crate) fn served_text(learnings: &[ServedLearning]) -> String {
    if learnings.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\n## Learnings ({LABEL}: each was read from the files named, which have not changed since)\n"
    );
    for learning in learnings {
        text.push_str(&format!(
            "- `{}`: {} (from {})\n",
            learning.id,
            learning.claim.replace('\n', " "),
            learning.sources.join(", ")
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_claim() {
        assert_eq!(
            id_from_claim("The pool is created once in main."),
            "the-pool-is-created-once-in-main"
        );
        assert_eq!(id_from_claim("???"), "learning");
    }
}
