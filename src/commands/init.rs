//! `ai-rulez init`: create `.ai-rulez/` with a working config and one example of each item kind.
//! It refuses to touch an existing `.ai-rulez/`.

use std::path::Path;

use anyhow::{Context as _, bail};

use super::{Global, out};
use crate::cli::InitArgs;

/// Runs `init` in the start directory; returns the exit code.
///
/// Errors: `.ai-rulez/` already exists, an unknown preset, or a write failure.
pub fn run(global: &Global, args: &InitArgs) -> anyhow::Result<u8> {
    let root = &global.start;
    let directory = root.join(".ai-rulez");
    if directory.exists() {
        bail!(
            "{} already exists; init never overwrites a project (edit it, or move it away first)",
            directory.display()
        );
    }
    let known: Vec<String> = crate::presets::builtin_specs()?
        .into_iter()
        .map(|spec| spec.name)
        .collect();
    let presets: Vec<String> = args
        .presets
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .filter(|name| !name.is_empty())
        .collect();
    for preset in &presets {
        if !known.contains(preset) {
            bail!(
                "unknown preset `{preset}`; known presets: {}",
                known.join(", ")
            );
        }
    }
    let name = args.name.clone().unwrap_or_else(|| {
        fs_err::canonicalize(root)
            .ok()
            .and_then(|path| {
                path.file_name()
                    .map(|name| name.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| "project".to_owned())
    });
    let quoted: Vec<String> = presets
        .iter()
        .map(|preset| format!("\"{preset}\""))
        .collect();
    let config = format!(
        "version = \"5.0\"\nname = {}\ndescription = \"What this project is, in one sentence.\"\npresets = [{}]\n\n# Maintain a block of generated paths in .gitignore.\ngitignore = false\n",
        serde_json::to_string(&name).unwrap_or_default(),
        quoted.join(", ")
    );
    let files: [(&str, &str); 6] = [
        ("config.toml", &config),
        (
            "rules/code-style.md",
            "---\npriority: high\n---\n# Code style\n\nKeep functions short and name things for what they mean.\n",
        ),
        (
            "context/architecture.md",
            "# Architecture\n\nDescribe the main modules and how data flows between them.\n",
        ),
        (
            "skills/review/SKILL.md",
            "---\nname: review\ndescription: Review a change for correctness, tests and naming before it is committed.\n---\n# Review\n\n1. Read the diff.\n2. Check that tests cover the change.\n3. List problems, most important first.\n",
        ),
        (
            "agents/tester.md",
            "---\nname: tester\ndescription: Writes and runs tests for a change.\n---\nYou write focused tests for the change you are given and run them.\n",
        ),
        (
            "commands/check.md",
            "---\ndescription: Run the project's checks.\n---\nRun the formatter, the linter and the tests, and report failures.\n",
        ),
    ];
    for (relative, text) in files {
        write_new(&directory.join(relative), text)?;
    }
    out(&directory.display().to_string());
    Ok(0)
}

fn write_new(path: &Path, text: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        fs_err::create_dir_all(parent)?;
    }
    let mut file = fs_err::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    std::io::Write::write_all(&mut file, text.as_bytes())?;
    Ok(())
}
