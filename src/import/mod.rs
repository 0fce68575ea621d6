//! `ai-rulez import`: reads another tool's setup (rulesync, ruler, an assistant's native rule
//! folders, CLAUDE.md/AGENTS.md, the Go ai-rulez's `ai-rulez.yaml`) into `.ai-rulez/`, keeping
//! what each item applies to (always, globs, model-decided, manual) and for which assistants.
//! It creates item files only (an existing `.ai-rulez/` file with other content stops the import
//! before anything is written) and adds the source's presets and MCP servers to an existing
//! `config.toml` (see `config_update`); `--dry-run` lists the same files without writing.

mod config_update;
pub(crate) mod draft;
mod mcp;
mod native;
mod ruler;
mod rulesync;
pub(crate) mod sections;
mod tree;
mod v2;

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use crate::confined_fs::ProjectDir;
use crate::content::Kind;
use crate::error::{Error, Result};

use draft::Draft;
use mcp::McpServer;
use tree::Tree;

/// The setup an import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// rulesync: `.rulesync/` (rules, commands, subagents, skills, `mcp.json`).
    Rulesync,
    /// ruler: `.ruler/*.md` and `.ruler/ruler.toml`.
    Ruler,
    /// Claude Code: CLAUDE.md, `.claude/{rules,skills,agents,commands}`, `.mcp.json`.
    Claude,
    /// Cursor: `.cursor/rules/*.mdc`, `.cursor/commands`, `.cursor/mcp.json`, `.cursorrules`.
    Cursor,
    /// GitHub Copilot: `.github/copilot-instructions.md`, `.github/instructions`, prompts,
    /// agents, `.vscode/mcp.json`.
    Copilot,
    /// Windsurf: `.windsurf/rules`, `.windsurfrules`.
    Windsurf,
    /// Cline: `.clinerules/` (or the single `.clinerules` file) and its workflows.
    Cline,
    /// AGENTS.md, split into sections.
    AgentsMd,
    /// The Go ai-rulez's v2/v3 `ai-rulez.yaml`.
    AiRulezV2,
}

impl Source {
    /// The name as typed after `--from`.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Rulesync => "rulesync",
            Self::Ruler => "ruler",
            Self::Claude => "claude",
            Self::Cursor => "cursor",
            Self::Copilot => "copilot",
            Self::Windsurf => "windsurf",
            Self::Cline => "cline",
            Self::AgentsMd => "agents-md",
            Self::AiRulezV2 => "ai-rulez-v2",
        }
    }
}

/// What a source holds, read into items and settings.
#[derive(Debug, Default)]
pub(crate) struct Found {
    /// Items, in the order read.
    pub drafts: Vec<Draft>,
    /// MCP servers.
    pub mcp_servers: Vec<McpServer>,
    /// Presets the source was generating for (our names).
    pub presets: Vec<String>,
    /// Project name, when the source says it.
    pub name: Option<String>,
    /// Project description, when the source says it.
    pub description: Option<String>,
    /// What was left out or changed on the way, one sentence each.
    pub notes: Vec<String>,
    /// Source files whose items lost something on the way (a key ai-rulez does not read): the
    /// next `generate` must not adopt them unasked, since replacing them would lose it there too.
    /// Each such file → what it lost, one clause each (`left out frontmatter keys ...: model`).
    pub lossy: BTreeMap<String, Vec<String>>,
}

impl Found {
    /// Notes that the source file at `path` lost `what` on the way (`left out keys ...: foo`),
    /// and marks it lossy: the next `generate` shows the difference instead of replacing it.
    pub(crate) fn note_lossy(&mut self, path: &str, what: &str) {
        self.notes.push(format!(
            "{path}: {what}; so `generate` will not replace {path} unasked (it shows the diff; `--force` keeps a copy)"
        ));
        self.lossy
            .entry(path.to_owned())
            .or_default()
            .push(what.to_owned());
    }
}

/// The result of an import: every file created (or, with `dry_run`, that would be), sorted.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// The folder `.ai-rulez/` is in.
    pub root: PathBuf,
    /// Project-relative paths created (or to create), sorted.
    pub created: Vec<String>,
    /// Existing files the import changes (`.ai-rulez/config.toml` gaining the source's presets
    /// and MCP servers; see `config_update`).
    pub updated: Vec<String>,
    /// Project-relative paths that already hold exactly the imported content, sorted.
    pub unchanged: Vec<String>,
    /// What was left out or changed on the way, one sentence each.
    pub notes: Vec<String>,
}

/// Imports `source` found in `start`'s project (the project found from `start`, else `start`)
/// into its `.ai-rulez/`. With `dry_run` nothing is written.
///
/// Errors: [`Error::Usage`] when the source has nothing to import; [`Error::Refused`] (nothing
/// written) when a file to create exists with other content, listing every such path;
/// [`Error::Invalid`] for a source file that cannot be read (bad YAML, JSON or TOML, naming the
/// file and line); I/O errors.
pub(crate) fn import(start: &Path, source: Source, dry_run: bool) -> Result<Outcome> {
    let root = match crate::project::discover(start) {
        Ok((root, _, _)) => root,
        Err(Error::NoProject { .. }) => fs_err::canonicalize(start)?,
        Err(error) => return Err(error),
    };
    let dir = ProjectDir::open(&root)?;
    let tree = Tree::new(&dir);
    let mut found = Found::default();
    match source {
        Source::Rulesync => rulesync::read(&tree, &mut found)?,
        Source::Ruler => ruler::read(&tree, &mut found)?,
        Source::AiRulezV2 => v2::read(&tree, &mut found)?,
        native => native::read(&tree, native, &mut found)?,
    }
    let left_out = tree.left_out.take();
    if found.drafts.is_empty() && found.mcp_servers.is_empty() {
        // Files it read and skipped (generated by ai-rulez, perhaps edited since) or left out
        // (a symlink, a name that prints as another) were there: the error names them, or it
        // would read as if nothing had been found and the hint to run it elsewhere be wrong.
        if !found.notes.is_empty() {
            let said: Vec<String> = found.notes.iter().cloned().chain(left_out).collect();
            return Err(Error::Usage(format!(
                "found nothing new to import from {} in {}:\n  {}",
                source.name(),
                root.display(),
                said.join("\n  ")
            )));
        }
        if !left_out.is_empty() {
            return Err(Error::Usage(format!(
                "found nothing to import from {} in {} but files it left out:\n  {}",
                source.name(),
                root.display(),
                left_out.join("\n  ")
            )));
        }
        return Err(Error::Usage(format!(
            "found nothing to import from {} in {}; run the command in the folder that holds it ({})",
            source.name(),
            root.display(),
            native::looked_at(source)
        )));
    }
    found.notes.extend(left_out);
    let Planned {
        files,
        config_edit,
        mut items_by_origin,
    } = plan_files(&root, &dir, &mut found)?;
    // Held from the existence check to the last create: a file another writer (a second
    // import, an MCP create tool) adds in between would otherwise stop the import half done.
    let _lock = if dry_run { None } else { Some(dir.lock()?) };
    let config_path = ".ai-rulez/config.toml";
    if let Some((planned_from, _)) = &config_edit
        && !dry_run
        && dir
            .read(config_path, crate::content::MAX_FILE_BYTES)?
            .is_none_or(|(now, _)| now != *planned_from)
    {
        return Err(Error::refused(
            config_path,
            "changed while the import was reading it; nothing was written, run the import again",
        ));
    }
    let mut created = Vec::new();
    let mut unchanged = Vec::new();
    let mut clashes = Vec::new();
    let on_disk = crate::parallel::map_in_order(&files, |(path, bytes)| {
        dir.read(path, crate::content::MAX_FILE_BYTES)
            .map(|found| found.map(|(disk, _)| disk == *bytes))
    });
    for ((path, _), state) in files.iter().zip(on_disk) {
        match state? {
            None => created.push(path.clone()),
            Some(true) => unchanged.push(path.clone()),
            Some(false) => clashes.push(path.clone()),
        }
    }
    // A file where a folder of the new files must go (`.ai-rulez/rules` as a file) reads as
    // nothing there; found only when creating, it would leave the import half done.
    let mut folders = HashSet::new();
    // The record of imported files is written last, into the machine-local folder: a link
    // there found only then would leave the items written and the record missing.
    if !dry_run {
        for path in [
            ".ai-rulez/local/imported.json",
            ".ai-rulez/local/.gitignore",
        ] {
            dir.not_a_folder_on_the_way(path, &mut folders)?;
            if dir
                .info(path)?
                .is_some_and(|info| info.kind == crate::confined_fs::EntryKind::Symlink)
            {
                return Err(Error::refused(
                    path,
                    "is a symlink; ai-rulez never writes through symlinks (a committed link could point anywhere), so nothing was written. Replace it with a real file, then run the import again",
                ));
            }
        }
    }
    for path in &created {
        if let Some(folder) = dir.not_a_folder_on_the_way(path, &mut folders)? {
            return Err(Error::refused(
                path,
                format!(
                    "{folder} is a file where the import needs a folder; nothing was written. Move {folder} away and run the import again"
                ),
            ));
        }
    }
    if let Some((first, others)) = clashes.split_first() {
        let also = if others.is_empty() {
            String::new()
        } else {
            format!(" (and so do {})", others.join(", "))
        };
        return Err(Error::refused(
            first,
            format!(
                "already exists with other content{also}; import never overwrites .ai-rulez/ files, so nothing was written. Move or rename those files (or remove the items you imported before), then run the import again"
            ),
        ));
    }
    // A folder the import may not write in, or a name too long, found before the first create
    // instead of after some items were written (and by a dry run, which then refuses too).
    dir.check_writable(
        created
            .iter()
            .map(String::as_str)
            .chain([".ai-rulez/local/imported.json", config_path]),
    )?;
    if !dry_run {
        let wanted: HashSet<&String> = created.iter().collect();
        let to_create: Vec<&(String, Vec<u8>)> = files
            .iter()
            .filter(|(path, _)| wanted.contains(path))
            .collect();
        // No-clobber creates, spread over the cores (a folder two threads create is fine:
        // an existing folder is used as it is).
        let results = crate::parallel::map_in_order(&to_create, |(path, bytes)| {
            dir.create_new(path, bytes, 0o644)
        });
        results.into_iter().collect::<Result<Vec<()>>>()?;
        // The assistants' files whose text became items: still holding the bytes read, the next
        // `generate` may replace them (see `write::adoption`) instead of refusing them as
        // hand-written, which would leave every imported file in the way of its own output.
        let origins: HashSet<&str> = found
            .drafts
            .iter()
            .map(|draft| draft.origin.as_str())
            .collect();
        let (partial_files, files): (BTreeMap<String, String>, BTreeMap<String, String>) = tree
            .read_files
            .take()
            .into_iter()
            .filter(|(path, _)| {
                origins.contains(path.as_str())
                    && (crate::presets::is_output_path(path)
                        || crate::presets::is_nested_rules_path(path))
            })
            .partition(|(path, _)| found.lossy.contains_key(path));
        items_by_origin.retain(|origin, _| files.contains_key(origin));
        let partial = partial_files
            .into_keys()
            .map(|path| {
                let what = found.lossy[&path].join("; ");
                (path, what)
            })
            .collect();
        let imported = crate::write::adoption::Record {
            files,
            items: items_by_origin,
            partial,
        };
        found
            .notes
            .extend(crate::write::adoption::record(&dir, ".ai-rulez", imported)?);
        // Last: items created and the config not yet updated is what importing again completes.
        if let Some((_, text)) = &config_edit {
            dir.write(config_path, text.as_bytes(), 0o644)?;
        }
    }
    let updated: Vec<String> = config_edit.iter().map(|_| config_path.to_owned()).collect();
    created.sort();
    unchanged.sort();
    let mut notes = found.notes;
    // `init` then `import` is a common first run; the examples would then reach every
    // assistant's files beside the imported items.
    let examples = crate::init::untouched_examples(&dir);
    if !examples.is_empty() {
        notes.push(format!(
            "{}: the example item(s) `ai-rulez init` wrote are still as it wrote them and would be generated beside the imported ones; delete them unless you want them",
            examples.join(", ")
        ));
    }
    Ok(Outcome {
        root,
        created,
        updated,
        unchanged,
        notes,
    })
}

/// The files to create (`config.toml` first when there is none yet), then each item
/// under its kind's folder with a unique id, checked to load as `generate` will load it.
fn plan_files(root: &Path, dir: &ProjectDir, found: &mut Found) -> Result<Planned> {
    let mut files = Vec::new();
    let config_path = ".ai-rulez/config.toml";
    let config_exists = dir.info(config_path)?.is_some()
        || dir.info(".ai-rulez/config.yaml")?.is_some()
        || dir.info(".ai-rulez/config.yml")?.is_some();
    let known: Vec<String> = crate::presets::builtin_specs()?
        .into_iter()
        .map(|spec| spec.name)
        .collect();
    let (presets, unknown): (Vec<String>, Vec<String>) = std::mem::take(&mut found.presets)
        .into_iter()
        .partition(|preset| known.contains(preset));
    if !unknown.is_empty() {
        found.notes.push(format!(
            "not enabled, no ai-rulez preset: {}",
            unknown.join(", ")
        ));
    }
    found.presets = presets;
    let mut config_edit = None;
    if config_exists {
        match dir.read(config_path, crate::content::MAX_FILE_BYTES)? {
            Some((bytes, _)) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let update = config_update::add_presets_and_servers(
                    config_path,
                    &text,
                    &found.presets,
                    &found.mcp_servers,
                );
                found.notes.extend(update.notes);
                if let Some(new) = &update.text {
                    let mut warnings = Vec::new();
                    let config = crate::config::parse(config_path, new, false, &mut warnings)?;
                    let imported =
                        |name: &str| found.mcp_servers.iter().any(|server| server.name == name);
                    let mut notes = Vec::new();
                    screen_servers(config_path, &config.mcp_servers, imported, &mut notes);
                    found.notes.extend(notes);
                }
                config_edit = update.text.map(|new| (bytes, new));
            }
            None if !found.mcp_servers.is_empty() || !found.presets.is_empty() => {
                let names: Vec<&str> = found
                    .mcp_servers
                    .iter()
                    .map(|server| server.name.as_str())
                    .collect();
                found.notes.push(format!(
                    "the project's config is YAML, which import does not edit; add the presets {} and the MCP servers {} by hand",
                    found.presets.join(", "),
                    names.join(", ")
                ));
            }
            None => {}
        }
    } else {
        let name = found.name.clone().unwrap_or_else(|| {
            root.file_name().map_or_else(
                || "project".to_owned(),
                |name| name.to_string_lossy().into_owned(),
            )
        });
        let text = mcp::config_text(
            &name,
            found.description.as_deref(),
            &found.presets,
            &found.mcp_servers,
        );
        let mut warnings = Vec::new();
        let config = crate::config::parse(config_path, &text, false, &mut warnings)?;
        // The servers pass the screening `scan` gives them (literal secrets in `env` or
        // `headers`, hidden characters, ...); its errors are said, as for items, since the
        // servers are the project's own.
        screen_servers(config_path, &config.mcp_servers, |_| true, &mut found.notes);
        files.push((config_path.to_owned(), text.into_bytes()));
    }
    let mut taken: HashSet<(u8, String)> = HashSet::new();
    let existing = existing_ids(dir)?;
    for draft in &mut found.drafts {
        // Skills and commands share names: both become `.claude/skills/<id>/`.
        let space = match draft.kind {
            Kind::Skill | Kind::Command => 0,
            Kind::Rule => 1,
            Kind::Context => 2,
            Kind::Agent => 3,
        };
        let base = valid_id(&draft.id, draft.kind);
        let mut id = base.clone();
        let mut number = 2;
        // An id already in `.ai-rulez/` that differs only in case would be the same file on
        // macOS and Windows, so it counts as taken; the very same id is compared byte for byte
        // later, so importing twice still finds its files unchanged.
        let differs_in_case = |id: &str| {
            existing.iter().any(|(kind, name)| {
                *kind == draft.kind && name != id && name.eq_ignore_ascii_case(id)
            })
        };
        while !taken.insert((space, id.to_ascii_lowercase())) || differs_in_case(&id) {
            id = format!("{base}-{number}");
            number += 1;
        }
        if id != draft.id {
            // A skill's `name` must equal its folder name (the Agent Skills format), so it
            // follows the new id.
            let mut renamed = false;
            if draft.kind == Kind::Skill {
                for (key, value) in &mut draft.fields {
                    if key == "name" {
                        *value = serde_json::Value::String(id.clone());
                        renamed = true;
                    }
                }
            }
            // Which of the two it was: a name that is not a valid id, or one already taken.
            let why = if base == draft.id {
                format!("{} `{}` is taken", draft.kind.noun(), draft.id)
            } else if id == base {
                format!("`{}` is not a valid {} name", draft.id, draft.kind.noun())
            } else {
                format!(
                    "`{}` is not a valid {} name, and `{base}` is taken",
                    draft.id,
                    draft.kind.noun()
                )
            };
            found.notes.push(format!(
                "{}: imported as `{id}` ({why}){}",
                draft.origin,
                if renamed {
                    "; its `name` is set to match, as skill names must equal their folder"
                } else {
                    ""
                }
            ));
        }
        draft.id = id;
    }
    // Rendering, screening and checking each item is independent work: spread over the cores,
    // results in input order.
    let rendered = crate::parallel::map_in_order(&found.drafts, render_checked);
    let mut items_by_origin: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (draft, result) in found.drafts.iter().zip(rendered) {
        let (path, text, notes) = result?;
        found.notes.extend(notes);
        items_by_origin
            .entry(draft.origin.clone())
            .or_default()
            .insert(
                path.clone(),
                crate::hash::content_digest(&path, text.as_bytes()),
            );
        files.push((path, text.into_bytes()));
        let folder = draft.kind.folder();
        for (relative, bytes) in &draft.resources {
            files.push((
                format!(".ai-rulez/{folder}/{}/{relative}", draft.id),
                bytes.clone(),
            ));
        }
    }
    Ok(Planned {
        files,
        config_edit,
        items_by_origin,
    })
}

/// What an import writes: the files to create, the edit of an existing `config.toml` (the
/// bytes it was planned from, and its new text), and the item files made from each file read
/// (project-relative origin → item source path → digest of the text written there).
struct Planned {
    files: Vec<(String, Vec<u8>)>,
    config_edit: Option<(Vec<u8>, String)>,
    items_by_origin: BTreeMap<String, BTreeMap<String, String>>,
}

/// Screens the MCP servers of `servers` that `chosen` accepts (by name) as `scan` does, adding
/// a note per error finding.
fn screen_servers(
    config_path: &str,
    servers: &[crate::mcp_config::McpServer],
    chosen: impl Fn(&str) -> bool,
    notes: &mut Vec<String>,
) {
    for server in servers.iter().filter(|server| chosen(&server.name)) {
        let server_text = crate::lint::screen::mcp_server_text(server);
        let findings =
            crate::lint::screen::screen(&server_text, crate::lint::screen::ScreenKind::McpServer);
        for finding in findings {
            if finding.severity == crate::lint::Severity::Error {
                notes.push(format!(
                    "{config_path}: MCP server `{}`: review it, screening found: {} {}",
                    server.name, finding.code, finding.message
                ));
            }
        }
    }
}

/// The item file of `draft`: its path, its text, and the screening's findings in it and in
/// its resources as notes.
///
/// Errors: the located error of loading when the text would not load as an item.
fn render_checked(draft: &Draft) -> Result<(String, String, Vec<String>)> {
    let folder = draft.kind.folder();
    let path = match draft.kind {
        Kind::Skill => format!(".ai-rulez/{folder}/{}/SKILL.md", draft.id),
        _ => format!(".ai-rulez/{folder}/{}.md", draft.id),
    };
    let text = draft.render();
    // The screening MCP writes pass: imported text is the user's own, so what it finds is
    // said (the same findings `ai-rulez scan` reports), not refused.
    let kind = crate::lint::screen::ScreenKind::of(draft.kind);
    let mut notes: Vec<String> = crate::lint::screen::untrusted_refusals(&text, kind)
        .into_iter()
        .map(|problem| {
            format!(
                "{path} (from {}): review it, screening found: {problem}",
                draft.origin
            )
        })
        .collect();
    // A skill's other files are imported text too (references, scripts), screened as `scan`
    // screens skill files; bytes that are not UTF-8 (images, archives) are not text to screen.
    let source_folder = draft
        .origin
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder);
    for (relative, bytes) in &draft.resources {
        let Ok(resource) = std::str::from_utf8(bytes) else {
            continue;
        };
        let screened = crate::lint::screen::ScreenKind::SkillFile;
        for problem in crate::lint::screen::untrusted_refusals(resource, screened) {
            notes.push(format!(
                ".ai-rulez/{folder}/{}/{relative} (from {source_folder}/{relative}): review it, screening found: {problem}",
                draft.id
            ));
        }
    }
    crate::frontmatter::parse(&path, text.as_bytes())
        .and_then(|document| crate::content::check(draft.kind, &draft.id, &path, document))
        .map_err(|error| not_loadable(draft, &path, error))?;
    Ok((path, text, notes))
}

/// The error for an imported item that would not load: it names the source file (the file to
/// create does not exist yet, and its line numbers are not the source's) and what to do.
fn not_loadable(draft: &Draft, path: &str, error: Error) -> Error {
    let (kind, what) = match error {
        Error::Invalid { kind, message, .. } => (kind, message),
        other => (crate::error::InvalidKind::Other, other.to_string()),
    };
    Error::invalid_as(
        kind,
        &draft.origin,
        None,
        format!(
            "imported as {path}, it would not load: {what}; fix it in {} and run the import again",
            draft.origin
        ),
    )
}

/// `id` when it is a valid item name every system can check out, else its slug (`imported`
/// when nothing is left), followed by `-<kind>` when the slug is a name Windows reserves
/// (`con` becomes `con-rule`).
fn valid_id(id: &str, kind: Kind) -> String {
    let portable = |name: &str| crate::portable::windows_problem(&format!("{name}.md")).is_none();
    if crate::authoring::validate_name("item", id).is_ok() && portable(id) {
        return id.to_owned();
    }
    let slug = crate::content::slug(id);
    let slug = if slug.is_empty() {
        "imported".to_owned()
    } else {
        slug
    };
    if portable(&slug) {
        slug
    } else {
        format!("{slug}-{}", kind.noun())
    }
}

/// The ids of the items already under `.ai-rulez/` (file stems, skill folder names), with
/// their kind.
///
/// Errors: I/O errors (a symlinked kind folder is refused).
fn existing_ids(dir: &ProjectDir) -> Result<Vec<(Kind, String)>> {
    let mut ids = Vec::new();
    for kind in Kind::ALL {
        let folder = format!(".ai-rulez/{}", kind.folder());
        for entry in dir.list(&folder)?.unwrap_or_default() {
            let id = match kind {
                Kind::Skill => Some(entry.name.as_str()),
                _ => entry.name.strip_suffix(".md"),
            };
            if let Some(id) = id {
                ids.push((kind, id.to_owned()));
            }
        }
    }
    Ok(ids)
}
