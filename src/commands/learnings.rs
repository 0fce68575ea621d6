//! `ai-rulez learnings [PATH] [--stale]`: the learnings agents recorded, each checked against
//! the files it was read from; the same library call as the MCP `review_learnings` tool.

use super::{Global, is_json, out, print_json, print_warnings, project_path};
use crate::cli::LearningsArgs;
use crate::memory::learnings_review;

/// Prints the learnings (only stale ones with `--stale`); returns 0.
///
/// Errors: no project, a path outside the project, load errors, an unlistable learnings folder.
pub(crate) fn run(global: &Global, args: &LearningsArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let path = match &args.path {
        Some(path) => Some(project_path(global, &project, path)?),
        None => None,
    };
    let mut review = learnings_review::review_learnings(&project, path.as_deref())?;
    if args.stale {
        review
            .learnings
            .retain(|learning| learning.status == "stale");
    }
    if is_json(args.format) {
        print_json(&serde_json::to_value(&review)?);
    } else {
        out(&learnings_review::review_text(&review));
    }
    Ok(0)
}
