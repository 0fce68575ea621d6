//! `.ai-rulez/.generated-manifest.json`: what the last `generate` wrote, with digests, so later
//! runs can prove a file or a settings entry is still exactly what ai-rulez wrote.
//!
//! Format (version 2, sorted keys, 2-space JSON, trailing newline):
//! `{"version": 2, "files": {path: "sha256:.."}, "sections": {path: "sha256:.."},
//!   "sections_unterminated": [path], "merged": {path: [{"key": [..], "digest": "sha256:.."}]}}`.
//! `sections_unterminated` (left out when empty; older versions ignore it) names the files whose
//! own text had no final new line before the section was added, so removing the section
//! restores them exactly.
//! The Go ai-rulez's version "1" manifest (`"files": [paths]`) is read as paths without digests.
//!
//! The journal of a run in progress (`.generated-manifest.pending.json`) has the same format plus
//! `"alternates": {path: ["sha256:.."]}`: further digests that also prove a file ours, because an
//! interrupted run may have left either the old or the new bytes in place.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// One owned entry in a merged settings document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MergedEntry {
    /// Key path inside the document (e.g. `["mcpServers", "github"]`).
    pub key: Vec<String>,
    /// `sha256:<hex>` of the entry in template form.
    pub digest: String,
}

/// The manifest contents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Manifest {
    /// Whole files: path → digest of the file bytes (`None` for a Go manifest without digests).
    pub files: BTreeMap<String, Option<String>>,
    /// Managed sections in hand-written files: path → digest of the section body.
    pub sections: BTreeMap<String, String>,
    /// Those of `sections` whose hand-written text ended without a new line when the section
    /// was added (which then added one), so removing the section (`clean`, a preset dropped)
    /// gives the text back byte for byte.
    pub sections_unterminated: BTreeSet<String>,
    /// Merged documents: path → owned entries (one key may appear with several digests in a
    /// journal).
    pub merged: BTreeMap<String, Vec<MergedEntry>>,
    /// Further digests that prove a whole file ours (journals only): path → digests.
    pub alternates: BTreeMap<String, BTreeSet<String>>,
}

#[derive(Serialize)]
struct Stored<'a> {
    version: u32,
    files: &'a BTreeMap<String, Option<String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    sections: &'a BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeSet::is_empty")]
    sections_unterminated: &'a BTreeSet<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    merged: &'a BTreeMap<String, Vec<MergedEntry>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    alternates: &'a BTreeMap<String, BTreeSet<String>>,
}

/// A version 2 manifest (or journal) as this tool writes it, read without building a JSON tree.
#[derive(Deserialize)]
struct Typed {
    files: BTreeMap<String, Option<String>>,
    #[serde(default)]
    sections: BTreeMap<String, String>,
    #[serde(default)]
    sections_unterminated: BTreeSet<String>,
    #[serde(default)]
    merged: BTreeMap<String, Vec<MergedEntry>>,
    #[serde(default)]
    alternates: BTreeMap<String, BTreeSet<String>>,
}

impl Manifest {
    /// Parses manifest text; `path` is used in error messages.
    ///
    /// Errors: [`Error::Invalid`] when the text is not a manifest of version 1 or 2.
    pub(crate) fn parse(path: &str, text: &str) -> Result<Self> {
        // The manifest of a large project lists hundreds of thousands of files, so the usual
        // version 2 text is read straight into the maps; anything else (a Go manifest, a damaged
        // or unusual one) takes the general reading below, which says what is wrong.
        if let Ok(typed) = serde_json::from_str::<Typed>(text) {
            return Ok(Manifest {
                files: typed.files,
                sections: typed.sections,
                sections_unterminated: typed.sections_unterminated,
                merged: typed.merged,
                alternates: typed.alternates,
            });
        }
        let invalid = |message: &str| {
            Error::invalid(
                path,
                None,
                format!(
                    "{message}; delete it and run `ai-rulez generate` (files it listed then count as hand-written)"
                ),
            )
        };
        let value: Value = serde_json::from_str(text)
            .map_err(|error| invalid(&format!("not valid JSON ({error})")))?;
        let mut manifest = Manifest::default();
        match value.get("files") {
            Some(Value::Array(paths)) => {
                for path in paths {
                    if let Value::String(path) = path {
                        manifest.files.insert(path.clone(), None);
                    }
                }
            }
            Some(Value::Object(files)) => {
                for (path, digest) in files {
                    manifest
                        .files
                        .insert(path.clone(), digest.as_str().map(str::to_owned));
                }
            }
            None => {}
            Some(_) => return Err(invalid("`files` is neither a list nor a table")),
        }
        if let Some(sections) = value.get("sections") {
            manifest.sections = serde_json::from_value(sections.clone())
                .map_err(|_| invalid("`sections` is malformed"))?;
        }
        if let Some(unterminated) = value.get("sections_unterminated") {
            manifest.sections_unterminated = serde_json::from_value(unterminated.clone())
                .map_err(|_| invalid("`sections_unterminated` is malformed"))?;
        }
        if let Some(alternates) = value.get("alternates") {
            manifest.alternates = serde_json::from_value(alternates.clone())
                .map_err(|_| invalid("`alternates` is malformed"))?;
        }
        if let Some(Value::Object(merged)) = value.get("merged") {
            for (path, entries) in merged {
                // The Go manifest stores merged paths with non-digest data; only ours is usable.
                let entries: Vec<MergedEntry> =
                    serde_json::from_value(entries.clone()).unwrap_or_default();
                manifest.merged.insert(path.clone(), entries);
            }
        }
        Ok(manifest)
    }

    /// Deterministic JSON text of this manifest.
    #[must_use]
    pub(crate) fn to_text(&self) -> String {
        let stored = Stored {
            version: 2,
            files: &self.files,
            sections: &self.sections,
            sections_unterminated: &self.sections_unterminated,
            merged: &self.merged,
            alternates: &self.alternates,
        };
        let mut text = serde_json::to_string_pretty(&stored).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Whether nothing is recorded.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty() && self.sections.is_empty() && self.merged.is_empty()
    }

    /// Whether `digest` (`sha256:<hex>`) is recorded for the whole file `path`.
    #[must_use]
    pub(crate) fn records_file(&self, path: &str, digest: &str) -> bool {
        self.files
            .get(path)
            .is_some_and(|recorded| recorded.as_deref() == Some(digest))
            || self
                .alternates
                .get(path)
                .is_some_and(|alternates| alternates.contains(digest))
    }

    /// Adds every record of `other` to these, keeping both digests where they differ: the union
    /// that proves ours whatever an interrupted run left on disk.
    pub(crate) fn absorb(&mut self, other: Manifest) {
        for (path, digest) in other.files {
            match self.files.get(&path) {
                None => {
                    self.files.insert(path, digest);
                }
                Some(existing) if *existing != digest => {
                    if let Some(digest) = digest {
                        self.alternates.entry(path).or_default().insert(digest);
                    }
                }
                Some(_) => {}
            }
        }
        for (path, digests) in other.alternates {
            self.alternates.entry(path).or_default().extend(digests);
        }
        for (path, digest) in other.sections {
            self.sections.entry(path).or_insert(digest);
        }
        self.sections_unterminated
            .extend(other.sections_unterminated);
        for (path, entries) in other.merged {
            let known = self.merged.entry(path).or_default();
            for entry in entries {
                if !known.contains(&entry) {
                    known.push(entry);
                }
            }
        }
    }
}
