//! `ai-rulez init`: create `.ai-rulez/` with a working config and one example of each item kind,
//! then say what is already there and what to do next.

use super::{Global, err, out};
use crate::cli::InitArgs;
use crate::init::Nesting;

/// Runs `init` in the start directory; returns the exit code. Prints the created folder on
/// stdout; on stderr, one `found: ...` line per existing instruction setup (see
/// [`crate::init::existing_setups`]) and the next steps.
///
/// Errors: `.ai-rulez/` already exists, a project above it (without `--nested`), an unknown
/// preset, or a write failure.
pub(crate) fn run(global: &Global, args: &InitArgs) -> anyhow::Result<u8> {
    let presets: Vec<String> = args
        .presets
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    let nesting = if args.nested {
        Nesting::Allow
    } else {
        Nesting::Refuse
    };
    let folder = crate::init::init_project(&global.start, args.name.as_deref(), &presets, nesting)?;
    out(&folder.display().to_string());
    for sentence in crate::init::existing_setups(&global.start)? {
        err(&format!("found: {sentence}"));
    }
    // Commands are shown as the user would type them from where they ran `init`.
    let command = if global.start == std::path::Path::new(".") {
        "ai-rulez".to_owned()
    } else {
        format!("ai-rulez -C {}", global.start.display())
    };
    err(&format!(
        "next steps:\n  1. Edit .ai-rulez/config.toml (name, description, presets: {}) and the examples in .ai-rulez/rules, context, skills, agents and commands.\n  2. `{command} generate` writes each assistant's files; `{command} generate --check --diff` shows what would change.\n  3. Optional: `{command} lock` pins sources and outputs, and `{command} hook install` checks them before every commit.\n  4. Commit .ai-rulez/ and the generated files.",
        presets.join(", ")
    ));
    Ok(0)
}
