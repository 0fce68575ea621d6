//! Presets: one spec file per assistant under `templates/presets/` (embedded at build time),
//! describing where its files go and which frontmatter template each rule file uses. The writers
//! in [`render`] serve every spec; adding an assistant is a new spec file, not new Rust.

pub(crate) mod fallback;
pub(crate) mod fields;
mod frontmatter_memo;
pub(crate) mod reads;
pub(crate) mod render;
pub(crate) mod served;

use serde::Deserialize;

use crate::error::{Error, Result};

/// Embedded preset specs: (file name, TOML text).
const SPECS: [(&str, &str); 35] = [
    (
        "aiassistant.toml",
        include_str!("../../templates/presets/aiassistant.toml"),
    ),
    (
        "amazonq.toml",
        include_str!("../../templates/presets/amazonq.toml"),
    ),
    ("amp.toml", include_str!("../../templates/presets/amp.toml")),
    (
        "antigravity.toml",
        include_str!("../../templates/presets/antigravity.toml"),
    ),
    (
        "augment.toml",
        include_str!("../../templates/presets/augment.toml"),
    ),
    (
        "claude.toml",
        include_str!("../../templates/presets/claude.toml"),
    ),
    (
        "cline.toml",
        include_str!("../../templates/presets/cline.toml"),
    ),
    (
        "codebuddy.toml",
        include_str!("../../templates/presets/codebuddy.toml"),
    ),
    (
        "codex.toml",
        include_str!("../../templates/presets/codex.toml"),
    ),
    (
        "continue.toml",
        include_str!("../../templates/presets/continue.toml"),
    ),
    (
        "copilot.toml",
        include_str!("../../templates/presets/copilot.toml"),
    ),
    (
        "crush.toml",
        include_str!("../../templates/presets/crush.toml"),
    ),
    (
        "cursor.toml",
        include_str!("../../templates/presets/cursor.toml"),
    ),
    (
        "devin.toml",
        include_str!("../../templates/presets/devin.toml"),
    ),
    (
        "factory.toml",
        include_str!("../../templates/presets/factory.toml"),
    ),
    (
        "gemini.toml",
        include_str!("../../templates/presets/gemini.toml"),
    ),
    (
        "gitlab-duo.toml",
        include_str!("../../templates/presets/gitlab-duo.toml"),
    ),
    (
        "goose.toml",
        include_str!("../../templates/presets/goose.toml"),
    ),
    (
        "grok.toml",
        include_str!("../../templates/presets/grok.toml"),
    ),
    (
        "junie.toml",
        include_str!("../../templates/presets/junie.toml"),
    ),
    (
        "kilo.toml",
        include_str!("../../templates/presets/kilo.toml"),
    ),
    (
        "kimi.toml",
        include_str!("../../templates/presets/kimi.toml"),
    ),
    (
        "kiro.toml",
        include_str!("../../templates/presets/kiro.toml"),
    ),
    (
        "opencode.toml",
        include_str!("../../templates/presets/opencode.toml"),
    ),
    (
        "openhands.toml",
        include_str!("../../templates/presets/openhands.toml"),
    ),
    (
        "qoder.toml",
        include_str!("../../templates/presets/qoder.toml"),
    ),
    (
        "qwen.toml",
        include_str!("../../templates/presets/qwen.toml"),
    ),
    (
        "replit.toml",
        include_str!("../../templates/presets/replit.toml"),
    ),
    ("roo.toml", include_str!("../../templates/presets/roo.toml")),
    (
        "tabnine.toml",
        include_str!("../../templates/presets/tabnine.toml"),
    ),
    (
        "trae.toml",
        include_str!("../../templates/presets/trae.toml"),
    ),
    (
        "warp.toml",
        include_str!("../../templates/presets/warp.toml"),
    ),
    (
        "windsurf.toml",
        include_str!("../../templates/presets/windsurf.toml"),
    ),
    ("zed.toml", include_str!("../../templates/presets/zed.toml")),
    (
        "zoocode.toml",
        include_str!("../../templates/presets/zoocode.toml"),
    ),
];

/// Embedded templates: (name, minijinja source).
pub(crate) const TEMPLATES: [(&str, &str); 13] = [
    (
        "root.md",
        include_str!("../../templates/markdown/root.md.j2"),
    ),
    (
        "import.md",
        include_str!("../../templates/markdown/import.md.j2"),
    ),
    (
        "claude-rule",
        include_str!("../../templates/frontmatter/claude-rule.yaml.j2"),
    ),
    (
        "cline-rule",
        include_str!("../../templates/frontmatter/cline-rule.yaml.j2"),
    ),
    (
        "cursor-rule",
        include_str!("../../templates/frontmatter/cursor-rule.yaml.j2"),
    ),
    (
        "copilot-instructions",
        include_str!("../../templates/frontmatter/copilot-instructions.yaml.j2"),
    ),
    (
        "trigger-rule",
        include_str!("../../templates/frontmatter/trigger-rule.yaml.j2"),
    ),
    (
        "devin-rule",
        include_str!("../../templates/frontmatter/devin-rule.yaml.j2"),
    ),
    (
        "kiro-steering",
        include_str!("../../templates/frontmatter/kiro-steering.yaml.j2"),
    ),
    (
        "plain-rule",
        include_str!("../../templates/frontmatter/plain-rule.yaml.j2"),
    ),
    (
        "augment-rule",
        include_str!("../../templates/frontmatter/augment-rule.yaml.j2"),
    ),
    (
        "continue-rule",
        include_str!("../../templates/frontmatter/continue-rule.yaml.j2"),
    ),
    (
        "trae-rule",
        include_str!("../../templates/frontmatter/trae-rule.yaml.j2"),
    ),
];

/// One assistant's spec (`templates/presets/<name>.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PresetSpec {
    /// Preset name as written in `presets = [...]`.
    pub name: String,
    /// Human name of the assistant.
    pub label: String,
    /// Vendor documentation the formats come from.
    #[expect(
        dead_code,
        reason = "parsed so `deny_unknown_fields` accepts the presets' `docs` list; only people read it"
    )]
    pub docs: Vec<String>,
    /// Project files and folders (project-relative, `/`-separated) the assistant reads by
    /// default, its own and other presets'; see [`reads`].
    pub reads: Vec<String>,
    /// The root instruction file, if the assistant reads one.
    pub root: Option<RootSpec>,
    /// The rules folder, if the assistant has one.
    pub rules: Option<RulesSpec>,
    /// Where skills go.
    pub skills: Option<SkillsSpec>,
    /// Where subagents go.
    pub agents: Option<ItemFilesSpec>,
    /// Where slash commands go.
    pub commands: Option<ItemFilesSpec>,
    /// Which MCP settings document the assistant reads.
    pub mcp: Option<McpSpec>,
    /// The assistant also reads `AGENTS.md` files in sub-folders (for the files it works on),
    /// so a folder-scoped rule may live in `<folder>/AGENTS.md` (`nested_agents_md = true`).
    #[serde(default)]
    pub reads_nested_agents_md: bool,
    /// The assistant also reads its rules folder inside sub-folders (`packages/web/.cursor/rules/`
    /// for the files below `packages/web/`), as Cursor does (`reads_nested_rules = true`).
    #[serde(default)]
    pub reads_nested_rules: bool,
    /// Entries of `reads` that only some of the assistant's surfaces read (VS Code Copilot
    /// reads `.claude/rules`, code review on github.com does not): a copy there is no reason
    /// to tell the user to delete the assistant's own file.
    #[serde(default)]
    pub reads_in_some_surfaces: Vec<String>,
}

/// What a root file contains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RootContent {
    /// Every rule inline (with an "applies to" line for scoped ones) and all context.
    Full,
    /// Context only; with `[rules] mode = "inline"` also the always-on rules.
    Context,
}

/// Root instruction file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RootSpec {
    /// Project-relative path (`CLAUDE.md`, `AGENTS.md`, ...).
    pub path: String,
    /// What goes in.
    pub content: RootContent,
    /// With `agents_md = true`, the file becomes an `@AGENTS.md` import.
    #[serde(default)]
    pub import_agents_md: bool,
    /// Size budget in bytes the assistant reads (warning above it).
    pub max_bytes: Option<usize>,
}

/// Rules folder: one file per rule.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RulesSpec {
    /// Folder, project-relative.
    pub dir: String,
    /// File name suffix including the dot (`.mdc`, `.instructions.md`).
    pub extension: String,
    /// Frontmatter template name (`templates/frontmatter/<name>.yaml.j2`).
    pub frontmatter: String,
    /// Activations the format can express; others are written always-on with a warning.
    pub activations: Vec<String>,
    /// Context items are written here too, always-on, as `context-<id>`.
    #[serde(default)]
    pub context: bool,
    /// Per-file limit in characters (warning above it).
    pub max_chars: Option<usize>,
    /// Per-file limit in bytes (warning above it).
    pub max_bytes: Option<usize>,
    /// Per-file guidance in lines (warning above it).
    pub max_lines: Option<usize>,
    /// What an `auto` rule becomes when `activations` lacks it (else always-on with a warning).
    pub auto_as: Option<fallback::Fallback>,
    /// What a `manual` rule becomes when `activations` lacks it (else always-on with a warning).
    pub manual_as: Option<fallback::Fallback>,
    /// Folder of workflow files, for `manual_as = "workflow"`.
    pub workflows_dir: Option<String>,
    /// The assistant matches a pattern without `/` at the root only, so `*.py` is written
    /// `**/*.py` to keep ai-rulez's any-depth meaning.
    #[serde(default)]
    pub root_anchored_globs: bool,
}

/// Skills folder.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkillsSpec {
    /// Folder, project-relative; each skill is `<dir>/<id>/SKILL.md` plus resources.
    pub dir: String,
    /// Frontmatter keys kept; `"*"` keeps every key except ai-rulez's own.
    pub keys: Vec<String>,
    /// Other presets' skills folders the assistant also discovers. When an enabled preset
    /// writes one of them, the skills it writes there are left out of `dir`, so the assistant
    /// finds each skill once (Gemini CLI warns "Skill conflict detected" for a skill in both
    /// `.gemini/skills` and `.agents/skills`); see [`reads::shared_skill_folders`].
    #[serde(default)]
    pub reads: Vec<String>,
}

/// Subagent or command files.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ItemFilesSpec {
    /// Folder, project-relative.
    pub dir: String,
    /// File name suffix including the dot.
    pub extension: String,
    /// Frontmatter keys kept; `"*"` keeps every key except ai-rulez's own; empty = plain Markdown.
    pub keys: Vec<String>,
    /// Adds `name: <id>` when the source has none.
    #[serde(default)]
    pub name: bool,
    /// Whose vocabulary `tools` and `model` are translated into; none keeps them as written.
    pub vocabulary: Option<fields::Vocabulary>,
    /// Keys added with these values when the source has none (`mode = "subagent"`).
    #[serde(default)]
    pub defaults: indexmap::IndexMap<String, String>,
    /// How each file is written: Markdown with frontmatter (the default) or one of the TOML
    /// formats of `render::toml_items`.
    #[serde(default)]
    pub format: ItemFormat,
}

/// The file format of an agent or command file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum ItemFormat {
    /// Markdown, with YAML frontmatter unless `keys` is empty.
    #[default]
    Markdown,
    /// A Gemini CLI custom command: `description` and `prompt` (`$ARGUMENTS` becomes
    /// `{{args}}`); <https://geminicli.com/docs/cli/custom-commands/>.
    GeminiCommandToml,
    /// A Codex custom agent: `name`, `description` and `developer_instructions`;
    /// <https://developers.openai.com/codex/subagents>.
    CodexAgentToml,
}

/// MCP settings document.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct McpSpec {
    /// Shape name (see `mcp_config::DocumentShape`).
    pub shape: String,
    /// More documents with the same servers, for an assistant family whose tools read different
    /// files (GitHub Copilot: VS Code reads `.vscode/mcp.json`, the CLI `.github/mcp.json`).
    #[serde(default)]
    pub extra_shapes: Vec<String>,
}

/// All built-in specs, sorted by name.
///
/// Errors: [`Error::Usage`] if an embedded spec is malformed (a build defect, caught by tests).
pub(crate) fn builtin_specs() -> Result<Vec<PresetSpec>> {
    PARSED_SPECS.clone().map_err(Error::Usage)
}

/// The embedded specs, parsed once per process.
static PARSED_SPECS: std::sync::LazyLock<std::result::Result<Vec<PresetSpec>, String>> =
    std::sync::LazyLock::new(|| {
        let mut specs = Vec::with_capacity(SPECS.len());
        for (file, text) in SPECS {
            let spec: PresetSpec = toml_edit::de::from_str(text)
                .map_err(|error| format!("templates/presets/{file}: {error}"))?;
            specs.push(spec);
        }
        specs.sort_by(|left, right| left.name.cmp(&right.name));
        Ok(specs)
    });

/// The files and folders the assistant of the built-in preset `name` reads by default (its
/// spec's `reads` list, project-relative), or `None` for an unknown preset. Tests compute each
/// assistant's effective context from it.
#[must_use]
pub fn default_reads(name: &str) -> Option<Vec<String>> {
    let specs = PARSED_SPECS.as_ref().ok()?;
    specs
        .iter()
        .find(|spec| spec.name == name)
        .map(|spec| spec.reads.clone())
}

/// Whether the assistant of the built-in preset `name` also reads `AGENTS.md` files in
/// sub-folders (its spec's `reads_nested_agents_md`), or `None` for an unknown preset. Tests
/// add nested `AGENTS.md` files to the effective context with it.
#[must_use]
pub fn reads_nested_agents_md(name: &str) -> Option<bool> {
    let specs = PARSED_SPECS.as_ref().ok()?;
    specs
        .iter()
        .find(|spec| spec.name == name)
        .map(|spec| spec.reads_nested_agents_md)
}

/// Whether `path` (project-relative, `/`-separated) is a file inside the rules folder of `spec`
/// nested in a sub-folder (`packages/web/.cursor/rules/react.mdc`, not `.cursor/rules/a.mdc`),
/// and the assistant reads such folders (its spec's `reads_nested_rules`).
#[must_use]
pub(crate) fn is_in_nested_rules_folder(spec: &PresetSpec, path: &str) -> bool {
    let Some(rules) = spec.rules.as_ref().filter(|_| spec.reads_nested_rules) else {
        return false;
    };
    let marker = format!("/{}/", rules.dir);
    path.find(&marker)
        .is_some_and(|start| start > 0 && path.len() > start + marker.len())
}

/// Whether `path` lies in a nested rules folder some built-in preset's assistant reads (see
/// [`is_in_nested_rules_folder`]). `import` records such files it read, so `generate` can name
/// them when their text reaches the assistant a second time.
#[must_use]
pub(crate) fn is_nested_rules_path(path: &str) -> bool {
    is_plain_relative(path)
        && PARSED_SPECS.as_ref().is_ok_and(|specs| {
            specs
                .iter()
                .any(|spec| is_in_nested_rules_folder(spec, path))
        })
}

/// Picks the specs named by `names` (config order). Unknown names are skipped with a warning.
///
/// Errors: as [`builtin_specs`].
pub(crate) fn select(names: &[String], warnings: &mut Vec<String>) -> Result<Vec<PresetSpec>> {
    let specs = builtin_specs()?;
    let mut chosen = Vec::new();
    let known: Vec<&str> = specs.iter().map(|spec| spec.name.as_str()).collect();
    for name in names {
        match specs.iter().find(|spec| spec.name == *name) {
            Some(spec) => chosen.push(spec.clone()),
            None => warnings.push(unknown_preset_message(name, &known)),
        }
    }
    Ok(chosen)
}

/// What to say about a preset name no built-in spec has: it is skipped, the closest known name
/// when one is close, and the whole list. `generate` warns with it and `validate` reports it
/// (AR312).
#[must_use]
pub(crate) fn unknown_preset_message(name: &str, known: &[&str]) -> String {
    format!(
        "unknown preset `{name}`; it is skipped, so that assistant gets no files{} (known: {})",
        crate::suggest::did_you_mean(name, known.iter().copied()),
        known.join(", ")
    )
}

/// Whether `path` (project-relative, `/`-separated) is a place some built-in preset writes to:
/// a root file, a settings document, or a file inside a rules, skills, agents or commands
/// folder. The writer deletes, and the lock reads, only such paths, so a hand-edited manifest or
/// lock can never make ai-rulez touch sources, `.git/` or anything else in the project.
#[must_use]
pub(crate) fn is_output_path(path: &str) -> bool {
    if !is_plain_relative(path) {
        return false;
    }
    let Ok(specs) = PARSED_SPECS.as_ref() else {
        return false;
    };
    let in_folder = |folder: &str, extension: Option<&str>| {
        path.strip_prefix(folder)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| {
                !rest.is_empty() && extension.is_none_or(|extension| rest.ends_with(extension))
            })
    };
    specs.iter().any(|spec| {
        spec.root.as_ref().is_some_and(|root| root.path == path)
            || spec.mcp.as_ref().is_some_and(|mcp| {
                std::iter::once(&mcp.shape)
                    .chain(&mcp.extra_shapes)
                    .any(|shape| {
                        shape
                            .parse::<crate::mcp_config::DocumentShape>()
                            .is_ok_and(|shape| shape.default_path() == path)
                    })
            })
            || spec
                .rules
                .as_ref()
                .is_some_and(|rules| in_folder(&rules.dir, Some(&rules.extension)))
            || spec
                .skills
                .as_ref()
                .is_some_and(|skills| in_folder(&skills.dir, None))
            || spec
                .agents
                .as_ref()
                .is_some_and(|agents| in_folder(&agents.dir, Some(&agents.extension)))
            || spec
                .commands
                .as_ref()
                .is_some_and(|commands| in_folder(&commands.dir, Some(&commands.extension)))
    }) || path == "AGENTS.md"
        || is_nested_agents_md(path)
        || LEGACY_OUTPUT_FOLDERS
            .iter()
            .any(|folder| in_folder(folder, None))
}

/// Whether `path` is an `AGENTS.md` in a sub-folder none of whose components is hidden (where
/// `nested_agents_md = true` writes folder-scoped rules; never inside `.git/` or `.ai-rulez/`).
fn is_nested_agents_md(path: &str) -> bool {
    path.strip_suffix("/AGENTS.md").is_some_and(|folder| {
        folder
            .split('/')
            .all(|component| !component.is_empty() && !component.starts_with('.'))
    })
}

/// Folders the Go ai-rulez wrote to that no current preset uses (Codex skills moved to
/// `.agents/skills`); their files are still cleaned up when provably unedited.
const LEGACY_OUTPUT_FOLDERS: [&str; 1] = [".codex/skills"];

/// A relative path made of plain components: no empty, `.` or `..` parts, no leading `/`, no
/// control characters.
#[must_use]
pub(crate) fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.chars().any(char::is_control)
        && path
            .split('/')
            .all(|component| !component.is_empty() && component != "." && component != "..")
}

#[cfg(test)]
mod tests {
    #[test]
    fn files_read_by_some_surfaces_are_among_the_files_read() {
        for spec in super::builtin_specs().expect("specs") {
            for entry in &spec.reads_in_some_surfaces {
                assert!(spec.reads.contains(entry), "{}: {entry}", spec.name);
            }
        }
    }

    #[test]
    fn nested_rules_folders_are_only_sub_folders_an_assistant_reads() {
        for path in [
            "packages/web/.cursor/rules/react.mdc",
            "a/.cursor/rules/sub/x.md",
        ] {
            assert!(super::is_nested_rules_path(path), "{path}");
        }
        for path in [
            ".cursor/rules/react.mdc",
            "packages/web/.cursor/rules/",
            "packages/web/.cursor/rulesx/a.mdc",
            "packages/web/.claude/rules/a.md",
            "../web/.cursor/rules/a.mdc",
            "/abs/.cursor/rules/a.mdc",
        ] {
            assert!(!super::is_nested_rules_path(path), "{path}");
        }
    }

    #[test]
    fn output_paths_are_only_what_presets_write() {
        for path in [
            "CLAUDE.md",
            ".claude/rules/x.md",
            ".cursor/rules/x.mdc",
            ".mcp.json",
            ".codex/config.toml",
            ".agents/skills/s/scripts/run.sh",
            "services/api/AGENTS.md",
        ] {
            assert!(super::is_output_path(path), "{path}");
        }
        for path in [
            ".git/config",
            "src/main.rs",
            ".ai-rulez/config.toml",
            ".ai-rulez/rules/a.md",
            "../x",
            "/etc/passwd",
            ".claude/rules/x.txt",
            ".claude/rules",
            "a\nb",
            ".git/AGENTS.md",
            "src/.ai-rulez/AGENTS.md",
            "src/NOTAGENTS.md",
        ] {
            assert!(!super::is_output_path(path), "{path}");
        }
    }

    #[test]
    fn every_spec_reads_the_files_it_writes_rules_and_context_to() {
        // `reads::place` treats a preset's own home as read; a `reads` list that forgot one
        // would hide a double from `reads::unavoidable_duplicates` and from the docs table.
        let covered = |spec: &super::PresetSpec, path: &str| {
            spec.reads.iter().any(|read| {
                path == read
                    || path
                        .strip_prefix(read.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            })
        };
        for spec in super::builtin_specs().expect("specs parse") {
            let mut homes: Vec<String> = Vec::new();
            if let Some(root) = &spec.root {
                homes.push(root.path.clone());
            }
            if let Some(rules) = &spec.rules {
                homes.push(rules.dir.clone());
                homes.extend(rules.workflows_dir.clone());
                if rules.auto_as.is_some() || rules.manual_as.is_some() {
                    homes.extend(spec.skills.as_ref().map(|skills| skills.dir.clone()));
                }
            }
            for home in homes {
                assert!(covered(&spec, &home), "{}: reads lacks {home}", spec.name);
            }
        }
    }

    #[test]
    fn every_embedded_spec_parses_and_names_its_file() {
        let specs = super::builtin_specs().expect("specs parse");
        assert_eq!(specs.len(), super::SPECS.len());
        for spec in specs {
            assert!(
                super::SPECS
                    .iter()
                    .any(|(file, _)| *file == format!("{}.toml", spec.name))
            );
        }
    }
}
