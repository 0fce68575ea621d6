//! The machine-local record of the assistants' files `ai-rulez import` read
//! (`.ai-rulez/local/imported.json`), so the first `generate` after an import may replace them:
//! their text is under `.ai-rulez/` now, and a file still holding exactly the bytes the import
//! read loses nothing when it becomes a generated file. A file changed after the import no longer
//! matches its digest and is refused as before, with its diff.
//!
//! Format (version 1, sorted keys, 2-space JSON, trailing newline):
//! `{"version": 1, "files": {path: "sha256:.."}}`, each digest taken as the manifest takes it
//! ([`crate::hash::content_digest`]: line ends normalised).
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

/// The recorded files: project-relative path → `sha256:<hex>` digest of the bytes the import
/// read. Empty when there is no record, or when it cannot be read or parsed (see the module
/// documentation: ignoring it is always safe).
#[must_use]
pub(crate) fn read(dir: &ProjectDir, record_path: &str) -> BTreeMap<String, String> {
    let Ok(Some((bytes, _))) = dir.read(record_path, MAX_RECORD_BYTES) else {
        return BTreeMap::new();
    };
    serde_json::from_slice::<Stored>(&bytes)
        .ok()
        .filter(|stored| stored.version == 1)
        .map(|stored| stored.files)
        .unwrap_or_default()
}

/// Adds `files` (path → digest, as [`read`] returns them) to the record of the config folder
/// `config_folder` (e.g. `.ai-rulez`), keeping the entries already there for other paths, and
/// makes sure the machine-local folder keeps itself out of git. The record is replaced whole
/// (temporary file and rename), so a crash leaves the old record or the new one.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O errors.
pub(crate) fn record(
    dir: &ProjectDir,
    config_folder: &str,
    files: BTreeMap<String, String>,
) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let local_folder = format!("{config_folder}/local");
    crate::local_state::keep_folder_out_of_git(dir, &local_folder)?;
    let record_path = format!("{local_folder}/{FILE_NAME}");
    let mut recorded = read(dir, &record_path);
    recorded.extend(files);
    let stored = Stored {
        version: 1,
        files: recorded,
    };
    let mut text = serde_json::to_string_pretty(&stored).map_err(std::io::Error::other)?;
    text.push('\n');
    dir.write(&record_path, text.as_bytes(), 0o644)
}

/// Warnings for imported files that stay beside what replaced them: a recorded file still on
/// disk at a path this plan does not write, in a tool folder (`.cursor/`, `.windsurf/`, ...)
/// where the plan writes other files, so that assistant's preset is on. Its text is generated
/// from `.ai-rulez/` now (into that folder or a root file the assistant also reads, such as
/// `AGENTS.md`), so the assistant reads it twice, and nothing else would say so. ai-rulez never
/// deletes it (it did not write it), so the warning names it for the user to delete, and names
/// the planned outputs that carry its body (at most [`NAMED_OUTPUTS`], in path order) so the
/// user can compare the two before deleting.
///
/// Input: the recorded files (as [`read`] returns them) and the planned outputs by path.
/// Output: one sentence per such file, in path order. Never fails: a file that cannot be
/// looked at is left unnamed, and one whose body is in no output (edited since, or split into
/// several items) is named without outputs.
#[must_use]
pub(crate) fn left_beside_outputs(
    dir: &ProjectDir,
    adopted: &BTreeMap<String, String>,
    outputs: &BTreeMap<String, crate::plan::Output>,
) -> Vec<String> {
    adopted
        .keys()
        .filter(|path| !outputs.contains_key(*path))
        .filter_map(|path| {
            let (folder, _) = path.split_once('/')?;
            let prefix = format!("{folder}/");
            // Outputs are sorted by path: the first at or after the prefix tells.
            let folder_written = outputs
                .range(prefix.clone()..)
                .next()
                .is_some_and(|(output, _)| output.starts_with(&prefix));
            if !folder_written {
                return None;
            }
            let (bytes, _) = dir.read(path, crate::content::MAX_FILE_BYTES).ok().flatten()?;
            let carriers = outputs_carrying(path, &bytes, outputs);
            let into = if carriers.is_empty() {
                "the files of the assistant that reads it".to_owned()
            } else {
                carriers.join(", ")
            };
            Some(format!(
                "{path}: `ai-rulez import` read this file into .ai-rulez/, and `generate` now writes its text into {into}, so the assistant that reads `{folder}/` reads it twice; delete {path} once the generated files are right (ai-rulez never deletes a file it did not write)"
            ))
        })
        .collect()
}

/// The most outputs [`left_beside_outputs`] names for one file; past it, `, ...` says there
/// are more.
const NAMED_OUTPUTS: usize = 3;

/// The planned outputs whose text holds the body of `bytes` (the file at `path`, without its
/// frontmatter, trimmed), in path order, at most [`NAMED_OUTPUTS`] of them and then `...`.
/// Empty when the body is empty or unreadable, or no output holds it.
fn outputs_carrying(
    path: &str,
    bytes: &[u8],
    outputs: &BTreeMap<String, crate::plan::Output>,
) -> Vec<String> {
    let Ok(document) = crate::frontmatter::parse(path, bytes) else {
        return Vec::new();
    };
    let body = document.body.trim();
    if body.is_empty() {
        return Vec::new();
    }
    let finder = memchr::memmem::Finder::new(body.as_bytes());
    let mut found: Vec<String> = outputs
        .values()
        .filter(|output| match &output.content {
            crate::plan::Content::Markdown(markdown) => finder.find(markdown.body()).is_some(),
            _ => false,
        })
        .map(|output| output.path.clone())
        .take(NAMED_OUTPUTS + 1)
        .collect();
    if found.len() > NAMED_OUTPUTS {
        found.truncate(NAMED_OUTPUTS);
        found.push("...".to_owned());
    }
    found
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
        let first = BTreeMap::from([("CLAUDE.md".to_owned(), "sha256:aa".to_owned())]);
        record(&dir, ".ai-rulez", first).unwrap();
        let second = BTreeMap::from([("AGENTS.md".to_owned(), "sha256:bb".to_owned())]);
        record(&dir, ".ai-rulez", second).unwrap();
        let path = ".ai-rulez/local/imported.json";
        assert_eq!(
            fs_err::read_to_string(folder.path().join(path)).unwrap(),
            "{\n  \"version\": 1,\n  \"files\": {\n    \"AGENTS.md\": \"sha256:bb\",\n    \"CLAUDE.md\": \"sha256:aa\"\n  }\n}\n"
        );
        assert_eq!(
            fs_err::read_to_string(folder.path().join(".ai-rulez/local/.gitignore")).unwrap(),
            "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n"
        );
        fs_err::write(folder.path().join(path), "{\"version\": 1, \"files\": [").unwrap();
        assert!(read(&dir, path).is_empty());
    }

    #[test]
    fn the_outputs_holding_an_imported_body_are_named_in_path_order_up_to_three() {
        let output = |path: &str, body: &str| {
            let markdown = crate::plan::Markdown::build(None, body, ".ai-rulez/", true);
            (
                path.to_owned(),
                crate::plan::Output {
                    path: path.to_owned(),
                    content: crate::plan::Content::Markdown(markdown),
                    writers: vec!["cursor".to_owned()],
                },
            )
        };
        let imported = b"---\nglobs: \"*.tsx\"\n---\n\nFunction components only.\n";
        let mut outputs = BTreeMap::from([
            output(
                "AGENTS.md",
                "# Rules\n\nFunction components only.\n\nMore.\n",
            ),
            output(".cursor/rules/web-react.mdc", "Function components only.\n"),
            output(".cursor/rules/other.mdc", "Class components are fine.\n"),
        ]);
        assert_eq!(
            outputs_carrying("web/react.mdc", imported, &outputs),
            [".cursor/rules/web-react.mdc", "AGENTS.md"]
        );
        outputs.extend([
            output("CLAUDE.md", "Function components only.\n"),
            output("GEMINI.md", "Function components only.\n"),
        ]);
        assert_eq!(
            outputs_carrying("web/react.mdc", imported, &outputs),
            [
                ".cursor/rules/web-react.mdc",
                "AGENTS.md",
                "CLAUDE.md",
                "..."
            ]
        );
        // An empty body, or one edited since, is in no output: nothing is named.
        assert!(outputs_carrying("a.mdc", b"---\nglobs: x\n---\n\n", &outputs).is_empty());
        assert!(outputs_carrying("a.mdc", b"Hooks only.\n", &outputs).is_empty());
    }
}
