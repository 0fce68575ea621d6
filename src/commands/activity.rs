//! `ai-rulez activity [PATH]`: what agents logged doing on this machine, newest first; the same
//! library call as the MCP `recent_activity` tool.

use super::{Global, is_json, out, print_json, print_warnings, project_path};
use crate::cli::ActivityArgs;
use crate::memory::activity;

/// Prints the newest entries (touching `PATH` when given); returns 0.
///
/// Errors: no project, a path outside the project, load errors, an unreadable log.
pub(crate) fn run(global: &Global, args: &ActivityArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let path = match &args.path {
        Some(path) => Some(project_path(global, &project, path)?),
        None => None,
    };
    if !(1..=activity::MAX_RECENT).contains(&args.limit) {
        anyhow::bail!(
            "--limit {} is out of range; give 1 to {}",
            args.limit,
            activity::MAX_RECENT
        );
    }
    let recent = activity::recent_activity(&project, path.as_deref(), args.limit)?;
    if is_json(args.format) {
        print_json(&serde_json::to_value(&recent)?);
    } else if recent.entries.is_empty() {
        out("No activity logged.");
    } else {
        out(activity::entries_text(&recent.entries).trim_end());
    }
    Ok(0)
}
