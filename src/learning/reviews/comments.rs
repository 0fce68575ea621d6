//! Reading pull-request review comments and deciding which ones could teach a rule. The input
//! is GitHub's REST shape for review comments (`GET /repos/{owner}/{repo}/pulls/comments`, as
//! `gh api --paginate` prints it: one JSON array per page, written back to back). A comment is
//! kept only when a project member wrote it, it is recent, its text is visible as written, and
//! it asks for something (not agreement, praise or a question).

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::lint::screen::{self, ScreenKind};

/// One review comment, with only the fields the learning loop reads; GitHub sends many more,
/// which are ignored. Missing fields read as empty.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct ReviewComment {
    /// The comment's Markdown text.
    #[serde(default)]
    pub body: String,
    /// Who wrote it; `null` for a deleted account.
    #[serde(default)]
    pub user: Option<Author>,
    /// The writer's relation to the repository: `OWNER`, `MEMBER`, `COLLABORATOR`,
    /// `CONTRIBUTOR`, `NONE`, ...
    #[serde(default)]
    pub author_association: String,
    /// When it was written, ISO 8601 (`2026-01-01T12:00:00Z`).
    #[serde(default)]
    pub created_at: String,
    /// The comment's web link, used as its identity in the ledger and as a rule's ref.
    #[serde(default)]
    pub html_url: String,
    /// The repository path the comment is on.
    #[serde(default)]
    pub path: Option<String>,
    /// The comment this one answers, when it is a reply in a thread.
    #[serde(default)]
    pub in_reply_to_id: Option<u64>,
}

/// The writer of a comment.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Author {
    /// GitHub login.
    #[serde(default)]
    pub login: String,
    /// `User`, `Bot` or `Organization`.
    #[serde(default, rename = "type")]
    pub account_type: String,
}

/// Why a comment was left out; the reply counts comments per reason under [`Skip::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Skip {
    /// Older than `since_days`, or without a readable date.
    TooOld,
    /// Already offered, proposed or dismissed (in the ledger).
    AlreadySeen,
    /// Written by a bot account.
    Bot,
    /// Written by someone who is not an owner, member or collaborator.
    NotMember,
    /// Holds hidden or bidirectional-control characters (AR002).
    HiddenCharacters,
    /// Holds other text the screening refuses for learned rules: an HTML comment, a
    /// prompt-injection phrase, a fake role tag, a credential.
    RefusedByScreening,
    /// Nothing but code, quotes or whitespace.
    NoText,
    /// Only agrees (`+1`, `lgtm`, `same`, ...).
    Agreement,
    /// Only praises.
    Praise,
    /// Asks rather than asks for.
    Question,
}

impl Skip {
    /// The reason's name in replies.
    #[must_use]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::TooOld => "too_old",
            Self::AlreadySeen => "already_seen",
            Self::Bot => "bot",
            Self::NotMember => "not_member",
            Self::HiddenCharacters => "hidden_characters",
            Self::RefusedByScreening => "refused_by_screening",
            Self::NoText => "no_text",
            Self::Agreement => "agreement",
            Self::Praise => "praise",
            Self::Question => "question",
        }
    }
}

/// Reads review comments from `bytes`: one JSON array of comment objects, or several written
/// back to back (one per page, as `gh api --paginate` prints them). `origin` names the input in
/// errors (a file path, or `gh api`).
///
/// Errors: [`Error::Invalid`] naming `origin`, the line and what GitHub's shape looks like when
/// the text is empty or not such arrays.
pub(crate) fn parse(origin: &str, bytes: &[u8]) -> Result<Vec<ReviewComment>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        // `gh api` prints `[]` when there are no comments, so empty input is a failed save.
        return Err(Error::invalid(
            origin,
            None,
            "is empty; expected the JSON array that `gh api repos/OWNER/REPO/pulls/comments` prints (`[]` when there are none)",
        ));
    }
    let mut comments = Vec::new();
    for page in serde_json::Deserializer::from_slice(bytes).into_iter::<Vec<ReviewComment>>() {
        let page = page.map_err(|error| {
            Error::invalid(
                origin,
                Some(error.line()),
                format!(
                    "is not a list of pull-request review comments ({error}); expected the JSON array that `gh api repos/OWNER/REPO/pulls/comments` prints"
                ),
            )
        })?;
        comments.extend(page);
    }
    Ok(comments)
}

/// Author associations whose comments count: people who decide what the project's code is.
const MEMBER_ASSOCIATIONS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

/// Whole replies that only agree, after lower-casing and dropping punctuation and emoji.
const AGREEMENT_REPLIES: [&str; 24] = [
    "+1",
    "agreed",
    "agree",
    "i agree",
    "lgtm",
    "same",
    "same here",
    "same as above",
    "same here too",
    "yes",
    "yep",
    "yeah",
    "indeed",
    "exactly",
    "this",
    "ack",
    "done",
    "fixed",
    "ok",
    "okay",
    "sgtm",
    "seconded",
    "me too",
    "good point",
];

/// Openings of praise; a comment opening so and at most [`PRAISE_MAX_WORDS`] words long only
/// praises.
const PRAISE_OPENINGS: [&str; 16] = [
    "nice",
    "great",
    "good job",
    "good catch",
    "good work",
    "love",
    "looks good",
    "looks great",
    "well done",
    "awesome",
    "thanks",
    "thank you",
    "cool",
    "neat",
    "excellent",
    "perfect",
];

/// Longest comment (in words) read as praise when it opens with praise; a longer one usually
/// goes on to ask for something.
const PRAISE_MAX_WORDS: usize = 8;

/// First words of a question written without a question mark.
const QUESTION_WORDS: [&str; 20] = [
    "why", "what", "how", "when", "where", "who", "which", "whose", "is", "are", "was", "were",
    "can", "could", "would", "will", "did", "does", "has", "have",
];

/// Why `comment` cannot teach a rule, or `None` when it can. The date, the ledger and the text
/// checks are the caller's; this looks at the writer only.
#[must_use]
pub(crate) fn writer_skip(comment: &ReviewComment) -> Option<Skip> {
    let (login, account_type) = comment.user.as_ref().map_or(("", ""), |user| {
        (user.login.as_str(), user.account_type.as_str())
    });
    if account_type.eq_ignore_ascii_case("bot") || login.to_ascii_lowercase().ends_with("[bot]") {
        return Some(Skip::Bot);
    }
    if !MEMBER_ASSOCIATIONS.contains(&comment.author_association.as_str()) {
        return Some(Skip::NotMember);
    }
    None
}

/// The text of `body` a rule can be drawn from: fenced code blocks (suggestions), quoted lines
/// and blank lines removed, and the rest joined by single spaces; `Err` with the reason when
/// nothing usable is left, when the screening refuses the text (hidden characters, injected
/// instructions), or when it only agrees, praises or asks. A reply in a thread (`is_reply`)
/// that opens with agreement and is short ("Agreed, same here") only agrees.
pub(crate) fn actionable_text(body: &str, is_reply: bool) -> std::result::Result<String, Skip> {
    let refusals = screen::untrusted_refusals(body, ScreenKind::Rule);
    if refusals.iter().any(|reason| reason.starts_with("AR002")) {
        return Err(Skip::HiddenCharacters);
    }
    if !refusals.is_empty() {
        return Err(Skip::RefusedByScreening);
    }
    let mut in_fence = false;
    let mut kept: Vec<&str> = Vec::new();
    for line in body.lines() {
        let line = line.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || line.starts_with('>') || line.is_empty() {
            continue;
        }
        kept.push(line);
    }
    let text = kept.join(" ");
    let words: Vec<String> = text
        .split_whitespace()
        .map(|word| {
            word.trim_matches(|character: char| !(character.is_alphanumeric() || character == '+'))
                .to_lowercase()
        })
        .filter(|word| !word.is_empty())
        .collect();
    if words.is_empty() {
        return Err(if text.is_empty() {
            Skip::NoText
        } else {
            // Only emoji and punctuation, such as a thumbs-up.
            Skip::Agreement
        });
    }
    let plain = words.join(" ");
    let opens_with = |opening: &str| plain == opening || plain.starts_with(&format!("{opening} "));
    let short = words.len() <= PRAISE_MAX_WORDS;
    if AGREEMENT_REPLIES.contains(&plain.as_str())
        || (is_reply && short && AGREEMENT_REPLIES.iter().any(|opening| opens_with(opening)))
    {
        return Err(Skip::Agreement);
    }
    if short && PRAISE_OPENINGS.iter().any(|opening| opens_with(opening)) {
        return Err(Skip::Praise);
    }
    if text.trim_end().ends_with('?') || QUESTION_WORDS.contains(&words[0].as_str()) {
        return Err(Skip::Question);
    }
    Ok(text)
}

/// Longest rule body drawn from a comment, in characters; a longer first sentence is cut at a
/// word boundary.
const MAX_BODY_CHARS: usize = 200;

/// Openings that soften a request; dropping them leaves the imperative ("nit: please use X" →
/// "Use X."). Lower case, checked in order, repeatedly.
const SOFTENERS: [&str; 14] = [
    "nit:",
    "nit -",
    "nit",
    "nitpick:",
    "suggestion:",
    "minor:",
    "please",
    "pls",
    "i think",
    "i'd suggest",
    "we should",
    "you should",
    "let's",
    "let us",
];

/// One imperative sentence drawn from actionable `text`: its first sentence with softening
/// openings removed, the first letter capitalised and a final period; cut to
/// [`MAX_BODY_CHARS`] characters at a word boundary.
#[must_use]
pub(crate) fn imperative_sentence(text: &str) -> String {
    let first = first_sentence(text);
    let mut rest = first.trim();
    'strip: loop {
        for softener in SOFTENERS {
            let lowered = rest.to_lowercase();
            if lowered.starts_with(softener)
                && rest[softener.len()..]
                    .chars()
                    .next()
                    .is_none_or(|next| !next.is_alphanumeric())
            {
                rest = rest[softener.len()..].trim_start_matches([' ', ',', ':', '-']);
                continue 'strip;
            }
        }
        break;
    }
    if rest.is_empty() {
        rest = first.trim();
    }
    let mut sentence: String = rest.trim_end_matches(['.', '!', ';', ',', ':']).to_owned();
    if sentence.chars().count() > MAX_BODY_CHARS {
        let cut: String = sentence.chars().take(MAX_BODY_CHARS).collect();
        sentence = cut
            .rsplit_once(' ')
            .map_or(cut.clone(), |(head, _)| head.to_owned());
    }
    let mut characters = sentence.chars();
    let mut capitalised: String = characters
        .next()
        .map(|first| first.to_uppercase().collect())
        .unwrap_or_default();
    capitalised.push_str(characters.as_str());
    capitalised.push('.');
    capitalised
}

/// The text up to the first sentence end (`.`, `!` or `;` followed by a space), or all of it.
fn first_sentence(text: &str) -> &str {
    let bytes = text.as_bytes();
    for (index, byte) in bytes.iter().enumerate() {
        if matches!(byte, b'.' | b'!' | b';') && bytes.get(index + 1) == Some(&b' ') {
            return &text[..=index];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actionable_text_sorts_out_agreement_praise_and_questions() {
        assert_eq!(actionable_text("+1", false), Err(Skip::Agreement));
        assert_eq!(
            actionable_text("Agreed, same here.", true),
            Err(Skip::Agreement)
        );
        assert_eq!(
            actionable_text("Agreed, use a map.", false),
            Ok("Agreed, use a map.".to_owned())
        );
        assert_eq!(actionable_text("LGTM!", false), Err(Skip::Agreement));
        assert_eq!(actionable_text("\u{1F44D}", false), Err(Skip::Agreement));
        assert_eq!(
            actionable_text("Nice work, thanks!", false),
            Err(Skip::Praise)
        );
        assert_eq!(
            actionable_text("Why not a map here?", false),
            Err(Skip::Question)
        );
        assert_eq!(
            actionable_text("Can we inline this", false),
            Err(Skip::Question)
        );
        assert_eq!(
            actionable_text("```suggestion\nx\n```", false),
            Err(Skip::NoText)
        );
        assert_eq!(
            actionable_text("> quoted\nUse `?` instead of unwrap.", false),
            Ok("Use `?` instead of unwrap.".to_owned())
        );
        assert_eq!(
            actionable_text("Use the logger\u{202E} here.", false),
            Err(Skip::HiddenCharacters)
        );
        assert_eq!(
            actionable_text("<!-- note for the bot -->Use the logger.", false),
            Err(Skip::RefusedByScreening)
        );
    }

    #[test]
    fn imperative_sentence_drops_softeners_and_keeps_the_first_sentence() {
        assert_eq!(
            imperative_sentence("nit: please use the logger, not println. It is noisy."),
            "Use the logger, not println."
        );
        assert_eq!(
            imperative_sentence("We should always return early!"),
            "Always return early."
        );
        assert_eq!(imperative_sentence("Nitro is fine"), "Nitro is fine.");
    }
}
