//! Creating a new project: `.ai-rulez/` with a working config and one example of each item
//! kind. Used by `ai-rulez init` and the MCP `init_project` tool; it never overwrites anything.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Creates `<directory>/.ai-rulez/` with `presets` enabled. Returns the created folder.
///
/// Errors: [`Error::Refused`] when `.ai-rulez/` exists; [`Error::Usage`] for an unknown preset;
/// I/O errors.
pub(crate) fn init_project(
    directory: &Path,
    name: Option<&str>,
    presets: &[String],
) -> Result<PathBuf> {
    let folder = directory.join(".ai-rulez");
    let dir = crate::confined_fs::ProjectDir::open(directory)?;
    if dir.info(".ai-rulez")?.is_some() {
        return Err(Error::refused(
            ".ai-rulez",
            "already exists; init never overwrites a project (edit it, or move it away first)",
        ));
    }
    let known: Vec<String> = crate::presets::builtin_specs()?
        .into_iter()
        .map(|spec| spec.name)
        .collect();
    for preset in presets {
        if !known.contains(preset) {
            return Err(Error::Usage(format!(
                "unknown preset `{preset}`{}; known presets: {}",
                crate::suggest::did_you_mean(preset, known.iter().map(String::as_str)),
                known.join(", ")
            )));
        }
    }
    let name = name.map_or_else(
        || {
            fs_err::canonicalize(directory)
                .ok()
                .and_then(|path| {
                    path.file_name()
                        .map(|name| name.to_string_lossy().into_owned())
                })
                .unwrap_or_else(|| "project".to_owned())
        },
        str::to_owned,
    );
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
        dir.create_new(&format!(".ai-rulez/{relative}"), text.as_bytes(), 0o644)?;
    }
    Ok(folder)
}
