//! Bookkeeping: the manifest of what ai-rulez wrote and the managed `.gitignore` block, both
//! brought up to date at the end of every analysis.

use std::borrow::Cow;

use crate::error::Result;
use crate::gitignore;
use crate::manifest::Manifest;

use super::disk::{current_mode, read_optional, refuse_symlinks};
use super::{Operation, State, Status};

impl State<'_> {
    pub(super) fn manifest_and_gitignore(&mut self, old: &Manifest) -> Result<()> {
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
}
