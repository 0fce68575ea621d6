//! `ai-rulez init`: create `.ai-rulez/` with a working config and one example of each item kind.

use super::{Global, out};
use crate::cli::InitArgs;

/// Runs `init` in the start directory; returns the exit code.
///
/// Errors: `.ai-rulez/` already exists, an unknown preset, or a write failure.
pub(crate) fn run(global: &Global, args: &InitArgs) -> anyhow::Result<u8> {
    let presets: Vec<String> = args
        .presets
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    let folder = crate::init::init_project(&global.start, args.name.as_deref(), &presets)?;
    out(&folder.display().to_string());
    Ok(0)
}
