//! `find_context` and `load_context`: which indexed instruction files apply to a path or a scope
//! (optionally ranked against a task), and one file's current text within a byte budget.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde::Serialize;

use super::{FileKind, InstructionFile, InstructionIndex, MAX_FILE_BYTES, below_scope};
use crate::confined_fs::ProjectDir;
use crate::content::Activation;

/// Default number of results of `find_context`.
pub(crate) const DEFAULT_LIMIT: usize = 10;
/// Most results of `find_context`.
pub(crate) const MAX_LIMIT: usize = 50;
/// Default `budget_bytes` of `load_context` (64 KiB, about 16,000 tokens: under the 25,000-token
/// cap some clients put on a tool result).
pub(crate) const DEFAULT_BUDGET_BYTES: usize = 64 * 1024;

/// What `find_context` is asked: at most one of `path` and `scope`.
#[derive(Debug, Clone, Default)]
pub(crate) struct FindContextRequest {
    /// A project-relative file: the scopes enclosing it, nearest first; rules only when their
    /// globs match it.
    pub path: Option<String>,
    /// A project-relative scope folder (`.` for the root): every file of that scope, rules
    /// whatever their globs.
    pub scope: Option<String>,
    /// With `scope`, also the scopes below it.
    pub recursive: bool,
    /// Words to rank by (name, scope, kind, description); without `path`, a file matching no word
    /// is left out (with `path` every file that applies is kept, the task only orders them).
    pub task: Option<String>,
    /// Only this kind (never [`FileKind::Command`]: commands are not served as context).
    pub kind: Option<FileKind>,
    /// Most results (1 to [`MAX_LIMIT`]).
    pub limit: usize,
}

/// One file `find_context` found.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct ContextMatch {
    /// Short name: the file name of an instruction file, the stem of a rule or agent.
    pub name: String,
    /// `instruction`, `rule` or `agent`.
    pub kind: FileKind,
    /// The scope folder, `.` for the root.
    pub scope: String,
    /// Whose format: `agents`, `claude`, `gemini`, `cursor` or `copilot`.
    pub source: String,
    /// Its description (frontmatter, else first heading or line).
    pub description: String,
    /// Pass it to `load_context` (or `resources/read`) for the text.
    pub uri: String,
    /// `sha256:` digest of the file when indexed.
    pub hash: String,
    /// The globs that narrow a rule, relative to its scope; absent when it applies to the whole
    /// scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub globs: Vec<String>,
    /// How its assistant reads it when no path does, in ai-rulez's activation terms: `auto` (a
    /// Cursor or Copilot rule read when its description fits the task) or `manual` (only when a
    /// user attaches or mentions it); absent for files read for their scope or globs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activation: Option<&'static str>,
    /// Relevance to the task (distinct task words matched, a name match counting twice); absent
    /// without a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<u32>,
}

/// The reply of `find_context`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct FindContextReply {
    /// Results returned.
    pub count: usize,
    /// Results found before `limit`.
    pub total: usize,
    /// The scopes considered that hold indexed files: for a path, nearest first.
    pub scopes: Vec<String>,
    /// The files, best first. Without a task: for a path the nearest scope first, otherwise the
    /// shallowest; within a scope instruction files, rules, then agents, by path.
    pub results: Vec<ContextMatch>,
    /// Files withheld (a screening error, bad frontmatter, not UTF-8, too large, a symlink) and
    /// symlinked tool folders (`web/.cursor`), as `path: why`, in path order: with a path, those
    /// whose scope encloses it; with a scope, those in it (and below it, recursively).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub withheld: Vec<String>,
    /// Whether the index was cut at its limit of 20,000 files (the shallowest scopes were kept).
    pub index_truncated: bool,
}

/// Answers `find_context` from `index`.
///
/// Errors: a sentence when both `path` and `scope` are given, when `recursive` comes without
/// `scope`, or when `kind` is `command`.
pub(crate) fn find_context(
    index: &InstructionIndex,
    request: &FindContextRequest,
) -> Result<FindContextReply, String> {
    if request.path.is_some() && request.scope.is_some() {
        return Err("give either path or scope, not both".to_owned());
    }
    if request.recursive && request.scope.is_none() {
        return Err("recursive needs scope".to_owned());
    }
    if request.kind == Some(FileKind::Command) {
        return Err(
            "commands are indexed but not served as context; kind is instruction, rule or agent"
                .to_owned(),
        );
    }
    let asked_scope = request.scope.as_deref().map(folder_of_scope);
    let scope_rank = |file: &InstructionFile| -> Option<usize> {
        if let Some(path) = &request.path {
            // A rule its assistant reads when the description fits the task is no match for
            // a path alone; with a task it is a candidate the task words must select.
            let requested_here = file.activation == Activation::Auto
                && request.task.is_some()
                && file.in_scope(path);
            return (file.applies_to(path) || requested_here)
                .then(|| usize::MAX - super::depth(&file.scope));
        }
        if let Some(scope) = asked_scope {
            let inside = file.scope == scope
                || (request.recursive && below_scope(scope, &file.scope).is_some());
            return inside.then(|| super::depth(&file.scope));
        }
        Some(super::depth(&file.scope))
    };
    let task_terms: Vec<String> = request
        .task
        .as_deref()
        .map(crate::search::terms)
        .unwrap_or_default()
        .into_iter()
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut found: Vec<(u32, usize, &InstructionFile)> = index
        .files
        .iter()
        .filter(|file| file.kind != FileKind::Command)
        .filter(|file| request.kind.is_none_or(|kind| kind == file.kind))
        .filter_map(|file| {
            let rank = scope_rank(file)?;
            // With a path the files that apply to it are all needed whatever the task says
            // (a task's words rarely name the folder's AGENTS.md), so the task only ranks them;
            // without one the task is what selects.
            let score = if request.task.is_some() {
                let score = task_score(file, &task_terms);
                let selected_by_task =
                    request.path.is_none() || file.activation == Activation::Auto;
                if score == 0 && selected_by_task {
                    return None;
                }
                score
            } else {
                0
            };
            Some((score, rank, file))
        })
        .collect();
    // Best score first; then for a path the nearest scope, otherwise the shallowest; then the
    // scope's name, the kind (instruction files, rules, agents) and the path.
    found.sort_by(|left, right| {
        right
            .0
            .cmp(&left.0)
            .then_with(|| left.1.cmp(&right.1))
            .then_with(|| left.2.scope.cmp(&right.2.scope))
            .then_with(|| left.2.kind.cmp(&right.2.kind))
            .then_with(|| left.2.path.cmp(&right.2.path))
    });
    let mut scopes: Vec<String> = Vec::new();
    let mut by_nearness: Vec<&(u32, usize, &InstructionFile)> = found.iter().collect();
    by_nearness.sort_by_key(|(_, rank, _)| *rank);
    for (_, _, file) in by_nearness {
        if !scopes.contains(&file.scope) {
            scopes.push(file.scope.clone());
        }
    }
    let total = found.len();
    let results: Vec<ContextMatch> = found
        .into_iter()
        .take(request.limit.clamp(1, MAX_LIMIT))
        .map(|(score, _, file)| ContextMatch {
            name: file.name.clone(),
            kind: file.kind,
            scope: file.scope.clone(),
            source: file.source.to_owned(),
            description: file.description.clone(),
            uri: file.uri(),
            hash: file.hash.clone(),
            globs: file.globs.clone(),
            activation: (!file.read_for_paths()).then(|| file.activation.name()),
            score: request.task.is_some().then_some(score),
        })
        .collect();
    Ok(FindContextReply {
        count: results.len(),
        total,
        scopes,
        results,
        withheld: index
            .withheld
            .iter()
            .filter(|(path, _)| withheld_is_asked_for(request, asked_scope, path))
            .map(|(path, error)| format!("{path}: {error}"))
            .collect(),
        index_truncated: index.truncated,
    })
}

/// The scope folder a `scope` argument names: without trailing `/`, `.` for the root.
fn folder_of_scope(scope: &str) -> &str {
    match scope.trim_end_matches('/') {
        "" => ".",
        folder => folder,
    }
}

/// Whether a withheld file (or linked tool folder) at `path` belongs in the reply to
/// `request`, whose scope folder is `asked_scope`: with a path, when its scope encloses that
/// path (it might have applied, had it been served); with a scope, when it is in that scope (or
/// below it, recursively); otherwise always.
fn withheld_is_asked_for(
    request: &FindContextRequest,
    asked_scope: Option<&str>,
    path: &str,
) -> bool {
    let scope = super::withheld_scope(path);
    if let Some(asked) = &request.path {
        return below_scope(&scope, asked).is_some();
    }
    match asked_scope {
        Some(asked) => {
            scope == asked || (request.recursive && below_scope(asked, &scope).is_some())
        }
        None => true,
    }
}

/// Distinct task terms found in the file's name (counting 2) or in its scope, kind and
/// description (counting 1).
fn task_score(file: &InstructionFile, task_terms: &[String]) -> u32 {
    let name_terms: HashSet<String> = crate::search::terms(&file.name).into_iter().collect();
    let other_terms: HashSet<String> = crate::search::terms(&format!(
        "{} {} {}",
        file.scope,
        file.kind.noun(),
        file.description
    ))
    .into_iter()
    .collect();
    task_terms
        .iter()
        .map(|term| {
            if name_terms.contains(term) {
                2
            } else {
                u32::from(other_terms.contains(term))
            }
        })
        .sum()
}

/// The text of one indexed file, read when asked.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub(crate) struct LoadedContext {
    /// The file's `context://` URI.
    pub uri: String,
    /// Its project-relative path.
    pub path: String,
    /// `instruction`, `rule` or `agent`.
    pub kind: FileKind,
    /// The scope folder.
    pub scope: String,
    /// The file's text as read now (without the ai-rulez section of a hand-written root file,
    /// whose items are served already), cut to the budget at a line end when it is longer.
    pub text: String,
    /// `sha256:` digest of that whole text as read now.
    pub hash: String,
    /// Size of that whole text in bytes.
    pub bytes: usize,
    /// Whether `text` stops before the end of the file.
    pub truncated: bool,
    /// Whether the file changed since the index was built (its hash differs).
    pub changed_since_index: bool,
}

/// Reads the indexed file that `uri` (`context://<scope>/<path within scope>`) or `scope` and
/// `name` (a short name or a path within the scope) name, from disk now, within `budget_bytes`.
/// The arguments only select an index entry; they are never opened as paths.
///
/// Errors: a sentence when neither or both ways of naming are given, when nothing (or more than
/// one file) matches, when the file is a command, gone, too large or not UTF-8, or when screening
/// the current text finds an error.
pub(crate) fn load_context(
    index: &InstructionIndex,
    dir: &ProjectDir,
    uri: Option<&str>,
    scope_and_name: Option<(&str, &str)>,
    budget_bytes: usize,
) -> Result<LoadedContext, String> {
    let file = match (uri, scope_and_name) {
        (Some(uri), None) => index
            .files
            .iter()
            .find(|file| file.uri() == uri)
            .ok_or_else(|| {
                let path = uri
                    .strip_prefix("context://")
                    .map(|rest| rest.strip_prefix("./").unwrap_or(rest));
                match path.and_then(|path| withheld_reason(index, path)) {
                    Some(reason) => format!("`{}` is withheld: {reason}", uri.escape_debug()),
                    None => format!(
                        "no indexed file has the URI `{}`; find one with find_context",
                        uri.escape_debug()
                    ),
                }
            })?,
        (None, Some((scope, name))) => {
            let scope = scope.trim_end_matches('/');
            let scope = if scope.is_empty() { "." } else { scope };
            let matching: Vec<&InstructionFile> = index
                .files
                .iter()
                .filter(|file| {
                    file.scope == scope && (file.name == name || file.within_scope == name)
                })
                .collect();
            match matching.as_slice() {
                [one] => *one,
                [] => {
                    let path = if scope == "." {
                        name.to_owned()
                    } else {
                        format!("{scope}/{name}")
                    };
                    if let Some(reason) = withheld_reason(index, &path) {
                        return Err(format!("`{}` is withheld: {reason}", path.escape_debug()));
                    }
                    return Err(format!(
                        "scope `{}` has no indexed file named `{}`; find one with find_context",
                        scope.escape_debug(),
                        name.escape_debug()
                    ));
                }
                several => {
                    let uris: Vec<String> = several.iter().map(|file| file.uri()).collect();
                    return Err(format!(
                        "`{name}` names {} files in scope `{scope}`; pass one URI: {}",
                        several.len(),
                        uris.join(", ")
                    ));
                }
            }
        }
        _ => return Err("give either uri, or scope and name".to_owned()),
    };
    if file.kind == FileKind::Command {
        return Err(format!(
            "{} is a command; commands are not served as context",
            file.uri()
        ));
    }
    let bytes = match dir.read(&file.path, MAX_FILE_BYTES) {
        Ok(Some((bytes, _))) => bytes,
        Ok(None) => return Err(format!("{} no longer exists", file.path)),
        Err(error) => return Err(format!("{} cannot be read: {error}", file.path)),
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{} is not UTF-8 text any more", file.path))?;
    let text = super::own_text(&text).into_owned();
    if let Some(error) = super::first_screening_error(&text) {
        return Err(format!("{} is withheld: {error}", file.uri()));
    }
    let hash = crate::hash::sha256_tagged(text.as_bytes());
    let size = text.len();
    let (kept, truncated) = within_budget(&text, budget_bytes);
    Ok(LoadedContext {
        uri: file.uri(),
        path: file.path.clone(),
        kind: file.kind,
        scope: file.scope.clone(),
        changed_since_index: hash != file.hash,
        text: kept.to_owned(),
        hash,
        bytes: size,
        truncated,
    })
}

/// The longest prefix of `text` of at most `budget` bytes ending at a line end (or, when the
/// first line alone is longer, at a character boundary), and whether it is shorter than `text`.
fn within_budget(text: &str, budget: usize) -> (&str, bool) {
    if text.len() <= budget {
        return (text, false);
    }
    // The note `loaded_text` adds to a cut text counts against the budget too.
    let mut end = budget.saturating_sub(CUT_NOTE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let at_line = text[..end].rfind('\n').map_or(end, |newline| newline + 1);
    (&text[..at_line], true)
}

/// Why the file at project-relative `path` was left out of the index, when the screening
/// withheld it.
fn withheld_reason<'a>(index: &'a InstructionIndex, path: &str) -> Option<&'a str> {
    index
        .withheld
        .iter()
        .find(|(withheld, _)| withheld == path)
        .map(|(_, reason)| reason.as_str())
}

/// `find_context`'s reply as text for the model.
#[must_use]
pub(crate) fn context_text(reply: &FindContextReply) -> String {
    let mut text = String::new();
    if reply.results.is_empty() {
        text.push_str("No instruction files found.\n");
    }
    for found in &reply.results {
        let _ = write!(
            text,
            "- {} {} in `{}`",
            found.kind.noun(),
            found.name,
            found.scope
        );
        if !found.globs.is_empty() {
            let _ = write!(text, " (for {})", found.globs.join(", "));
        }
        if let Some(activation) = found.activation {
            text.push_str(if activation == Activation::Auto.name() {
                " (read when its description fits the task)"
            } else {
                " (read only when attached or mentioned)"
            });
        }
        // A file with no description and no text has no summary; no empty one is printed.
        if found.description.is_empty() {
            let _ = writeln!(text, ": <{}>", found.uri);
        } else {
            let _ = writeln!(text, ": {} <{}>", found.description, found.uri);
        }
    }
    if reply.total > reply.count {
        let _ = writeln!(
            text,
            "{} more not shown; raise limit or narrow with task or kind.",
            reply.total - reply.count
        );
    }
    for withheld in &reply.withheld {
        let _ = writeln!(text, "withheld: {withheld}");
    }
    text
}

/// The most bytes the note of a cut text takes (`\n[cut at N of M bytes; ...]\n` with two
/// numbers of up to 7 digits, as files are at most 1 MiB: 68 bytes, rounded up).
const CUT_NOTE_BYTES: usize = 72;

/// `load_context`'s reply as text for the model: the file's text, then a note when it was cut;
/// the two together stay within the budget.
#[must_use]
pub(crate) fn loaded_text(loaded: &LoadedContext) -> String {
    let mut text = loaded.text.clone();
    if loaded.truncated {
        let _ = write!(
            text,
            "\n[cut at {} of {} bytes; raise budget_bytes for the rest]\n",
            loaded.text.len(),
            loaded.bytes
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::within_budget;

    #[test]
    fn budgets_cut_at_line_ends_and_character_boundaries() {
        assert_eq!(within_budget("ab\ncd\n", 10), ("ab\ncd\n", false));
        let long = "ab\n".repeat(100);
        assert_eq!(within_budget(&long, 78), ("ab\nab\n", true));
        let wide = "é".repeat(100);
        assert_eq!(within_budget(&wide, 75), ("é", true));
        // The text and the note together stay within the budget.
        let (kept, _) = within_budget(&long, 256);
        let note = format!(
            "\n[cut at {} of {} bytes; raise budget_bytes for the rest]\n",
            1_048_576, 1_048_576
        );
        assert!(note.len() <= super::CUT_NOTE_BYTES, "{}", note.len());
        assert!(kept.len() + note.len() <= 256);
    }
}
