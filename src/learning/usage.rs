//! How often `get_rules` actually sent each rule, kept machine-local in
//! `.ai-rulez/local/usage.json` (the managed `.gitignore` block lists `.ai-rulez/local/`). A
//! rule counts once per MCP session: a repeat in the same session (after `refresh`) is not a
//! new use. `organize_rules` and `ai-rulez review` name the active rules not sent in
//! [`UNUSED_DAYS`] days. The file is JSON only ai-rulez writes:
//! `{"version": 1, "rules": {"<id>": {"count": 3, "last_sent": "2026-01-01"}}}`, ids sorted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::day;
use crate::content::Kind;
use crate::error::{Error, Result};
use crate::project::Project;

/// A rule not sent for this many days is reported as unused.
pub(crate) const UNUSED_DAYS: i64 = 90;

/// Largest usage file read, in bytes.
const MAX_USAGE_BYTES: u64 = 16 * 1024 * 1024;

/// Counts of one rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RuleUsage {
    /// How many sessions were sent the rule.
    pub count: u64,
    /// The last day it was sent, `YYYY-MM-DD`.
    pub last_sent: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct UsageFile {
    version: u32,
    rules: BTreeMap<String, RuleUsage>,
}

/// Whether `name` (a file directly in `.ai-rulez/local/`) is one of the bookkeeping files the
/// learning loop (or the writer's record of output stats) keeps there, or a temporary file of
/// such a write.
#[must_use]
pub(crate) fn is_bookkeeping_file(name: &str) -> bool {
    name == "usage.json"
        || name == "ledger.json"
        || name == "activity.jsonl"
        || name == crate::write::OUTPUT_STATS_FILE
        || name == crate::write::adoption::FILE_NAME
        || name == crate::run_memo::FILE_NAME
        || name == crate::content::PARSED_ITEMS_FILE
        || name == crate::retrieval::RELEVANCE_INDEX_FILE
        || name == crate::local_state::IGNORE_FILE
        || crate::confined_fs::temporary::is_temporary(name)
}

/// The project-relative path of the usage file.
#[must_use]
pub(crate) fn path(project: &Project) -> String {
    crate::local_state::path(project, "usage.json")
}

/// The usage of every rule that was ever sent, by id; empty when nothing was recorded or the
/// file is not one ai-rulez wrote.
#[must_use]
pub(crate) fn read(project: &Project) -> BTreeMap<String, RuleUsage> {
    read_file(project)
        .map(|file| file.rules)
        .unwrap_or_default()
}

fn read_file(project: &Project) -> Result<UsageFile> {
    let path = path(project);
    match project.dir.read(&path, MAX_USAGE_BYTES)? {
        None => Ok(UsageFile {
            version: 1,
            ..UsageFile::default()
        }),
        Some((bytes, _)) => serde_json::from_slice(&bytes).map_err(|error| {
            Error::refused(
                &path,
                format!("is not a usage file ai-rulez wrote ({error}); move it away"),
            )
        }),
    }
}

/// Adds one use today to each of `ids` (rules a `get_rules` call sent for the first time in
/// its session). Takes the writer lock.
///
/// Errors: [`Error::Busy`], a usage file ai-rulez did not write (never overwritten), I/O.
pub(crate) fn record_sent(project: &Project, ids: &[String]) -> Result<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let _lock = project.dir.lock()?;
    let mut file = read_file(project)?;
    let today = day::format(day::today());
    for id in ids {
        let entry = file.rules.entry(id.clone()).or_default();
        entry.count += 1;
        entry.last_sent.clone_from(&today);
    }
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    crate::local_state::keep_out_of_git(project)?;
    project.dir.write(&path(project), text.as_bytes(), 0o644)
}

/// Ids of the active rules not sent in the last [`UNUSED_DAYS`] days (never sent, or last sent
/// earlier), sorted. A rule created (`created`) less than that many days ago is not reported:
/// it has not had the time.
#[must_use]
pub(crate) fn unused_rules(project: &Project) -> Vec<String> {
    let usage = read(project);
    let today = day::today();
    let recent = |date: &str| day::parse(date).is_some_and(|then| today - then <= UNUSED_DAYS);
    let mut ids: Vec<String> = project
        .tree
        .items
        .iter()
        .filter(|item| item.kind == Kind::Rule && item.is_active())
        .filter(|item| !item.created.as_deref().is_some_and(recent))
        .filter(|item| {
            !usage
                .get(&item.id)
                .is_some_and(|used| recent(&used.last_sent))
        })
        .map(|item| item.id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}
