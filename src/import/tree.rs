//! Reading a source tree for an import, through the confined file layer: files of a folder,
//! Markdown documents, and skills with their resources. Files ai-rulez generated are skipped,
//! so an import never brings our own outputs back as sources.

use crate::confined_fs::{Entry, EntryKind, ProjectDir};
use crate::content::{Kind, MAX_FILE_BYTES};
use crate::error::Result;
use crate::frontmatter::Document;
use crate::hash::{Provenance, banner_provenance};
use crate::import::Found;
use crate::import::draft::Draft;

/// Why a symlink is left out of an import.
const SYMLINK_LEFT_OUT: &str = "it is a symlink, and ai-rulez never reads through symlinks (a committed link could point anywhere); put the real file or folder there to import it";

/// Turns a source's `targets` value into our preset names: (value, origin path, notes).
pub(crate) type MapTargets = dyn Fn(&serde_json::Value, &str, &mut Vec<String>) -> Vec<String>;

/// The project being imported into, read-only.
pub(crate) struct Tree<'a> {
    /// The project root.
    pub dir: &'a ProjectDir,
    /// Entries of the folders read that cannot be imported (symlinks, names that are not
    /// UTF-8, pipes and devices), one sentence each, in the order met.
    pub left_out: std::cell::RefCell<Vec<String>>,
    /// Every file read as an item (path → [`crate::hash::content_digest`] of the bytes read),
    /// for the record that lets the next `generate` replace the ones still unchanged.
    pub read_files: std::cell::RefCell<std::collections::BTreeMap<String, String>>,
}

impl<'a> Tree<'a> {
    /// The tree of the project at `dir`, with nothing left out yet.
    pub(crate) fn new(dir: &'a ProjectDir) -> Self {
        Self {
            dir,
            left_out: std::cell::RefCell::new(Vec::new()),
            read_files: std::cell::RefCell::new(std::collections::BTreeMap::new()),
        }
    }

    /// The entries of `folder` that can be read (regular files and folders with UTF-8 names);
    /// the others are named in [`Tree::left_out`]. `None` when the folder does not exist.
    ///
    /// Errors: I/O errors (a symlink on the way to `folder` is refused).
    fn readable_entries(&self, folder: &str) -> Result<Option<Vec<Entry>>> {
        let entries = match self.dir.list(folder) {
            Ok(Some(entries)) => entries,
            Ok(None) => return Ok(None),
            Err(error) => return self.left_out_if_linked(folder, error),
        };
        let mut readable = Vec::with_capacity(entries.len());
        for entry in entries {
            let path = format!("{folder}/{}", entry.name);
            let why = match (entry.exact_name, entry.kind) {
                (false, _) => {
                    "its name is not valid UTF-8, so it cannot be opened; rename it to import it"
                }
                // Such a name would reach the notes, the item's id and the record of imported
                // files, and print as something else in each.
                (true, _) if crate::lint::screen::breaks_lines(&entry.name) => {
                    "its name holds a control character or line separator (an escape, newline or U+2028); rename it to import it"
                }
                (true, _) if crate::lint::screen::has_hidden_characters(&entry.name) => {
                    "its name holds a hidden character (invisible, such as a zero-width space or a bidirectional control, which make it read as another name); rename it to import it"
                }
                (true, EntryKind::File | EntryKind::Folder) => {
                    readable.push(entry);
                    continue;
                }
                (true, EntryKind::Symlink) => SYMLINK_LEFT_OUT,
                (true, EntryKind::Other) => "it is not a regular file or folder",
            };
            self.left_out.borrow_mut().push(format!(
                "{}: left out, {why}",
                crate::lint::screen::escape_unreadable(&path)
            ));
        }
        Ok(Some(readable))
    }

    /// Names the symlink at the project-relative `path` in [`Tree::left_out`], as a symlink
    /// met in a folder read is named.
    pub(crate) fn leave_out_symlink(&self, path: &str) {
        let note = format!(
            "{}: left out, {SYMLINK_LEFT_OUT}",
            crate::lint::screen::escape_unreadable(path)
        );
        // Several folders read below one link (`.cursor/rules`, `.cursor/commands`) name it once.
        let mut left_out = self.left_out.borrow_mut();
        if !left_out.contains(&note) {
            left_out.push(note);
        }
    }

    /// The bytes of the project-relative file `path`; `None` when it does not exist.
    ///
    /// Errors: I/O errors (a symlink on the way is refused).
    pub(crate) fn bytes(&self, path: &str) -> Result<Option<Vec<u8>>> {
        match self.dir.read(path, MAX_FILE_BYTES) {
            Ok(found) => Ok(found.map(|(bytes, _)| bytes)),
            Err(error) => self.left_out_if_linked(path, error),
        }
    }

    /// After reading the project-relative `path` failed with `error`: when `path`, or a folder
    /// on the way to it, is a symlink, names that link in [`Tree::left_out`] and reads as
    /// nothing there, so one link does not stop the whole import; otherwise `error`.
    fn left_out_if_linked<T>(&self, path: &str, error: crate::error::Error) -> Result<Option<T>> {
        match self.dir.first_link_on_the_way(path) {
            Some(link) => {
                self.leave_out_symlink(&link);
                Ok(None)
            }
            None => Err(error),
        }
    }

    /// Whether `path` is a folder.
    pub(crate) fn is_folder(&self, path: &str) -> Result<bool> {
        Ok(self
            .dir
            .info(path)?
            .is_some_and(|info| info.kind == EntryKind::Folder))
    }

    /// The Markdown document at `path`, or `None` when the file does not exist or ai-rulez
    /// generated it (then a note says so). The ai-rulez section of a hand-written file is left
    /// out (with a note): its text comes from `.ai-rulez/` already.
    ///
    /// Errors: [`crate::error::Error::Invalid`] for bad UTF-8 or frontmatter, naming the file
    /// and line; I/O errors.
    pub(crate) fn document(&self, path: &str, found: &mut Found) -> Result<Option<Document>> {
        let Some(bytes) = self.bytes(path)? else {
            return Ok(None);
        };
        match banner_provenance(&bytes) {
            Provenance::NoBanner => {}
            provenance => {
                found
                    .notes
                    .push(generated_file_note(path, provenance, &bytes, self.dir));
                return Ok(None);
            }
        }
        self.read_files
            .borrow_mut()
            .insert(path.to_owned(), crate::hash::content_digest(path, &bytes));
        let own_text = std::str::from_utf8(&bytes)
            .ok()
            .and_then(crate::write::without_section);
        let document = if let Some(text) = own_text {
            found.notes.push(format!(
                "{path}: its ai-rulez section is left out (generated from .ai-rulez/); the rest of the file is imported"
            ));
            crate::frontmatter::parse(path, text.as_bytes())?
        } else {
            crate::frontmatter::parse(path, &bytes)?
        };
        note_wrong_scope_types(path, &document, found);
        Ok(Some(document))
    }

    /// Project-relative paths of the regular files under `folder` whose name ends with one of
    /// `extensions` (all files when empty), sorted; sub-folders are read when `deep`, except
    /// those named in `skip`. Nothing when the folder does not exist.
    ///
    /// Errors: I/O errors.
    pub(crate) fn files(
        &self,
        folder: &str,
        extensions: &[&str],
        deep: bool,
        skip: &[&str],
    ) -> Result<Vec<String>> {
        let mut out = Vec::new();
        let mut pending = vec![folder.to_owned()];
        while let Some(current) = pending.pop() {
            let Some(entries) = self.readable_entries(&current)? else {
                continue;
            };
            for entry in entries {
                let path = format!("{current}/{}", entry.name);
                match entry.kind {
                    EntryKind::Folder if deep && !skip.contains(&entry.name.as_str()) => {
                        pending.push(path);
                    }
                    EntryKind::File
                        if extensions.is_empty()
                            || extensions.iter().any(|ext| entry.name.ends_with(ext)) =>
                    {
                        out.push(path);
                    }
                    // `RULE.MDC` is one letter case away from a rule: named, so it is not
                    // missing from the import without a word.
                    EntryKind::File
                        if extensions
                            .iter()
                            .any(|ext| entry.name.to_ascii_lowercase().ends_with(ext)) =>
                    {
                        self.left_out.borrow_mut().push(format!(
                            "{}: left out, only names ending in {} (in lower case) are read here; rename it to import it",
                            crate::lint::screen::escape_unreadable(&path),
                            extensions
                                .iter()
                                .map(|ext| format!("`{ext}`"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        ));
                    }
                    _ => {}
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// The sub-folder names of `folder`, sorted.
    ///
    /// Errors: I/O errors.
    pub(crate) fn folders(&self, folder: &str) -> Result<Vec<String>> {
        let mut names: Vec<String> = self
            .readable_entries(folder)?
            .unwrap_or_default()
            .into_iter()
            .filter(|entry| entry.kind == EntryKind::Folder)
            .map(|entry| entry.name)
            .collect();
        names.sort();
        Ok(names)
    }

    /// Every skill folder `<folder>/<id>/SKILL.md` as a skill draft with its other files as
    /// resources; `keep` decides which frontmatter keys carry over (the others are named in a
    /// note). `targets` are mapped by `map_targets` when present.
    ///
    /// Errors: as [`Tree::document`] and [`Tree::files`].
    pub(crate) fn skills(
        &self,
        folder: &str,
        found: &mut Found,
        map_targets: &MapTargets,
    ) -> Result<()> {
        for name in self.folders(folder)? {
            let base = format!("{folder}/{name}");
            let skill_path = format!("{base}/SKILL.md");
            let Some(document) = self.document(&skill_path, found)? else {
                continue;
            };
            let mut draft = Draft::new(Kind::Skill, &name, &skill_path, document.body.clone());
            carry_keys(&mut draft, &document, found, map_targets);
            for path in self.files(&base, &[], true, &[])? {
                if path == skill_path {
                    continue;
                }
                if let Some(bytes) = self.bytes(&path)? {
                    let relative = path[base.len() + 1..].to_owned();
                    draft.resources.push((relative, bytes));
                }
            }
            found.drafts.push(draft);
        }
        Ok(())
    }

    /// Every `*.md` file of `folder` (sub-folders joined into the id with `-`) as an item of
    /// `kind` (agents, commands), carrying the frontmatter keys such an item may have.
    ///
    /// Errors: as [`Tree::document`] and [`Tree::files`].
    pub(crate) fn plain_items(
        &self,
        folder: &str,
        kind: Kind,
        suffix: &str,
        found: &mut Found,
        map_targets: &MapTargets,
    ) -> Result<()> {
        for path in self.files(folder, &[suffix], true, &[])? {
            let Some(document) = self.document(&path, found)? else {
                continue;
            };
            let relative = &path[folder.len() + 1..path.len() - suffix.len()];
            let id = relative.replace('/', "-");
            let mut draft = Draft::new(kind, &id, &path, document.body.clone());
            carry_keys(&mut draft, &document, found, map_targets);
            found.drafts.push(draft);
        }
        Ok(())
    }
}

/// Copies the frontmatter keys of `document` that an item of the draft's kind may carry (see
/// `content::keys`), mapping `targets`; other keys are named in one note.
pub(crate) fn carry_keys(
    draft: &mut Draft,
    document: &Document,
    found: &mut Found,
    map_targets: &MapTargets,
) {
    let mut dropped = Vec::new();
    for (key, value) in &document.values {
        if key == "targets" {
            let targets = map_targets(value, &draft.origin, &mut found.notes);
            draft.set("targets", crate::import::draft::string_list(&targets));
        } else if crate::content::keys::is_known(draft.kind, key)
            && !crate::content::AI_RULEZ_ONLY_KEYS.contains(&key.as_str())
        {
            draft.set(key, value.clone());
        } else {
            dropped.push(key.as_str());
        }
    }
    if !dropped.is_empty() {
        found.note_lossy(
            &draft.origin,
            &format!(
                "left out keys ai-rulez does not read for this {}: {}",
                draft.kind.noun(),
                dropped.join(", ")
            ),
        );
    }
}

/// `targets` as written: a list of names, `*` meaning every assistant (nothing to write).
pub(crate) fn same_targets(
    value: &serde_json::Value,
    _origin: &str,
    _notes: &mut Vec<String>,
) -> Vec<String> {
    let names = crate::scope::split_globs(value).unwrap_or_default();
    if names.iter().any(|name| name == "*") {
        Vec::new()
    } else {
        names
    }
}

/// The frontmatter keys the assistants scope a file with, and the JSON types each takes.
const SCOPE_KEYS: [(&str, &str); 6] = [
    ("globs", "a glob or a list of globs"),
    ("paths", "a glob or a list of globs"),
    ("applyTo", "a glob or a list of globs"),
    ("alwaysApply", "true or false"),
    ("description", "a text"),
    ("trigger", "a text"),
];

/// Why the import skips the file at `path`, whose `bytes` carry an ai-rulez banner of
/// `provenance` (unedited or edited): its text is under `.ai-rulez/` already, or, edited, but
/// for the edit, which the note says where to copy; a file whose source is gone (`.ai-rulez/`
/// deleted or not checked out) says where its text lives instead of being read as hand-written.
fn generated_file_note(
    path: &str,
    provenance: Provenance,
    bytes: &[u8],
    dir: &ProjectDir,
) -> String {
    let source = crate::hash::banner_source(bytes);
    if let Some(source) = &source
        && matches!(dir.info(source), Ok(None))
    {
        return format!(
            "{path}: skipped, it was generated by ai-rulez from {source}, which is not here; restore .ai-rulez/ from git (`git checkout -- .ai-rulez`) instead of importing what was generated from it"
        );
    }
    if provenance == Provenance::Unedited {
        return format!(
            "{path}: skipped, it was generated by ai-rulez (its source is already under .ai-rulez/)"
        );
    }
    let source = source.unwrap_or_else(|| "its source under .ai-rulez/".to_owned());
    format!(
        "{path}: skipped, it was generated by ai-rulez and then edited by hand; the edit is not under .ai-rulez/ yet: copy it into {source} (`ai-rulez generate --dry-run --diff` shows it)"
    )
}

/// Notes each scope key of `document` whose value has the wrong type (`globs: 5`,
/// `alwaysApply: "no"`): the readers ignore such a value, so the imported item's scope comes
/// from the other keys alone, which can make it apply more widely than its author meant. The file
/// is also marked lossy, so `generate` shows the difference instead of adopting the file.
fn note_wrong_scope_types(path: &str, document: &Document, found: &mut Found) {
    let mut wrong = false;
    for (key, expected) in SCOPE_KEYS {
        let Some(value) = document.values.get(key) else {
            continue;
        };
        let fits = match (key, value) {
            (_, serde_json::Value::Null) | ("alwaysApply", serde_json::Value::Bool(_)) => true,
            ("alwaysApply", _) => false,
            ("description" | "trigger", value) => value.is_string(),
            (_, serde_json::Value::String(_)) => true,
            (_, serde_json::Value::Array(items)) => items.iter().all(serde_json::Value::is_string),
            _ => false,
        };
        if !fits {
            found.notes.push(format!(
                "{path}: `{key}` is `{value}`, not {expected}; it is ignored, so check the imported item's scope"
            ));
            wrong = true;
        }
    }
    // Said once per file: without it, the refusal of the next `generate` reads as a fault of
    // the import instead of the guard it is.
    if wrong {
        found.notes.push(format!(
            "{path}: with a scope key ignored, `generate` will not replace it unasked (it shows the diff); once the item's scope is right, delete {path} or run `generate --force`, which keeps a copy"
        ));
        found
            .lossy
            .entry(path.to_owned())
            .or_default()
            .push("a scope key of the wrong type was ignored".to_owned());
    }
}
