//! Bookkeeping: the manifest of what ai-rulez wrote and the managed `.gitignore` block, both
//! brought up to date at the end of every analysis.

use std::borrow::Cow;

use crate::error::Result;
use crate::gitignore;
use crate::manifest::Manifest;
use crate::plan::Plan;

use super::disk::{current_mode, journal_path, leftover_temporaries, read_output};
use super::{Operation, State, Status};

impl State<'_> {
    pub(super) fn manifest_and_gitignore(&mut self, old: &Manifest) -> Result<()> {
        let dir = self.settings.dir;
        let manifest_path = self.settings.manifest_path.clone();
        let current = read_output(dir, &manifest_path)?.map(|(bytes, _)| bytes);
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
                Some(bytes) if *crate::hash::lf_line_ends(bytes) == *text.as_bytes() => {
                    Status::Unchanged
                }
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
            self.ignore_entries
                .push(format!("/{}", journal_path(&manifest_path)));
        }
        // Compared with LF line ends, so a CRLF checkout needs no rewrite; a file whose every
        // line ends with CRLF is written back with CRLF, so the user's lines stay as they are.
        let on_disk = read_output(dir, ".gitignore")?.map(|(bytes, _)| bytes);
        let crlf = on_disk.as_deref().is_some_and(ends_every_line_with_crlf);
        let current = on_disk.map(|bytes| crate::hash::lf_line_ends(&bytes).into_owned());
        let current_text = current
            .as_deref()
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned());
        let entries = (self.settings.gitignore && !self.settings.clean)
            .then_some(self.ignore_entries.as_slice());
        let new_text = gitignore::update(current_text.as_deref(), entries)?;
        let written = |text: String| {
            if crlf {
                text.replace('\n', "\r\n").into_bytes()
            } else {
                text.into_bytes()
            }
        };
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
                    bytes: Cow::Owned(written(text)),
                    mode: current_mode(dir, ".gitignore").unwrap_or(0o644),
                });
                // Only the managed block changes; the user's lines stay, which the path line
                // says, so `removed: .gitignore` is not read as the file being deleted.
                self.record_section(
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
}

/// Whether `bytes` holds a line end and every one is CRLF (a Windows checkout); a file with
/// any bare LF or lone CR is not, and is written back with LF.
fn ends_every_line_with_crlf(bytes: &[u8]) -> bool {
    let mut any = false;
    for (index, byte) in bytes.iter().enumerate() {
        match byte {
            b'\n' if index == 0 || bytes[index - 1] != b'\r' => return false,
            b'\n' => any = true,
            b'\r' if bytes.get(index + 1) != Some(&b'\n') => return false,
            _ => {}
        }
    }
    any
}

impl State<'_> {
    /// Temporary files and the journal an interrupted run left behind: reported by `--check`
    /// (`leftover:`) and deleted by a write. Only an interrupted run (one that left its journal)
    /// can have left temporary files next to outputs, so those are looked for only then; the
    /// bookkeeping files' own temporaries are always looked for (a run may die while writing
    /// the journal itself).
    pub(super) fn leftovers(
        &mut self,
        plan: &Plan,
        old: &Manifest,
        interrupted: bool,
    ) -> Result<()> {
        let manifest_path = self.settings.manifest_path.clone();
        let journal = journal_path(&manifest_path);
        let mut candidates: Vec<&str> =
            vec![manifest_path.as_str(), journal.as_str(), ".gitignore"];
        if interrupted {
            candidates.extend(old.files.keys().map(String::as_str));
            candidates.extend(old.sections.keys().map(String::as_str));
            candidates.extend(old.merged.keys().map(String::as_str));
            candidates.extend(plan.outputs.keys().map(String::as_str));
        }
        let found = leftover_temporaries(self.settings.dir, candidates.into_iter())?;
        for path in found {
            self.operations
                .push(Operation::Delete { path: path.clone() });
            self.record(
                &path,
                Status::Leftover,
                Some("a temporary file of an interrupted run".to_owned()),
            );
        }
        if interrupted {
            self.record(
                &journal,
                Status::Leftover,
                Some(
                    "the journal of an interrupted run; the next generate finishes its work"
                        .to_owned(),
                ),
            );
        }
        Ok(())
    }
}
