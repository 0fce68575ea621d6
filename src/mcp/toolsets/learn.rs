//! The `learn` toolset: saving what an agent learns as rule files a person reviews. Corrections
//! (`record_feedback`), batches of proposals (`propose_rules`), and tagging (`organize_rules`,
//! `tag_rules`). Each handler is one call into [`crate::learning`].

use super::super::args::RecordFeedbackArgs;
use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, ToolSpec, Toolset};
use crate::learning::feedback::{self, FeedbackReply, FeedbackRequest};

/// The toolset's tools, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![record_feedback()]
}

fn record_feedback() -> ToolSpec {
    ToolSpec {
        name: "record_feedback".into(),
        title: "Save a correction as a rule".into(),
        description: "Call when the user corrects you or states a standard you broke: saves one short, general, imperative sentence as a rule (not a description of the one edit). A rule that repeats one in the same scope is reported as already known; one that may contradict an active rule is kept pending. Relay the reply's message to the user.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Learn,
        pairing: Pairing::NoCommand("people write the rule file themselves and approve with `review`"),
        handler: Handler::new(|server, args: RecordFeedbackArgs| -> Reply<FeedbackReply> {
            let request = FeedbackRequest {
                rule: args.rule,
                paths: args.paths.unwrap_or_default(),
                scope: args.scope,
                evidence: args.evidence,
            };
            server.write_catalog(args.working_directory.as_deref(), |catalog| {
                let reply = feedback::record_feedback(catalog, &request)?;
                Ok(Answer::text(reply.message.clone(), reply))
            })
        }),
    }
}
