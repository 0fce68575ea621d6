//! The one writer: turns a [`Plan`] into files. It never writes through a symlink, never
//! overwrites or deletes a file it cannot prove it wrote (banner hash, manifest digest, or a
//! managed section's own hash), writes atomically (temp file + rename in the same folder), and
//! leaves unchanged bytes alone. `--check`, `--dry-run`, `generate` and `clean` share the same
//! analysis; only [`Mode::Write`] touches the disk.

pub(crate) mod adoption;
mod bookkeeping;
mod disk;
mod entries;
mod extras;
mod links;
mod orphans;
mod section;
mod stat_cache;

use std::borrow::Cow;

use crate::confined_fs::ProjectDir;
use crate::confined_fs::record as confined_fs_record;
use crate::error::{Error, Result};
use crate::hash::{Provenance, banner_provenance, comparable, content_digest, without_banner_line};
use crate::manifest::Manifest;
use crate::plan::{Content, Markdown, Plan};

pub(crate) use disk::write_file;
use disk::{perform_all, read_manifest};
pub(crate) use section::{section_body, without_section};
pub(crate) use stat_cache::FILE_NAME as OUTPUT_STATS_FILE;

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
pub(crate) struct Settings<'a> {
    /// The project root, through the confined file layer.
    pub dir: &'a ProjectDir,
    /// Manifest path, project-relative.
    pub manifest_path: String,
    /// Maintain the `.gitignore` block.
    pub gitignore: bool,
    /// Overwrite files that cannot be proven generated.
    pub force: bool,
    /// Remove everything generated instead of writing the plan.
    pub clean: bool,
    /// Attach a unified diff of the content to every change (`--diff`).
    pub diffs: bool,
    /// The project's items, for naming imported files whose text they now hold.
    pub items: &'a [crate::content::Item],
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
    /// A temporary file or journal an interrupted run left (`leftover:`); deleted.
    Leftover,
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
            Status::Leftover => Some("leftover"),
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
            Status::Orphan | Status::Leftover => "delete",
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
    /// With [`Settings::diffs`]: the unified diff from the file on disk to what `generate` writes
    /// (see [`crate::diff::unified`]), or a sentence saying why there is none.
    pub diff: Option<String>,
    /// Where `--force` saves the file it overwrites (`<path>.orig`, or `.orig.1` ... `.orig.9`
    /// when that exists), project-relative.
    pub saved_as: Option<String>,
    /// Whether the change touches only the ai-rulez section of a file whose other text belongs
    /// to the user (a `create` adds the section, an `orphan` removes it; the file stays).
    pub section: bool,
}

impl Change {
    /// The path as printed after the status word: a section change says that only the
    /// section is touched, so `create:` or `removed:` is not read as the whole file.
    #[must_use]
    pub fn shown_path(&self) -> String {
        if !self.section {
            return self.path.clone();
        }
        // A settings file (`.mcp.json`, `.codex/config.toml`) holds entries, not a section.
        if crate::write::entries::shape_for_path(&self.path).is_some() {
            return format!(
                "{} (ai-rulez's entries only; the rest of the file stays)",
                self.path
            );
        }
        // `create:` alone would read as a new file; the file exists and only gains the section.
        if self.status == Status::Create {
            return format!(
                "{} (adds the ai-rulez section; the rest of the file stays)",
                self.path
            );
        }
        format!(
            "{} (the ai-rulez section only; the rest of the file stays)",
            self.path
        )
    }
}

/// Result of a run: every path's status (sorted by path) and warnings.
#[derive(Debug, Default)]
pub struct Report {
    /// One change per path, sorted by path.
    pub changes: Vec<Change>,
    /// Warnings (kept files, ...).
    pub warnings: Vec<String>,
    /// Output paths holding a symlink to another output (`AGENTS.md -> CLAUDE.md`), kept as
    /// they are and not written, recorded or pinned; sorted by path.
    pub kept_links: Vec<String>,
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
    /// A copy of a file `--force` overwrites, created before any write and never over an
    /// existing file.
    SaveOriginal {
        path: String,
        bytes: Vec<u8>,
        mode: u32,
    },
}

/// Analyses `plan` against the disk and, in [`Mode::Write`], applies it while holding the
/// project's writer lock (analysis included, so no other writer changes the disk in between).
///
/// Errors: [`Error::Busy`] when another process holds the lock past the wait;
/// [`Error::Refused`] (nothing written) when a path is blocked or edited without `force`, a path
/// is or passes through a symlink, or a resolved secret would land in a file git does not
/// ignore; [`Error::Invalid`] for a damaged manifest, `.gitignore` block or settings document;
/// I/O errors.
pub(crate) fn apply<'a>(plan: &'a Plan, settings: &'a Settings<'a>, mode: Mode) -> Result<Report> {
    let _lock = match mode {
        Mode::Write => Some(settings.dir.lock()?),
        Mode::Check | Mode::DryRun => None,
    };
    // A name no file system takes would fail when read, or partway through the writes.
    crate::confined_fs::check_name_lengths(plan.outputs.keys().map(String::as_str))?;
    let (mut old_manifest, mut manifest_warnings, interrupted) = read_manifest(settings)?;
    // Only a machine without a manifest (a fresh clone) needs the lock's word on what was
    // generated; every other run, the pre-commit check included, reads no lock here.
    if old_manifest.is_empty() {
        let pinned_warnings = orphans::add_pinned_by_lock(
            settings.dir,
            &settings.manifest_path,
            plan,
            &mut old_manifest,
        );
        manifest_warnings.extend(pinned_warnings);
    }
    // Files `ai-rulez import` read and that still hold those bytes are provably in .ai-rulez/
    // now: their digests prove them replaceable (never deletable: only `files` are orphans),
    // unless an item made of one changed since (see `adoption::not_adoptable`). Only files not
    // generated yet are looked at, so a project long past its import reads no item here.
    let (imported, ignored_record) = adoption::read_for(settings.dir, &settings.manifest_path);
    manifest_warnings.extend(ignored_record.clone());
    let candidates: Vec<&String> = imported
        .files
        .keys()
        .filter(|path| {
            crate::presets::is_output_path(path) && !old_manifest.files.contains_key(*path)
        })
        .collect();
    let not_adoptable =
        adoption::not_adoptable(settings.dir, &imported, &candidates, settings.items);
    for path in candidates {
        if !not_adoptable.contains_key(path) {
            old_manifest
                .alternates
                .entry(path.clone())
                .or_default()
                .insert(imported.files[path].clone());
        }
    }
    let mut state = State {
        settings,
        report: Report {
            changes: Vec::new(),
            warnings: manifest_warnings,
            kept_links: Vec::new(),
        },
        operations: Vec::new(),
        manifest: Manifest::default(),
        ignore_entries: Vec::new(),
        secret_paths: Vec::new(),
        secrets_resolved: mode != Mode::Check,
        refused_content: std::collections::BTreeMap::new(),
        originals: Vec::new(),
        imported,
        not_adoptable,
    };
    let stats_path = stat_cache::path_for(&settings.manifest_path)
        .filter(|_| plan.outputs.len() >= stat_cache::LEAST_OUTPUTS);
    let record_text = match (&stats_path, settings.clean) {
        // A hint only (it never changes a result), so a record of this run's reads leaves
        // it out and stays valid when the hint is rewritten.
        (Some(path), false) => {
            confined_fs_record::unobserved(|| stat_cache::read(settings.dir, path))
        }
        _ => String::new(),
    };
    let recorded = stat_cache::parse(&record_text);
    // The entries to keep, in path order, and whether they differ from the record's.
    let mut kept: stat_cache::Stats<'_> = Vec::new();
    let mut record_changed = false;
    if !settings.clean {
        // Read in chunks on two threads, analysed in order: bounded memory, half the wait.
        let outputs: Vec<&crate::plan::Output> = plan.outputs.values().collect();
        let now = crate::file_times::now();
        let mut folders_seen = std::collections::HashSet::new();
        for chunk in outputs.chunks(4096) {
            let seen = disk::read_outputs(settings.dir, chunk, &recorded, now);
            for (output, seen) in chunk.iter().zip(seen) {
                if let Some(facts) = seen.observed {
                    record_changed |= matches!(facts.digest, Cow::Owned(_));
                    kept.push((output.path.as_str(), facts));
                }
                let found = match seen.found {
                    Ok(found) => found,
                    // A link to another output (`AGENTS.md -> CLAUDE.md`) is kept and left out
                    // of the manifest and the ignore block: the target is written instead.
                    Err(error) => match links::kept_link(settings.dir, plan, &output.path)? {
                        Some(link) => {
                            state.report.kept_links.push(output.path.clone());
                            state.report.warnings.extend(link.warning);
                            continue;
                        }
                        None => return Err(error),
                    },
                };
                if found.is_none() {
                    disk::check_folders_of(settings.dir, &output.path, &mut folders_seen)?;
                }
                state.output(
                    &output.path,
                    &output.content,
                    found,
                    &old_manifest,
                    seen.planned_digest.as_deref(),
                )?;
            }
        }
    }
    record_changed |= kept.len() != recorded.len();
    state.orphans(plan, &old_manifest)?;
    state.manifest_and_gitignore(&old_manifest)?;
    state.leftovers(plan, &old_manifest, interrupted)?;
    let imported_twice =
        adoption::left_beside_outputs(settings.dir, &state.imported, &plan.outputs, settings.items);
    state.report.warnings.extend(imported_twice);
    let kept_beside_section = adoption::kept_beside_section(
        &state.report.changes,
        &state.imported,
        &state.not_adoptable,
        settings.items,
    );
    state.report.warnings.extend(kept_beside_section);
    state
        .report
        .changes
        .sort_by(|left, right| left.path.cmp(&right.path));
    state.name_originals()?;
    // A file in the way that ai-rulez did not write always comes with its diff: what the user
    // would lose (or gain) decides between moving it away and `--force`.
    state.attach_diffs(|status| settings.diffs || status == Status::Blocked)?;
    let refused: Vec<(String, String)> = state
        .report
        .changes
        .iter()
        .filter(|change| matches!(change.status, Status::Edited | Status::Blocked))
        .map(|change| {
            (
                change.path.clone(),
                change.detail.clone().unwrap_or_default(),
            )
        })
        .collect();
    if mode == Mode::Write && !refused.is_empty() && !settings.force {
        let diffs: String = state
            .report
            .changes
            .iter()
            .filter(|change| change.status == Status::Blocked)
            .filter_map(|change| change.diff.as_deref())
            .collect();
        // Warnings are not printed with a refusal, and this one may be why a file the import
        // read is refused.
        let written = match &ignored_record {
            Some(warning) => format!("nothing was written (and {warning})."),
            None => "nothing was written.".to_owned(),
        };
        let after = if diffs.is_empty() {
            written
        } else {
            format!(
                "{written} What `generate` would change in the files it did not write:\n{diffs}"
            )
        };
        return Err(Error::OutputsInTheWay {
            files: refused,
            after,
        });
    }
    state.secret_gate()?;
    // A dry run refuses what the real run would, a folder it may not write in included.
    if mode == Mode::DryRun && !state.operations.is_empty() {
        disk::check_writable(settings, &state.operations)?;
    }
    if mode == Mode::Write {
        let journal = (!state.operations.is_empty()).then(|| {
            let mut union = old_manifest.clone();
            union.absorb(state.manifest.clone());
            union.to_text()
        });
        perform_all(settings, &state.operations, journal.as_deref())?;
        // Kept only where git ignores it (the managed block lists `.ai-rulez/local/`), so it
        // never shows up as a new file to commit.
        // Keeping the hint is not part of the run's result (see the read above).
        confined_fs_record::unobserved(|| {
            if let Some(path) = &stats_path
                && !settings.clean
                && record_changed
                && (settings.gitignore
                    || crate::git::is_ignored(settings.dir.root(), path).unwrap_or(false))
            {
                // Only a hint for the next run: failing to keep it costs that run time, not
                // correctness, so it never fails this one.
                let text = stat_cache::to_text(kept.iter().map(|(path, facts)| (*path, facts)));
                settings.dir.write(path, text.as_bytes(), 0o644).ok();
            }
        });
    }
    Ok(state.report)
}

struct State<'a> {
    settings: &'a Settings<'a>,
    report: Report,
    operations: Vec<Operation<'a>>,
    /// Whether entries carry real resolved values (not in `--check`, which renders without
    /// reading the environment), so a rotated secret can be noticed and rewritten.
    secrets_resolved: bool,
    manifest: Manifest,
    ignore_entries: Vec<String>,
    secret_paths: Vec<String>,
    /// What `generate --force` would write at paths refused as edited or blocked, kept only so
    /// `--diff` can show what the hand edit is against.
    refused_content: std::collections::BTreeMap<String, Cow<'a, [u8]>>,
    /// Files `--force` overwrites although ai-rulez cannot prove it wrote them: (path, bytes on
    /// disk, permission bits), saved by [`State::name_originals`] before anything is written.
    originals: Vec<(String, Vec<u8>, u32)>,
    /// The files `ai-rulez import` read and the items it made of them, see [`adoption`].
    imported: adoption::Record,
    /// The imported files not adopted although unchanged, with why (see
    /// [`adoption::not_adoptable`]): replacing them could lose text only they hold.
    not_adoptable: std::collections::BTreeMap<String, String>,
}

impl<'a> State<'a> {
    fn record(&mut self, path: &str, status: Status, detail: Option<String>) {
        self.report.changes.push(Change {
            path: path.to_owned(),
            status,
            detail,
            diff: None,
            saved_as: None,
            section: false,
        });
    }

    /// Like `record`, for a change to the ai-rulez section of a file the user owns.
    fn record_section(&mut self, path: &str, status: Status, detail: Option<String>) {
        self.record(path, status, detail);
        if let Some(change) = self.report.changes.last_mut() {
            change.section = true;
        }
    }

    fn output(
        &mut self,
        path: &str,
        content: &'a Content,
        found: Option<(Cow<'_, [u8]>, u32)>,
        old: &Manifest,
        planned_digest: Option<&str>,
    ) -> Result<()> {
        let disk_mode = found.as_ref().map(|(_, mode)| *mode);
        let disk = found.map(|(bytes, _)| bytes);
        match content {
            Content::Markdown(markdown) => {
                self.markdown(
                    path,
                    markdown,
                    (disk.as_deref(), disk_mode),
                    old,
                    planned_digest,
                );
                Ok(())
            }
            Content::Verbatim { bytes, executable } => {
                let mode = if *executable { 0o755 } else { 0o644 };
                self.whole_file(
                    path,
                    bytes,
                    mode,
                    disk.as_deref().zip(disk_mode),
                    old,
                    (None, ".ai-rulez/", planned_digest),
                );
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
        (provenance, source, planned_digest): (Option<Provenance>, &str, Option<&str>),
    ) {
        let disk_mode = disk.map(|(_, found)| found);
        let disk = disk.map(|(bytes, _)| bytes);
        let mode = disk_mode.map_or(mode, |found| kept_permissions(found, mode));
        // The digest of the planned bytes, taken once while reading, is the manifest's digest
        // whenever line-end normalisation leaves the bytes as they are (the generated case).
        let planned = comparable(path, bytes);
        let digest = match planned_digest {
            Some(digest) if matches!(planned, Cow::Borrowed(_)) => digest.to_owned(),
            _ => content_digest(path, bytes),
        };
        self.manifest.files.insert(path.to_owned(), Some(digest));
        self.ignore_entries.push(format!("/{path}"));
        let mode_differs = disk.is_some() && disk_mode != Some(mode);
        // Compared with LF line ends on both sides: a CRLF checkout of an unchanged output is
        // unchanged, and so is a verbatim copy of a CRLF source (a skill resource).
        let same = disk.is_some_and(|disk| *comparable(path, disk) == *planned);
        let status = match disk {
            None => Status::Create,
            Some(_) if same && !mode_differs => Status::Unchanged,
            Some(_) if same => Status::Update,
            Some(disk) => {
                let digest_matches = old.records_file(path, &content_digest(path, disk));
                match provenance.unwrap_or(Provenance::NoBanner) {
                    Provenance::Unedited => Status::Update,
                    _ if digest_matches => Status::Update,
                    Provenance::Edited => Status::Edited,
                    Provenance::NoBanner => Status::Blocked,
                }
            }
        };
        // Replaced because an import read exactly these bytes: said, so the first run after an
        // import does not look like it overwrote hand-written files without asking.
        let adopted = status == Status::Update
            && !same
            && !old.files.contains_key(path)
            && disk.is_some_and(|disk| {
                self.imported
                    .files
                    .get(path)
                    .is_some_and(|digest| *digest == content_digest(path, disk))
            });
        let detail = match status {
            Status::Update if adopted => Some(
                "adopted: `ai-rulez import` read this file into .ai-rulez/ and it is unchanged since, so it is now generated"
                    .to_owned(),
            ),
            Status::Edited => Some(edited_detail(path, source)),
            Status::Blocked if self.not_adoptable.contains_key(path) => Some(format!(
                "`ai-rulez import` read it into .ai-rulez/, but {}, so replacing it could lose text only it holds; to keep the file, move it away (or copy what you want kept into .ai-rulez/ first); to replace it, run `ai-rulez generate --force`, which saves it as {path}.orig first",
                self.not_adoptable[path]
            )),
            Status::Blocked if self.imported.partial.contains_key(path) => Some(format!(
                "`ai-rulez import` read it into .ai-rulez/ but could not carry it over as written ({}), so replacing it could lose what differs; to keep the file, move it away (or put what you want kept into .ai-rulez/ first); to replace it, run `ai-rulez generate --force`, which saves it as {path}.orig first",
                self.imported.partial[path]
            )),
            Status::Blocked if self.imported.files.contains_key(path) => Some(format!(
                "changed since `ai-rulez import` read it into .ai-rulez/; to keep the change, copy it into its item under .ai-rulez/ and run `ai-rulez generate --force`; to drop it, run `ai-rulez generate --force` alone (either saves the file as {path}.orig first)"
            )),
            Status::Blocked => Some(format!(
                "exists and was not written by ai-rulez; to keep it, move it away (or its text into .ai-rulez/); to replace it, run `ai-rulez generate --force`, which saves it as {path}.orig first"
            )),
            _ => None,
        };
        let forced = self.settings.force && matches!(status, Status::Edited | Status::Blocked);
        if matches!(status, Status::Edited | Status::Blocked) && !forced {
            self.refused_content
                .insert(path.to_owned(), Cow::Borrowed(bytes));
        }
        if matches!(status, Status::Create | Status::Update) || forced {
            self.operations.push(Operation::Write {
                path: path.to_owned(),
                bytes: Cow::Borrowed(bytes),
                mode,
            });
        }
        if forced && let Some(disk) = disk {
            self.originals
                .push((path.to_owned(), disk.to_vec(), disk_mode.unwrap_or(0o644)));
        }
        if forced {
            // Reported as the update it is, so a forced run never says `blocked` and writes.
            self.record(
                path,
                Status::Update,
                Some("overwritten because of --force".to_owned()),
            );
            return;
        }
        self.record(path, status, detail);
    }

    fn markdown(
        &mut self,
        path: &str,
        markdown: &'a Markdown,
        (disk, disk_mode): (Option<&[u8]>, Option<u32>),
        old: &Manifest,
        planned_digest: Option<&str>,
    ) {
        let Some(disk_bytes) = disk else {
            self.whole_file(
                path,
                &markdown.bytes,
                0o644,
                None,
                old,
                (None, &markdown.source, planned_digest),
            );
            return;
        };

        // Line ends normalised once for both comparisons below (borrowed when there is no CRLF).
        let disk_text = comparable(path, disk_bytes);
        // The file is already exactly the output (the usual case of a repeated run): its banner
        // is ours, so provenance need not be worked out; only the mode may still differ.
        if *disk_text == *markdown.bytes.as_slice() {
            self.whole_file(
                path,
                &markdown.bytes,
                0o644,
                disk.zip(disk_mode),
                old,
                (Some(Provenance::Unedited), &markdown.source, planned_digest),
            );
            return;
        }
        let provenance = banner_provenance(disk_bytes);
        let ours = provenance != Provenance::NoBanner
            || old.records_file(path, &content_digest(path, disk_bytes));
        // A hand-written file identical to the output without its banner loses nothing when replaced.
        // Nor does one that differs only in its final new lines (hand-written files often end
        // without one): the text is the same.
        let bare = without_banner(markdown);
        let same_text = |text: &[u8]| trim_final_newlines(text) == trim_final_newlines(&bare);
        // Nor does a generated file edited by hand whose edit is already in its sources (copied
        // there, as the refusal advises): only its banner's digest differs.
        let equivalent = same_text(&disk_text)
            || (provenance == Provenance::Edited
                && without_banner_line(&disk_text).is_some_and(|text| same_text(&text)));
        // `--force` never overrides the section: a hand-written root file keeps its text.
        if ours || equivalent || !markdown.section_allowed {
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
                (Some(provenance), &markdown.source, planned_digest),
            );
            return;
        }
        self.section(path, markdown.body(), (disk_bytes, disk_mode), old);
    }

    fn secret_gate(&self) -> Result<()> {
        for path in &self.secret_paths {
            let in_block =
                self.settings.gitignore && self.ignore_entries.contains(&format!("/{path}"));
            // An ignore rule does not apply to a file git already tracks: such a file would
            // still be committed with the secret in it.
            if crate::git::is_tracked(self.settings.dir.root(), path)? {
                return Err(Error::refused(
                    path,
                    "would hold a resolved secret (a `${VAR}` this format cannot reference), but git tracks this file, \
                     so it would be committed even though it is ignored; run `git rm --cached` on it first",
                ));
            }
            if in_block || crate::git::is_ignored(self.settings.dir.root(), path)? {
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

/// The permission bits to write an output with, when a file with `found` bits is there and the
/// output asks for `planned` (0644, or 0755 for a script): only whether it is executable is the
/// output's, as git records nothing else; the rest (a private 0600, a read-only 0444) is the
/// user's choice and stays. An executable output gets an execute bit for each read bit.
fn kept_permissions(found: u32, planned: u32) -> u32 {
    let without_execute = found & 0o666;
    if planned & 0o111 == 0 {
        without_execute
    } else {
        without_execute | ((found & 0o444) >> 2)
    }
}

/// How to keep or drop a hand edit of the generated file `path`, whose content comes from
/// `source` (an item's file, or `.ai-rulez/`).
fn edited_detail(path: &str, source: &str) -> String {
    format!(
        "generated by ai-rulez, then edited by hand; to keep the edit, copy it into {source} and run `ai-rulez generate`; to drop it, run `ai-rulez generate --force`, which saves the edited file as {path}.orig first"
    )
}

/// `bytes` without the new lines at its end.
fn trim_final_newlines(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|byte| *byte != b'\n')
        .map_or(0, |last| last + 1);
    &bytes[..end]
}

fn without_banner(markdown: &Markdown) -> Vec<u8> {
    let banner_start = if markdown.has_frontmatter { 4 } else { 0 };
    let mut bytes = markdown.bytes[..banner_start].to_vec();
    bytes.extend_from_slice(markdown.body());
    bytes
}
