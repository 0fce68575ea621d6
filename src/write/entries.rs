//! Merged entries: ai-rulez's servers inside a settings document it shares with the user,
//! tracked per entry by digest so hand-made entries and edits are never overwritten.

use std::borrow::Cow;
use std::collections::BTreeSet;

use crate::error::{Error, Result};
use crate::manifest::{Manifest, MergedEntry};
use crate::mcp_config::{self, DocumentShape, Entry};

use super::{Operation, State, Status};

impl State<'_> {
    pub(super) fn entries(
        &mut self,
        path: &str,
        shape: DocumentShape,
        all_entries: &[Entry],
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
        // `--check` renders without the environment, so it cannot tell whether `generate` had
        // the variables an entry needed resolved; `generate` leaves such an entry out when one
        // is unset. An entry that is neither on disk nor recorded is therefore not drift.
        let mut entries: Vec<&Entry> = Vec::with_capacity(all_entries.len());
        for entry in all_entries {
            let maybe_left_out = !self.secrets_resolved
                && entry.holds_resolved_secret
                && !recorded.iter().any(|known| known.key == entry.key);
            let keep = match &text {
                _ if !maybe_left_out => true,
                Some(text) => mcp_config::disk_entry_digest(shape, text, &entry.key, None)
                    .map_err(mcp_error(path))?
                    .is_some(),
                None => false,
            };
            if keep {
                entries.push(entry);
            }
        }
        if entries.is_empty() && text.is_none() {
            return Ok(());
        }
        let entries: Vec<Entry> = entries.into_iter().cloned().collect();
        let entries = entries.as_slice();
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
                Some(digest) if digest == expected => {
                    // Same shape, but a value resolved from the environment may have changed
                    // (a rotated token): compare what is on disk with what would be written.
                    if self.secrets_resolved
                        && entry.holds_resolved_secret
                        && let Some(text) = &text
                    {
                        let written = mcp_config::disk_entry_digest(shape, text, &entry.key, None)
                            .map_err(mcp_error(path))?;
                        if written
                            != Some(crate::hash::sha256_tagged(
                                entry.value.to_string().as_bytes(),
                            ))
                        {
                            stale = true;
                        }
                    }
                }
                Some(digest) => {
                    let owned = recorded
                        .iter()
                        .any(|known| known.key == entry.key && known.digest == digest);
                    if !owned {
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
        if !conflicts.is_empty() && self.settings.force {
            // Forced over entries ai-rulez cannot prove it wrote: the document is saved first.
            if let Some(text) = &text {
                self.originals.push((
                    path.to_owned(),
                    text.clone().into_bytes(),
                    disk_mode.unwrap_or(0o644),
                ));
            }
            conflicts.clear();
        }
        if !conflicts.is_empty() {
            self.record(
                path,
                Status::Blocked,
                Some(format!(
                    "{} not written by ai-rulez (or edited since); to keep it, rename or remove the entry; to replace it, run `ai-rulez generate --force`, which saves the file as {path}.orig first",
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
}

pub(super) fn mcp_error(path: &str) -> impl Fn(mcp_config::McpConfigError) -> Error + '_ {
    // The document's errors start with its path, which `Error::invalid` puts in front again.
    move |error| {
        let message = error.to_string();
        let message = message
            .strip_prefix(&format!("{path}: "))
            .map_or(message.clone(), str::to_owned);
        Error::invalid(path, None, message)
    }
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

pub(super) fn shape_for_path(path: &str) -> Option<DocumentShape> {
    DocumentShape::ALL
        .into_iter()
        .find(|shape| shape.default_path() == path)
}
