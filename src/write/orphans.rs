//! Orphans: what an earlier run generated and the plan no longer produces, deleted only when it
//! is provably unedited.

use std::borrow::Cow;

use crate::confined_fs::ProjectDir;
use crate::error::Result;
use crate::hash::{Provenance, banner_provenance, content_digest};
use crate::manifest::Manifest;
use crate::mcp_config;
use crate::plan::Plan;

use super::disk::{current_mode, read_output};
use super::entries::{mcp_error, shape_for_path};
use super::section::{find_section, original_offset};
use super::{Operation, State, Status};

/// Adds to `old`, an empty manifest (this machine has none, as in a fresh clone), what the
/// committed lock pins and `plan` no longer produces: each whole file only while it is still
/// exactly what the lock pinned (its digest, executable bit included) and carries its ai-rulez
/// banner unedited, and each managed section (removed later only while its marker's digest
/// holds). Without it a rule deleted in a fresh clone would keep its generated files, which the
/// assistants go on reading, and `--check` would call the tree up to date. A missing, damaged
/// or unreadable lock adds nothing (`lock --check` reports it). Returns a warning for each
/// pinned file kept: one edited since, and one without a banner, which nothing proves ours.
pub(super) fn add_pinned_by_lock(
    dir: &ProjectDir,
    manifest_path: &str,
    plan: &Plan,
    old: &mut Manifest,
) -> Vec<String> {
    let mut warnings = Vec::new();
    let lock_path = crate::lock::path_beside(manifest_path);
    let Ok(Some((bytes, _))) = dir.read(&lock_path, crate::lock::MAX_LOCK_BYTES) else {
        return warnings;
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return warnings;
    };
    let Ok(lock) = crate::lock::LockFile::parse(&lock_path, text) else {
        return warnings;
    };
    for pinned in &lock.outputs {
        if pinned.entry.is_some() || plan.outputs.contains_key(&pinned.path) {
            continue;
        }
        // A section carries its own digest in its marker, which the orphan step checks before
        // removing it; the lock only says where to look.
        if pinned.section {
            old.sections
                .insert(pinned.path.clone(), pinned.digest.clone());
            continue;
        }
        let Ok(Some((disk, mode))) = read_output(dir, &pinned.path) else {
            continue;
        };
        let executable = mode & 0o111 != 0;
        let pinned_bytes =
            crate::lock::leaf_digest(&pinned.path, executable, &disk) == pinned.digest;
        let provenance = banner_provenance(&disk);
        // The lock is a committed file anyone may edit; what proves a file ai-rulez's is its
        // banner, unedited. The lock only names the paths to look at.
        if pinned_bytes && provenance == Provenance::Unedited {
            old.files.insert(
                pinned.path.clone(),
                Some(content_digest(&pinned.path, &disk)),
            );
        } else if pinned_bytes && provenance == Provenance::NoBanner {
            warnings.push(format!(
                "{}: no longer generated; {lock_path} pinned it, but it carries no ai-rulez banner and this machine has no manifest of it, so nothing proves ai-rulez wrote it; kept, and yours to delete",
                pinned.path
            ));
        } else if provenance == Provenance::Edited {
            warnings.push(format!(
                "{}: no longer generated but edited by hand since {lock_path} pinned it; kept, and now yours to delete",
                pinned.path
            ));
        }
    }
    warnings
}

impl State<'_> {
    /// Outputs the old manifest lists that the plan no longer produces.
    pub(super) fn orphans(&mut self, plan: &Plan, old: &Manifest) -> Result<()> {
        let dir = self.settings.dir;
        for path in old.files.keys() {
            if plan.outputs.contains_key(path) && !self.settings.clean {
                continue;
            }
            // A symlink (or a folder, a pipe) where an output was is not ours to touch.
            let Ok(Some((disk, _))) = read_output(dir, path) else {
                continue;
            };
            let provenance = banner_provenance(&disk);
            let digest_matches = old.records_file(path, &content_digest(path, &disk));
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
                let what = if self.settings.clean {
                    format!(
                        "{path}: {reason} since ai-rulez wrote it; kept, and now yours to delete"
                    )
                } else {
                    format!(
                        "{path}: no longer generated but {reason}; kept, and now yours to delete"
                    )
                };
                self.report.warnings.push(what);
                self.record(path, Status::Kept, Some(reason.to_owned()));
            }
        }
        for path in old.sections.keys() {
            if plan.outputs.contains_key(path) && !self.settings.clean {
                continue;
            }
            let Some((disk, _)) = read_output(dir, path)? else {
                continue;
            };
            // The section is judged with LF line ends; the text around it is kept as it is on
            // disk, so a CRLF file (or a lone CR) comes back byte for byte.
            let lf_view = crate::hash::lf_line_ends(&disk);
            let (Ok(original), Ok(text)) =
                (std::str::from_utf8(&disk), std::str::from_utf8(&lf_view))
            else {
                continue;
            };
            match find_section(text) {
                Ok(Some(section)) if section.unedited => {
                    let start = original_offset(original.as_bytes(), section.start);
                    let end = original_offset(original.as_bytes(), section.end);
                    // Generate added a line end before the section (and one more when the text
                    // had no final new line): CRLF in a CRLF file or after a lone CR, else LF.
                    // A CRLF found there now is one (git may have converted the LF since).
                    let drop_line_end = |text: &str| -> usize {
                        text.strip_suffix("\r\n")
                            .or_else(|| text.strip_suffix('\n'))
                            .map_or(text.len(), str::len)
                    };
                    let mut before = &original[..start];
                    let after = &original[end..];
                    if text[..section.start].ends_with("\n\n") {
                        before = &before[..drop_line_end(before)];
                    }
                    // The text had no final new line before the section was added after it.
                    if after.is_empty()
                        && old.sections_unterminated.contains(path)
                        && before.ends_with('\n')
                    {
                        before = &before[..drop_line_end(before)];
                    }
                    let new_text = format!("{before}{after}");
                    self.operations.push(Operation::Write {
                        path: path.clone(),
                        bytes: Cow::Owned(new_text.into_bytes()),
                        mode: current_mode(dir, path).unwrap_or(0o644),
                    });
                    self.record_section(
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
            let Some((disk, _)) = read_output(dir, path)? else {
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
            let merged = mcp_config::merge_document(shape, path, Some(&text), &removals, &[])
                .map_err(mcp_error(path))?;
            if let Some(new_text) = merged {
                self.operations.push(Operation::Write {
                    path: path.clone(),
                    bytes: Cow::Owned(new_text.into_bytes()),
                    mode: current_mode(dir, path).unwrap_or(0o644),
                });
                // The user's entries stay; the path line says so.
                self.record_section(path, Status::Orphan, None);
            } else {
                self.operations
                    .push(Operation::Delete { path: path.clone() });
                self.record(path, Status::Orphan, None);
            }
        }
        Ok(())
    }
}
