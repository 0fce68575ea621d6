//! Judges: the second look at a detector's match that drops placeholders, examples and
//! benign mentions, lowers forbidden-action prose to info, and words the finding (secrets
//! masked).

use std::sync::LazyLock;

use regex::Regex;

use super::{Context, Severity, limits};

#[expect(
    clippy::unnecessary_wraps,
    reason = "every judge has the `Judge` signature"
)]
pub(super) fn judge_plain(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
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
pub(super) fn judge_negatable(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
    let shown = shorten(context.whole.trim(), 80);
    if is_negated(context) {
        return Some((
            format!("{what}: `{shown}` (mentioned as forbidden; lowered to info)"),
            Some(Severity::Info),
        ));
    }
    Some((format!("{what}: `{shown}`"), None))
}

pub(super) fn judge_credential_read(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_exfil_path(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
    if benign_credential_mention(context) {
        return None;
    }
    judge_exfil(context, what)
}

#[expect(
    clippy::unnecessary_wraps,
    reason = "every judge has the `Judge` signature"
)]
pub(super) fn judge_exfil(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
    Some((
        format!("{what}: `{}`", shorten(context.whole.trim(), 100)),
        None,
    ))
}

pub(super) fn judge_blob(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_http(context: &Context<'_>, what: &str) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_comment(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_secret(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_openai(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_private_key(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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

pub(super) fn judge_password(
    context: &Context<'_>,
    what: &str,
) -> Option<(String, Option<Severity>)> {
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
