//! The machine-local record of the assistants' files `ai-rulez import` read
//! (`.ai-rulez/local/imported.json`), so the first `generate` after an import may replace them:
//! their text is under `.ai-rulez/` now, and a file still holding exactly the bytes the import
//! read loses nothing when it becomes a generated file. A file changed after the import no longer
//! matches its digest and is refused as before, with its diff.
//!
//! Format (version 1, sorted keys, 2-space JSON, trailing newline):
//! `{"version": 1, "files": {path: "sha256:.."}, "items": {path: {item source path: "sha256:.."}},
//! "partial": {path: "what was left out"}}`, each digest taken as the manifest takes it
//! ([`crate::hash::content_digest`]: line ends normalised); `items` names the item files each
//! file became, with the digest of the bytes the import wrote, and is absent in records written
//! before it existed; `partial` names the files the import could not carry over whole (never
//! adopted), so `generate` can say why it refuses them.
//!
//! The record only ever grants the writer leave to replace a file at a path it generates; it is
//! never a reason to read or delete anything, so a damaged or hand-edited record is safe to
//! ignore (the files then count as hand-written, as without it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::confined_fs::ProjectDir;
use crate::error::Result;

/// The record's file name in the machine-local folder.
pub(crate) const FILE_NAME: &str = "imported.json";

/// Largest record read (16 MiB): far above the record of a project with 100,000 imported files.
const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Serialize, Deserialize)]
struct Stored {
    version: u32,
    files: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    items: BTreeMap<String, BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    partial: BTreeMap<String, String>,
}

/// What the record holds.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Record {
    /// Project-relative path of each file the import read → `sha256:<hex>` digest of the bytes
    /// it read.
    pub files: BTreeMap<String, String>,
    /// Project-relative path of each file the import read → the project-relative source path
    /// of each item file made from it (`.ai-rulez/rules/web-react.md`) → `sha256:<hex>` digest
    /// of the bytes the import wrote there. Files recorded by an older import have no entry.
    pub items: BTreeMap<String, BTreeMap<String, String>>,
    /// Project-relative path of each file the import read but could not carry over whole →
    /// what it left out (`left out frontmatter keys ...: model`). Such a file is never in
    /// `files`: replacing it would lose what was left out.
    pub partial: BTreeMap<String, String>,
}

/// Where the record of a project whose manifest is `manifest_path` lives: in the machine-local
/// folder beside the manifest (`.ai-rulez/local/imported.json`); `None` for a project without a
/// config folder (a root `ai-rulez.toml`).
#[must_use]
pub(crate) fn path_for(manifest_path: &str) -> Option<String> {
    manifest_path
        .strip_suffix("/.generated-manifest.json")
        .map(|folder| format!("{folder}/local/{FILE_NAME}"))
}

/// The record at `record_path`, and why a record that is there was ignored. The record is
/// empty when there is none, or when it cannot be used (see the module documentation: ignoring
/// it is always safe); the sentence then says why: it cannot be read (a symlink, over 16 MiB),
/// is not the JSON of this format (naming the line and column), or has a version this build
/// does not know. The sentence is `None` when there is no record or it was read.
#[must_use]
pub(crate) fn read_checked(dir: &ProjectDir, record_path: &str) -> (Record, Option<String>) {
    let bytes = match dir.read(record_path, MAX_RECORD_BYTES) {
        Ok(Some((bytes, _))) => bytes,
        Ok(None) => return (Record::default(), None),
        Err(error) => return (Record::default(), Some(error.to_string())),
    };
    match serde_json::from_slice::<Stored>(&bytes) {
        Ok(stored) if stored.version == 1 => (
            Record {
                files: stored.files,
                items: stored.items,
                partial: stored.partial,
            },
            None,
        ),
        Ok(stored) => (
            Record::default(),
            Some(format!(
                "version {} is not one this ai-rulez knows (1)",
                stored.version
            )),
        ),
        Err(error) => (
            Record::default(),
            Some(format!("not a record of imported files: {error}")),
        ),
    }
}

/// The record of the project whose manifest is `manifest_path` (see [`path_for`]; empty for
/// a project without a config folder), and the warning to give when a record that is there
/// was ignored (see [`read_checked`]).
#[must_use]
pub(crate) fn read_for(dir: &ProjectDir, manifest_path: &str) -> (Record, Option<String>) {
    let Some(record_path) = path_for(manifest_path) else {
        return (Record::default(), None);
    };
    let (record, problem) = read_checked(dir, &record_path);
    let warning = problem.map(|why| {
        format!(
            "{record_path}: ignored ({why}); the files `ai-rulez import` read count as hand-written, so `generate` asks before replacing them. Import them again to record them anew, or delete the record"
        )
    });
    (record, warning)
}

/// Adds `imported` (as [`read_checked`] returns it) to the record of the config folder
/// `config_folder` (e.g. `.ai-rulez`), replacing the entries already there for the same
/// paths and keeping the others, and makes sure the machine-local folder keeps itself out of
/// git. The record is replaced whole (temporary file and rename), so a crash leaves the old
/// record or the new one. A record that could not be read is replaced; the output then says
/// why it was (see [`read_checked`]), for a note.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O errors.
pub(crate) fn record(
    dir: &ProjectDir,
    config_folder: &str,
    imported: Record,
) -> Result<Option<String>> {
    if imported.files.is_empty() && imported.partial.is_empty() {
        return Ok(None);
    }
    let local_folder = format!("{config_folder}/local");
    crate::local_state::keep_folder_out_of_git(dir, &local_folder)?;
    let record_path = format!("{local_folder}/{FILE_NAME}");
    // A damaged record is replaced: what it held could not be used anyway.
    let (mut recorded, damaged) = read_checked(dir, &record_path);
    for path in imported.files.keys().chain(imported.partial.keys()) {
        // A file imported again became the items of this import, not those of the last one,
        // and is whole or partial as this import found it.
        recorded.files.remove(path);
        recorded.items.remove(path);
        recorded.partial.remove(path);
    }
    recorded.files.extend(imported.files);
    recorded.items.extend(imported.items);
    recorded.partial.extend(imported.partial);
    let stored = Stored {
        version: 1,
        files: recorded.files,
        items: recorded.items,
        partial: recorded.partial,
    };
    let mut text = serde_json::to_string_pretty(&stored).map_err(std::io::Error::other)?;
    text.push('\n');
    dir.write(&record_path, text.as_bytes(), 0o644)?;
    Ok(damaged.map(|why| {
        format!(
            "{record_path}: replaced, since it could not be used ({why}); the files earlier imports recorded in it count as hand-written, so `generate` asks before replacing them"
        )
    }))
}

/// The items the record names for one imported file, against the project now: those deleted
/// since (no longer among the project's items) and those whose file no longer holds what the
/// import wrote there (edited, emptied, or another item now at that path), each by source
/// path in path order. Each item file still there is read once, through `dir`.
struct ItemsSinceImport<'a> {
    deleted: Vec<&'a str>,
    changed: Vec<&'a str>,
}

impl<'a> ItemsSinceImport<'a> {
    /// Compares `recorded` (item source path → digest the import wrote) with the project's
    /// `items` and their files in `dir`.
    fn of(
        dir: &ProjectDir,
        recorded: &'a BTreeMap<String, String>,
        items: &[crate::content::Item],
    ) -> Self {
        let present: std::collections::HashSet<&str> =
            items.iter().map(|item| item.source_path.as_str()).collect();
        let mut deleted = Vec::new();
        let mut changed = Vec::new();
        for (source, digest) in recorded {
            if !present.contains(source.as_str()) {
                deleted.push(source.as_str());
                continue;
            }
            let now = dir
                .read(source, crate::content::MAX_FILE_BYTES)
                .ok()
                .flatten()
                .map(|(bytes, _)| crate::hash::content_digest(source, &bytes));
            if now.as_ref() != Some(digest) {
                changed.push(source.as_str());
            }
        }
        Self { deleted, changed }
    }

    /// Whether every item is as the import wrote it.
    fn unchanged(&self) -> bool {
        self.deleted.is_empty() && self.changed.is_empty()
    }
}

/// Of the recorded `candidates` (files `generate` would adopt: at a path it writes and not
/// generated yet), those that may not be adopted although they still hold the bytes the import
/// read, each with why, as a clause (`.ai-rulez/rules/a.md made of it was deleted since`): an
/// item the record names for it was deleted or changed since the import wrote it, so the file
/// may hold text that is nowhere else; or the record does not name its items (an older
/// import), so that cannot be told.
#[must_use]
pub(crate) fn not_adoptable(
    dir: &ProjectDir,
    imported: &Record,
    candidates: &[&String],
    items: &[crate::content::Item],
) -> BTreeMap<String, String> {
    candidates
        .iter()
        .filter_map(|path| {
            let Some(recorded) = imported.items.get(*path) else {
                return Some((
                    (*path).clone(),
                    "the import that recorded it did not name the items it became, so whether they still hold all of its text cannot be told".to_owned(),
                ));
            };
            let since = ItemsSinceImport::of(dir, recorded, items);
            let gone = |sources: &[&str]| {
                let verb = if sources.len() == 1 { "was" } else { "were" };
                format!("{} made of it {verb} deleted since", sources.join(", "))
            };
            // Edited, emptied, or another item now at that path: the file says what it says.
            let other = |sources: &[&str]| {
                let verb = if sources.len() == 1 { "holds" } else { "hold" };
                format!(
                    "{} made of it no longer {verb} what the import wrote there",
                    sources.join(", ")
                )
            };
            let reason = match (since.deleted.is_empty(), since.changed.is_empty()) {
                (true, true) => return None,
                (false, true) => gone(&since.deleted),
                (true, false) => other(&since.changed),
                (false, false) => format!("{} and {}", gone(&since.deleted), other(&since.changed)),
            };
            Some(((*path).clone(), reason))
        })
        .collect()
}

/// Warnings for imported root files (`CLAUDE.md`, `AGENTS.md`, ...) this run did not adopt but
/// gave the generated section (a section `create` among `changes`): the file keeps its text,
/// and the items made of it are generated too (into the section or the assistants' own files). Each names why the file was kept (from
/// `not_adoptable`, else that it changed since the import) and the items still there. Files
/// recorded without their items, or whose items are all gone, get none.
#[must_use]
pub(crate) fn kept_beside_section(
    changes: &[super::Change],
    imported: &Record,
    not_adoptable: &BTreeMap<String, String>,
    items: &[crate::content::Item],
) -> Vec<String> {
    changes
        .iter()
        .filter(|change| change.section && change.status == super::Status::Create)
        .filter_map(|change| {
            let sources = imported.items.get(&change.path)?;
            let present: Vec<&str> = items
                .iter()
                .map(|item| item.source_path.as_str())
                .filter(|source| sources.contains_key(*source))
                .collect();
            if present.is_empty() {
                return None;
            }
            let why = not_adoptable
                .get(&change.path)
                .map_or("it changed since the import", String::as_str);
            Some(format!(
                "{path}: kept as written ({why}) and given the generated section; what was imported from it into {} is generated now too, so assistants read that text twice: remove it from outside the section once the generated files are right",
                present.join(", "),
                path = change.path
            ))
        })
        .collect()
}

/// Warnings for imported files that stay beside what replaced them: a recorded file still on
/// disk at a path this plan does not write, in the folder of an assistant (its own rules,
/// agents or commands folder, or its rules folder nested in a sub-folder when it reads those),
/// whose items this plan writes into a file that assistant also reads (its own folder, or a
/// root file such as `AGENTS.md`, by the `reads` lists of `templates/presets/`). That
/// assistant then reads the rule twice, and nothing else would say so. ai-rulez never deletes
/// the file (it did not write it), so the warning names it for the user to delete, with the
/// generated files that carry the items (at most [`NAMED_OUTPUTS`]; the assistant's own folder
/// first, then by path) so the two can be compared first.
///
/// Which items: those the record names for the file, while they exist. While the file and
/// every one of them still hold the bytes of the import, the warning says the text is in the
/// items now; once either side changed, it says which, since the assistant then reads two
/// versions and deleting the file may drop what only it says. A file with an empty body, whose
/// items are all gone, or recorded by an older import without its items, gets no warning: which
/// items hold its text can then not be told.
///
/// Input: the record (as [`read_checked`] returns it), the planned outputs by path, and the project's
/// items. Output: one sentence per such file, in path order. Never fails: a file that cannot be
/// looked at is left unnamed.
#[must_use]
pub(crate) fn left_beside_outputs(
    dir: &ProjectDir,
    imported: &Record,
    outputs: &BTreeMap<String, crate::plan::Output>,
    items: &[crate::content::Item],
) -> Vec<String> {
    let left: Vec<(&String, &String)> = imported
        .files
        .iter()
        .filter(|(path, _)| !outputs.contains_key(*path))
        .collect();
    if left.is_empty() {
        return Vec::new();
    }
    let Ok(specs) = crate::presets::builtin_specs() else {
        return Vec::new();
    };
    left.into_iter()
        .filter_map(|(path, digest)| {
            let recorded = imported.items.get(path.as_str())?;
            // The assistant whose own folder holds the file: others may read that folder
            // too (Crush reads `.cursor/rules`), but the file was written for this one.
            let readers: Vec<&crate::presets::PresetSpec> = specs
                .iter()
                .filter(|spec| owns(spec, path) && spec_reads(spec, path))
                .collect();
            if readers.is_empty() {
                return None;
            }
            let (bytes, _) = dir.read(path, crate::content::MAX_FILE_BYTES).ok().flatten()?;
            let document = crate::frontmatter::parse(path, &bytes).ok()?;
            if document.body.trim().is_empty() {
                return None;
            }
            let holders: Vec<&crate::content::Item> = items
                .iter()
                .filter(|item| recorded.contains_key(&item.source_path))
                .collect();
            if holders.is_empty() {
                return None;
            }
            let file_changed = crate::hash::content_digest(path, &bytes) != *digest;
            let items_changed = !ItemsSinceImport::of(dir, recorded, items).unchanged();
            // A copy only some of the assistant's surfaces read (its spec's
            // `reads_in_some_surfaces`) is no reason to delete the file.
            let read_by_them = |output: &str| {
                readers.iter().any(|spec| {
                    spec_reads(spec, output)
                        && !spec
                            .reads_in_some_surfaces
                            .iter()
                            .any(|read| crate::presets::reads::is_at_or_below(output, read))
                })
            };
            let carriers = outputs_carrying(&holders, outputs, read_by_them, path);
            if carriers.is_empty() {
                return None;
            }
            let sources: Vec<&str> = holders.iter().map(|item| item.source_path.as_str()).collect();
            let sources = sources.join(", ");
            let carriers = carriers.join(", ");
            let labels: Vec<&str> = readers.iter().map(|spec| spec.label.as_str()).collect();
            let labels = labels.join(" and ");
            let never = "(ai-rulez never deletes a file it did not write)";
            let changed = match (file_changed, items_changed) {
                (false, false) => {
                    return Some(format!(
                        "{path}: its text is in {sources} now (it was imported), and `generate` writes it into {carriers}, which {labels} also reads, so {labels} reads the text twice; delete {path} once the generated files are right {never}"
                    ));
                }
                (true, false) => format!("changed since it was imported into {sources}"),
                (false, true) => format!("{sources} changed since it was imported from it"),
                (true, true) => format!("it and {sources} both changed since the import"),
            };
            Some(format!(
                "{path}: {changed}, and `generate` writes {sources} into {carriers}, which {labels} also reads, so {labels} reads two versions of the rule; make {sources} say what you want kept, then delete {path} {never}"
            ))
        })
        .collect()
}

/// Whether `path` lies in a folder the preset of `spec` writes its own rules, agents or
/// commands into (`.cursor/rules/web/react.mdc` is Cursor's), or in its rules folder nested in
/// a sub-folder when the assistant reads those (`packages/web/.cursor/rules/react.mdc`).
fn owns(spec: &crate::presets::PresetSpec, path: &str) -> bool {
    if crate::presets::is_in_nested_rules_folder(spec, path) {
        return true;
    }
    let folders = [
        spec.rules.as_ref().map(|rules| rules.dir.as_str()),
        spec.agents.as_ref().map(|agents| agents.dir.as_str()),
        spec.commands.as_ref().map(|commands| commands.dir.as_str()),
    ];
    folders.into_iter().flatten().any(|folder| {
        path.strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Whether the assistant of `spec` reads `path` by its `reads` list, nested `AGENTS.md` files
/// and nested rules folders included when it reads those.
fn spec_reads(spec: &crate::presets::PresetSpec, path: &str) -> bool {
    (spec.reads_nested_agents_md && path.ends_with("/AGENTS.md"))
        || crate::presets::is_in_nested_rules_folder(spec, path)
        || crate::presets::reads::reads_by_default(spec, path)
}

/// The most outputs [`left_beside_outputs`] names for one file; past it, `...` says there
/// are more.
const NAMED_OUTPUTS: usize = 3;

/// The planned Markdown outputs `wanted` accepts that carry one of `holders`: those generated
/// from a holder's own file, and those built from many items (a root file) whose text holds a
/// holder's body. Output: those in the folder of `imported` (its first path component) first,
/// then the rest, each in path order, at most [`NAMED_OUTPUTS`] and then `...`.
fn outputs_carrying(
    holders: &[&crate::content::Item],
    outputs: &BTreeMap<String, crate::plan::Output>,
    wanted: impl Fn(&str) -> bool,
    imported: &str,
) -> Vec<String> {
    let finders: Vec<memchr::memmem::Finder<'_>> = holders
        .iter()
        .map(|item| item.body.trim())
        .filter(|body| !body.is_empty())
        .map(|body| memchr::memmem::Finder::new(body.as_bytes()))
        .collect();
    let (mut near, far): (Vec<String>, Vec<String>) = outputs
        .values()
        .filter(|output| wanted(&output.path))
        .filter(|output| match &output.content {
            crate::plan::Content::Markdown(markdown) => {
                holders.iter().any(|item| item.source_path == markdown.source)
                    // A file built from many items names their folder (`.ai-rulez/`).
                    || (markdown.source.ends_with('/')
                        && finders
                            .iter()
                            .any(|finder| finder.find(markdown.body()).is_some()))
            }
            _ => false,
        })
        .map(|output| output.path.clone())
        .partition(|output| {
            imported
                .split_once('/')
                .is_some_and(|(folder, _)| output.starts_with(&format!("{folder}/")))
        });
    near.extend(far);
    if near.len() > NAMED_OUTPUTS {
        near.truncate(NAMED_OUTPUTS);
        near.push("...".to_owned());
    }
    near
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_sits_beside_the_manifest_in_the_local_folder() {
        assert_eq!(
            path_for(".ai-rulez/.generated-manifest.json").as_deref(),
            Some(".ai-rulez/local/imported.json")
        );
        assert_eq!(path_for(".generated-manifest.json"), None);
    }

    #[test]
    fn records_merge_and_a_damaged_record_reads_as_empty() {
        let folder = tempfile::tempdir().unwrap();
        let dir = ProjectDir::open(folder.path()).unwrap();
        let first = Record {
            files: BTreeMap::from([("CLAUDE.md".to_owned(), "sha256:aa".to_owned())]),
            items: BTreeMap::from([(
                "CLAUDE.md".to_owned(),
                BTreeMap::from([(".ai-rulez/rules/old.md".to_owned(), "sha256:01".to_owned())]),
            )]),
            partial: BTreeMap::from([(
                ".cursor/rules/x.mdc".to_owned(),
                "left out keys: model".to_owned(),
            )]),
        };
        assert_eq!(record(&dir, ".ai-rulez", first).unwrap(), None);
        let second = Record {
            files: BTreeMap::from([
                ("AGENTS.md".to_owned(), "sha256:bb".to_owned()),
                ("CLAUDE.md".to_owned(), "sha256:cc".to_owned()),
            ]),
            items: BTreeMap::from([(
                "AGENTS.md".to_owned(),
                BTreeMap::from([
                    (".ai-rulez/rules/a.md".to_owned(), "sha256:02".to_owned()),
                    (".ai-rulez/context/b.md".to_owned(), "sha256:03".to_owned()),
                ]),
            )]),
            partial: BTreeMap::from([(
                ".windsurf/rules/y.md".to_owned(),
                "a scope key of the wrong type was ignored".to_owned(),
            )]),
        };
        record(&dir, ".ai-rulez", second).unwrap();
        let path = ".ai-rulez/local/imported.json";
        assert_eq!(
            fs_err::read_to_string(folder.path().join(path)).unwrap(),
            "{\n  \"version\": 1,\n  \"files\": {\n    \"AGENTS.md\": \"sha256:bb\",\n    \"CLAUDE.md\": \"sha256:cc\"\n  },\n  \"items\": {\n    \"AGENTS.md\": {\n      \".ai-rulez/context/b.md\": \"sha256:03\",\n      \".ai-rulez/rules/a.md\": \"sha256:02\"\n    }\n  },\n  \"partial\": {\n    \".cursor/rules/x.mdc\": \"left out keys: model\",\n    \".windsurf/rules/y.md\": \"a scope key of the wrong type was ignored\"\n  }\n}\n"
        );
        // A file imported whole after a partial import is no longer partial, and the other
        // way round.
        let third = Record {
            files: BTreeMap::from([(".cursor/rules/x.mdc".to_owned(), "sha256:dd".to_owned())]),
            partial: BTreeMap::from([("AGENTS.md".to_owned(), "left out keys: x".to_owned())]),
            ..Record::default()
        };
        record(&dir, ".ai-rulez", third).unwrap();
        let (merged, problem) = read_checked(&dir, path);
        assert_eq!(problem, None);
        assert_eq!(
            merged.files,
            BTreeMap::from([
                (".cursor/rules/x.mdc".to_owned(), "sha256:dd".to_owned()),
                ("CLAUDE.md".to_owned(), "sha256:cc".to_owned()),
            ])
        );
        assert!(merged.items.is_empty(), "{:?}", merged.items);
        assert_eq!(
            merged.partial,
            BTreeMap::from([
                (
                    ".windsurf/rules/y.md".to_owned(),
                    "a scope key of the wrong type was ignored".to_owned()
                ),
                ("AGENTS.md".to_owned(), "left out keys: x".to_owned()),
            ])
        );
        assert_eq!(
            fs_err::read_to_string(folder.path().join(".ai-rulez/local/.gitignore")).unwrap(),
            "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n"
        );
        fs_err::write(folder.path().join(path), "{\"version\": 1, \"files\": [").unwrap();
        let (damaged, why) = read_checked(&dir, path);
        assert_eq!(damaged, Record::default());
        assert_eq!(
            why.as_deref(),
            Some(
                "not a record of imported files: invalid type: sequence, expected a map at line 1 column 24"
            )
        );
        fs_err::write(folder.path().join(path), "{\"version\": 7, \"files\": {}}").unwrap();
        assert_eq!(
            read_checked(&dir, path).1.as_deref(),
            Some("version 7 is not one this ai-rulez knows (1)")
        );
    }
}
