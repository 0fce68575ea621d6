//! The one screening function for untrusted text: [`screen`]. `scan` runs it over every source
//! file; MCP authoring tools refuse a write when it returns an error finding; learned rules pass
//! it before they are stored. Every threshold lives in [`limits`].
//!
//! Inline `ai-rulez-ignore` comments are deliberately not honoured here: text arriving through
//! an MCP write or a learned rule must not be able to silence its own screening. `scan` applies
//! suppression afterwards, for trusted repository files only.

mod detectors;
mod hidden;
mod judges;
mod packages;

use super::{Finding, Severity};
use crate::content::Kind;
use crate::mcp_config::McpServer;

use detectors::{DETECTORS, Detectors, SECRET_DETECTORS};
use hidden::hidden_characters;
use packages::unpinned_packages;

/// Every size and length threshold of the screening, in one place.
pub(crate) mod limits {
    /// Shortest run of base64 characters reported as an encoded blob (AR009).
    pub(crate) const BLOB_MIN_CHARS: usize = 200;
    /// Largest rule, context, agent, command, SKILL.md or learned rule accepted (AR900).
    pub(crate) const ITEM_MAX_BYTES: usize = 256 * 1024;
    /// Largest skill resource file that is scanned; larger ones are reported as unscannable.
    pub(crate) const SKILL_FILE_MAX_BYTES: usize = 512 * 1024;
    /// Largest instruction file screened whole (1 MiB): the largest the context index reads
    /// ([`crate::instruction_files::MAX_FILE_BYTES`]), so every file it indexes can be served.
    pub(crate) const INSTRUCTION_FILE_MAX_BYTES: usize = 1024 * 1024;
    /// Largest MCP server entry (rendered by [`super::mcp_server_text`]).
    pub(crate) const MCP_SERVER_MAX_BYTES: usize = 16 * 1024;
    /// Hidden characters listed by name in one AR002 message; the rest are counted.
    pub(crate) const HIDDEN_LISTED: usize = 5;
    /// Characters of a secret shown before the mask.
    pub(crate) const SECRET_SHOWN_CHARS: usize = 4;
}

/// What the screened text is; selects the size limit and the kind-specific detectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ScreenKind {
    /// A rule file (frontmatter and body).
    Rule,
    /// A context file.
    Context,
    /// A SKILL.md.
    Skill,
    /// A subagent file.
    Agent,
    /// A slash command file.
    Command,
    /// A file shipped with a skill (`references/`, `scripts/`, `assets/`).
    SkillFile,
    /// One MCP server entry, as rendered by [`mcp_server_text`].
    McpServer,
    /// An instruction file the repository already has (a nested `AGENTS.md`, a `.cursor/rules`
    /// file), served by `load_context`: screened up to the size the index reads.
    InstructionFile,
}

impl ScreenKind {
    /// The screening kind of a content item kind.
    #[must_use]
    pub(crate) fn of(kind: Kind) -> Self {
        match kind {
            Kind::Rule => Self::Rule,
            Kind::Context => Self::Context,
            Kind::Skill => Self::Skill,
            Kind::Agent => Self::Agent,
            Kind::Command => Self::Command,
        }
    }

    /// Largest text accepted for this kind, in bytes.
    #[must_use]
    pub(crate) fn max_bytes(self) -> usize {
        match self {
            Self::SkillFile => limits::SKILL_FILE_MAX_BYTES,
            Self::McpServer => limits::MCP_SERVER_MAX_BYTES,
            Self::InstructionFile => limits::INSTRUCTION_FILE_MAX_BYTES,
            _ => limits::ITEM_MAX_BYTES,
        }
    }
}

/// Warning-level codes that still refuse untrusted text: an agent must not be able to save an
/// instruction-like HTML comment, a prompt-injection phrase or a fake role tag as a rule.
const UNTRUSTED_REFUSED_CODES: [&str; 3] = ["AR003", "AR004", "AR018"];

/// Why untrusted text (an MCP write, a learned rule) must not be saved: every error finding of
/// [`screen`], instruction-like HTML comments, prompt-injection phrases and fake role tags (AR003,
/// AR004, AR018), and any HTML comment at all, since a comment is read by
/// assistants but hidden from a reviewer of the rendered Markdown. Empty when the text may be
/// saved. Each reason names the code and the line.
#[must_use]
pub(crate) fn untrusted_refusals(text: &str, kind: ScreenKind) -> Vec<String> {
    let mut reasons: Vec<String> = screen(text, kind)
        .into_iter()
        .filter(|finding| {
            finding.severity == Severity::Error || UNTRUSTED_REFUSED_CODES.contains(&finding.code)
        })
        .map(|finding| match finding.line {
            Some(line) => format!("{} on line {line}: {}", finding.code, finding.message),
            None => format!("{}: {}", finding.code, finding.message),
        })
        .collect();
    let has_comment_reason = reasons.iter().any(|reason| reason.starts_with("AR003"));
    if !has_comment_reason && let Some(offset) = text.find("<!--") {
        let line = text[..offset].matches('\n').count() + 1;
        reasons.push(format!(
            "AR003 on line {line}: an HTML comment; assistants read it but reviewers of the rendered file do not see it, so write it as visible text"
        ));
    }
    reasons
}

/// Screens `text` of the given kind and returns every security finding, with 1-based lines
/// relative to `text` and an empty file name (callers move them with [`Finding::relocate`]).
///
/// Inputs: any text (it is never executed or fetched). Output: findings sorted by line, code.
/// Never fails; an oversized text gets an AR900 error and is still screened.
#[must_use]
pub(crate) fn screen(text: &str, kind: ScreenKind) -> Vec<Finding> {
    let lines = LineIndex::new(text);
    let mut findings = Vec::new();
    if text.len() > kind.max_bytes() {
        findings.push(Finding::new(
            "AR900",
            "",
            Some(1),
            lines.text(1),
            format!(
                "{} bytes, over the {}-byte limit for this kind of text; split it",
                text.len(),
                kind.max_bytes()
            ),
        ));
    }
    hidden_characters(text, &lines, &mut findings);
    run_detectors(&DETECTORS, text, &lines, kind, &mut findings);
    if kind == ScreenKind::McpServer {
        unpinned_packages(text, &lines, &mut findings);
    }
    sort_findings(&mut findings);
    findings
}

/// Compiles the whole detector table now; [`screen`] otherwise compiles it on its first call
/// (several ms). The MCP server does it while idle, so that a first `find_context`, which
/// screens every instruction file it indexes, does not pay for it when the skill screening was
/// remembered and nothing else compiled the table.
pub(crate) fn compile_detectors() {
    std::sync::LazyLock::force(&DETECTORS);
}

/// The literal secrets (AR001) of [`screen`] alone, found by the same rows of the same table
/// and judged the same way, without compiling the rest of the table: what `generate`,
/// `lock` and `lock --check` refuse on every run. Output: as [`screen`].
#[must_use]
pub(crate) fn screen_secrets(text: &str, kind: ScreenKind) -> Vec<Finding> {
    let lines = LineIndex::new(text);
    let mut findings = Vec::new();
    run_detectors(&SECRET_DETECTORS, text, &lines, kind, &mut findings);
    sort_findings(&mut findings);
    findings
}

/// Whether `text` holds a hidden character AR002 reports (zero-width, bidirectional controls,
/// tag characters, ...): for names (paths, folders) printed to a model, where a finding has no
/// line to point at.
#[must_use]
pub(crate) fn has_hidden_characters(text: &str) -> bool {
    let lines = LineIndex::new(text);
    let mut findings = Vec::new();
    hidden_characters(text, &lines, &mut findings);
    !findings.is_empty()
}

/// `text` (a path or name) with its control characters, line and paragraph separators and
/// hidden characters (as AR002 judges them) escaped as `\n` or `\u{200b}`, so a reply or a
/// terminal line shows what the name holds. Other text, emoji sequences included, is kept.
#[must_use]
pub(crate) fn escape_unreadable(text: &str) -> String {
    hidden::escape_unreadable(text)
}

/// Whether `text` (a path or name) holds a control character or a line or paragraph separator
/// (U+2028, U+2029), any of which a reader may take as the end of a line.
#[must_use]
pub(crate) fn breaks_lines(text: &str) -> bool {
    text.chars().any(hidden::breaks_lines)
}

/// Sorts by line, code and message and keeps one finding per line and code.
fn sort_findings(findings: &mut Vec<Finding>) {
    findings.sort_by(|left, right| {
        (left.line, left.code, &left.message).cmp(&(right.line, right.code, &right.message))
    });
    findings.dedup_by(|left, right| left.line == right.line && left.code == right.code);
}

/// Runs every pattern of `detectors` that applies to `kind` over `text`, appending what its
/// judge confirms.
fn run_detectors(
    detectors: &Detectors,
    text: &str,
    lines: &LineIndex<'_>,
    kind: ScreenKind,
    findings: &mut Vec<Finding>,
) {
    let matched = detectors.set.matches(text);
    for index in &matched {
        let pattern = &detectors.patterns[index];
        if pattern.mcp_only && kind != ScreenKind::McpServer {
            continue;
        }
        for captures in pattern.regex().captures_iter(text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let group = captures.get(1).unwrap_or(whole);
            let line = lines.line_of(whole.start());
            let line_text = lines.text(line);
            let context = Context {
                text,
                lines,
                line,
                whole: whole.as_str(),
                start: whole.start(),
                end: whole.end(),
                group: group.as_str(),
            };
            if let Some((message, severity)) = (pattern.judge)(&context, pattern.what) {
                let finding = Finding::new(pattern.code, "", Some(line), line_text, message);
                findings.push(match severity {
                    Some(severity) => finding.with_severity(severity),
                    None => finding,
                });
            }
        }
    }
}

/// Renders one MCP server entry as the text [`screen`] reads for [`ScreenKind::McpServer`]: the
/// command line on one line, then the URL, environment and headers, one per line. `scan` and the
/// MCP tools use this same rendering, so both judge an entry identically.
#[must_use]
pub(crate) fn mcp_server_text(server: &McpServer) -> String {
    let mut text = format!("name: {}\n", server.name);
    if let Some(command) = &server.command {
        text.push_str("command: ");
        text.push_str(command);
        for argument in &server.args {
            text.push(' ');
            text.push_str(argument);
        }
        text.push('\n');
    }
    if let Some(url) = &server.url {
        text.push_str("url: ");
        text.push_str(url);
        text.push('\n');
    }
    for (name, value) in &server.env {
        text.push_str(&format!("env: {name}=\"{value}\"\n"));
    }
    for (name, value) in &server.headers {
        text.push_str(&format!("header: {name}: \"{value}\"\n"));
    }
    text
}

/// Byte offsets of line starts, for turning match offsets into 1-based lines.
struct LineIndex<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, byte)| *byte == b'\n')
                .map(|(index, _)| index + 1),
        );
        Self { text, starts }
    }

    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|start| *start <= offset)
    }

    /// Text of 1-based `line`, without its line end; empty when out of range.
    fn text(&self, line: usize) -> &'a str {
        let Some(start) = line.checked_sub(1).and_then(|index| self.starts.get(index)) else {
            return "";
        };
        let end = self
            .starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        self.text
            .get(*start..end.max(*start))
            .unwrap_or_default()
            .trim_end_matches('\r')
    }
}

/// What a pattern's judge sees about one match.
struct Context<'a> {
    text: &'a str,
    lines: &'a LineIndex<'a>,
    line: usize,
    whole: &'a str,
    start: usize,
    end: usize,
    group: &'a str,
}

impl Context<'_> {
    /// The match's line up to the match, plus the line above (where "Never run:" often sits).
    fn before(&self) -> String {
        let line_start = self.lines.starts.get(self.line - 1).copied().unwrap_or(0);
        let mut window = String::new();
        if self.line > 1 {
            window.push_str(self.lines.text(self.line - 1));
            window.push('\n');
        }
        window.push_str(self.text.get(line_start..self.start).unwrap_or_default());
        window.to_ascii_lowercase()
    }

    fn line_text(&self) -> &str {
        self.lines.text(self.line)
    }

    /// The rest of the whitespace-delimited token after the match.
    fn token_after(&self) -> &str {
        let rest = self.text.get(self.end..).unwrap_or_default();
        let stop = rest
            .find(|character: char| character.is_whitespace() || "\"'`)]".contains(character))
            .unwrap_or(rest.len());
        &rest[..stop]
    }
}

#[cfg(test)]
mod tests;
