//! The ledger of links the learning tools have seen (`.ai-rulez/local/ledger.json`,
//! machine-local): review comments an agent dismissed, and the refs of rules it proposed, so
//! neither is offered again, and the review comments `learn_from_reviews` already offered. The
//! file is JSON that only ai-rulez writes:
//! `{"version": 1, "dismissed": [...], "proposed": [...], "offered": [...]}`, each list sorted and
//! de-duplicated (`offered` is absent from ledgers written before it existed).

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
    /// Review comment links `learn_from_reviews` returned as candidates.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    offered: BTreeSet<String>,
}

/// The project-relative path of the ledger.
#[must_use]
pub(crate) fn path(project: &Project) -> String {
    crate::local_state::path(project, "ledger.json")
}

/// Every link the ledger holds (dismissed, proposed or offered), for skipping what was seen;
/// empty when there is no ledger yet.
///
/// Errors: [`Error::Refused`] when the file is not a ledger ai-rulez wrote; I/O.
pub(crate) fn seen_links(project: &Project) -> Result<BTreeSet<String>> {
    let ledger = load(project)?;
    let mut links = ledger.dismissed;
    links.extend(ledger.proposed);
    links.extend(ledger.offered);
    Ok(links)
}

/// Adds `offered` review comment links to the ledger (creating it). The caller holds the
/// writer lock.
///
/// Errors: as for [`remember`].
pub(crate) fn remember_offered(project: &Project, offered: &[String]) -> Result<()> {
    let mut ledger = load(project)?;
    ledger.offered.extend(trimmed(offered));
    store(project, &ledger)
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
    let mut ledger = load(project)?;
    let before = ledger.dismissed.len();
    ledger.dismissed.extend(trimmed(dismissed));
    ledger.proposed.extend(trimmed(proposed));
    store(project, &ledger)?;
    Ok(ledger.dismissed.len() - before)
}

/// The non-empty links of `links`, trimmed.
fn trimmed(links: &[String]) -> impl Iterator<Item = String> + '_ {
    links
        .iter()
        .map(|link| link.trim().to_owned())
        .filter(|link| !link.is_empty())
}

/// The ledger on disk, or an empty version-1 ledger when there is none.
fn load(project: &Project) -> Result<Ledger> {
    let path = path(project);
    match project.dir.read(&path, MAX_LEDGER_BYTES)? {
        None => Ok(Ledger {
            version: 1,
            ..Ledger::default()
        }),
        Some((bytes, _)) => serde_json::from_slice::<Ledger>(&bytes).map_err(|error| {
            Error::refused(
                &path,
                format!("is not a ledger ai-rulez wrote ({error}); move it away and retry"),
            )
        }),
    }
}

/// Writes `ledger` as pretty JSON with a final newline.
fn store(project: &Project, ledger: &Ledger) -> Result<()> {
    let mut text = serde_json::to_string_pretty(ledger).unwrap_or_default();
    text.push('\n');
    crate::local_state::keep_out_of_git(project)?;
    project.dir.write(&path(project), text.as_bytes(), 0o644)?;
    Ok(())
}
