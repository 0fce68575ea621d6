//! Instruction files the repository already has, outside `.ai-rulez/`: nested `AGENTS.md`,
//! `CLAUDE.md` and `GEMINI.md`, Claude Code rules (`.claude/rules`, `paths:`) and agents, Cursor
//! rules (`.cursor/rules`, `globs:`), Copilot instructions (`.github/instructions`, `applyTo:`).
//! A monorepo keeps much of its knowledge there, so the MCP tools `find_context` and
//! `load_context`, `get_context` and `explain` serve it beside the `.ai-rulez/` items.
//!
//! Each file belongs to a scope: the folder that holds it (or that holds its `.claude`,
//! `.cursor` or `.github` folder), `.` for the project root. A rule's globs are relative to its
//! scope, as each assistant reads them: Claude Code anchors `paths:` at the scope (`*.py` is a
//! file directly there, `**/*.py` any depth), Cursor also matches a bare `*.tsx` at any depth
//! (<https://docs.cursor.com/context/rules>), Copilot's `applyTo` is a workspace glob
//! (<https://code.visualstudio.com/docs/copilot/customization/custom-instructions>).
//!
//! Only files git lists are indexed: tracked ones (even inside an ignored folder), and untracked
//! ones git does not ignore, by the `.gitignore` files of the project and of the folders above it
//! in the repository, `.git/info/exclude` and `core.excludesFile`. The `ignore` crate's walk,
//! which never follows a symlink, finds the untracked files and gix decides; files are then read
//! through [`crate::confined_fs`]. Generated copies (files carrying
//! an ai-rulez banner) are skipped: their sources are served already.

mod kept_index;
mod query;

pub(crate) use kept_index::CachedIndex;

pub(crate) use query::{
    DEFAULT_BUDGET_BYTES, DEFAULT_LIMIT, FindContextReply, FindContextRequest, LoadedContext,
    context_text, find_context, load_context, loaded_text,
};

use globset::GlobSet;

use crate::confined_fs::ProjectDir;
use crate::content::Activation;
use crate::hash::{Provenance, banner_provenance};

/// Most files the index holds; past that it keeps the shallowest scopes.
pub(crate) const MAX_INDEXED: usize = 20_000;
/// Largest instruction, rule or agent file indexed, in bytes (1 MiB).
pub(crate) const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// Characters of a description kept.
const DESCRIPTION_CHARS: usize = 160;

/// What an indexed file is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FileKind {
    /// A whole-scope instruction file (`AGENTS.md`, `CLAUDE.md`, `GEMINI.md`,
    /// `.github/copilot-instructions.md`).
    Instruction,
    /// A rule file, possibly narrowed by globs.
    Rule,
    /// A subagent definition.
    Agent,
    /// A slash command: indexed and counted, never served as context.
    Command,
}

impl FileKind {
    /// The kind's name as tools take and give it.
    #[must_use]
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::Instruction => "instruction",
            Self::Rule => "rule",
            Self::Agent => "agent",
            Self::Command => "command",
        }
    }
}

/// One indexed file.
#[derive(Debug, Clone)]
pub(crate) struct InstructionFile {
    /// Project-relative path, `/`-separated.
    pub path: String,
    /// The scope folder, project-relative; `.` for the root.
    pub scope: String,
    /// The path below the scope (`AGENTS.md`, `.claude/rules/api.md`).
    pub within_scope: String,
    /// Short name: the file name for instruction files, the file stem for rules and agents.
    pub name: String,
    /// What it is.
    pub kind: FileKind,
    /// Whose format: `agents`, `claude`, `gemini`, `cursor` or `copilot`.
    pub source: &'static str,
    /// The frontmatter `description`, else the first heading or line, cut to 160 characters.
    pub description: String,
    /// Globs narrowing a rule, relative to the scope, as written; empty when it applies to the
    /// whole scope.
    pub globs: Vec<String>,
    /// `sha256:` and the hex digest of the text indexed (the file without its ai-rulez section).
    pub hash: String,
    /// How its assistant comes to read it: `Always` (every file of its scope: instruction files,
    /// agents, rules without globs their assistant loads unconditionally, such as Claude rules
    /// without `paths:`), `Glob`, or, for rules no path activates, `Auto` (read when the
    /// assistant judges its description fits the task) and `Manual` (only when attached or
    /// mentioned); see [`Activation::of_unscoped_rule`].
    pub activation: Activation,
    /// The compiled globs (`None` when `globs` is empty or does not compile, in which case the
    /// rule applies nowhere by path but is still listed for its scope).
    matcher: Option<GlobSet>,
    /// Whether `globs` were given but do not compile.
    broken_globs: bool,
}

impl InstructionFile {
    /// The `context://` URI naming this file: `context://<scope>/<path within scope>`.
    #[must_use]
    pub(crate) fn uri(&self) -> String {
        format!("context://{}/{}", self.scope, self.within_scope)
    }

    /// Whether some path activates this file (`Always` or `Glob`); `Auto` and `Manual` rules
    /// are read on request only.
    #[must_use]
    pub(crate) fn read_for_paths(&self) -> bool {
        matches!(self.activation, Activation::Always | Activation::Glob)
    }

    /// Whether the project-relative `path` is this file's scope folder or lies below it.
    #[must_use]
    pub(crate) fn in_scope(&self, path: &str) -> bool {
        path == self.scope || below_scope(&self.scope, path).is_some()
    }

    /// Whether this file applies to `path` (project-relative, a file): it must lie in the scope,
    /// and a rule with globs must match the path relative to the scope. Instruction files and
    /// agents apply to the whole scope; a rule read on request only ([`Self::read_for_paths`])
    /// applies to no path.
    #[must_use]
    pub(crate) fn applies_to(&self, path: &str) -> bool {
        if !self.read_for_paths() {
            return false;
        }
        // The scope folder itself is asked about (`find_context` with `path: "pkg/api"`): its
        // instruction files and agents apply, as do its rules without globs; a glob matches
        // files, not the folder.
        if path == self.scope {
            return self.kind != FileKind::Rule || (self.globs.is_empty() && !self.broken_globs);
        }
        let Some(below) = below_scope(&self.scope, path) else {
            return false;
        };
        if self.kind != FileKind::Rule || (self.globs.is_empty() && !self.broken_globs) {
            return true;
        }
        self.matcher
            .as_ref()
            .is_some_and(|matcher| matcher.is_match(below))
    }
}

/// `path` relative to `scope` when it lies inside it.
pub(crate) fn below_scope<'a>(scope: &str, path: &'a str) -> Option<&'a str> {
    if scope == "." {
        return Some(path);
    }
    path.strip_prefix(scope)?.strip_prefix('/')
}

/// Every indexed file of a project, in scope order (shallowest first, then by path).
#[derive(Debug, Default)]
pub(crate) struct InstructionIndex {
    /// The files, ordered by scope depth, then path.
    pub files: Vec<InstructionFile>,
    /// Whether files were left out by [`MAX_INDEXED`].
    pub truncated: bool,
    /// Files left out because they cannot be served (screening found an error, bad frontmatter,
    /// not UTF-8, too large, a symlink, a path with control characters), and symlinked tool
    /// folders, whose files are never read: (path, why, such as the first
    /// screening error as `CODE on line N: message`), in path order.
    pub withheld: Vec<(String, String)>,
}

/// Where a candidate file sits: its scope, its path within the scope, kind and source.
struct Placement {
    scope: String,
    within_scope: String,
    kind: FileKind,
    source: &'static str,
    /// The frontmatter key holding its globs, for rules.
    globs_key: Option<&'static str>,
}

/// The tool folders whose rule, agent and command folders the index reads; what precedes one
/// in a path is the scope of the files inside it.
const TOOL_FOLDERS: [&str; 3] = [".claude", ".cursor", ".github"];

/// The place of the last tool folder ([`TOOL_FOLDERS`]) among a path's `components`.
fn last_tool_folder(components: &[&str]) -> Option<usize> {
    components
        .iter()
        .rposition(|part| TOOL_FOLDERS.contains(part))
}

/// Recognises an instruction file from its project-relative path; `None` for anything else.
fn placement(path: &str) -> Option<Placement> {
    let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
    let scope_of = |folder: &str| {
        if folder.is_empty() {
            ".".to_owned()
        } else {
            folder.to_owned()
        }
    };
    let whole = |source: &'static str| {
        Some(Placement {
            scope: scope_of(folder),
            within_scope: file.to_owned(),
            kind: FileKind::Instruction,
            source,
            globs_key: None,
        })
    };
    match file {
        "AGENTS.md" => return whole("agents"),
        "CLAUDE.md" if !folder.ends_with(".claude") && folder != ".claude" => {
            return whole("claude");
        }
        "GEMINI.md" => return whole("gemini"),
        _ => {}
    }
    // Files inside a tool folder: find the folder's last `.claude`, `.cursor` or `.github`
    // component; what precedes it is the scope.
    let components: Vec<&str> = path.split('/').collect();
    let marker = last_tool_folder(&components)?;
    let scope = scope_of(&components[..marker].join("/"));
    let within_scope = components[marker..].join("/");
    let inside: Vec<&str> = components[marker + 1..].to_vec();
    let (kind, source, globs_key) = match (components[marker], inside.as_slice()) {
        (".claude", ["CLAUDE.md"]) => (FileKind::Instruction, "claude", None),
        (".claude", ["rules", .., name]) if has_extension(name, "md") => {
            (FileKind::Rule, "claude", Some("paths"))
        }
        (".claude", ["agents", .., name]) if has_extension(name, "md") => {
            (FileKind::Agent, "claude", None)
        }
        (".claude", ["commands", .., name]) if has_extension(name, "md") => {
            (FileKind::Command, "claude", None)
        }
        (".cursor", ["rules", .., name])
            if has_extension(name, "mdc") || has_extension(name, "md") =>
        {
            (FileKind::Rule, "cursor", Some("globs"))
        }
        (".github", ["copilot-instructions.md"]) => (FileKind::Instruction, "copilot", None),
        (".github", ["instructions", .., name])
            if name
                .strip_suffix(".md")
                .is_some_and(|stem| has_extension(stem, "instructions")) =>
        {
            (FileKind::Rule, "copilot", Some("applyTo"))
        }
        (".github", ["agents", .., name])
            if name
                .strip_suffix(".md")
                .is_some_and(|stem| has_extension(stem, "agent")) =>
        {
            (FileKind::Agent, "copilot", None)
        }
        _ => return None,
    };
    Some(Placement {
        scope,
        within_scope,
        kind,
        source,
        globs_key,
    })
}

/// Whether `name` ends in `.extension`, exactly as written: the assistants match these
/// extensions case-sensitively, so `RULE.MD` is no rule to them either.
fn has_extension(name: &str, extension: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, found)| found == extension)
}

/// Folders never walked: version control, dependency and build output folders that a
/// `.gitignore` usually covers but a fresh checkout may not.
pub(crate) const SKIPPED_FOLDERS: [&str; 4] = [".git", "node_modules", ".ai-rulez", "target"];

/// Builds the index of the project at `dir`'s root.
///
/// Input: the project directory; `config_dir_relative` is the folder holding ai-rulez's own
/// config (its files are sources, not instruction files, and are never indexed). Output: the
/// index, shallowest scopes first. A file that vanished is left out; one that cannot be served
/// (over [`MAX_FILE_BYTES`], not UTF-8, bad frontmatter, behind a symlink, a screening error)
/// is left out and named in `withheld` with the reason. Never fails.
#[must_use]
pub(crate) fn build(dir: &ProjectDir, config_dir_relative: &str) -> InstructionIndex {
    let Walked {
        files: candidates,
        linked_tool_folders,
    } = walk(dir, config_dir_relative);
    let truncated = candidates.len() > MAX_INDEXED;
    let mut index = InstructionIndex {
        files: Vec::new(),
        truncated,
        withheld: Vec::new(),
    };
    for link in linked_tool_folders {
        index.withheld.push((
            crate::lint::screen::escape_unreadable(&link),
            "a symlink where a tool folder belongs, never followed, so no instruction file behind it is served; make it a real folder to serve them".to_owned(),
        ));
    }
    for (path, placement) in candidates.into_iter().take(MAX_INDEXED) {
        // A newline or escape in a folder or file name would reach the model's text as if it
        // were an instruction (scopes and names are printed in every reply), so such a file is
        // named, escaped, and not served.
        if crate::lint::screen::breaks_lines(&path) {
            index.withheld.push((
                crate::lint::screen::escape_unreadable(&path),
                "its path holds a control character or line separator (a newline, tab, escape or U+2028); rename it to serve it"
                    .to_owned(),
            ));
            continue;
        }
        // A zero-width or bidirectional control character makes a name read as another one
        // (the screening withholds such text in a file's content for the same reason).
        if crate::lint::screen::has_hidden_characters(&path) {
            index.withheld.push((
                crate::lint::screen::escape_unreadable(&path),
                "its path holds a hidden character (invisible, such as a zero-width space, a blank filler or a bidirectional control, which make it read as another name); rename it to serve it"
                    .to_owned(),
            ));
            continue;
        }
        // A file that vanished since it was listed is simply gone; one that cannot be served
        // is named with the reason, so an agent told "no indexed file has the URI" is not left
        // guessing whether the file exists.
        let bytes = match dir.read(&path, MAX_FILE_BYTES) {
            Ok(Some((bytes, _))) => bytes,
            Ok(None) => continue,
            Err(error) => {
                // The entry names the path already, so only the message of a located error.
                let why = match error {
                    crate::error::Error::Invalid { message, .. } => message,
                    crate::error::Error::Refused { reason, .. } => reason,
                    other => other.to_string(),
                };
                index.withheld.push((path, format!("not read: {why}")));
                continue;
            }
        };
        if banner_provenance(&bytes) != Provenance::NoBanner {
            continue;
        }
        let Ok(text) = std::str::from_utf8(&bytes) else {
            index.withheld.push((
                path,
                "not UTF-8 text; save it as UTF-8 to serve it".to_owned(),
            ));
            continue;
        };
        let text = own_text(text);
        if let Some(error) = first_screening_error(&text) {
            index.withheld.push((path, error));
            continue;
        }
        match indexed_file(path, placement, text.as_bytes()) {
            Ok(file) => index.files.push(file),
            Err((path, error)) => index.withheld.push((path, error)),
        }
    }
    index.withheld.sort();
    index
}

/// `text` without the ai-rulez section `generate` keeps in a hand-written root file: that
/// section is a generated copy of `.ai-rulez/` items, which are served already, like the files
/// carrying a banner that the index skips.
pub(crate) fn own_text(text: &str) -> std::borrow::Cow<'_, str> {
    crate::write::without_section(text)
        .map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
}

/// The first error-severity finding of the shared screening in `text`, as `CODE on line N:
/// message`.
pub(crate) fn first_screening_error(text: &str) -> Option<String> {
    crate::lint::screen::screen(text, crate::lint::screen::ScreenKind::InstructionFile)
        .into_iter()
        .find(|finding| finding.severity == crate::lint::Severity::Error)
        .map(|finding| match finding.line {
            // The size is the whole file's, not its first line's.
            Some(line) if finding.code != "AR900" => {
                format!("{} on line {line}: {}", finding.code, finding.message)
            }
            _ => format!("{}: {}", finding.code, finding.message),
        })
}

/// The Cursor rule files of nested folders below `root`, as [`nested_cursor_rules`] finds
/// them, and the symlinks it did not follow where such rules would be.
pub(crate) struct NestedCursorRules {
    /// (project-relative path, scope folder) of each rule file (`<folder>/.cursor/rules/**/*.mdc`
    /// or `.md`; the root's own `.cursor/rules` left out), shallowest scope first, then by path.
    /// A rule file that is itself a symlink is listed: reading it is refused.
    pub files: Vec<(String, String)>,
    /// Project-relative paths of the symlinked `.cursor` folders, or folders inside them, below
    /// the root, in path order.
    pub linked_folders: Vec<String>,
}

/// The Cursor rule files of nested folders of the project at `dir`, found as the context index
/// finds them (git's ignore rules apply, symlinks are not followed, `config_dir_relative` and
/// tool folders are skipped).
#[must_use]
pub(crate) fn nested_cursor_rules(
    dir: &ProjectDir,
    config_dir_relative: &str,
) -> NestedCursorRules {
    let walked = walk(dir, config_dir_relative);
    let linked_folders = walked
        .linked_tool_folders
        .into_iter()
        .filter(|path| {
            path.split('/')
                .position(|part| part == ".cursor")
                .is_some_and(|index| index > 0)
        })
        .collect();
    let files = walked
        .files
        .into_iter()
        .filter(|(path, placement)| {
            !crate::lint::screen::breaks_lines(path)
                && placement.scope != "."
                && placement.kind == FileKind::Rule
                && placement.source == "cursor"
        })
        .map(|(path, placement)| (path, placement.scope))
        .collect();
    NestedCursorRules {
        files,
        linked_folders,
    }
}

/// What the walk of a project finds: the candidate files, and the symlinks to folders that
/// stand where a tool folder would (`.cursor`, `.claude/rules`, ...), which are never followed.
struct Walked {
    /// Every candidate path with its placement, ordered by scope depth, then path.
    files: Vec<(String, Placement)>,
    /// Project-relative paths of the symlinked tool folders, in path order.
    linked_tool_folders: Vec<String>,
}

/// Whether `path` names a tool folder the index looks into (`.claude`, `.cursor`, `.github`),
/// one of their `rules`, `agents`, `commands` or `instructions` folders, or a folder inside one
/// of those: a symlink there hides every instruction file behind it.
fn is_tool_folder_path(path: &str) -> bool {
    let components: Vec<&str> = path.split('/').collect();
    let Some(marker) = last_tool_folder(&components) else {
        return false;
    };
    match components.get(marker + 1) {
        None => true,
        Some(folder) => matches!(*folder, "rules" | "agents" | "commands" | "instructions"),
    }
}

/// The scope of a withheld entry's path (as [`InstructionIndex::withheld`] holds it): the
/// folder holding the tool folder or instruction file it names, `.` for the root.
pub(crate) fn withheld_scope(path: &str) -> String {
    if let Some(placement) = placement(path) {
        return placement.scope;
    }
    let components: Vec<&str> = path.split('/').collect();
    let marker = last_tool_folder(&components).unwrap_or(components.len().saturating_sub(1));
    if marker == 0 {
        ".".to_owned()
    } else {
        components[..marker].join("/")
    }
}

/// Every candidate path of the project at `dir` with its placement, ordered by scope depth,
/// then path, and the symlinked tool folders the walk passed without following them. Git's
/// ignore rules apply (see [`crate::git::listed_among`]); `config_dir_relative` and the
/// [`SKIPPED_FOLDERS`] are not walked.
fn walk(dir: &ProjectDir, config_dir_relative: &str) -> Walked {
    let root = dir.root();
    let config_dir = root.join(config_dir_relative);
    let skip_config_dir = !config_dir_relative.is_empty();
    let walk = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        // Git does not read ripgrep's `.ignore` files, so a folder they hide is still one git
        // lists and its instruction files apply.
        .ignore(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            let is_folder = entry.file_type().is_some_and(|kind| kind.is_dir());
            if !is_folder {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            !(SKIPPED_FOLDERS.contains(&name.as_ref())
                || (skip_config_dir && entry.path() == config_dir))
        })
        .build();
    let mut linked_tool_folders = Vec::new();
    let walked: Vec<String> = walk
        .filter_map(Result::ok)
        // A symlink is kept so that reading it is refused and it is named as withheld: an
        // `AGENTS.md` linked to a shared file would otherwise vanish without a word.
        .filter(|entry| {
            entry
                .file_type()
                .is_some_and(|kind| kind.is_file() || kind.is_symlink())
        })
        .filter_map(|entry| {
            let relative = entry.path().strip_prefix(root).ok()?.to_str()?;
            // Only Windows separates folders with `\`; elsewhere it is part of a name.
            let relative = if std::path::MAIN_SEPARATOR == '\\' {
                relative.replace('\\', "/")
            } else {
                relative.to_owned()
            };
            if placement(&relative).is_some() {
                return Some(relative);
            }
            // A `.cursor` linked to a shared folder, or to one that is gone: a link where a
            // tool folder belongs is never followed, whatever it points to.
            if entry.path_is_symlink() && is_tool_folder_path(&relative) {
                linked_tool_folders.push(relative.clone());
                // Kept for git's verdict, which drops a link it ignores.
                return Some(relative);
            }
            None
        })
        .collect();
    // The walk saw only the project's own ignore files; git also reads those of the folders
    // above a project that is a subfolder of a repository, `.git/info/exclude` and
    // `core.excludesFile`, and lists a tracked file even inside an ignored folder. When the
    // repository cannot be read, the walk's answer stands.
    let wanted = |path: &str| {
        (placement(path).is_some() || is_tool_folder_path(path))
            && !path.split('/').any(|part| SKIPPED_FOLDERS.contains(&part))
            && !(skip_config_dir && below_scope(config_dir_relative, path).is_some())
    };
    let listed = crate::git::listed_among(root, walked.clone(), wanted).unwrap_or(walked);
    linked_tool_folders.retain(|link| listed.binary_search(link).is_ok());
    // A link git tracks inside an ignored folder (`git add --force web/.cursor`) is listed by
    // git but was never seen by the walk. It is looked at without following any link.
    for path in &listed {
        let tracked_link = placement(path).is_none()
            && !linked_tool_folders.contains(path)
            && matches!(dir.info(path), Ok(Some(info)) if info.kind == crate::confined_fs::EntryKind::Symlink);
        if tracked_link {
            linked_tool_folders.push(path.clone());
        }
    }
    linked_tool_folders.sort();
    let mut found: Vec<(String, Placement)> = listed
        .into_iter()
        .filter_map(|path| {
            let placement = placement(&path)?;
            Some((path, placement))
        })
        .collect();
    found.sort_by(|(left_path, left), (right_path, right)| {
        depth(&left.scope)
            .cmp(&depth(&right.scope))
            .then_with(|| left_path.cmp(right_path))
    });
    Walked {
        files: found,
        linked_tool_folders,
    }
}

/// Folder depth of a scope (`.` is 0, `a/b` is 2).
fn depth(scope: &str) -> usize {
    if scope == "." {
        0
    } else {
        scope.split('/').count()
    }
}

/// The index entry for a file read as `bytes`. Errors: its frontmatter does not parse, as
/// (path, why) for the index's `withheld` list.
fn indexed_file(
    path: String,
    placement: Placement,
    bytes: &[u8],
) -> Result<InstructionFile, (String, String)> {
    let document = match crate::frontmatter::parse(&path, bytes) {
        Ok(document) => document,
        Err(error) => {
            let reason =
                format!("its frontmatter does not parse ({error}); fix it to serve the file");
            return Err((path, reason));
        }
    };
    let always = document.values.get("alwaysApply") == Some(&serde_json::Value::Bool(true));
    let globs = match placement.globs_key {
        Some(key) if !always => document
            .values
            .get(key)
            .and_then(crate::scope::split_globs)
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    // Globs are printed in replies; one with a control character matches no real path anyway,
    // so it is dropped and the rule counts as having broken globs.
    let globs_before = globs.len();
    let globs: Vec<String> = globs
        .into_iter()
        .filter(|glob| !glob.chars().any(char::is_control))
        .collect();
    let (matcher, broken_globs) = compile_scope_globs(&globs, placement.source);
    let broken_globs = broken_globs || globs.len() != globs_before;
    let written_description = document
        .values
        .get("description")
        .and_then(serde_json::Value::as_str);
    let activation = match (placement.kind, placement.source) {
        (FileKind::Rule, _) if globs_before > 0 => Activation::Glob,
        (FileKind::Rule, "cursor") if !always => Activation::of_unscoped_rule(written_description),
        (FileKind::Rule, "copilot") => Activation::of_unscoped_rule(written_description),
        _ => Activation::Always,
    };
    let file_name = path.rsplit('/').next().unwrap_or(&path);
    let name = match placement.kind {
        FileKind::Instruction => file_name.to_owned(),
        _ => file_name
            .trim_end_matches(".instructions.md")
            .trim_end_matches(".agent.md")
            .trim_end_matches(".mdc")
            .trim_end_matches(".md")
            .to_owned(),
    };
    // A blank description (`description: ""`, common in Cursor's own template) says nothing,
    // so the summary comes from the body as when the key is absent.
    let description = written_description
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map_or_else(|| first_line(&document.body), str::to_owned);
    Ok(InstructionFile {
        hash: crate::hash::sha256_tagged(bytes),
        path,
        scope: placement.scope,
        within_scope: placement.within_scope,
        name,
        kind: placement.kind,
        source: placement.source,
        description: cut(&description),
        globs,
        activation,
        matcher,
        broken_globs,
    })
}

/// Compiles a rule's globs as its assistant reads them, relative to the scope: Claude Code
/// anchors a pattern without `/` at the scope folder; Cursor and Copilot match it at any depth.
/// Returns the matcher (`None` for no globs) and whether the globs failed to compile.
fn compile_scope_globs(globs: &[String], source: &str) -> (Option<GlobSet>, bool) {
    if globs.is_empty() {
        return (None, false);
    }
    let patterns: Vec<String> = globs
        .iter()
        .map(|glob| {
            let glob = glob.trim_start_matches("./");
            if source == "claude" && !glob.contains('/') {
                format!("/{glob}")
            } else {
                glob.to_owned()
            }
        })
        .collect();
    match crate::scope::compile(&patterns) {
        Ok(matcher) => (Some(matcher), false),
        Err(_) => (None, true),
    }
}

/// The first heading's text, else the first non-empty line of `body`.
fn first_line(body: &str) -> String {
    body.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && *line != "---")
        .map(|line| line.trim_start_matches('#').trim().to_owned())
        .unwrap_or_default()
}

/// `text` on one line without control characters, cut to [`DESCRIPTION_CHARS`] characters with
/// an ellipsis.
fn cut(text: &str) -> String {
    let text = text
        .split_whitespace()
        .map(|word| word.chars().filter(|c| !c.is_control()).collect::<String>())
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if text.chars().count() <= DESCRIPTION_CHARS {
        return text;
    }
    let mut cut: String = text.chars().take(DESCRIPTION_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placements_name_scope_kind_and_source() {
        let cases = [
            (
                "AGENTS.md",
                ".",
                "AGENTS.md",
                FileKind::Instruction,
                "agents",
            ),
            (
                "pkg/api/CLAUDE.md",
                "pkg/api",
                "CLAUDE.md",
                FileKind::Instruction,
                "claude",
            ),
            (
                "pkg/api/.claude/rules/handlers.md",
                "pkg/api",
                ".claude/rules/handlers.md",
                FileKind::Rule,
                "claude",
            ),
            (
                ".claude/CLAUDE.md",
                ".",
                ".claude/CLAUDE.md",
                FileKind::Instruction,
                "claude",
            ),
            (
                "web/.cursor/rules/ui/react.mdc",
                "web",
                ".cursor/rules/ui/react.mdc",
                FileKind::Rule,
                "cursor",
            ),
            (
                ".github/instructions/go.instructions.md",
                ".",
                ".github/instructions/go.instructions.md",
                FileKind::Rule,
                "copilot",
            ),
            (
                "svc/.claude/agents/reviewer.md",
                "svc",
                ".claude/agents/reviewer.md",
                FileKind::Agent,
                "claude",
            ),
            (
                "svc/.claude/commands/ship.md",
                "svc",
                ".claude/commands/ship.md",
                FileKind::Command,
                "claude",
            ),
        ];
        for (path, scope, within, kind, source) in cases {
            let found = placement(path).unwrap_or_else(|| panic!("{path} is recognised"));
            assert_eq!(
                (
                    found.scope.as_str(),
                    found.within_scope.as_str(),
                    found.kind,
                    found.source
                ),
                (scope, within, kind, source),
                "{path}"
            );
        }
        for path in [
            "README.md",
            "docs/.claude/settings.json",
            ".github/workflows/ci.yml",
            ".cursor/rules/x.txt",
        ] {
            assert!(
                placement(path).is_none(),
                "{path} is not an instruction file"
            );
        }
    }

    #[test]
    fn claude_paths_are_anchored_at_the_scope_and_cursor_globs_are_not() {
        let (claude, _) = compile_scope_globs(&["*.py".to_owned()], "claude");
        let claude = claude.expect("compiles");
        assert!(claude.is_match("main.py"));
        assert!(!claude.is_match("lib/main.py"));
        let (cursor, _) = compile_scope_globs(&["*.tsx".to_owned()], "cursor");
        let cursor = cursor.expect("compiles");
        assert!(cursor.is_match("app.tsx"));
        assert!(cursor.is_match("src/ui/app.tsx"));
        let (deep, _) = compile_scope_globs(&["handlers/**".to_owned()], "claude");
        let deep = deep.expect("compiles");
        assert!(deep.is_match("handlers/user.go"));
        assert!(!deep.is_match("other/handlers/user.go"));
    }

    #[test]
    fn a_blank_description_gives_way_to_the_first_line_and_makes_no_auto_rule() {
        let path = ".cursor/rules/style.mdc";
        let file = |text: &str| {
            indexed_file(
                path.to_owned(),
                placement(path).expect("a rule"),
                text.as_bytes(),
            )
            .expect("parses")
        };
        let blank = file(
            "---\ndescription: \"  \"\nglobs:\nalwaysApply: false\n---\n# Tabs\n\nUse tabs.\n",
        );
        assert_eq!(blank.description, "Tabs");
        assert_eq!(blank.activation, Activation::Manual);
        let written = file("---\ndescription: Indentation\n---\n# Tabs\n");
        assert_eq!(written.description, "Indentation");
        assert_eq!(written.activation, Activation::Auto);
    }
}
