//! The text form of a `learn_from_reviews` reply, shared by the CLI and the MCP tool: the
//! summary, then each candidate with its evidence, links and quotes.

use super::ReviewsReply;

/// The reply for people: the summary, then each candidate with its evidence and links.
#[must_use]
pub(crate) fn reviews_text(reply: &ReviewsReply) -> String {
    let mut text = format!("{}\n", reply.message);
    for (number, candidate) in reply.candidates.iter().enumerate() {
        text.push_str(&format!(
            "\nCandidate {}: {}\n  rule: {}\n  evidence: {}\n",
            number + 1,
            candidate.title,
            candidate.body,
            candidate.evidence
        ));
        for link in &candidate.refs {
            text.push_str(&format!("  - {link}\n"));
        }
        for quote in &candidate.quotes {
            text.push_str(&format!("  > {quote}\n"));
        }
    }
    for known in &reply.already_known {
        text.push_str(&format!(
            "\nAlready known (rule {}): {}\n",
            known.rule, known.body
        ));
    }
    text
}
