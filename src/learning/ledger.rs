//! The ledger of links the learning tools have seen (`.ai-rulez/local/ledger.json`,
//! machine-local): review comments an agent dismissed, and the refs of rules it proposed, so
//! neither is offered again. The file is JSON that only ai-rulez writes:
//! `{"version": 1, "dismissed": [...], "proposed": [...]}`, each list sorted and de-duplicated.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::project::Project;

/// Largest ledger read, in bytes.
const MAX_LEDGER_BYTES: u64 = 16 * 1024 * 1024;

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Ledger {
    version: u32,
    dismissed: BTreeSet<String>,
    proposed: BTreeSet<String>,
}

/// The project-relative path of the ledger.
#[must_use]
pub(crate) fn path(project: &Project) -> String {
    format!("{}/local/ledger.json", project.config_dir_relative)
}

/// Adds `dismissed` and `proposed` links to the ledger (creating it); returns how many dismissed
/// links were new. The caller holds the writer lock.
///
/// Errors: [`Error::Refused`] when the file is not a ledger ai-rulez wrote (it is never
/// overwritten then); I/O.
pub(crate) fn remember(
    project: &Project,
    dismissed: &[String],
    proposed: &[String],
) -> Result<usize> {
    let path = path(project);
    let mut ledger = match project.dir.read(&path, MAX_LEDGER_BYTES)? {
        None => Ledger {
            version: 1,
            ..Ledger::default()
        },
        Some((bytes, _)) => serde_json::from_slice::<Ledger>(&bytes).map_err(|error| {
            Error::refused(
                &path,
                format!("is not a ledger ai-rulez wrote ({error}); move it away and retry"),
            )
        })?,
    };
    let before = ledger.dismissed.len();
    ledger.dismissed.extend(
        dismissed
            .iter()
            .map(|link| link.trim().to_owned())
            .filter(|link| !link.is_empty()),
    );
    ledger.proposed.extend(
        proposed
            .iter()
            .map(|link| link.trim().to_owned())
            .filter(|link| !link.is_empty()),
    );
    let mut text = serde_json::to_string_pretty(&ledger).unwrap_or_default();
    text.push('\n');
    project.dir.write(&path, text.as_bytes(), 0o644)?;
    Ok(ledger.dismissed.len() - before)
}
