//! The report for people (the CLI's text output and the MCP reply's text block): the summary,
//! then each finding with its counts and rule, then each toolchain file.

use super::{Aspect, ConventionsReport};

impl Aspect {
    /// The aspect in words ("file naming").
    #[must_use]
    pub(crate) fn label(self) -> &'static str {
        match self {
            Self::Indentation => "indentation",
            Self::Quotes => "quotes",
            Self::Semicolons => "semicolons",
            Self::FileNaming => "file naming",
            Self::FunctionNaming => "function naming",
            Self::TypeNaming => "type naming",
            Self::TestLayout => "test layout",
            Self::ImportStyle => "import style",
            Self::ErrorHandling => "error handling",
        }
    }
}

/// The report as lines: the message, then per finding
/// `Language aspect: option (P% of T observations in F files: option N, …; e.g. paths)` and its
/// rule, then per toolchain file its paths and rule.
#[must_use]
pub(crate) fn report_text(report: &ConventionsReport) -> String {
    let mut text = report.message.clone();
    for finding in &report.findings {
        let total: u64 = finding.counts.values().sum();
        let counts: Vec<String> = finding
            .counts
            .iter()
            .map(|(option, count)| format!("{option} {count}"))
            .collect();
        text.push_str(&format!(
            "\n{} {}: {} ({}% of {total} observations in {} files: {}; e.g. {})\n  rule: {}",
            finding.language.display_name(),
            finding.aspect.label(),
            finding.convention,
            finding.percent,
            finding.files,
            counts.join(", "),
            finding.examples.join(", "),
            finding.rule
        ));
    }
    for file in &report.toolchain {
        text.push_str(&format!(
            "\n{} toolchain: {} ({})\n  rule: {}",
            file.language.display_name(),
            file.file,
            file.paths.join(", "),
            file.rule
        ));
    }
    text
}
