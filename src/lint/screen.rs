//! The one screening function for untrusted text: [`screen`]. `scan` runs it over every source
//! file; MCP authoring tools refuse a write when it returns an error finding; learned rules pass
//! it before they are stored. Every threshold lives in [`limits`].
//!
//! Inline `ai-rulez-ignore` comments are deliberately not honoured here: text arriving through
//! an MCP write or a learned rule must not be able to silence its own screening. `scan` applies
//! suppression afterwards, for trusted repository files only.

use std::sync::LazyLock;

use regex::{Regex, RegexSet};
use unicode_general_category::{GeneralCategory, get_general_category};

use super::{Finding, Severity};
use crate::content::Kind;
use crate::mcp_config::McpServer;

/// Every size and length threshold of the screening, in one place.
pub mod limits {
    /// Shortest run of base64 characters reported as an encoded blob (AR009).
    pub const BLOB_MIN_CHARS: usize = 200;
    /// Largest rule, context, agent, command, SKILL.md or learned rule accepted (AR900).
    pub const ITEM_MAX_BYTES: usize = 256 * 1024;
    /// Largest skill resource file that is scanned; larger ones are reported as unscannable.
    pub const SKILL_FILE_MAX_BYTES: usize = 512 * 1024;
    /// Largest MCP server entry (rendered by [`super::mcp_server_text`]).
    pub const MCP_SERVER_MAX_BYTES: usize = 16 * 1024;
    /// Hidden characters listed by name in one AR002 message; the rest are counted.
    pub const HIDDEN_LISTED: usize = 5;
    /// Characters of a secret shown before the mask.
    pub const SECRET_SHOWN_CHARS: usize = 4;
}

/// What the screened text is; selects the size limit and the kind-specific detectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenKind {
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
    /// A rule proposed from feedback (learned rules).
    Learned,
}

impl ScreenKind {
    /// The screening kind of a content item kind.
    #[must_use]
    pub fn of(kind: Kind) -> Self {
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
    pub fn max_bytes(self) -> usize {
        match self {
            Self::SkillFile => limits::SKILL_FILE_MAX_BYTES,
            Self::McpServer => limits::MCP_SERVER_MAX_BYTES,
            _ => limits::ITEM_MAX_BYTES,
        }
    }
}

/// Why untrusted text (an MCP write, a learned rule) must not be saved: every error finding of
/// [`screen`], and any HTML comment at all, since a comment is read by assistants but hidden
/// from a reviewer of the rendered Markdown. Empty when the text may be saved. Each reason
/// names the code and the line.
#[must_use]
pub fn untrusted_refusals(text: &str, kind: ScreenKind) -> Vec<String> {
    let mut reasons: Vec<String> = screen(text, kind)
        .into_iter()
        .filter(|finding| finding.severity == Severity::Error || finding.code == "AR003")
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
pub fn screen(text: &str, kind: ScreenKind) -> Vec<Finding> {
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
    let detectors = &*DETECTORS;
    let matched = detectors.set.matches(text);
    for index in &matched {
        let pattern = &detectors.patterns[index];
        if pattern.mcp_only && kind != ScreenKind::McpServer {
            continue;
        }
        for captures in pattern.regex.captures_iter(text) {
            let Some(whole) = captures.get(0) else {
                continue;
            };
            let group = captures.get(1).unwrap_or(whole);
            let line = lines.line_of(whole.start());
            let line_text = lines.text(line);
            let context = Context {
                text,
                lines: &lines,
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
    if kind == ScreenKind::McpServer {
        unpinned_packages(text, &lines, &mut findings);
    }
    findings.sort_by(|left, right| {
        (left.line, left.code, &left.message).cmp(&(right.line, right.code, &right.message))
    });
    findings.dedup_by(|left, right| left.line == right.line && left.code == right.code);
    findings
}

/// Renders one MCP server entry as the text [`screen`] reads for [`ScreenKind::McpServer`]: the
/// command line on one line, then the URL, environment and headers, one per line. `scan` and the
/// MCP tools use this same rendering, so both judge an entry identically.
#[must_use]
pub fn mcp_server_text(server: &McpServer) -> String {
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

/// A judge turns a match into `(message, severity override)` or drops it.
type Judge = fn(&Context<'_>, &str) -> Option<(String, Option<Severity>)>;

struct Pattern {
    code: &'static str,
    what: &'static str,
    regex: Regex,
    judge: Judge,
    mcp_only: bool,
}

struct Detectors {
    set: RegexSet,
    patterns: Vec<Pattern>,
}

/// Credential locations (AR006, AR014).
const CREDENTIAL_PATH: &str = r#"(?:(?:~|\$HOME|\$\{HOME\}|%USERPROFILE%|/root|/home/[\w.-]+)/\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\.aws/credentials\b|\.netrc\b|\.git-credentials\b|\.docker/config\.json\b|\.kube/config\b|~/\.npmrc\b|~/\.pypirc\b|\.gnupg\b|\.config/gh/hosts\.ya?ml\b|\.config/gcloud\b|~/\.azure\b|/etc/shadow\b|\.vault-token\b|/proc/self/environ\b|(?:^|[\s"'`=:(])\.env(?:\.local|\.production|\.prod)?(?:$|[\s"'`);|,]))"#;
/// Network commands (AR014).
const NETWORK: &str = r"\b(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|sftp|ftp|telnet|Invoke-WebRequest|Invoke-RestMethod|iwr|irm)\b";
/// Secret-looking environment variables (AR014).
const SECRET_VARIABLE: &str = r"\$\{?[A-Za-z_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Za-z_]*\}?";

static DETECTORS: LazyLock<Detectors> = LazyLock::new(|| {
    let specs: Vec<(&'static str, &'static str, String, Judge, bool)> = vec![
        // AR001 secrets: the first group (or the whole match) is the secret.
        ("AR001", "AWS access key id", r"\b((?:AKIA|ASIA)[0-9A-Z]{16})\b".into(), judge_secret, false),
        ("AR001", "GitHub token", r"\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255})\b".into(), judge_secret, false),
        ("AR001", "GitHub fine-grained token", r"\b(github_pat_[A-Za-z0-9_]{50,255})\b".into(), judge_secret, false),
        ("AR001", "Slack token", r"\b(xox[abposr]-[A-Za-z0-9-]{10,})".into(), judge_secret, false),
        ("AR001", "private key", r"(-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----)".into(), judge_private_key, false),
        ("AR001", "Anthropic API key", r"\b(sk-ant-[A-Za-z0-9_-]{32,})".into(), judge_secret, false),
        ("AR001", "OpenAI API key", r"\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,})".into(), judge_openai, false),
        ("AR001", "Google API key", r"\b(AIza[0-9A-Za-z_-]{35})".into(), judge_secret, false),
        ("AR001", "Stripe live key", r"\b((?:sk|rk)_live_[0-9A-Za-z]{24,})".into(), judge_secret, false),
        ("AR001", "JSON Web Token", r"\b(eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})".into(), judge_secret, false),
        ("AR001", "hard-coded password", r#"(?i)\b\w*(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token)["']?\s*[:=]\s*["']([^"'\s]{6,})["']"#.into(), judge_password, false),
        // AR003 instruction-like comments.
        ("AR003", "HTML comment", r"(?s)<!--(.*?)-->".into(), judge_comment, false),
        ("AR003", "comment link", r#"(?m)^\[//\]:\s*#\s*[("'](.*)[)"']\s*$"#.into(), judge_comment, false),
        // AR004 prompt injection.
        ("AR004", "instruction override", r"(?i)\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|of|these|those)\s+)*(?:previous|prior|above|earlier|preceding|former|system|original)\s+(?:instructions?|prompts?|rules?|directions?|guidelines?|messages?|context|commands?)\b".into(), judge_plain, false),
        ("AR004", "concealment from the user", r"(?i)\b(?:do\s+not|don't|never)\s+(?:tell|inform|alert|notify|warn)\s+the\s+user\b|\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:this|these|that|it)\s+to\s+the\s+user\b|\bwithout\s+(?:telling|informing|alerting|notifying)\s+the\s+user\b".into(), judge_plain, false),
        ("AR004", "system prompt extraction", r"(?i)\b(?:reveal|print|output|show|repeat|leak)\s+(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)\b|\bnew\s+system\s+prompt\b".into(), judge_plain, false),
        ("AR004", "jailbreak mode", r"(?i)\bDAN\s+mode\b|\byou\s+are\s+now\s+(?:in\s+)?(?:DAN|developer\s+mode|jailbroken|unrestricted|unfiltered)\b".into(), judge_plain, false),
        // AR005 risky execution.
        ("AR005", "download piped into a shell", r"(?i)\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\s+[^\s|][^\n|]*\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi)?sh\b|python[0-9.]*\s*(?:-\s|-$|$)|perl\b|ruby\b|iex\b|invoke-expression\b)".into(), judge_negatable, false),
        ("AR005", "shell running a download", r#"\b(?:(?:ba|z|k)?sh|source)\s+<\(\s*(?:curl|wget)\b|\b(?:ba|z|k)?sh\s+-c\s+["']?\$\(\s*(?:curl|wget)\b"#.into(), judge_negatable, false),
        ("AR005", "base64 decoded into a shell", r"\bbase64\s+(?:-d|--decode|-D)\b[^\n]*\|\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b".into(), judge_negatable, false),
        ("AR005", "dynamic eval of fetched or decoded text", r#"(?i)\beval\s*\(?\s*["']?(?:\$\(|`)\s*(?:curl|wget|base64|echo\s[^\n]*base64)\b|\beval\s*\(\s*(?:atob|base64_decode|Buffer\.from)\s*\(|\bexec\s*\(\s*(?:base64\.b64decode|__import__\(\s*["']base64)|\b(?:iex|invoke-expression)\s*\(?\s*\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)"#.into(), judge_negatable, false),
        // AR006 credential reads.
        ("AR006", "read of a credential location", format!(r"\b(?:cat|less|more|head|tail|cp|tar|zip|base64|xxd|strings|grep|readFileSync|readFile|read_to_string|Get-Content)\b[^\n|;]{{0,100}}?({CREDENTIAL_PATH})"), judge_credential_read, false),
        // AR009 encoded blobs.
        ("AR009", "encoded blob", format!(r"[A-Za-z0-9+/]{{{n},}}={{0,2}}|[A-Za-z0-9_-]{{{n},}}", n = limits::BLOB_MIN_CHARS), judge_blob, false),
        // AR014 exfiltration.
        ("AR014", "credential file sent over the network", format!(r"{NETWORK}[^\n]*?({CREDENTIAL_PATH})"), judge_exfil_path, false),
        ("AR014", "credential file piped to a network command", format!(r"({CREDENTIAL_PATH})[^\n]*?\|[^\n]*?{NETWORK}"), judge_exfil_path, false),
        ("AR014", "secret variable uploaded", format!(r#"{NETWORK}[^\n]*?(?:-d|--data(?:-binary|-raw|-urlencode)?|-F|--form|-T|--upload-file|--post-data|--body-data)[\s=]+["']?[^\s"']*{SECRET_VARIABLE}"#), judge_exfil, false),
        ("AR014", "environment sent over the network", format!(r"(?:\benv|\bprintenv|/proc/self/environ)\s*\|[^\n]*?{NETWORK}|{NETWORK}[^\n]*?\$\(\s*(?:env|printenv)\s*\)"), judge_exfil, false),
        ("AR014", "secret sent in a DNS lookup", format!(r"\b(?:dig|nslookup|host)\s[^\n]*?{SECRET_VARIABLE}"), judge_exfil, false),
        // AR018 fake role markers.
        ("AR018", "chat-format marker", r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[/?INST\]|<</?SYS>>|</?system(?:[-_](?:prompt|reminder|message|instructions))?>".into(), judge_plain, false),
        // AR022 destructive commands.
        ("AR022", "recursive delete of the root or home folder", r#"\brm\s+(?:-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[a-zA-Z]+\s+)*|-[a-zA-Z]+\s+-[a-zA-Z]*[rR][a-zA-Z]*\s+)(?:--no-preserve-root\s+)?["']?(?:/|/\*|~/?|~/\*|\$HOME/?|\$\{HOME\}/?)["']?(?:\s|$|[;&|`)])"#.into(), judge_negatable, false),
        ("AR022", "raw write to a disk", r"\bdd\s[^\n]*\bof=/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d|xvd[a-z])|\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d)".into(), judge_negatable, false),
        ("AR022", "force push to the main branch", r"\bgit\s+push\b[^\n]*(?:\s--force(?:-with-lease)?\b|\s-f\b)[^\n]*\s(?:origin\s+)?\+?(?:main|master)\b|\bgit\s+push\b[^\n]*\s\+?(?:main|master)\b[^\n]*(?:\s--force(?:-with-lease)?\b|\s-f\b)|\bgit\s+push\s+[^\n]*\s\+(?:main|master)\b".into(), judge_negatable, false),
        ("AR022", "database drop", r"(?i)\bDROP\s+(?:DATABASE|SCHEMA)\b".into(), judge_negatable, false),
        ("AR022", "fork bomb", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:".into(), judge_negatable, false),
        // AR024 plain-HTTP fetches.
        ("AR024", "plain-HTTP fetch", r#"(?i)(?:\b(?:curl|wget|invoke-webrequest|iwr|irm|git\s+clone|git\s+remote\s+add|pip3?\s+install|npm\s+(?:install|i)|yarn\s+add|go\s+get)\b|--index-url|--extra-index-url|--registry|\bfetch\(|\brequests\.(?:get|post|put)\(|\burlopen\(|\bhttp\.get\(|\baxios\.(?:get|post)\()[^\n]*?\bhttp://([^\s"'`<>)\]]+)"#.into(), judge_http, false),
        ("AR024", "plain-HTTP MCP server", r"(?m)^url:\s*http://(\S+)".into(), judge_http, true),
    ];
    let mut patterns = Vec::with_capacity(specs.len());
    for (code, what, source, judge, mcp_only) in specs {
        patterns.push(Pattern {
            code,
            what,
            regex: Regex::new(&source).expect("built-in screening pattern compiles"),
            judge,
            mcp_only,
        });
    }
    let set = RegexSet::new(patterns.iter().map(|pattern| pattern.regex.as_str()))
        .expect("built-in screening patterns compile as a set");
    Detectors { set, patterns }
});

#[expect(
    clippy::unnecessary_wraps,
    reason = "every judge has the `Judge` signature"
)]
fn judge_plain(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    Some((
        format!("{what}: `{}`", shorten(context.whole.trim(), 80)),
        None,
    ))
}

/// Lines forbidding an action ("never run ...") keep the finding visible at info level.
fn is_negated(context: &Context<'_>) -> bool {
    const WORDS: [&str; 17] = [
        "never",
        "don't",
        "do not",
        "dont",
        "avoid",
        "must not",
        "mustn't",
        "should not",
        "shouldn't",
        "forbid",
        "prohibit",
        "not allowed",
        "disallow",
        "refuse",
        "block",
        "dangerous",
        "❌",
    ];
    let before = context.before();
    WORDS.iter().any(|word| before.contains(word))
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "every judge has the `Judge` signature"
)]
fn judge_negatable(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let shown = shorten(context.whole.trim(), 80);
    if is_negated(context) {
        return Some((
            format!("{what}: `{shown}` (mentioned as forbidden; lowered to info)"),
            Some(Severity::Info),
        ));
    }
    Some((format!("{what}: `{shown}`"), None))
}

fn judge_credential_read(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    if benign_credential_mention(context) {
        return None;
    }
    let path = context
        .group
        .trim_matches(|character: char| !is_path_char(character));
    if is_negated(context) {
        return Some((
            format!("{what} `{path}` (mentioned as forbidden; lowered to info)"),
            Some(Severity::Info),
        ));
    }
    Some((
        format!("{what} `{path}`: the assistant would see the secrets it holds"),
        None,
    ))
}

fn is_path_char(character: char) -> bool {
    character.is_alphanumeric() || "~/._-$%{}".contains(character)
}

/// Public keys, `known_hosts`, example env files and `--exclude` arguments name credential
/// locations without reading secrets.
fn benign_credential_mention(context: &Context<'_>) -> bool {
    let after = context.token_after();
    let group = context.group;
    let public_key = |text: &str| {
        text.len() >= 4 && text.as_bytes()[text.len() - 4..].eq_ignore_ascii_case(b".pub")
    };
    if public_key(after)
        || public_key(group)
        || after.starts_with(".pub")
        || ["/known_hosts", "/config", "/authorized_keys"]
            .iter()
            .any(|name| after.starts_with(name))
    {
        return true;
    }
    let line = context.line_text();
    if group.contains(".env")
        && [
            ".env.example",
            ".env.sample",
            ".env.template",
            ".env.dist",
            ".env.defaults",
        ]
        .iter()
        .any(|example| line.contains(example))
    {
        return true;
    }
    let before_group = context
        .whole
        .rfind(group)
        .map_or("", |index| &context.whole[..index]);
    before_group.trim_end().ends_with("--exclude")
        || before_group.trim_end().ends_with("--exclude=")
        || before_group.ends_with("--exclude=")
}

fn judge_exfil_path(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    if benign_credential_mention(context) {
        return None;
    }
    judge_exfil(context, what)
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "every judge has the `Judge` signature"
)]
fn judge_exfil(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    Some((
        format!("{what}: `{}`", shorten(context.whole.trim(), 100)),
        None,
    ))
}

fn judge_blob(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let blob = context.whole;
    let upper = blob.bytes().any(|byte| byte.is_ascii_uppercase());
    let lower = blob.bytes().any(|byte| byte.is_ascii_lowercase());
    let digit = blob.bytes().any(|byte| byte.is_ascii_digit());
    let mut distinct = [false; 128];
    for byte in blob.bytes() {
        distinct[usize::from(byte & 0x7f)] = true;
    }
    let variety = distinct.iter().filter(|seen| **seen).count();
    (upper && lower && digit && variety >= 20).then(|| {
        (
            format!(
                "{what} of {} characters (`{}…`); encoded text cannot be reviewed by reading",
                blob.len(),
                shorten(blob, 16)
            ),
            None,
        )
    })
}

fn judge_http(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let host = context
        .group
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let host = host.rsplit('@').next().unwrap_or_default();
    let name = if host.starts_with('[') {
        host.split(']')
            .next()
            .map(|part| format!("{part}]"))
            .unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or_default().to_owned()
    };
    if is_local_host(&name) {
        return None;
    }
    Some((
        format!(
            "{what} from `http://{}`; use https://",
            shorten(context.group, 60)
        ),
        None,
    ))
}

fn is_local_host(host: &str) -> bool {
    if matches!(
        host,
        "localhost"
            | "0.0.0.0"
            | "[::1]"
            | "[::]"
            | "host.docker.internal"
            | "example.com"
            | "example.org"
            | "example.net"
    ) || [
        ".local",
        ".localhost",
        ".test",
        ".internal",
        ".example",
        ".invalid",
        ".example.com",
    ]
    .iter()
    .any(|suffix| host.ends_with(suffix))
        || host.starts_with("127.")
        || host.starts_with("10.")
        || host.starts_with("192.168.")
        || host.starts_with('$')
        || host.starts_with('<')
        || host.starts_with('{')
    {
        return true;
    }
    if let Some(rest) = host.strip_prefix("172.")
        && let Some(second) = rest
            .split('.')
            .next()
            .and_then(|part| part.parse::<u8>().ok())
    {
        return (16..=31).contains(&second);
    }
    false
}

fn judge_comment(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    static INSTRUCTION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)\b(?:ignore|disregard|forget|override|bypass)\b[^\n]{0,40}\b(?:instructions?|rules?|previous|above|guidelines?|prompts?|safety|restrictions?|user)\b|\b(?:you|assistant|agent|model|llm|claude|copilot|gemini|chatgpt|gpt|cursor)\s+(?:must|should|shall|will|need\s+to|have\s+to|are\s+to|are\s+required\s+to)\b|\b(?:do\s+not|don't|never)\s+(?:tell|mention|reveal|show|inform|disclose)\b|\b(?:secretly|silently|covertly|quietly)\b|\b(?:run|execute|exec)\s+(?:this|the\s+following|curl|wget|bash|sh|rm)\b|\b(?:curl|wget|send|upload|exfiltrate|post)\b[^\n]{0,80}(?:https?://|\$\{?[A-Z_]{3,})|\bsystem\s+prompt\b|\bnew\s+instructions?\b",
        )
        .expect("built-in comment pattern compiles")
    });
    let body = context.group.trim();
    let lowered = body.to_ascii_lowercase();
    let tool_marker = [
        "ai-rulez",
        "generated by",
        "prettier-ignore",
        "markdownlint",
        "toc",
        "omit in toc",
        "begin",
        "end ",
        "vale ",
        "cspell",
        "textlint",
        "lint-",
    ]
    .iter()
    .any(|marker| lowered.starts_with(marker));
    if tool_marker || !INSTRUCTION.is_match(body) {
        return None;
    }
    Some((
        format!(
            "{what} holding an instruction the reader never sees: `{}`",
            shorten(&body.split_whitespace().collect::<Vec<_>>().join(" "), 80)
        ),
        None,
    ))
}

fn judge_secret(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let secret = context.group;
    if looks_like_placeholder(secret) {
        return None;
    }
    Some((
        format!(
            "{what} `{}` in the text; remove it, rotate it, and read it from the environment",
            mask(secret)
        ),
        None,
    ))
}

fn judge_openai(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let secret = context.group;
    if secret.starts_with("sk-ant-") {
        return None;
    }
    // Real keys mix letters and digits; prose such as `sk-learn-style-names` does not.
    let body = secret.trim_start_matches("sk-");
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    let letters = body.bytes().filter(u8::is_ascii_alphabetic).count();
    if digits < 2 || letters < 8 || body.matches('-').count() > 3 {
        return None;
    }
    judge_secret(context, what)
}

fn judge_private_key(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    // A header followed by key material is a key; a header alone in prose or a regex is not.
    let after = context.text.get(context.end..).unwrap_or_default();
    let next_line = after.lines().nth(1).unwrap_or_default().trim();
    let material = next_line.len() >= 40
        && next_line
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"+/=".contains(&byte))
        || next_line.starts_with("Proc-Type:");
    material.then(|| {
        (
            format!(
                "{what} block (`{}`); remove it and rotate the key",
                context.group
            ),
            None,
        )
    })
}

fn judge_password(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    let value = context.group;
    let lowered = value.to_ascii_lowercase();
    let trivial = matches!(
        lowered.as_str(),
        "password"
            | "secret"
            | "changeme"
            | "change_me"
            | "admin"
            | "postgres"
            | "root"
            | "123456"
            | "hunter2"
            | "pass123"
    );
    if trivial
        || value.starts_with(['$', '%', '<', '{', '('])
        || lowered.contains("env")
        || looks_like_placeholder(value)
    {
        return None;
    }
    Some((
        format!(
            "{what} (`{}`); read it from the environment or a secret store",
            mask(value)
        ),
        None,
    ))
}

fn looks_like_placeholder(value: &str) -> bool {
    const MARKERS: [&str; 16] = [
        "example",
        "sample",
        "your",
        "xxxx",
        "placeholder",
        "dummy",
        "fake",
        "redacted",
        "changeme",
        "<",
        ">",
        "${",
        "{{",
        "***",
        "...",
        "…",
    ];
    let lowered = value.to_ascii_lowercase();
    if MARKERS.iter().any(|marker| lowered.contains(marker)) {
        return true;
    }
    let mut distinct: Vec<char> = value.chars().collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() < 6
}

/// Shows the first few characters of a secret and its length, never the rest.
fn mask(secret: &str) -> String {
    let count = secret.chars().count();
    if count <= 8 {
        return "****".to_owned();
    }
    let shown: String = secret.chars().take(limits::SECRET_SHOWN_CHARS).collect();
    format!("{shown}…({count} chars, masked)")
}

fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.replace('\n', " ");
    }
    let mut short: String = text.chars().take(limit).collect();
    short = short.replace('\n', " ");
    short.push('…');
    short
}

/// AR012 for MCP server entries: `npx`, `bunx`, `pnpm dlx`, `uvx`, `pipx run` and `docker run`
/// on a `command:` line without a pinned version.
fn unpinned_packages(text: &str, lines: &LineIndex<'_>, findings: &mut Vec<Finding>) {
    for (index, line) in text.lines().enumerate() {
        let Some(command) = line.strip_prefix("command: ") else {
            continue;
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        let program = first.rsplit('/').next().unwrap_or(first);
        let problem = match program {
            "npx" | "bunx" => unpinned_npm(&words[1..]),
            "pnpm" | "yarn" if words.get(1) == Some(&"dlx") => unpinned_npm(&words[2..]),
            "uvx" => unpinned_python(&words[1..], "uvx"),
            "pipx" if words.get(1) == Some(&"run") => unpinned_python(&words[2..], "pipx run"),
            "docker" | "podman" if words.get(1) == Some(&"run") => unpinned_image(&words[2..]),
            _ => None,
        };
        if let Some(message) = problem {
            findings.push(Finding::new(
                "AR012",
                "",
                Some(index + 1),
                lines.text(index + 1),
                message,
            ));
        }
    }
}

fn unpinned_npm(words: &[&str]) -> Option<String> {
    let mut iter = words.iter();
    let mut package = None;
    while let Some(word) = iter.next() {
        if let Some(value) = word.strip_prefix("--package=") {
            package = Some(value);
            break;
        }
        if *word == "-p" || *word == "--package" {
            package = iter.next().copied();
            break;
        }
        if !word.starts_with('-') {
            package = Some(word);
            break;
        }
    }
    let package = package?;
    let version = package
        .strip_prefix('@')
        .map_or(package, |rest| rest)
        .split_once('@')
        .map(|(_, version)| version);
    match version {
        Some(version) if !version.is_empty() && !matches!(version, "latest" | "next") => None,
        _ => Some(format!(
            "MCP package `{package}` runs without a pinned version; write `{}@<version>`",
            package
                .rsplit_once('@')
                .filter(|(name, _)| !name.is_empty())
                .map_or(package, |(name, _)| name)
        )),
    }
}

fn unpinned_python(words: &[&str], runner: &str) -> Option<String> {
    let mut iter = words.iter();
    let mut package = None;
    while let Some(word) = iter.next() {
        if let Some(value) = word.strip_prefix("--from=") {
            package = Some(value);
            break;
        }
        if *word == "--from" || *word == "--spec" {
            package = iter.next().copied();
            break;
        }
        if matches!(
            *word,
            "--python" | "--with" | "--index-url" | "--extra-index-url"
        ) {
            iter.next();
            continue;
        }
        if !word.starts_with('-') {
            package = Some(word);
            break;
        }
    }
    let package = package?;
    let pinned = package.contains("==")
        || package
            .split_once('@')
            .is_some_and(|(_, version)| !version.is_empty() && version != "latest");
    (!pinned).then(|| {
        format!("MCP package `{package}` runs with `{runner}` without a pinned version; write `{package}==<version>`")
    })
}

fn unpinned_image(words: &[&str]) -> Option<String> {
    const VALUE_FLAGS: [&str; 16] = [
        "-e",
        "--env",
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--name",
        "--network",
        "-w",
        "--workdir",
        "--env-file",
        "-u",
        "--user",
        "--entrypoint",
        "--mount",
        "--platform",
    ];
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if VALUE_FLAGS.contains(word) {
            iter.next();
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        let name_part = word.rsplit('/').next().unwrap_or(word);
        let pinned = word.contains("@sha256:")
            || name_part
                .split_once(':')
                .is_some_and(|(_, tag)| !tag.is_empty() && tag != "latest");
        return (!pinned).then(|| {
            format!("MCP container image `{word}` has no pinned tag or digest; write `{word}:<version>` or `@sha256:<digest>`")
        });
    }
    None
}

/// AR002: one finding per line listing the invisible characters found on it.
fn hidden_characters(text: &str, lines: &LineIndex<'_>, findings: &mut Vec<Finding>) {
    if text.is_ascii() {
        return;
    }
    for (index, line) in text.split('\n').enumerate() {
        if line.is_ascii() {
            continue;
        }
        let characters: Vec<char> = line.chars().collect();
        let mut hits: Vec<(usize, char)> = Vec::new();
        let mut in_flag_tags = false;
        for (column, &character) in characters.iter().enumerate() {
            let previous = column
                .checked_sub(1)
                .and_then(|at| characters.get(at))
                .copied();
            let next = characters.get(column + 1).copied();
            let at_text_start = index == 0 && column == 0;
            let code = u32::from(character);
            if (0xE0020..=0xE007F).contains(&code) {
                in_flag_tags = in_flag_tags || previous == Some('\u{1F3F4}');
                if !in_flag_tags {
                    hits.push((column + 1, character));
                }
                if code == 0xE007F {
                    in_flag_tags = false;
                }
                continue;
            }
            in_flag_tags = false;
            if is_hidden(character, previous, next, at_text_start) {
                hits.push((column + 1, character));
            }
        }
        if hits.is_empty() {
            continue;
        }
        let mut listed: Vec<String> = hits
            .iter()
            .take(limits::HIDDEN_LISTED)
            .map(|(column, character)| {
                format!(
                    "U+{:04X} {} at column {column}",
                    u32::from(*character),
                    char_name(*character)
                )
            })
            .collect();
        if hits.len() > limits::HIDDEN_LISTED {
            listed.push(format!("and {} more", hits.len() - limits::HIDDEN_LISTED));
        }
        findings.push(Finding::new(
            "AR002",
            "",
            Some(index + 1),
            lines.text(index + 1),
            format!(
                "{} hidden character{}: {}; delete {}",
                hits.len(),
                if hits.len() == 1 { "" } else { "s" },
                listed.join(", "),
                if hits.len() == 1 { "it" } else { "them" }
            ),
        ));
    }
}

fn is_hidden(
    character: char,
    previous: Option<char>,
    next: Option<char>,
    at_text_start: bool,
) -> bool {
    let code = u32::from(character);
    match code {
        0xFEFF => !at_text_start,
        0x200D => !(joins_emoji(previous, next) || joins_script(previous, next)),
        0x200C => !joins_script(previous, next),
        0xFE00..=0xFE0F => match previous {
            None => true,
            Some(before) => {
                before.is_ascii_alphabetic()
                    || before.is_whitespace()
                    || is_variation_selector(before)
            }
        },
        0xE0100..=0xE01EF => !previous.is_some_and(is_cjk),
        0x115F | 0x1160 | 0x3164 | 0xFFA0 | 0x034F | 0x2800 | 0x00AD => true,
        // Prepended concatenation marks are visible signs in Arabic, Syriac and Kaithi text.
        0x0600..=0x0605 | 0x06DD | 0x070F | 0x0890 | 0x0891 | 0x08E2 | 0x110BD | 0x110CD => false,
        _ => get_general_category(character) == GeneralCategory::Format,
    }
}

fn is_variation_selector(character: char) -> bool {
    matches!(u32::from(character), 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

fn is_cjk(character: char) -> bool {
    matches!(
        u32::from(character),
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF
    )
}

fn is_emoji_like(character: char) -> bool {
    matches!(
        u32::from(character),
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2300..=0x23FF | 0x2B00..=0x2BFF | 0x2190..=0x21FF
            | 0xFE0F | 0x20E3 | 0x00A9 | 0x00AE | 0x203C | 0x2049 | 0x2122
    )
}

fn joins_emoji(previous: Option<char>, next: Option<char>) -> bool {
    previous.is_some_and(is_emoji_like) && next.is_some_and(is_emoji_like)
}

/// Joiners between letters of scripts that need them (Arabic, Persian, Indic, ...).
fn joins_script(previous: Option<char>, next: Option<char>) -> bool {
    let letter = |character: char| {
        !character.is_ascii()
            && !character.is_whitespace()
            && !is_emoji_like(character)
            && get_general_category(character) != GeneralCategory::Format
    };
    previous.is_some_and(letter) && next.is_some_and(letter)
}

fn char_name(character: char) -> &'static str {
    match u32::from(character) {
        0x00AD => "SOFT HYPHEN",
        0x034F => "COMBINING GRAPHEME JOINER",
        0x061C => "ARABIC LETTER MARK",
        0x115F | 0x1160 | 0x3164 | 0xFFA0 => "HANGUL FILLER",
        0x180E => "MONGOLIAN VOWEL SEPARATOR",
        0x200B => "ZERO WIDTH SPACE",
        0x200C => "ZERO WIDTH NON-JOINER",
        0x200D => "ZERO WIDTH JOINER",
        0x200E => "LEFT-TO-RIGHT MARK",
        0x200F => "RIGHT-TO-LEFT MARK",
        0x202A..=0x202E => "BIDI EMBEDDING/OVERRIDE",
        0x2060 => "WORD JOINER",
        0x2061..=0x2064 => "INVISIBLE OPERATOR",
        0x2066..=0x2069 => "BIDI ISOLATE",
        0x2800 => "BRAILLE PATTERN BLANK",
        0xFE00..=0xFE0F | 0xE0100..=0xE01EF => "VARIATION SELECTOR",
        0xFEFF => "ZERO WIDTH NO-BREAK SPACE (BOM)",
        0xE0000..=0xE007F => "TAG CHARACTER",
        _ => "FORMAT CHARACTER",
    }
}

#[cfg(test)]
mod tests;
