//! What a run adds to its report on request or under `--force`: the unified diff of every
//! change (`--diff`), and the `<path>.orig` copies `--force` makes of the files it replaces.

use super::{Error, Operation, Result, State, Status, disk};

impl State<'_> {
    /// Chooses where each file `--force` overwrites is saved: `<path>.orig`, or the first free
    /// `<path>.orig.N` (N = 1..=9) when earlier copies exist, so an earlier saved edit is never
    /// replaced; queues its no-clobber creation and names it in the change.
    ///
    /// Errors: [`Error::Refused`] when `.orig` and `.orig.1` ... `.orig.9` all exist (nothing is
    /// written then); I/O errors.
    pub(super) fn name_originals(&mut self) -> Result<()> {
        // A refusal names the copy `--force` would make; make that the name it will really use.
        for index in 0..self.report.changes.len() {
            let change = &self.report.changes[index];
            if !matches!(change.status, Status::Edited | Status::Blocked) {
                continue;
            }
            let default_name = format!("{}.orig first", change.path);
            if let Some(free) = self.free_original_name(&change.path.clone())?
                && let Some(detail) = &mut self.report.changes[index].detail
            {
                *detail = detail.replace(&default_name, &format!("{free} first"));
            }
        }
        for (path, bytes, mode) in std::mem::take(&mut self.originals) {
            let Some(saved_as) = self.free_original_name(&path)? else {
                return Err(Error::refused(
                    &path,
                    format!(
                        "--force saves the file it replaces, but {path}.orig and {path}.orig.1 to .orig.9 all exist; delete the ones you no longer need, then run again"
                    ),
                ));
            };
            if let Some(change) = self
                .report
                .changes
                .iter_mut()
                .find(|change| change.path == path)
            {
                change.saved_as = Some(saved_as.clone());
            }
            self.operations.push(Operation::SaveOriginal {
                path: saved_as,
                bytes,
                mode,
            });
        }
        Ok(())
    }

    /// The first of `<path>.orig`, `<path>.orig.1` ... `<path>.orig.9` where nothing exists.
    ///
    /// Errors: I/O errors (a symlink on the way is refused).
    fn free_original_name(&self, path: &str) -> Result<Option<String>> {
        let candidates = std::iter::once(format!("{path}.orig"))
            .chain((1..=9).map(|number| format!("{path}.orig.{number}")));
        for candidate in candidates {
            if self.settings.dir.info(&candidate)?.is_none() {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }

    /// Gives every change whose status `wanted` accepts and that alters a file its unified diff from the disk to what would be
    /// written. A settings document holding a resolved secret gets a sentence instead, so no
    /// secret value reaches the output; the manifest (digests only) gets none.
    pub(super) fn attach_diffs(&mut self, wanted: impl Fn(Status) -> bool) -> Result<()> {
        for index in 0..self.report.changes.len() {
            let change = &self.report.changes[index];
            if !wanted(change.status) {
                continue;
            }
            if !matches!(
                change.status,
                Status::Create | Status::Update | Status::Edited | Status::Blocked | Status::Orphan
            ) || change.path == self.settings.manifest_path
            {
                continue;
            }
            let path = change.path.clone();
            let diff = if self.secret_paths.contains(&path) {
                "(no diff: this file holds a value resolved from the environment)\n".to_owned()
            } else {
                let new = self.proposed_bytes(&path);
                let old = disk::read_output(self.settings.dir, &path)?.map(|(bytes, _)| bytes);
                match new {
                    Some(Proposed::File(new)) => {
                        crate::diff::unified(&path, old.as_deref(), Some(new))
                    }
                    Some(Proposed::NoFile) => crate::diff::unified(&path, old.as_deref(), None),
                    None => String::new(),
                }
            };
            self.report.changes[index].diff = Some(diff);
        }
        Ok(())
    }

    /// What a run would leave at `path`: the bytes of its pending write, no file for a pending
    /// delete, or the refused content of an edited or blocked path; `None` when nothing is known.
    fn proposed_bytes(&self, path: &str) -> Option<Proposed<'_>> {
        let pending = self
            .operations
            .iter()
            .rev()
            .find_map(|operation| match operation {
                Operation::Write {
                    path: written,
                    bytes,
                    ..
                } if written == path => Some(Proposed::File(bytes.as_ref())),
                Operation::Delete { path: deleted } if deleted == path => Some(Proposed::NoFile),
                _ => None,
            });
        pending.or_else(|| {
            self.refused_content
                .get(path)
                .map(|bytes| Proposed::File(bytes.as_ref()))
        })
    }
}

/// What a run would leave at one path, for its diff.
enum Proposed<'b> {
    /// These bytes.
    File(&'b [u8]),
    /// No file (a delete).
    NoFile,
}
