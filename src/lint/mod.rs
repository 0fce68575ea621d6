//! `validate` and `scan`: findings with stable codes, the one screening function for untrusted
//! text, and the report formats (text, JSON, SARIF, GitHub annotations).
//!
//! [`screen::screen`] is the single place that judges whether a piece of text is safe; `scan`
//! runs it over every source file, and MCP authoring tools and learned rules call it before they
//! write anything. [`validate`] checks structure and assistant behaviour. Both produce
//! [`Finding`]s whose codes come from the one table in [`codes`].

pub(crate) mod codes;
pub(crate) mod report;
pub(crate) mod scan;
pub(crate) mod screen;
pub(crate) mod validate;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;
use sha2::{Digest as _, Sha256};

/// How serious a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; never fails a run at the default threshold.
    Info,
    /// Probably wrong or risky.
    Warning,
    /// Wrong or dangerous; fails a run at the default threshold.
    Error,
}

impl Severity {
    /// Lower-case name (`error`, `warning`, `info`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One problem found in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable code, e.g. `AR001`.
    pub code: &'static str,
    /// Stable kebab-case name of the code, e.g. `secret-detected`.
    pub name: &'static str,
    /// Severity (the code's default unless a detector raised or lowered it).
    pub severity: Severity,
    /// Project-relative, `/`-separated path; empty for text screened without a file.
    pub file: String,
    /// 1-based line, when the finding has one.
    pub line: Option<usize>,
    /// What is wrong and what to do; secrets are masked.
    pub message: String,
    /// `ar1:` and 24 hex digits: a hash of code, file and the whitespace-normalised flagged line
    /// (no line number), so it survives lines moving.
    pub fingerprint: String,
    /// The whitespace-normalised flagged line, kept to recompute the fingerprint when the
    /// finding is moved to another file or line.
    #[serde(skip)]
    excerpt: String,
}

impl Finding {
    /// Builds a finding for `code` (which must be in [`codes::CODES`]; an unknown code gets the
    /// name `unknown` and error severity, and a unit test keeps every emitted code in the table).
    /// `line_text` is the text of the flagged line (used only for the fingerprint).
    #[must_use]
    pub fn new(
        code: &'static str,
        file: &str,
        line: Option<usize>,
        line_text: &str,
        message: impl Into<String>,
    ) -> Self {
        let (name, severity) = codes::lookup(code).map_or(("unknown", Severity::Error), |entry| {
            (entry.name, entry.severity)
        });
        let excerpt = normalise_whitespace(line_text);
        let fingerprint = fingerprint(code, file, &excerpt);
        Self {
            code,
            name,
            severity,
            file: file.to_owned(),
            line,
            message: message.into(),
            fingerprint,
            excerpt,
        }
    }

    /// The same finding with another severity.
    #[must_use]
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Moves a finding made on a piece of text into `file`, whose line `first_line` is the
    /// text's line 1, and recomputes the fingerprint.
    #[must_use]
    pub fn relocate(mut self, file: &str, first_line: usize) -> Self {
        file.clone_into(&mut self.file);
        self.line = self.line.map(|line| line + first_line.saturating_sub(1));
        self.fingerprint = fingerprint(self.code, file, &self.excerpt);
        self
    }

    /// `file:line: CODE message` (or `file: CODE message` without a line).
    #[must_use]
    pub fn text_line(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}: {} {}", self.file, self.code, self.message),
            None => format!("{}: {} {}", self.file, self.code, self.message),
        }
    }
}

/// Collapses every run of whitespace into one space and trims the ends, so re-indenting or
/// re-wrapping spaces does not change a fingerprint.
fn normalise_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn fingerprint(code: &str, file: &str, excerpt: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(code.as_bytes());
    hasher.update([0]);
    hasher.update(file.as_bytes());
    hasher.update([0]);
    hasher.update(excerpt.as_bytes());
    let digest = hasher.finalize();
    let mut out = String::with_capacity(28);
    out.push_str("ar1:");
    for byte in &digest[..12] {
        write!(out, "{byte:02x}").ok();
    }
    out
}

/// Counts of a report's findings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// All findings.
    pub total: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Info findings.
    pub infos: usize,
    /// Findings per code, sorted by code.
    pub by_code: BTreeMap<String, usize>,
}

/// The result of a `validate` or `scan` run: findings sorted by file, line and code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Findings, sorted.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Sorts findings by file, line, code and message, and drops exact repeats.
    pub fn sort(&mut self) {
        self.findings.sort_by(|left, right| {
            (&left.file, left.line, left.code, &left.message).cmp(&(
                &right.file,
                right.line,
                right.code,
                &right.message,
            ))
        });
        self.findings.dedup_by(|left, right| {
            left.file == right.file
                && left.line == right.line
                && left.code == right.code
                && left.message == right.message
        });
    }

    /// Counts by severity and code.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let mut summary = Summary {
            total: self.findings.len(),
            ..Summary::default()
        };
        for finding in &self.findings {
            match finding.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
            *summary.by_code.entry(finding.code.to_owned()).or_default() += 1;
        }
        summary
    }

    /// Whether any finding is at or above `threshold` (`None` never fails).
    #[must_use]
    pub fn fails(&self, threshold: Option<Severity>) -> bool {
        threshold.is_some_and(|threshold| {
            self.findings
                .iter()
                .any(|finding| finding.severity >= threshold)
        })
    }

    /// Drops findings whose code is listed in `[lint] ignore`, and findings suppressed by an
    /// inline `ai-rulez-ignore CODE` comment on their line or the line above. `text_of` returns
    /// the text of a project-relative file whose inline comments may be trusted (`None` for files
    /// that cannot silence themselves, such as included sources).
    pub fn suppress(
        &mut self,
        ignored_codes: &[String],
        text_of: &mut dyn FnMut(&str) -> Option<std::sync::Arc<str>>,
    ) {
        self.findings.retain(|finding| {
            if ignored_codes
                .iter()
                .any(|code| code.eq_ignore_ascii_case(finding.code))
            {
                return false;
            }
            let Some(line) = finding.line else {
                return true;
            };
            let Some(text) = text_of(&finding.file) else {
                return true;
            };
            !inline_suppressed(&text, line, finding.code)
        });
    }
}

/// Whether line `line` (1-based) of `text`, or the line above it, carries an
/// `ai-rulez-ignore` marker naming `code` (the Go tool's `ai-rulez-lint-ignore` is accepted too).
#[must_use]
pub(crate) fn inline_suppressed(text: &str, line: usize, code: &str) -> bool {
    let mut lines = text.lines().skip(line.saturating_sub(2));
    let above = if line >= 2 { lines.next() } else { None };
    let current = lines.next();
    [above, current]
        .into_iter()
        .flatten()
        .any(|candidate| marker_names(candidate, code))
}

fn marker_names(line: &str, code: &str) -> bool {
    for marker in ["ai-rulez-lint-ignore", "ai-rulez-ignore"] {
        let mut rest = line;
        while let Some(index) = rest.find(marker) {
            let after = &rest[index + marker.len()..];
            let names = after
                .trim_start_matches([':', ' ', '\t'])
                .split(|character: char| character.is_whitespace() || character == ',')
                .filter(|word| !word.is_empty())
                .take_while(|word| {
                    word.len() > 2
                        && word[..2].eq_ignore_ascii_case("AR")
                        && word
                            .chars()
                            .all(|character| character.is_ascii_alphanumeric())
                })
                .any(|word| word.eq_ignore_ascii_case(code));
            if names {
                return true;
            }
            rest = after;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprint_ignores_line_numbers_and_spacing() {
        let first = Finding::new("AR001", "a.md", Some(3), "  key =   x", "m");
        let moved = Finding::new("AR001", "a.md", Some(40), "key = x", "m");
        let other_file = Finding::new("AR001", "b.md", Some(3), "key = x", "m");
        assert_eq!(first.fingerprint, moved.fingerprint);
        assert_ne!(first.fingerprint, other_file.fingerprint);
        assert_eq!(first.fingerprint.len(), 28);
        assert!(first.fingerprint.starts_with("ar1:"));
        let relocated = Finding::new("AR001", "", Some(2), "key = x", "m").relocate("b.md", 5);
        assert_eq!(relocated.line, Some(6));
        assert_eq!(relocated.fingerprint, other_file.fingerprint);
    }

    #[test]
    fn inline_markers_cover_their_line_and_the_next() {
        let text = "one\n<!-- ai-rulez-ignore AR001, AR005 -->\nthree\nfour <!-- ai-rulez-ignore AR002 -->\n";
        assert!(inline_suppressed(text, 3, "AR001"));
        assert!(inline_suppressed(text, 3, "AR005"));
        assert!(inline_suppressed(text, 2, "AR001"));
        assert!(!inline_suppressed(text, 4, "AR001"));
        assert!(inline_suppressed(text, 4, "AR002"));
        assert!(!inline_suppressed(text, 1, "AR001"));
        assert!(!inline_suppressed(text, 3, "AR009"));
        assert!(inline_suppressed(
            "x # ai-rulez-lint-ignore AR012\n",
            1,
            "AR012"
        ));
    }

    #[test]
    fn threshold_and_summary() {
        let mut report = Report {
            findings: vec![
                Finding::new("AR009", "b.md", Some(1), "x", "blob"),
                Finding::new("AR001", "a.md", Some(2), "y", "key"),
            ],
        };
        report.sort();
        assert_eq!(report.findings[0].file, "a.md");
        let summary = report.summary();
        assert_eq!((summary.total, summary.errors, summary.warnings), (2, 1, 1));
        assert!(report.fails(Some(Severity::Error)));
        assert!(!report.fails(None));
        report.findings.remove(0);
        assert!(!report.fails(Some(Severity::Error)));
        assert!(report.fails(Some(Severity::Warning)));
    }
}
