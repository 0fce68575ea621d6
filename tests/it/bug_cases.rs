//! One regression test per case of `../shared/cases/bug-cases.md` that the product covers so far
//! (the MCP-server cases wait for the MCP server). Each test builds the case's minimal input,
//! runs the real binary and asserts the case's "right value" exactly.

use std::process::Command as Process;

use ai_rulez::testing::frontmatter;
use serde_json::{Value, json};

use crate::support::Project;

/// A project whose `.ai-rulez/config.toml` enables `presets` (TOML array text, e.g.
/// `["claude", "codex"]`) followed by `extra` config lines.
fn project(presets: &str, extra: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("version = \"5.0\"\nname = \"demo\"\npresets = {presets}\n{extra}"),
    );
    project
}

/// Reads a project-relative file as bytes.
fn bytes(project: &Project, relative: &str) -> Vec<u8> {
    fs_err::read(project.path().join(relative)).unwrap_or_else(|error| panic!("{error}"))
}

/// Every file with its bytes, except `.git/` and the `.ai-rulez/` sources.
fn outputs(project: &Project) -> Vec<(String, Vec<u8>)> {
    project
        .files()
        .into_iter()
        .filter(|path| !path.starts_with(".ai-rulez/") || path.ends_with("manifest.json"))
        .map(|path| {
            let content = bytes(project, &path);
            (path, content)
        })
        .collect()
}

/// Number of non-overlapping occurrences of `needle` in `text`.
fn count(text: &str, needle: &str) -> usize {
    text.matches(needle).count()
}

/// Splits a generated Markdown file with frontmatter into (values, body): our banner is a YAML
/// comment, so the file parses like any other.
fn parse_generated(project: &Project, relative: &str) -> frontmatter::Document {
    frontmatter::parse(relative, &bytes(project, relative)).expect("generated file parses")
}

/// Runs `git <args>` in the project and returns its exit code.
fn git(project: &Project, args: &[&str]) -> i32 {
    Process::new("git")
        .args(args)
        .current_dir(project.path())
        .output()
        .expect("git runs")
        .status
        .code()
        .unwrap_or(-1)
}

/// The entry lines between the managed `.gitignore` markers.
fn gitignore_block(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|line| !line.starts_with("# BEGIN ai-rulez"))
        .skip(1)
        .take_while(|line| *line != "# END ai-rulez")
        .map(str::to_owned)
        .collect()
}

// B01: the managed .gitignore block is replaced in place, never appended again.
#[test]
fn b01_gitignore_block_is_not_appended_on_every_run() {
    let project = project(r#"["claude", "codex"]"#, "gitignore = true\n");
    project.write(
        ".ai-rulez/rules/style.md",
        "---\npriority: high\n---\nUse tabs.\n",
    );
    project.write(".gitignore", "node_modules/\n");
    project.run(&["generate"]).expect_code(0);
    let first = project.read(".gitignore");
    assert!(first.starts_with("node_modules/\n"), "{first}");
    assert_eq!(count(&first, "node_modules/"), 1, "{first}");
    assert_eq!(count(&first, "# BEGIN ai-rulez"), 1, "{first}");
    assert_eq!(count(&first, "# END ai-rulez"), 1, "{first}");
    let entries = gitignore_block(&first);
    let mut sorted_unique = entries.clone();
    sorted_unique.sort();
    sorted_unique.dedup();
    assert_eq!(entries, sorted_unique, "entries are sorted and unique");
    for expected in ["/AGENTS.md", "/CLAUDE.md", "/.claude/rules/style.md"] {
        assert!(entries.iter().any(|entry| entry == expected), "{first}");
    }
    assert!(first.ends_with("# END ai-rulez\n"), "{first}");
    for _ in 0..2 {
        project.run(&["generate"]).expect_code(0);
        assert_eq!(project.read(".gitignore"), first);
    }
}

// B01 (migration): fragments the Go ai-rulez appended under `# AI Rules generated files` become
// the one fenced block instead of staying next to it.
#[test]
fn b01_old_style_gitignore_fragments_are_migrated_into_one_block() {
    let project = project(r#"["claude"]"#, "gitignore = true\n");
    project.write(".ai-rulez/rules/style.md", "Use tabs.\n");
    project.write(
        ".gitignore",
        "node_modules/\n\n# AI Rules generated files\n.claude/\nCLAUDE.md\n\n# AI Rules generated files\n.mcp.json\n\ntarget/\n",
    );
    project.run(&["generate"]).expect_code(0);
    let text = project.read(".gitignore");
    assert_eq!(count(&text, "# AI Rules generated files"), 0, "{text}");
    assert_eq!(count(&text, "# BEGIN ai-rulez"), 1, "{text}");
    assert!(
        text.starts_with("node_modules/\n\n# BEGIN ai-rulez"),
        "{text}"
    );
    assert!(text.ends_with("# END ai-rulez\n\ntarget/\n"), "{text}");
    assert!(!text.lines().any(|line| line == "CLAUDE.md"), "{text}");
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.read(".gitignore"), text);
}

// B02: CLAUDE.md carries the text of local context, not an `@.ai-rulez/...` import line.
#[test]
fn b02_claude_md_inlines_local_context_instead_of_at_paths() {
    let project = project(r#"["claude", "copilot"]"#, "");
    project.write(
        ".ai-rulez/context/crate-structure.md",
        "---\npriority: medium\n---\nEach crate lives under crates/<name>/ and owns one concern.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let sentence = "Each crate lives under crates/<name>/ and owns one concern.";
    let claude = project.read("CLAUDE.md");
    assert!(claude.contains(sentence), "{claude}");
    // VS Code reads CLAUDE.md too, so Copilot's own file leaves the context out (B40).
    let copilot = project.read(".github/copilot-instructions.md");
    assert!(!copilot.contains(sentence), "{copilot}");
    assert!(
        !claude.lines().any(|line| line.starts_with("@.ai-rulez/")),
        "{claude}"
    );
}

// B03: a Claude skill file holds only the skill, not every rule (and `targets` are honoured).
#[test]
fn b03_claude_skill_holds_only_the_skill_body() {
    let project = project(r#"["claude", "cursor"]"#, "");
    project.write(
        ".ai-rulez/rules/no-console-log.md",
        "---\npriority: critical\ntargets:\n  - \"CLAUDE.md\"\n  - \".cursor/rules/*\"\n---\n# No console.log\nNever use console.log in production code.\n",
    );
    project.write(
        ".ai-rulez/skills/greet-user/SKILL.md",
        "---\ndescription: \"Greet the user politely\"\n---\n# Greet User\nWhen the user says hello, respond with a friendly greeting.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let skill = parse_generated(&project, ".claude/skills/greet-user/SKILL.md");
    assert_eq!(
        Value::Object(skill.values.into_iter().collect()),
        json!({"name": "greet-user", "description": "Greet the user politely"})
    );
    assert_eq!(
        skill.body,
        "# Greet User\nWhen the user says hello, respond with a friendly greeting.\n"
    );
    assert!(
        !project
            .read(".claude/skills/greet-user/SKILL.md")
            .contains("console.log")
    );
    assert!(
        project
            .read("CLAUDE.md")
            .contains("Never use console.log in production code.")
    );
}

// B05: an always-apply rule never gains `globs: **/*` in its Cursor file, and stays stable.
#[test]
fn b05_always_apply_cursor_rule_gets_no_catch_all_glob() {
    let project = project(r#"["cursor"]"#, "");
    project.write(
        ".ai-rulez/rules/ponytail.md",
        "---\ndescription: Lazy senior dev mode.\nglobs:\nalwaysApply: true\n---\n\nKeep diffs small.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let path = ".cursor/rules/ponytail.mdc";
    let first = project.read(path);
    assert!(!first.contains("**/*"), "{first}");
    let generated = parse_generated(&project, path);
    assert_eq!(generated.values["alwaysApply"], json!(true), "{first}");
    assert!(
        generated
            .values
            .get("globs")
            .is_none_or(|globs| globs.is_null() || globs == &json!("")),
        "{first}"
    );
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.read(path), first);
}

// B06: deleting one file of a kept skill removes its generated copy and its manifest entry.
#[test]
fn b06_removed_skill_resource_is_removed_from_outputs_and_manifest() {
    let project = project(r#"["claude"]"#, "");
    project.write(
        ".ai-rulez/skills/deploy/SKILL.md",
        "---\ndescription: Deploy steps\n---\nRun make deploy.\n",
    );
    project.write(
        ".ai-rulez/skills/deploy/references/checklist.md",
        "- tag the release\n",
    );
    project.run(&["generate"]).expect_code(0);
    let copy = ".claude/skills/deploy/references/checklist.md";
    let manifest = ".ai-rulez/.generated-manifest.json";
    assert_eq!(project.read(copy), "- tag the release\n");
    assert!(project.read(manifest).contains(copy));
    let skill = project.read(".claude/skills/deploy/SKILL.md");
    fs_err::remove_file(
        project
            .path()
            .join(".ai-rulez/skills/deploy/references/checklist.md"),
    )
    .expect("remove source");
    let second = project.run(&["generate"]);
    second.expect_code(0);
    assert!(
        second.stdout().contains(&format!("delete: {copy}")),
        "{}",
        second.stdout()
    );
    assert!(!project.exists(copy));
    assert!(!project.read(manifest).contains("checklist"));
    assert_eq!(project.read(".claude/skills/deploy/SKILL.md"), skill);
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");
}

// B07: generated bytes do not depend on the platform: sources checked out with CRLF (Windows
// autocrlf) give the same LF outputs, with `/` paths, as LF sources.
#[test]
fn b07_outputs_are_identical_for_crlf_sources_and_use_lf_and_slashes() {
    let rule = "---\nglobs: [\"src/api/**/*.ts\"]\n---\nValidate every request body.\n";
    let unix = project(r#"["claude", "cursor"]"#, "");
    unix.write(".ai-rulez/rules/api.md", rule);
    let windows = Project::empty();
    windows.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\r\nname = \"demo\"\r\npresets = [\"claude\", \"cursor\"]\r\n",
    );
    windows.write(".ai-rulez/rules/api.md", rule.replace('\n', "\r\n"));
    unix.run(&["generate"]).expect_code(0);
    windows.run(&["generate"]).expect_code(0);
    let unix_outputs = outputs(&unix);
    assert_eq!(unix_outputs, outputs(&windows));
    let paths: Vec<&str> = unix_outputs.iter().map(|(path, _)| path.as_str()).collect();
    assert!(paths.contains(&".claude/rules/api.md"), "{paths:?}");
    assert!(paths.contains(&".cursor/rules/api.mdc"), "{paths:?}");
    for (path, content) in &unix_outputs {
        assert!(!content.contains(&b'\r'), "{path} has CR");
        assert!(!content.contains(&b'\\'), "{path} has a backslash");
    }
    assert!(
        unix.read(".claude/rules/api.md")
            .contains("src/api/**/*.ts")
    );
    assert!(
        unix.read(".cursor/rules/api.mdc")
            .contains("globs: src/api/**/*.ts")
    );
}

// B08: the managed block is root-anchored, so nested source files named like outputs stay
// tracked; every written file (including Codex's .codex/config.toml) is listed.
#[test]
fn b08_gitignore_entries_are_root_anchored() {
    // An MCP server makes Codex write .codex/config.toml, the file the original report found
    // missing from the block; without a server Codex has no such output.
    let project = project(
        r#"["claude", "codex"]"#,
        "gitignore = true\n\n[[mcp_servers]]\nname = \"docs\"\ncommand = \"docs-mcp\"\n",
    );
    project.write(
        ".ai-rulez/context/AGENTS.md",
        "Architecture notes kept in source control.\n",
    );
    project.write(
        "docs/AGENTS.md",
        "Hand-written guidance for the docs folder.\n",
    );
    assert_eq!(git(&project, &["init", "-q", "."]), 0);
    let before = project.files();
    project.run(&["generate"]).expect_code(0);
    assert!(project.exists(".codex/config.toml"));
    let check_ignore = |path: &str| git(&project, &["check-ignore", "-q", path]);
    assert_eq!(check_ignore("AGENTS.md"), 0);
    assert_eq!(check_ignore(".ai-rulez/context/AGENTS.md"), 1);
    assert_eq!(check_ignore("docs/AGENTS.md"), 1);
    assert_eq!(check_ignore(".codex/config.toml"), 0);
    let mut entries = gitignore_block(&project.read(".gitignore"));
    // The one unanchored line: temporary files of an interrupted write, at any depth.
    assert_eq!(entries.remove(0), ".ai-rulez-*.tmp");
    for entry in &entries {
        assert!(entry.starts_with('/'), "unanchored entry {entry}");
    }
    let mut written: Vec<String> = project
        .files()
        .into_iter()
        .filter(|path| !before.contains(path) && path != ".gitignore")
        .map(|path| format!("/{path}"))
        .collect();
    // The journal exists only while a generate runs; it is listed so a crash never shows it.
    written.push("/.ai-rulez/.generated-manifest.pending.json".to_owned());
    // Machine-local state is never committed.
    written.push("/.ai-rulez/local/".to_owned());
    written.sort();
    assert_eq!(entries, written);
}

// B08 (same kind): an output whose name holds gitignore pattern characters is listed escaped,
// so the entry ignores that one file and not the user's files next to it.
#[test]
fn b08_gitignore_entries_match_only_their_own_path() {
    let project = project(r#"["claude"]"#, "gitignore = true\n");
    project.write(
        ".ai-rulez/rules/[draft].md",
        "---\npaths: [\"src/**\"]\n---\nDraft.\n",
    );
    project.write(
        ".ai-rulez/rules/notes*.md",
        "---\npaths: [\"src/**\"]\n---\nNotes.\n",
    );
    project.write(".claude/rules/d.md", "Hand-written.\n");
    project.write(".claude/rules/notes-old.md", "Hand-written.\n");
    assert_eq!(git(&project, &["init", "-q", "."]), 0);
    project.run(&["generate"]).expect_code(0);
    let check_ignore = |path: &str| git(&project, &["check-ignore", "-q", path]);
    assert_eq!(check_ignore(".claude/rules/[draft].md"), 0);
    assert_eq!(check_ignore(".claude/rules/notes*.md"), 0);
    assert_eq!(check_ignore(".claude/rules/d.md"), 1);
    assert_eq!(check_ignore(".claude/rules/notes-old.md"), 1);
}

// B10: clean deletes only what the manifest proves generated and unedited.
#[test]
fn b10_clean_never_deletes_hand_written_or_edited_files() {
    let hand_written = "# My notes\nDo not delete.\n";
    let project = project(r#"["cursor"]"#, "");
    project.write("CLAUDE.md", hand_written);
    project.write(
        ".ai-rulez/rules/a.md",
        "---\npriority: low\n---\nPrefer small functions.\n",
    );
    project.run(&["generate"]).expect_code(0);
    assert!(project.exists(".cursor/rules/a.mdc"));
    let manifest = project.read(".ai-rulez/.generated-manifest.json");
    assert!(!manifest.contains("CLAUDE.md"), "{manifest}");
    project.run(&["clean"]).expect_code(0);
    assert_eq!(project.read("CLAUDE.md"), hand_written);
    assert!(!project.exists(".cursor/rules/a.mdc"));

    // Scenario 2 as written: claude enabled next to the hand-written CLAUDE.md, which then holds
    // a managed section; a word edited inside that section keeps the whole file.
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"cursor\", \"claude\"]\n[rules]\nmode = \"inline\"\n",
    );
    project.run(&["generate"]).expect_code(0);
    let generated = project.read("CLAUDE.md");
    assert!(generated.starts_with(hand_written), "{generated}");
    let edited = generated.replace("Prefer small functions.", "Prefer tiny functions.");
    assert_ne!(edited, generated);
    project.write("CLAUDE.md", &edited);
    let clean = project.run(&["clean"]);
    clean.expect_code(0);
    assert_eq!(project.read("CLAUDE.md"), edited);
    assert!(
        clean
            .stderr()
            .contains("warning: CLAUDE.md: the ai-rulez section was edited by hand; kept"),
        "{}",
        clean.stderr()
    );

    // Scenario 2 with a CLAUDE.md that ai-rulez wrote whole: the edited file is kept and named.
    let fresh = project_with_claude_rule();
    fresh.run(&["generate"]).expect_code(0);
    let whole = fresh.read("CLAUDE.md");
    let edited = whole.replace("Prefer small functions.", "Prefer tiny functions.");
    assert_ne!(edited, whole);
    fresh.write("CLAUDE.md", &edited);
    let check = fresh.run(&["generate", "--check"]);
    check.expect_code(2);
    assert!(
        check.stdout().contains("edited: CLAUDE.md"),
        "{}",
        check.stdout()
    );
    let clean = fresh.run(&["clean"]);
    clean.expect_code(0);
    assert_eq!(fresh.read("CLAUDE.md"), edited);
    assert!(
        clean.stderr().contains(
            "warning: CLAUDE.md: edited by hand since ai-rulez wrote it; kept, and now yours to delete"
        ),
        "{}",
        clean.stderr()
    );
}

fn project_with_claude_rule() -> Project {
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    project.write(
        ".ai-rulez/rules/a.md",
        "---\npriority: low\n---\nPrefer small functions.\n",
    );
    project
}

// B11: Cursor's unquoted `globs: *.tsx` loads (no YAML alias error) and is written back in
// Cursor's documented form, which reads back to the same values.
#[test]
fn b11_unquoted_cursor_glob_loads_and_round_trips() {
    let project = project(r#"["cursor", "claude"]"#, "");
    project.write(
        ".ai-rulez/rules/react.md",
        "---\ndescription: React conventions\nglobs: *.tsx\nalwaysApply: false\n---\nUse function components.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let path = ".cursor/rules/react.mdc";
    let text = project.read(path);
    assert!(text.lines().any(|line| line == "globs: *.tsx"), "{text}");
    let reread = parse_generated(&project, path);
    assert_eq!(
        reread.values["description"],
        json!("React conventions"),
        "{text}"
    );
    assert_eq!(
        ai_rulez::testing::scope::split_globs(&reread.values["globs"]),
        Some(vec!["*.tsx".to_owned()])
    );
    assert_eq!(reread.values["alwaysApply"], json!(false));
    assert!(reread.body.contains("Use function components."));
    // Claude Code reads a slash-less pattern at the root only, so it gets ai-rulez's any-depth
    // meaning spelled out.
    let claude = parse_generated(&project, ".claude/rules/react.md");
    assert_eq!(claude.values["paths"], json!(["**/*.tsx"]));
    assert!(claude.body.contains("Use function components."));
}

// B11 (same kind): a bare `*` value copied from a source's frontmatter into a skill file would
// be a YAML alias for the assistant's strict parser, so it is written quoted.
#[test]
fn b11_copied_frontmatter_is_strict_yaml() {
    let project = project(r#"["claude"]"#, "");
    project.write(
        ".ai-rulez/skills/typed/SKILL.md",
        "---\ndescription: Typing help\npaths: *.ts\n---\nUse strict types.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let path = ".claude/skills/typed/SKILL.md";
    let text = project.read(path);
    assert!(text.lines().any(|line| line == "paths: \"*.ts\""), "{text}");
    let reread = parse_generated(&project, path);
    assert_eq!(
        Value::Object(reread.values.into_iter().collect()),
        json!({"name": "typed", "description": "Typing help", "paths": "*.ts"})
    );
}

// B12: a comma-separated glob string is several patterns; a brace glob is one.
#[test]
fn b12_comma_lists_split_but_brace_globs_stay_whole() {
    let project = project(r#"["claude", "copilot", "cursor"]"#, "");
    project.write(
        ".ai-rulez/rules/yaml.md",
        "---\nglobs: \"**/*.yml, **/*.yaml\"\n---\nIndent YAML with two spaces.\n",
    );
    project.write(
        ".ai-rulez/rules/ts.md",
        "---\nglobs: \"src/**/*.{ts,tsx}\"\n---\nPrefer type aliases.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let yaml = parse_generated(&project, ".claude/rules/yaml.md");
    assert_eq!(yaml.values["paths"], json!(["**/*.yml", "**/*.yaml"]));
    let ts = parse_generated(&project, ".claude/rules/ts.md");
    assert_eq!(ts.values["paths"], json!(["src/**/*.{ts,tsx}"]));
    // VS Code reads `.claude/rules`, so with claude enabled Copilot's own copy is left out
    // (B40); Copilot's format is checked with copilot alone.
    let alone = self::project(r#"["copilot"]"#, "");
    alone.write(
        ".ai-rulez/rules/yaml.md",
        "---\nglobs: \"**/*.yml, **/*.yaml\"\n---\nIndent YAML with two spaces.\n",
    );
    alone.run(&["generate"]).expect_code(0);
    let copilot = parse_generated(&alone, ".github/instructions/yaml.instructions.md");
    assert_eq!(copilot.values["applyTo"], json!("**/*.yml,**/*.yaml"));
    // The one selector (also behind `get_rules`) agrees with what was written.
    let yaml_globs =
        ai_rulez::testing::scope::split_globs(&json!("**/*.yml, **/*.yaml")).expect("globs");
    let ts_globs =
        ai_rulez::testing::scope::split_globs(&json!("src/**/*.{ts,tsx}")).expect("globs");
    let yaml_matcher = ai_rulez::testing::scope::matcher(&yaml_globs).expect("valid");
    let ts_matcher = ai_rulez::testing::scope::matcher(&ts_globs).expect("valid");
    assert!(yaml_matcher.is_match("config/app.yml") && !ts_matcher.is_match("config/app.yml"));
    assert!(ts_matcher.is_match("src/a.tsx") && !yaml_matcher.is_match("src/a.tsx"));
    assert!(!ts_matcher.is_match("src/a.js") && !yaml_matcher.is_match("src/a.js"));
}

// B15: an AGENTS.md over Codex's 32 KiB budget is named in a warning, and the critical rule
// comes first, well inside the budget.
#[test]
fn b15_codex_agents_md_over_budget_warns_and_keeps_critical_rules_first() {
    let project = project(r#"["codex"]"#, "");
    project.write(
        ".ai-rulez/rules/critical.md",
        "---\npriority: critical\n---\nNEVER push directly to main.\n",
    );
    project.write(
        ".ai-rulez/rules/big.md",
        format!("---\npriority: low\n---\n{}\n", "a".repeat(33_000)),
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    let agents = bytes(&project, "AGENTS.md");
    let warning = format!(
        "warning: AGENTS.md: {} bytes, over the 32768-byte budget OpenAI Codex reads; content past it is silently dropped, so move detail into skills or path-scoped rules\n",
        agents.len()
    );
    assert!(run.stderr().contains(&warning), "{}", run.stderr());
    let text = String::from_utf8(agents).expect("utf8");
    let offset = text
        .find("NEVER push directly to main.")
        .expect("critical rule");
    assert!(offset < 32_768, "{offset}");
    assert!(offset < text.find("aaaa").expect("big rule"));
}

// B16: Codex MCP tables carry no `type` key, dotted names are quoted, and the user's own
// settings in .codex/config.toml survive.
#[test]
fn b16_codex_mcp_tables_have_no_type_key_and_keep_user_settings() {
    let project = project(
        r#"["codex"]"#,
        concat!(
            "\n[[mcp_servers]]\nname = \"playwright\"\ntransport = \"stdio\"\ncommand = \"npx\"\n",
            "args = [\"-y\", \"@playwright/mcp@latest\"]\n",
            "\n[[mcp_servers]]\nname = \"ai.exa/exa\"\ntransport = \"http\"\nurl = \"https://mcp.exa.ai/mcp\"\n",
        ),
    );
    project.write(".codex/config.toml", "model = \"o3\"\n");
    project.run(&["generate"]).expect_code(0);
    let text = project.read(".codex/config.toml");
    let document: toml_edit::DocumentMut = text.parse().expect("valid TOML");
    assert_eq!(document["model"].as_str(), Some("o3"), "{text}");
    let servers = document["mcp_servers"]
        .as_table_like()
        .expect("mcp_servers");
    let playwright = servers
        .get("playwright")
        .and_then(|item| item.as_table_like())
        .expect("playwright");
    assert_eq!(
        playwright.get("command").and_then(|item| item.as_str()),
        Some("npx")
    );
    let args: Vec<&str> = playwright
        .get("args")
        .and_then(|item| item.as_array())
        .expect("args")
        .iter()
        .filter_map(|value| value.as_str())
        .collect();
    assert_eq!(args, ["-y", "@playwright/mcp@latest"]);
    assert!(text.contains("[mcp_servers.\"ai.exa/exa\"]"), "{text}");
    let exa = servers
        .get("ai.exa/exa")
        .and_then(|item| item.as_table_like())
        .expect("exa");
    assert_eq!(
        exa.get("url").and_then(|item| item.as_str()),
        Some("https://mcp.exa.ai/mcp")
    );
    for (name, server) in servers.iter() {
        let table = server.as_table_like().expect("table");
        assert!(table.get("type").is_none(), "{name} has a type key: {text}");
    }
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.read(".codex/config.toml"), text);
}

// B18: a Windsurf rule file over 12,000 characters is named in a warning with its character
// count and the limit; characters are counted, not bytes.
#[test]
fn b18_windsurf_rule_over_12000_characters_warns() {
    let project = project(r#"["windsurf"]"#, "");
    project.write(
        ".ai-rulez/rules/huge.md",
        format!("---\npriority: medium\n---\n{}\n", "x".repeat(13_000)),
    );
    // 11,000 two-byte characters: over 12,000 bytes but under 12,000 characters.
    project.write(
        ".ai-rulez/rules/accents.md",
        format!("---\npriority: medium\n---\n{}\n", "é".repeat(11_000)),
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    let path = ".windsurf/rules/huge.md";
    let characters = project.read(path).chars().count();
    assert!(characters > 12_000);
    let warning = format!(
        "warning: {path}: {characters} characters, over the 12000-character limit per rule file; the assistant ignores the rest, so split the rule\n"
    );
    assert!(run.stderr().contains(&warning), "{}", run.stderr());
    assert!(project.read(".windsurf/rules/accents.md").len() > 12_000);
    assert!(!run.stderr().contains("accents"), "{}", run.stderr());
}

// B19: a marker-less hand-written CLAUDE.md keeps its text; ai-rulez adds its part in a managed
// section (outcome A), idempotently.
#[test]
fn b19_hand_written_claude_md_keeps_its_text() {
    // Inline mode puts the always-on rule into CLAUDE.md itself (split mode would write it to
    // .claude/rules/style.md instead).
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    let hand_written = "# Team notes\nRun `make test` before pushing.\n";
    project.write("CLAUDE.md", hand_written);
    project.write(
        ".ai-rulez/rules/style.md",
        "---\npriority: high\n---\nUse 4-space indentation.\n",
    );
    project.run(&["generate"]).expect_code(0);
    let text = project.read("CLAUDE.md");
    assert!(text.starts_with(hand_written), "{text}");
    assert_eq!(count(&text, "# Team notes\n"), 1, "{text}");
    assert_eq!(
        count(&text, "Run `make test` before pushing.\n"),
        1,
        "{text}"
    );
    assert_eq!(count(&text, "Use 4-space indentation."), 1, "{text}");
    let begin = text.find("<!-- BEGIN ai-rulez").expect("begin marker");
    let end = text.find("<!-- END ai-rulez -->").expect("end marker");
    let rule = text.find("Use 4-space indentation.").expect("rule");
    assert!(begin < rule && rule < end, "{text}");
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.read("CLAUDE.md"), text);
}

// B21: only a `---` on line 1 opens frontmatter, and only the next `---` line closes it.
#[test]
fn b21_dashes_in_values_and_body_rules_are_not_fences() {
    // Inline mode puts both always-on rules into CLAUDE.md itself.
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    let hr = "---\ndescription: Uses a rule---like dash\npriority: high\n---\nFirst part.\n\n---\n\nSecond part.\n";
    let nofm = "# Heading\n\n---\n\nkey: value looking text\n";
    project.write(".ai-rulez/rules/hr.md", hr);
    project.write(".ai-rulez/rules/nofm.md", nofm);
    let parsed = frontmatter::parse("hr.md", hr.as_bytes()).expect("parses");
    assert_eq!(
        Value::Object(parsed.values.into_iter().collect()),
        json!({"description": "Uses a rule---like dash", "priority": "high"})
    );
    assert_eq!(parsed.body, "First part.\n\n---\n\nSecond part.\n");
    let parsed = frontmatter::parse("nofm.md", nofm.as_bytes()).expect("parses");
    assert!(parsed.yaml.is_none() && parsed.values.is_empty());
    assert_eq!(parsed.body, nofm);
    project.run(&["generate"]).expect_code(0);
    let claude = project.read("CLAUDE.md");
    assert!(
        claude.contains("First part.\n\n---\n\nSecond part.\n"),
        "{claude}"
    );
    assert!(
        claude.contains("### Heading\n\n---\n\nkey: value looking text\n"),
        "{claude}"
    );
}

// B23: CRLF fences are fences; the outputs carry the body without `\r` or frontmatter text.
#[test]
fn b23_crlf_frontmatter_is_recognised() {
    // Inline mode puts the always-on rule into CLAUDE.md itself.
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    let source = "---\r\npriority: high\r\ndescription: CRLF rule\r\n---\r\n\r\nBody line.\r\n";
    project.write(".ai-rulez/rules/crlf.md", source);
    let parsed = frontmatter::parse("crlf.md", source.as_bytes()).expect("parses");
    assert_eq!(
        Value::Object(parsed.values.into_iter().collect()),
        json!({"priority": "high", "description": "CRLF rule"})
    );
    assert_eq!(parsed.body.trim(), "Body line.");
    project.run(&["generate"]).expect_code(0);
    let claude = project.read("CLAUDE.md");
    assert!(claude.contains("Body line."), "{claude}");
    assert!(!claude.contains("priority:"), "{claude}");
    assert!(!claude.contains('\r'), "{claude:?}");
    assert!(!claude.contains("\n---"), "{claude}");
}

// B24: empty and comment-only frontmatter give default metadata; a frontmatter-only file
// without a final newline is metadata with an empty body, never body text.
#[test]
fn b24_empty_comment_only_and_frontmatter_only_files() {
    // Inline mode puts the always-on rules into CLAUDE.md itself.
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    project.write(".ai-rulez/rules/empty.md", "---\n---\n\nJust a body.\n");
    project.write(
        ".ai-rulez/rules/comment.md",
        "---\n# only a comment\n---\nComment-only metadata.\n",
    );
    project.write(".ai-rulez/rules/only.md", "---\npriority: low\n---");
    let parsed = frontmatter::parse("only.md", b"---\npriority: low\n---").expect("parses");
    assert_eq!(parsed.values["priority"], json!("low"));
    assert_eq!(parsed.body, "");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(!run.stderr().contains("panicked"), "{}", run.stderr());
    let claude = project.read("CLAUDE.md");
    assert!(claude.contains("Just a body."), "{claude}");
    assert!(claude.contains("Comment-only metadata."), "{claude}");
    assert!(!claude.contains("priority: low"), "{claude}");
    assert!(!claude.contains("only a comment"), "{claude}");
    assert!(!claude.contains("---"), "{claude}");

    // In a rules-folder preset the empty-body rule is skipped with a warning.
    let split = project_in_split_mode();
    let run = split.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains(
            "warning: .ai-rulez/rules/only.md: empty body; no Claude Code file is written\n"
        ),
        "{}",
        run.stderr()
    );
    assert!(!split.exists(".claude/rules/only.md"));
    let empty = split.read(".claude/rules/empty.md");
    let after_banner = empty.split_once('\n').map(|(_, rest)| rest);
    assert_eq!(after_banner, Some("Just a body.\n"), "{empty}");
}

fn project_in_split_mode() -> Project {
    let project = project(r#"["claude"]"#, "");
    project.write(".ai-rulez/rules/empty.md", "---\n---\n\nJust a body.\n");
    project.write(".ai-rulez/rules/only.md", "---\npriority: low\n---");
    project
}

// B34: a rule file with invalid UTF-8 is an error naming the file and line, without a panic,
// and nothing is written.
#[test]
fn b34_invalid_utf8_rule_is_a_located_error_and_nothing_is_written() {
    let project = project(r#"["claude"]"#, "");
    project.write(
        ".ai-rulez/rules/latin1.md",
        b"---\npriority: low\n---\nCaf\xe9 rules\n",
    );
    project.write(
        ".ai-rulez/rules/ok.md",
        "---\npriority: low\n---\nValid rule.\n",
    );
    let before = project.files();
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .ai-rulez/rules/latin1.md:4: not valid UTF-8 (byte 0xE9 at column 4); save the file as UTF-8\n"
    );
    assert_eq!(project.files(), before);
}

// B34 (same kind): bad bytes in the config are located the same way, and a Latin-1 .gitignore
// is never rewritten with replacement characters (left alone when its block needs no change).
#[test]
fn b34_invalid_utf8_in_config_or_gitignore_is_never_read_lossily() {
    let bad_config = Project::empty();
    bad_config.write(
        ".ai-rulez/config.toml",
        b"version = \"5.0\"\nname = \"Caf\xe9\"\npresets = [\"claude\"]\n",
    );
    let run = bad_config.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .ai-rulez/config.toml:2: not valid UTF-8 (byte 0xE9 at column 12); save the file as UTF-8\n"
    );

    let latin1: &[u8] = b"node_modules/\n# caf\xe9\n";
    let unmanaged = project_with_claude_rule();
    unmanaged.write(".gitignore", latin1);
    unmanaged.run(&["generate"]).expect_code(0);
    assert_eq!(bytes(&unmanaged, ".gitignore"), latin1);

    let managed = project(r#"["claude"]"#, "gitignore = true\n");
    managed.write(".ai-rulez/rules/a.md", "Prefer small functions.\n");
    managed.write(".gitignore", latin1);
    let before = managed.files();
    let run = managed.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .gitignore:2: not valid UTF-8 (byte 0xE9 at column 6); save the file as UTF-8\n"
    );
    assert_eq!(bytes(&managed, ".gitignore"), latin1);
    assert_eq!(managed.files(), before);
}

// B10, the whole kind: a hand-written file that got a managed section is given back byte for
// byte when the section goes, whether its text ended in a new line or not, across a later
// generate that rewrote the section.
#[test]
fn b10_clean_gives_a_hand_written_file_back_byte_for_byte() {
    for hand_written in [
        "# Mine\n\nno final new line",
        "# Mine\n\nends in a new line\n",
        "# Mine\n\nends in a blank line\n\n",
        "# Mine\r\n\r\nCRLF, no final new line",
        "# Mine\r\n\r\nCRLF, ends in a new line\r\n",
        "# Mine\r\nends in a lone CR\r",
        "# Mine\nmixed\r\nline ends\n",
    ] {
        let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
        project.write("CLAUDE.md", hand_written);
        project.write(".ai-rulez/rules/a.md", "# A\n\nDo a.\n");
        project.run(&["generate"]).expect_code(0);
        assert_ne!(project.read("CLAUDE.md"), hand_written);
        project.write(".ai-rulez/rules/a.md", "# A\n\nDo b.\n");
        project.run(&["generate"]).expect_code(0);
        assert!(project.read("CLAUDE.md").contains("Do b."));
        project.run(&["clean"]).expect_code(0);
        assert_eq!(project.read("CLAUDE.md"), hand_written);
    }
}

/// A CRLF file (a Windows checkout with `core.autocrlf`) keeps its line ends: the text around
/// the managed section is never rewritten, and the section itself is written with CRLF too, so
/// the file has no bare LF and a second `generate` has nothing to do.
#[test]
fn b10_a_crlf_file_keeps_its_line_ends_when_the_section_is_added_and_updated() {
    let hand_written = "# Mine\r\n\r\nKeep this.\r\n";
    let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
    project.write("CLAUDE.md", hand_written);
    project.write(".ai-rulez/rules/a.md", "# A\n\nDo a.\n");
    project.run(&["generate"]).expect_code(0);
    project.write(".ai-rulez/rules/a.md", "# A\n\nDo b.\n");
    project.run(&["generate"]).expect_code(0);
    let written = project.read("CLAUDE.md");
    assert!(written.starts_with(hand_written), "{written:?}");
    assert!(written.contains("Do b.\r\n"), "{written:?}");
    let bare_line_feeds = written
        .match_indices('\n')
        .filter(|(index, _)| !written[..*index].ends_with('\r'))
        .count();
    assert_eq!(bare_line_feeds, 0, "{written:?}");
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
}

/// The text before a section written with LF was later turned into CRLF (by hand or by git):
/// `clean` still takes off exactly the line ends generate added and gives the text back as it
/// is now, with no stray CR.
#[test]
fn b10_clean_after_the_text_around_an_lf_section_became_crlf() {
    for (hand_written, converted) in [
        ("# Mine\nx\n", "# Mine\r\nx\r\n"),
        ("# Mine\nx", "# Mine\r\nx"),
    ] {
        let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
        project.write("CLAUDE.md", hand_written);
        project.write(".ai-rulez/rules/a.md", "# A\n\nDo a.\n");
        project.run(&["generate"]).expect_code(0);
        let written = project.read("CLAUDE.md");
        let begin = written.find("<!-- BEGIN").expect("section");
        let text = written[..begin].replace('\n', "\r\n");
        project.write("CLAUDE.md", format!("{text}{}", &written[begin..]));
        project.run(&["generate", "--check"]).expect_code(0);
        project.run(&["clean"]).expect_code(0);
        assert_eq!(project.read("CLAUDE.md"), converted);
    }
}

/// A source that keeps a CR before a line end (`\r\r\n` in a rule, whose CRLF the loader turns
/// into LF, or a config value ending in `\r`) renders without it: the section, and a file
/// ai-rulez writes whole, stay unchanged on the next run instead of looking edited forever.
#[test]
fn b63_a_return_kept_in_a_source_never_makes_an_output_look_edited() {
    for hand_written in [Some("# Mine\n"), None] {
        let project = project(r#"["claude"]"#, "[rules]\nmode = \"inline\"\n");
        project.write(
            ".ai-rulez/config.toml",
            "version = \"5.0\"\nname = \"demo\\r\"\npresets = [\"claude\"]\n[rules]\nmode = \"inline\"\n",
        );
        if let Some(text) = hand_written {
            project.write("CLAUDE.md", text);
        }
        project.write(".ai-rulez/rules/style.md", "x\r\r\ny\n");
        project.run(&["generate"]).expect_code(0);
        assert!(
            !project.read("CLAUDE.md").contains("\r\n"),
            "{:?}",
            project.read("CLAUDE.md")
        );
        let again = project.run(&["generate"]);
        again.expect_code(0);
        assert!(
            again.stderr().starts_with("0 written"),
            "{}",
            again.stderr()
        );
        project.run(&["generate", "--check"]).expect_code(0);
        project.run(&["lock"]).expect_code(0);
        project.run(&["lock", "--check"]).expect_code(0);
    }
}

/// A skill resource with CRLF line ends (written on Windows) is copied byte for byte and then
/// stays unchanged: the copy on disk is compared with its source with LF line ends on both
/// sides, not with the CRLF bytes as planned.
#[test]
fn b63_a_crlf_skill_resource_is_not_stale_after_it_was_copied() {
    let project = project(r#"["claude"]"#, "");
    project.write(
        ".ai-rulez/skills/s1/SKILL.md",
        "---\nname: s1\ndescription: does s1\n---\nBody\r\n",
    );
    project.write(
        ".ai-rulez/skills/s1/references/notes.md",
        "note\r\nline\r\n",
    );
    project.run(&["generate"]).expect_code(0);
    assert_eq!(
        bytes(&project, ".claude/skills/s1/references/notes.md"),
        b"note\r\nline\r\n"
    );
    let again = project.run(&["generate"]);
    again.expect_code(0);
    assert_eq!(again.stderr(), "0 written, 4 unchanged, 0 removed\n");
    project.run(&["generate", "--check"]).expect_code(0);
}
