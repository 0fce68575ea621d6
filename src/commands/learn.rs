//! `ai-rulez learn`: candidate rules found in what the project already says, printed for people
//! or as JSON. Nothing is saved; `reviews` is one call into [`crate::learning::reviews`].

use std::sync::Arc;

use super::{Global, is_json, out, print_json, print_warnings};
use crate::cli::LearnReviewsArgs;
use crate::learning::reviews::{self, ReviewOptions, ReviewSource};
use crate::retrieval::Catalog;

/// Runs `learn reviews`; returns 0.
///
/// Errors: no project, load errors, no input (neither `gh` on PATH nor `--from`; the message
/// says how to provide it), input that is not review comment JSON, a busy writer lock.
pub(crate) fn reviews(global: &Global, args: &LearnReviewsArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let source = match &args.from {
        Some(path) => ReviewSource::UserFile(path.clone()),
        None => ReviewSource::GitHubCli,
    };
    let options = ReviewOptions {
        since_days: args.since_days,
        min_repeats: args.min_repeats,
    };
    let catalog = Catalog::new(Arc::new(project), Vec::new());
    let reply = reviews::learn_from_reviews(&catalog, &source, options)?;
    if is_json(args.format) {
        print_json(&serde_json::to_value(&reply)?);
    } else {
        out(reviews::text::reviews_text(&reply).trim_end());
    }
    Ok(0)
}
