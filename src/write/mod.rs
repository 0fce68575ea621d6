//! The one writer: turns a [`Plan`] into files. It never writes through a symlink, never
//! overwrites or deletes a file it cannot prove it wrote (banner hash, manifest digest, or a
//! managed section's own hash), writes atomically (temp file + rename in the same folder), and
//! leaves unchanged bytes alone. `--check`, `--dry-run`, `generate` and `clean` share the same
//! analysis; only [`Mode::Write`] touches the disk.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::gitignore;
use crate::hash::{Provenance, SHA256_MARKER, banner_provenance, sha256_hex, sha256_tagged};
use crate::manifest::{Manifest, MergedEntry};
use crate::mcp_config::{self, DocumentShape, Entry};
use crate::plan::{Content, Markdown, Plan};

const SECTION_BEGIN: &str = "<!-- BEGIN ai-rulez";
const SECTION_END: &str = "<!-- END ai-rulez -->";

/// What to do with the analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Write and delete files.
    Write,
    /// Report drift; touch nothing.
    Check,
    /// Report what `Write` would do; touch nothing.
    DryRun,
}

/// Inputs of one write run besides the plan.
#[derive(Debug, Clone)]
pub struct Settings<'a> {
    /// Absolute project root.
    pub root: &'a Path,
    /// Manifest path, project-relative.
    pub manifest_path: String,
    /// Maintain the `.gitignore` block.
    pub gitignore: bool,
    /// Overwrite files that cannot be proven generated.
    pub force: bool,
    /// Remove everything generated instead of writing the plan.
    pub clean: bool,
}

/// The state of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Will be created (`missing:` in check).
    Create,
    /// Ours and out of date (`stale:`).
    Update,
    /// Already right.
    Unchanged,
    /// Ours once, edited by hand since (`edited:`); refused without `--force`.
    Edited,
    /// A file ai-rulez did not write is in the way (`blocked:`); refused without `--force`.
    Blocked,
    /// Generated earlier, no longer produced, unedited (`orphan:`); deleted.
    Orphan,
    /// No longer produced and not provably unedited: kept, and forgotten by the manifest.
    Kept,
}

impl Status {
    /// Word printed by `--check` (None when the status is not drift).
    #[must_use]
    pub fn check_word(self) -> Option<&'static str> {
        match self {
            Status::Create => Some("missing"),
            Status::Update => Some("stale"),
            Status::Edited => Some("edited"),
            Status::Blocked => Some("blocked"),
            Status::Orphan => Some("orphan"),
            Status::Unchanged | Status::Kept => None,
        }
    }

    /// Word printed by `--dry-run` and after a write.
    #[must_use]
    pub fn action_word(self) -> &'static str {
        match self {
            Status::Create => "create",
            Status::Update => "update",
            Status::Unchanged => "unchanged",
            Status::Edited => "edited",
            Status::Blocked => "blocked",
            Status::Orphan => "delete",
            Status::Kept => "keep",
        }
    }
}

/// One path's analysis.
#[derive(Debug, Clone)]
pub struct Change {
    /// Project-relative path.
    pub path: String,
    /// Its status.
    pub status: Status,
    /// Explanation for refused or kept paths.
    pub detail: Option<String>,
}

/// Result of a run: every path's status (sorted by path) and warnings.
#[derive(Debug, Default)]
pub struct Report {
    /// One change per path, sorted by path.
    pub changes: Vec<Change>,
    /// Warnings (kept files, ...).
    pub warnings: Vec<String>,
}

impl Report {
    /// Whether any path drifts (for `--check`).
    #[must_use]
    pub fn has_drift(&self) -> bool {
        self.changes
            .iter()
            .any(|change| change.status.check_word().is_some())
    }
}

/// A pending disk operation, computed before anything is written. Bytes are borrowed from the
/// plan where possible, so a run holds each output once.
enum Operation<'a> {
    Write {
        path: String,
        bytes: Cow<'a, [u8]>,
        mode: u32,
    },
    Delete {
        path: String,
    },
}

/// Analyses `plan` against the disk and, in [`Mode::Write`], applies it.
///
/// Errors: [`Error::Refused`] (nothing written) when a path is blocked or edited without
/// `force`, a path is or passes through a symlink, or a resolved secret would land in a file git
/// does not ignore; [`Error::Invalid`] for a damaged manifest, `.gitignore` block or settings
/// document; I/O errors.
pub fn apply<'a>(plan: &'a Plan, settings: &'a Settings<'a>, mode: Mode) -> Result<Report> {
    let old_manifest = read_manifest(settings)?;
    let mut state = State {
        settings,
        report: Report::default(),
        operations: Vec::new(),
        manifest: Manifest::default(),
        ignore_entries: Vec::new(),
        secret_paths: Vec::new(),
        dirs: DirCache::default(),
    };
    if !settings.clean {
        for output in plan.outputs.values() {
            state.output(&output.path, &output.content, &old_manifest)?;
        }
    }
    state.orphans(plan, &old_manifest)?;
    state.manifest_and_gitignore(&old_manifest)?;
    state
        .report
        .changes
        .sort_by(|left, right| left.path.cmp(&right.path));
    let refused: Vec<String> = state
        .report
        .changes
        .iter()
        .filter(|change| matches!(change.status, Status::Edited | Status::Blocked))
        .map(|change| {
            format!(
                "{}: {}",
                change.path,
                change.detail.clone().unwrap_or_default()
            )
        })
        .collect();
    if mode == Mode::Write && !refused.is_empty() && !settings.force {
        return Err(Error::refused(
            refused.join("\n"),
            "refused; nothing was written. Move the file(s) away, or run again with `--force` to overwrite them",
        ));
    }
    state.secret_gate()?;
    if mode == Mode::Write {
        perform_all(settings.root, &state.operations, &state.dirs)?;
    }
    Ok(state.report)
}

struct State<'a> {
    settings: &'a Settings<'a>,
    report: Report,
    operations: Vec<Operation<'a>>,
    dirs: DirCache,
    manifest: Manifest,
    ignore_entries: Vec<String>,
    secret_paths: Vec<String>,
}

impl<'a> State<'a> {
    fn record(&mut self, path: &str, status: Status, detail: Option<String>) {
        self.report.changes.push(Change {
            path: path.to_owned(),
            status,
            detail,
        });
    }

    fn output(&mut self, path: &str, content: &'a Content, old: &Manifest) -> Result<()> {
        let found = self.dirs.read(self.settings.root, path)?;
        let disk_mode = found.as_ref().map(|(_, mode)| *mode);
        let disk = found.map(|(bytes, _)| bytes);
        match content {
            Content::Markdown(markdown) => {
                self.markdown(path, markdown, disk.as_deref(), disk_mode, old);
                Ok(())
            }
            Content::Verbatim { bytes, executable } => {
                let mode = if *executable { 0o755 } else { 0o644 };
                self.whole_file(path, bytes, mode, disk.as_deref().zip(disk_mode), old, None);
                Ok(())
            }
            Content::Entries { shape, entries } => {
                self.entries(path, *shape, entries, disk.as_deref(), disk_mode, old)
            }
        }
    }

    fn whole_file(
        &mut self,
        path: &str,
        bytes: &'a [u8],
        mode: u32,
        disk: Option<(&[u8], u32)>,
        old: &Manifest,
        provenance: Option<Provenance>,
    ) {
        let disk_mode = disk.map(|(_, found)| found);
        let disk = disk.map(|(bytes, _)| bytes);
        self.manifest
            .files
            .insert(path.to_owned(), Some(sha256_tagged(bytes)));
        self.ignore_entries.push(format!("/{path}"));
        let mode_differs = disk.is_some() && disk_mode != Some(mode);
        let status = match disk {
            None => Status::Create,
            Some(disk) if disk == bytes && !mode_differs => Status::Unchanged,
            Some(disk) if disk == bytes => Status::Update,
            Some(disk) => {
                let recorded = old.files.get(path).cloned().flatten();
                let digest_matches = recorded.as_deref() == Some(sha256_tagged(disk).as_str());
                match provenance.unwrap_or(Provenance::NoBanner) {
                    Provenance::Unedited => Status::Update,
                    _ if digest_matches => Status::Update,
                    Provenance::Edited => Status::Edited,
                    Provenance::NoBanner => Status::Blocked,
                }
            }
        };
        let detail = match status {
            Status::Edited => Some("generated by ai-rulez, then edited by hand; move your edits into .ai-rulez/ or use --force".to_owned()),
            Status::Blocked => Some("exists and was not written by ai-rulez; move it away (or into .ai-rulez/), or use --force".to_owned()),
            _ => None,
        };
        if matches!(status, Status::Create | Status::Update)
            || (self.settings.force && matches!(status, Status::Edited | Status::Blocked))
        {
            self.operations.push(Operation::Write {
                path: path.to_owned(),
                bytes: Cow::Borrowed(bytes),
                mode,
            });
        }
        self.record(path, status, detail);
    }

    fn markdown(
        &mut self,
        path: &str,
        markdown: &'a Markdown,
        disk: Option<&[u8]>,
        disk_mode: Option<u32>,
        old: &Manifest,
    ) {
        let Some(disk_bytes) = disk else {
            self.whole_file(path, &markdown.bytes, 0o644, None, old, None);
            return;
        };
        let provenance = banner_provenance(disk_bytes);
        let recorded = old.files.get(path).cloned().flatten();
        let ours = provenance != Provenance::NoBanner
            || recorded.as_deref() == Some(sha256_tagged(disk_bytes).as_str());
        // A hand-written file identical to the output without its banner loses nothing when replaced.
        let equivalent = disk_bytes == without_banner(markdown).as_slice();
        if ours || equivalent || self.settings.force || !markdown.section_allowed {
            let provenance = if equivalent {
                Provenance::Unedited
            } else {
                provenance
            };
            self.whole_file(
                path,
                &markdown.bytes,
                0o644,
                disk.zip(disk_mode),
                old,
                Some(provenance),
            );
            return;
        }
        self.section(path, markdown.body(), disk_bytes, disk_mode);
    }

    /// Keeps a hand-written root file and maintains ai-rulez's part between markers in it.
    fn section(&mut self, path: &str, body: &[u8], disk: &[u8], disk_mode: Option<u32>) {
        let Ok(text) = std::str::from_utf8(disk) else {
            self.record(path, Status::Blocked, Some("exists, is not UTF-8 and was not written by ai-rulez; move it away or use --force".to_owned()));
            return;
        };
        let body = String::from_utf8_lossy(body);
        let block = format!(
            "{SECTION_BEGIN}: generated section; edit .ai-rulez/ and run `ai-rulez generate`. {SHA256_MARKER}{} -->\n{body}{SECTION_END}\n",
            sha256_hex(body.as_bytes())
        );
        self.manifest
            .sections
            .insert(path.to_owned(), sha256_tagged(body.as_bytes()));
        let (status, new_text) = match find_section(text) {
            Err(message) => {
                self.record(path, Status::Blocked, Some(message));
                return;
            }
            Ok(None) => {
                let mut new_text = text.to_owned();
                if !new_text.is_empty() && !new_text.ends_with('\n') {
                    new_text.push('\n');
                }
                if !new_text.is_empty() {
                    new_text.push('\n');
                }
                new_text.push_str(&block);
                (Status::Create, new_text)
            }
            Ok(Some(section)) => {
                let current = &text[section.start..section.end];
                if current == block {
                    (Status::Unchanged, text.to_owned())
                } else if !section.unedited {
                    self.record(path, Status::Edited, Some("the ai-rulez section was edited by hand; move your edits outside the markers or into .ai-rulez/, or use --force".to_owned()));
                    return;
                } else {
                    (
                        Status::Update,
                        format!("{}{block}{}", &text[..section.start], &text[section.end..]),
                    )
                }
            }
        };
        if status != Status::Unchanged {
            self.operations.push(Operation::Write {
                path: path.to_owned(),
                bytes: Cow::Owned(new_text.into_bytes()),
                mode: disk_mode.unwrap_or(0o644),
            });
        }
        self.record(path, status, None);
    }

    fn entries(
        &mut self,
        path: &str,
        shape: DocumentShape,
        entries: &[Entry],
        disk: Option<&[u8]>,
        disk_mode: Option<u32>,
        old: &Manifest,
    ) -> Result<()> {
        let text = match disk {
            None => None,
            Some(bytes) => Some(
                std::str::from_utf8(bytes)
                    .map_err(|_| Error::invalid(path, None, "is not UTF-8; fix or move it (ai-rulez never overwrites a file it cannot parse)"))?
                    .to_owned(),
            ),
        };
        let recorded: Vec<MergedEntry> = old.merged.get(path).cloned().unwrap_or_default();
        let mut conflicts = Vec::new();
        let mut stale = false;
        for entry in entries {
            let expected = mcp_config::entry_digest(entry);
            let on_disk = match &text {
                Some(text) => mcp_config::disk_entry_digest(shape, text, &entry.key, Some(entry))
                    .map_err(mcp_error(path))?,
                None => None,
            };
            match on_disk {
                None => stale = true,
                Some(digest) if digest == expected => {}
                Some(digest) => {
                    let owned = recorded
                        .iter()
                        .any(|known| known.key == entry.key && known.digest == digest);
                    if !owned && !self.settings.force {
                        conflicts.push(entry.key.join("."));
                    }
                    stale = true;
                }
            }
        }
        let wanted: BTreeSet<&Vec<String>> = entries.iter().map(|entry| &entry.key).collect();
        let mut removals = Vec::new();
        for known in &recorded {
            if wanted.contains(&known.key) {
                continue;
            }
            let on_disk = match &text {
                Some(text) => mcp_config::disk_entry_digest(shape, text, &known.key, None)
                    .map_err(mcp_error(path))?,
                None => None,
            };
            match on_disk {
                Some(digest) if digest == known.digest => {
                    removals.push(known.key.clone());
                    stale = true;
                }
                Some(_) => self.report.warnings.push(format!(
                    "{path}: `{}` is no longer configured but was edited by hand; it is kept and is now yours",
                    known.key.join(".")
                )),
                None => {}
            }
        }
        self.manifest.merged.insert(
            path.to_owned(),
            entries
                .iter()
                .map(|entry| MergedEntry {
                    key: entry.key.clone(),
                    digest: mcp_config::entry_digest(entry),
                })
                .collect(),
        );
        if entries.iter().any(|entry| entry.holds_resolved_secret) {
            self.secret_paths.push(path.to_owned());
        }
        if !conflicts.is_empty() {
            self.record(
                path,
                Status::Blocked,
                Some(format!(
                    "{} not written by ai-rulez (or edited since); rename the entry, remove it, or use --force",
                    conflicts.join(", ")
                )),
            );
            return Ok(());
        }
        let secret = entries.iter().any(|entry| entry.holds_resolved_secret);
        let wrong_mode = secret && text.is_some() && disk_mode != Some(0o600);
        let status = match &text {
            None => Status::Create,
            Some(_) if stale => Status::Update,
            Some(_) => Status::Unchanged,
        };
        // Digests decide staleness, so `--check` needs no secret values; the text is only built
        // when something is to be written.
        let base = if status == Status::Unchanged {
            text.clone()
        } else {
            None
        };
        let new_text = match base {
            Some(current) => current,
            None => mcp_config::merge_document(shape, path, text.as_deref(), &removals, entries)
                .map_err(mcp_error(path))?
                .unwrap_or_default(),
        };
        if only_ours(shape, path, &new_text, entries)? {
            self.ignore_entries.push(format!("/{path}"));
        }
        if status != Status::Unchanged || wrong_mode {
            let mode = if secret {
                0o600
            } else {
                disk_mode.unwrap_or(0o644)
            };
            self.operations.push(Operation::Write {
                path: path.to_owned(),
                bytes: Cow::Owned(new_text.into_bytes()),
                mode,
            });
        }
        self.record(
            path,
            if wrong_mode && status == Status::Unchanged {
                Status::Update
            } else {
                status
            },
            None,
        );
        Ok(())
    }

    /// Outputs the old manifest lists that the plan no longer produces.
    fn orphans(&mut self, plan: &Plan, old: &Manifest) -> Result<()> {
        let root = self.settings.root;
        for (path, recorded) in &old.files {
            if plan.outputs.contains_key(path) && !self.settings.clean {
                continue;
            }
            if refuse_symlinks(root, path).is_err() {
                continue;
            }
            let Some(disk) = read_optional(&root.join(path))? else {
                continue;
            };
            let provenance = banner_provenance(&disk);
            let digest_matches = recorded.as_deref() == Some(sha256_tagged(&disk).as_str());
            if provenance == Provenance::Unedited || digest_matches {
                self.operations
                    .push(Operation::Delete { path: path.clone() });
                self.record(path, Status::Orphan, None);
            } else {
                let reason = if provenance == Provenance::Edited {
                    "edited by hand"
                } else {
                    "not provably unedited"
                };
                self.report.warnings.push(format!(
                    "{path}: no longer generated but {reason}; kept, and now yours to delete"
                ));
                self.record(path, Status::Kept, Some(reason.to_owned()));
            }
        }
        for path in old.sections.keys() {
            if plan.outputs.contains_key(path) && !self.settings.clean {
                continue;
            }
            let Some(disk) = read_optional(&root.join(path))? else {
                continue;
            };
            let Ok(text) = std::str::from_utf8(&disk) else {
                continue;
            };
            match find_section(text) {
                Ok(Some(section)) if section.unedited => {
                    let mut before = text[..section.start].to_owned();
                    if before.ends_with("\n\n") {
                        before.pop();
                    }
                    let new_text = format!("{before}{}", &text[section.end..]);
                    self.operations.push(Operation::Write {
                        path: path.clone(),
                        bytes: Cow::Owned(new_text.into_bytes()),
                        mode: current_mode(&root.join(path)).unwrap_or(0o644),
                    });
                    self.record(
                        path,
                        Status::Orphan,
                        Some("the ai-rulez section is removed; your text stays".to_owned()),
                    );
                }
                Ok(Some(_)) => self.report.warnings.push(format!(
                    "{path}: the ai-rulez section was edited by hand; kept"
                )),
                _ => {}
            }
        }
        for (path, entries) in &old.merged {
            if plan.outputs.contains_key(path) && !self.settings.clean {
                continue;
            }
            let shape = shape_for_path(path);
            let Some(shape) = shape else {
                continue;
            };
            let Some(disk) = read_optional(&root.join(path))? else {
                continue;
            };
            let Ok(text) = String::from_utf8(disk) else {
                continue;
            };
            let mut removals = Vec::new();
            for known in entries {
                match mcp_config::disk_entry_digest(shape, &text, &known.key, None)
                    .map_err(mcp_error(path))?
                {
                    Some(digest) if digest == known.digest => removals.push(known.key.clone()),
                    Some(_) => self.report.warnings.push(format!(
                        "{path}: `{}` was edited by hand; kept",
                        known.key.join(".")
                    )),
                    None => {}
                }
            }
            if removals.is_empty() {
                continue;
            }
            match mcp_config::merge_document(shape, path, Some(&text), &removals, &[])
                .map_err(mcp_error(path))?
            {
                Some(new_text) => self.operations.push(Operation::Write {
                    path: path.clone(),
                    bytes: Cow::Owned(new_text.into_bytes()),
                    mode: current_mode(&root.join(path)).unwrap_or(0o644),
                }),
                None => self
                    .operations
                    .push(Operation::Delete { path: path.clone() }),
            }
            self.record(path, Status::Orphan, None);
        }
        Ok(())
    }

    fn manifest_and_gitignore(&mut self, old: &Manifest) -> Result<()> {
        let root = self.settings.root;
        let manifest_path = self.settings.manifest_path.clone();
        refuse_symlinks(root, &manifest_path)?;
        let current = read_optional(&root.join(&manifest_path))?;
        if self.manifest.is_empty() {
            if current.is_some() && !old.is_empty() || current.is_some() && self.settings.clean {
                self.operations.push(Operation::Delete {
                    path: manifest_path.clone(),
                });
                self.record(&manifest_path, Status::Orphan, None);
            }
        } else {
            let text = self.manifest.to_text();
            let status = match &current {
                None => Status::Create,
                Some(bytes) if *bytes == text.as_bytes() => Status::Unchanged,
                Some(_) => Status::Update,
            };
            if status != Status::Unchanged {
                self.operations.push(Operation::Write {
                    path: manifest_path.clone(),
                    bytes: Cow::Owned(text.into_bytes()),
                    mode: 0o644,
                });
            }
            self.record(&manifest_path, status, None);
            self.ignore_entries.push(format!("/{manifest_path}"));
        }
        refuse_symlinks(root, ".gitignore")?;
        let current = read_optional(&root.join(".gitignore"))?;
        let current_text = current
            .as_deref()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned());
        let entries = (self.settings.gitignore && !self.settings.clean)
            .then_some(self.ignore_entries.as_slice());
        let new_text = gitignore::update(current_text.as_deref(), entries)?;
        // A .gitignore holding bytes that are not UTF-8 (say a Latin-1 comment) is read lossily
        // so it can be compared; rewriting it would replace those bytes with U+FFFD, so a change
        // to such a file is refused with the line of the first bad byte instead.
        if let Some(bytes) = current.as_deref()
            && new_text != current_text
        {
            crate::frontmatter::decode_utf8(".gitignore", bytes)?;
        }
        match (current_text, new_text) {
            (None, Some(text)) => {
                self.operations.push(Operation::Write {
                    path: ".gitignore".to_owned(),
                    bytes: Cow::Owned(text.into_bytes()),
                    mode: 0o644,
                });
                self.record(".gitignore", Status::Create, None);
            }
            // A .gitignore that held nothing but the managed block goes away with it.
            (Some(current), Some(text)) if current != text && text.trim().is_empty() => {
                self.operations.push(Operation::Delete {
                    path: ".gitignore".to_owned(),
                });
                self.record(".gitignore", Status::Orphan, None);
            }
            (Some(current), Some(text)) if current != text => {
                self.operations.push(Operation::Write {
                    path: ".gitignore".to_owned(),
                    bytes: Cow::Owned(text.into_bytes()),
                    mode: current_mode(&root.join(".gitignore")).unwrap_or(0o644),
                });
                self.record(
                    ".gitignore",
                    if self.settings.clean {
                        Status::Orphan
                    } else {
                        Status::Update
                    },
                    None,
                );
            }
            // The file held nothing but the managed block, which is gone now.
            (Some(_), None) => {
                self.operations.push(Operation::Delete {
                    path: ".gitignore".to_owned(),
                });
                self.record(".gitignore", Status::Orphan, None);
            }
            _ => {}
        }
        Ok(())
    }

    fn secret_gate(&self) -> Result<()> {
        for path in &self.secret_paths {
            let in_block = self.settings.gitignore
                && self
                    .ignore_entries
                    .iter()
                    .any(|entry| entry == &format!("/{path}"));
            if in_block || crate::git::is_ignored(self.settings.root, path)? {
                continue;
            }
            return Err(Error::refused(
                path,
                "would hold a resolved secret (a `${VAR}` this format cannot reference), but git does not ignore it; \
                 add it to .gitignore (or set `gitignore = true`), or reference the variable another way",
            ));
        }
        Ok(())
    }
}

fn mcp_error(path: &str) -> impl Fn(mcp_config::McpConfigError) -> Error + '_ {
    move |error| Error::invalid(path, None, error.to_string())
}

/// Whether the document holds nothing but ai-rulez's entries (then it may be git-ignored).
fn only_ours(shape: DocumentShape, path: &str, text: &str, entries: &[Entry]) -> Result<bool> {
    let keys: Vec<Vec<String>> = entries.iter().map(|entry| entry.key.clone()).collect();
    Ok(
        mcp_config::merge_document(shape, path, Some(text), &keys, &[])
            .map_err(mcp_error(path))?
            .is_none(),
    )
}

fn shape_for_path(path: &str) -> Option<DocumentShape> {
    DocumentShape::ALL
        .into_iter()
        .find(|shape| shape.default_path() == path)
}

fn without_banner(markdown: &Markdown) -> Vec<u8> {
    let banner_start = if markdown.has_frontmatter { 4 } else { 0 };
    let mut bytes = markdown.bytes[..banner_start].to_vec();
    bytes.extend_from_slice(markdown.body());
    bytes
}

struct Section {
    start: usize,
    end: usize,
    unedited: bool,
}

/// Finds the managed section: from the BEGIN line through the END line and its newline.
fn find_section(text: &str) -> std::result::Result<Option<Section>, String> {
    let begins: Vec<usize> = text
        .match_indices(SECTION_BEGIN)
        .map(|(index, _)| index)
        .filter(|index| *index == 0 || text.as_bytes()[index - 1] == b'\n')
        .collect();
    let ends: Vec<usize> = text
        .match_indices(SECTION_END)
        .map(|(index, _)| index)
        .collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => Ok(None),
        ([begin], [end]) if begin < end => {
            let begin_line_end = text[*begin..].find('\n').map_or(text.len(), |offset| begin + offset + 1);
            let body = &text[begin_line_end..*end];
            let claimed = text[*begin..begin_line_end]
                .split(SHA256_MARKER)
                .nth(1)
                .map(|rest| rest.chars().take_while(char::is_ascii_hexdigit).collect::<String>());
            let unedited = claimed.as_deref() == Some(sha256_hex(body.as_bytes()).as_str());
            let mut end_of_block = end + SECTION_END.len();
            if text[end_of_block..].starts_with('\n') {
                end_of_block += 1;
            }
            Ok(Some(Section {
                start: *begin,
                end: end_of_block,
                unedited,
            }))
        }
        _ => Err("its ai-rulez section markers are damaged (a BEGIN or END marker is missing or repeated); fix them by hand".to_owned()),
    }
}

fn read_manifest(settings: &Settings<'_>) -> Result<Manifest> {
    refuse_symlinks(settings.root, &settings.manifest_path)?;
    match read_optional(&settings.root.join(&settings.manifest_path))? {
        None => Ok(Manifest::default()),
        Some(bytes) => Manifest::parse(&settings.manifest_path, &String::from_utf8_lossy(&bytes)),
    }
}

/// Reads a file that may be absent.
fn read_optional(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) if error.kind() == std::io::ErrorKind::NotADirectory => Ok(None),
        Err(_) => Ok(Some(fs_err::read(path)?)),
    }
}

fn current_mode(path: &Path) -> Option<u32> {
    std::fs::metadata(path)
        .ok()
        .map(|metadata| metadata.permissions().mode() & 0o777)
}

/// Refuses a path that is a symlink or lies inside a symlinked folder of the project.
fn refuse_symlinks(root: &Path, relative: &str) -> Result<()> {
    let mut current = root.to_path_buf();
    for component in relative.split('/') {
        if component.is_empty() || component == "." || component == ".." {
            return Err(Error::refused(
                relative,
                "is not a plain project-relative path",
            ));
        }
        current.push(component);
        match std::fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                return Err(Error::refused(
                    relative,
                    "is (or is inside) a symlink; ai-rulez never writes through symlinks, so replace the link with a real file or folder",
                ));
            }
            Ok(_) => {}
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

/// Applies every operation: folders first (each created once), then file writes spread over two
/// threads (the work is mostly system calls), then deletions in order.
fn perform_all(root: &Path, operations: &[Operation<'_>], dirs: &DirCache) -> Result<()> {
    let mut created: HashSet<PathBuf> = HashSet::new();
    let mut writes = Vec::new();
    for operation in operations {
        if let Operation::Write { path, bytes, mode } = operation {
            dirs.check(root, path)?;
            let parent = root
                .join(path)
                .parent()
                .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
            if !created.contains(&parent) {
                fs_err::create_dir_all(&parent)?;
                created.insert(parent);
            }
            writes.push((path.as_str(), bytes.as_ref(), *mode));
        }
    }
    let half = writes.len().div_ceil(2);
    let (first, second) = writes.split_at(half);
    std::thread::scope(|scope| -> Result<()> {
        let worker = scope.spawn(|| -> Result<()> {
            for (path, bytes, mode) in second {
                write_new_bytes(root, path, bytes, *mode)?;
            }
            Ok(())
        });
        for (path, bytes, mode) in first {
            write_new_bytes(root, path, bytes, *mode)?;
        }
        worker.join().unwrap_or_else(|_| {
            Err(Error::Usage(
                "a writer thread stopped unexpectedly".to_owned(),
            ))
        })
    })?;
    for operation in operations {
        if let Operation::Delete { path } = operation {
            dirs.check(root, path)?;
            let absolute = root.join(path);
            fs_err::remove_file(&absolute)?;
            remove_empty_parents(root, &absolute);
        }
    }
    Ok(())
}

/// Folders already known to be real (not symlinks) or absent, so one run looks at each folder
/// once instead of once per file below it.
#[derive(Default)]
struct DirCache {
    real: Mutex<HashSet<PathBuf>>,
    absent: Mutex<HashSet<PathBuf>>,
}

impl DirCache {
    /// Refuses a path that is, or lies inside, a symlink. Returns whether its folder exists.
    fn check(&self, root: &Path, relative: &str) -> Result<bool> {
        let components: Vec<&str> = relative.split('/').collect();
        if components
            .iter()
            .any(|component| component.is_empty() || *component == "." || *component == "..")
        {
            return Err(Error::refused(
                relative,
                "is not a plain project-relative path",
            ));
        }
        let mut current = root.to_path_buf();
        for (index, component) in components.iter().enumerate() {
            current.push(component);
            let is_folder = index + 1 < components.len();
            if is_folder {
                if self.real.lock().is_ok_and(|real| real.contains(&current)) {
                    continue;
                }
                if self
                    .absent
                    .lock()
                    .is_ok_and(|absent| absent.contains(&current))
                {
                    return Ok(false);
                }
            }
            match std::fs::symlink_metadata(&current) {
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    return Err(Error::refused(
                        relative,
                        "is (or is inside) a symlink; ai-rulez never writes through symlinks, so replace the link with a real file or folder",
                    ));
                }
                Ok(_) if is_folder => {
                    if let Ok(mut real) = self.real.lock() {
                        real.insert(current.clone());
                    }
                }
                Ok(_) => {}
                Err(_) if is_folder => {
                    if let Ok(mut absent) = self.absent.lock() {
                        absent.insert(current.clone());
                    }
                    return Ok(false);
                }
                Err(_) => return Ok(true),
            }
        }
        Ok(true)
    }

    /// Reads a project file that may be absent: (bytes, permission bits).
    fn read(&self, root: &Path, relative: &str) -> Result<Option<(Vec<u8>, u32)>> {
        if !self.check(root, relative)? {
            return Ok(None);
        }
        let path = root.join(relative);
        let mut file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(error)
                if matches!(
                    error.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(None);
            }
            Err(_) => {
                return Ok(Some((
                    fs_err::read(&path)?,
                    current_mode(&path).unwrap_or(0o644),
                )));
            }
        };
        let mode = file.metadata()?.permissions().mode() & 0o777;
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|error| {
            Error::Io(std::io::Error::new(
                error.kind(),
                format!("reading {}: {error}", path.display()),
            ))
        })?;
        Ok(Some((bytes, mode)))
    }
}

/// Writes a file ai-rulez owns outright (the lock, a hook) atomically with mode 0644.
///
/// Errors: a symlink on the way, or I/O errors.
pub fn write_file(root: &Path, relative: &str, bytes: &[u8]) -> Result<()> {
    write_atomic(root, relative, bytes, 0o644)
}

/// The body of the managed section in `text`, if there is exactly one.
#[must_use]
pub fn section_body(text: &str) -> Option<&str> {
    let section = find_section(text).ok().flatten()?;
    let begin_line_end = text[section.start..]
        .find('\n')
        .map(|offset| section.start + offset + 1)?;
    let end = text[..section.end].rfind(SECTION_END)?;
    text.get(begin_line_end..end)
}

/// Writes `bytes` to `root/relative` through a temporary file in the same folder and a rename,
/// so readers never see half a file.
fn write_atomic(root: &Path, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
    refuse_symlinks(root, relative)?;
    let target = root.join(relative);
    fs_err::create_dir_all(target.parent().unwrap_or(root))?;
    write_new_bytes(root, relative, bytes, mode)
}

/// The temporary-file-and-rename step of [`write_atomic`]; the folder must exist and be checked.
fn write_new_bytes(root: &Path, relative: &str, bytes: &[u8], mode: u32) -> Result<()> {
    let target = root.join(relative);
    let parent = target.parent().unwrap_or(root);
    let mut temporary = tempfile::Builder::new()
        .prefix(".ai-rulez-")
        .suffix(".tmp")
        .tempfile_in(parent)
        .map_err(|error| {
            Error::Io(std::io::Error::new(
                error.kind(),
                format!("creating a temporary file in {}: {error}", parent.display()),
            ))
        })?;
    temporary.write_all(bytes)?;
    temporary
        .as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    temporary.persist(&target).map_err(|error| {
        Error::Io(std::io::Error::new(
            error.error.kind(),
            format!("replacing {}: {}", target.display(), error.error),
        ))
    })?;
    Ok(())
}

fn remove_empty_parents(root: &Path, file: &Path) {
    let mut directory = file.parent();
    while let Some(current) = directory {
        if current == root || !current.starts_with(root) {
            break;
        }
        if std::fs::remove_dir(current).is_err() {
            break;
        }
        directory = current.parent();
    }
}

/// Lists what changed, for messages: `(status word, path)` pairs in path order.
#[must_use]
pub fn summary(report: &Report) -> BTreeMap<Status, usize> {
    let mut counts = BTreeMap::new();
    for change in &report.changes {
        *counts.entry(change.status).or_insert(0) += 1;
    }
    counts
}
