//! Convention discovery: reads a project's code and reports the conventions it follows almost
//! everywhere (indentation, quotes, semicolons, naming of files, functions and types, where
//! tests live, import style, error handling, lockfiles and toolchain files), each with the
//! counts that show it and a rule sentence an agent may pass to `propose_rules`. Nothing is
//! saved. The MCP tool `discover_conventions` and `ai-rulez learn conventions` call
//! [`discover_conventions`].
//!
//! Parsing choice: code is read by a small lexer per language ([`lexer`]) that skips comments
//! and string and character literals, not by tree-sitter grammars, whose C parsers would
//! dominate the cold build. Its limits: declarations are found by keyword (`fn name`,
//! `def name`, `class Name`), so names made by macros or decorators are not seen; JavaScript
//! regular expression literals and JSX text are lexed as code, so a quote inside them can start
//! a string; a statement without `;` is recognised by a value at the end of a line followed by
//! a line starting a new statement, so object literals without trailing commas count as
//! statements; JSX cannot be told from code, so `.tsx` and `.jsx` files count for neither quotes
//! nor semicolons; Rust error idioms after the first `#[cfg(test)]` of a file are taken to be
//! test code and not counted.
//!
//! Aspects per language: indentation, file, function and type naming and test layout for all of
//! Rust, TypeScript, JavaScript, Python and Go; quotes for TypeScript, JavaScript and Python;
//! semicolons for TypeScript and JavaScript; import style for Rust (`crate::` or `super::`),
//! TypeScript and JavaScript (relative paths or aliases such as `@/`) and Python (relative, or
//! absolute imports of the project's own modules); error handling for Rust (`?`, `unwrap()`,
//! `expect(…)`) and Go (`if err != nil`, `panic(…)`). Conventions are reported only when lopsided, which keeps these rare
//! misreadings from deciding anything.

mod language;
mod lexer;
mod naming;
mod observe;
mod rules;
mod tally;
mod text;
mod walk;

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Error, Result};
pub(crate) use language::Language;
pub(crate) use text::report_text;

/// The default share of observations the winning option must hold.
pub(crate) const DEFAULT_MIN_RATIO: f64 = 0.9;
/// The default number of files that must show an aspect.
pub(crate) const DEFAULT_MIN_FILES: usize = 5;

/// What to scan and how lopsided a convention must be.
#[derive(Debug, Clone)]
pub(crate) struct ConventionsRequest {
    /// Folders or files relative to the project root; empty: the whole project.
    pub(crate) paths: Vec<String>,
    /// The share of observations (above 0.5, at most 1) the winning option must hold.
    pub(crate) min_ratio: f64,
    /// The number of files (at least 1) that must show the aspect.
    pub(crate) min_files: usize,
}

/// An aspect of code style a convention is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Aspect {
    /// Tabs or a number of spaces (one observation per file).
    Indentation,
    /// Single or double quotes (one per string literal that holds neither quote).
    Quotes,
    /// Statements ending with `;` or not (one per statement end).
    Semicolons,
    /// The style of file names (one per file).
    FileNaming,
    /// The style of function names (one per declaration).
    FunctionNaming,
    /// The style of type names (one per declaration).
    TypeNaming,
    /// Where test files live or how they are named (one per test file or inline module).
    TestLayout,
    /// Relative or absolute imports (one per import).
    ImportStyle,
    /// How errors are handled (one per use of each idiom).
    ErrorHandling,
}

/// One lopsided convention.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Finding {
    /// The language.
    pub(crate) language: Language,
    /// What it is about.
    pub(crate) aspect: Aspect,
    /// The winning option (`4 spaces`, `single quotes`, `snake_case`, …).
    pub(crate) convention: String,
    /// Observations of every option seen, by option name (sorted).
    pub(crate) counts: BTreeMap<String, u64>,
    /// The winner's share of all observations, in whole percent rounded down.
    pub(crate) percent: u64,
    /// How many files showed the aspect at all.
    pub(crate) files: u64,
    /// Up to three files (sorted by path) that follow the convention.
    pub(crate) examples: Vec<String>,
    /// A one-sentence rule stating the convention.
    pub(crate) rule: String,
}

/// A lockfile or toolchain file found in the scanned tree.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ToolchainFinding {
    /// The language it belongs to.
    pub(crate) language: Language,
    /// Its file name (`Cargo.lock`).
    pub(crate) file: String,
    /// Where it was found (project-relative, sorted).
    pub(crate) paths: Vec<String>,
    /// A one-sentence rule stating what it implies.
    pub(crate) rule: String,
}

/// The result of [`discover_conventions`].
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ConventionsReport {
    /// Source files observed.
    pub(crate) files_scanned: usize,
    /// Source files left out (generated, binary, not UTF-8, over 1 MiB, unreadable).
    pub(crate) files_skipped: usize,
    /// The thresholds used.
    pub(crate) min_ratio: f64,
    /// See [`ConventionsRequest::min_files`].
    pub(crate) min_files: usize,
    /// Lopsided conventions, by language then aspect then option.
    pub(crate) findings: Vec<Finding>,
    /// Lockfiles and toolchain files, in the order of [`language::TOOLCHAIN_FILES`].
    pub(crate) toolchain: Vec<ToolchainFinding>,
    /// One line saying what was found and what to do with it.
    pub(crate) message: String,
}

/// Scans the code under `root` (a project root, canonical) and reports its lopsided conventions.
///
/// Errors: [`Error::Usage`] for thresholds out of range or a path outside the project or
/// missing; [`Error::Refused`] for a path through a symlink; I/O errors opening the root.
pub(crate) fn discover_conventions(
    root: &Path,
    request: &ConventionsRequest,
) -> Result<ConventionsReport> {
    if !(request.min_ratio > 0.5 && request.min_ratio <= 1.0) {
        return Err(Error::Usage(format!(
            "min_ratio {} is out of range; pass a share above 0.5 and at most 1 (default {DEFAULT_MIN_RATIO})",
            request.min_ratio
        )));
    }
    if request.min_files == 0 {
        return Err(Error::Usage(format!(
            "min_files must be at least 1 (default {DEFAULT_MIN_FILES})"
        )));
    }
    let scan = walk::scan(root, &request.paths)?;
    let findings = tally::findings(&scan.files, request.min_ratio, request.min_files);
    let toolchain = tally::toolchain(&scan.toolchain);
    let message = if findings.is_empty() && toolchain.is_empty() {
        format!(
            "Scanned {} source files: no convention holds {}% of the observations over {} files.",
            scan.files.len(),
            percent_of(request.min_ratio),
            request.min_files
        )
    } else {
        format!(
            "Scanned {} source files: {} conventions and {} toolchain files. Nothing was saved; pass the rules you want to keep to propose_rules.",
            scan.files.len(),
            findings.len(),
            toolchain.len()
        )
    };
    Ok(ConventionsReport {
        files_scanned: scan.files.len(),
        files_skipped: scan.skipped,
        min_ratio: request.min_ratio,
        min_files: request.min_files,
        findings,
        toolchain,
        message,
    })
}

/// A share as whole percent, rounded to nearest (for messages).
fn percent_of(ratio: f64) -> u64 {
    // The ratio is validated to lie in (0.5, 1], so the product fits and is positive.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let percent = (ratio * 100.0).round() as u64;
    percent
}
