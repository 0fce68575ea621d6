//! From per-file observations to findings: the counts of each option per language and aspect,
//! kept only when one option holds the required share over enough files.

use std::collections::{BTreeMap, BTreeSet};

use super::language::{Language, TOOLCHAIN_FILES};
use super::rules::{rule_text, toolchain_rule};
use super::walk::ScannedFile;
use super::{Aspect, Finding, ToolchainFinding};

/// The option name of absolute imports of the project's own Python modules.
pub(super) const ABSOLUTE_IMPORTS: &str = "absolute imports";

/// Counts of one option of one aspect: observations, files, first example paths.
#[derive(Debug, Default)]
struct OptionTally {
    observations: u64,
    examples: Vec<String>,
}

/// Counts of one aspect of one language.
#[derive(Debug, Default)]
struct AspectTally {
    options: BTreeMap<&'static str, OptionTally>,
    files: u64,
}

/// The lopsided conventions of `files` (sorted by path), ordered by language, then aspect.
#[must_use]
pub(super) fn findings(files: &[ScannedFile], min_ratio: f64, min_files: usize) -> Vec<Finding> {
    let local_python_modules = local_python_modules(files);
    let mut tallies: BTreeMap<(Language, Aspect), AspectTally> = BTreeMap::new();
    for file in files {
        let mut counts = file.observations.counts.clone();
        let absolute = file
            .observations
            .python_absolute_imports
            .iter()
            .filter(|module| {
                let first = module.split('.').next().unwrap_or(module);
                local_python_modules.contains(first)
            })
            .count();
        if absolute > 0 {
            counts.insert(
                (Aspect::ImportStyle, ABSOLUTE_IMPORTS),
                u32::try_from(absolute).unwrap_or(u32::MAX),
            );
        }
        let mut aspects_seen = BTreeSet::new();
        for ((aspect, option), count) in counts {
            let tally = tallies.entry((file.language, aspect)).or_default();
            if aspects_seen.insert(aspect) {
                tally.files += 1;
            }
            let option = tally.options.entry(option).or_default();
            option.observations += u64::from(count);
            if option.examples.len() < 3 {
                option.examples.push(file.relative.clone());
            }
        }
    }
    let mut findings = Vec::new();
    for ((language, aspect), tally) in tallies {
        let total: u64 = tally
            .options
            .values()
            .map(|option| option.observations)
            .sum();
        let Some((winner, winning)) = tally
            .options
            .iter()
            .max_by_key(|(_, option)| option.observations)
        else {
            continue;
        };
        #[allow(clippy::cast_precision_loss)]
        let lopsided = winning.observations as f64 >= min_ratio * total as f64;
        if !lopsided || tally.files < min_files as u64 {
            continue;
        }
        findings.push(Finding {
            language,
            aspect,
            convention: (*winner).to_owned(),
            counts: tally
                .options
                .iter()
                .map(|(option, counts)| ((*option).to_owned(), counts.observations))
                .collect(),
            percent: winning.observations * 100 / total,
            files: tally.files,
            examples: winning.examples.clone(),
            rule: rule_text(language, aspect, winner),
        });
    }
    findings
}

/// Names a Python import may use for a module of the scanned tree: every folder on the way to a
/// Python file and every Python file's stem.
fn local_python_modules(files: &[ScannedFile]) -> BTreeSet<&str> {
    let mut names = BTreeSet::new();
    for file in files
        .iter()
        .filter(|file| file.language == Language::Python)
    {
        let mut parts: Vec<&str> = file.relative.split('/').collect();
        if let Some(name) = parts.pop() {
            names.insert(name.split('.').next().unwrap_or(name));
        }
        names.extend(parts);
    }
    names
}

/// The toolchain findings of the walk's toolchain files, in [`TOOLCHAIN_FILES`] order.
#[must_use]
pub(super) fn toolchain(found: &BTreeMap<&'static str, Vec<String>>) -> Vec<ToolchainFinding> {
    TOOLCHAIN_FILES
        .iter()
        .filter_map(|(name, language, implies)| {
            let paths = found.get(name)?;
            Some(ToolchainFinding {
                language: *language,
                file: (*name).to_owned(),
                paths: paths.clone(),
                rule: toolchain_rule(implies),
            })
        })
        .collect()
}
