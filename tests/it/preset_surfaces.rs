//! Issue 13, "the missing surfaces of existing presets": MCP settings for Kiro, Zed, Amp, Junie,
//! Devin and Antigravity, Gemini CLI custom commands and Codex custom agents. Each test runs the
//! real binary and asserts the exact files, including a settings file the user also edits.

use crate::support::Project;

/// A git project whose `.ai-rulez/config.toml` enables `presets` (TOML array text) followed by
/// `extra` config lines.
fn project(presets: &str, extra: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("version = \"5.0\"\nname = \"demo\"\npresets = {presets}\n{extra}"),
    );
    project
}

/// The lines of `text` starting with `warning: `, in order.
fn warnings(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|line| line.starts_with("warning: "))
        .collect()
}

const SERVERS: &str = "\n[[mcp_servers]]\nname = \"docs\"\ncommand = \"docs-mcp\"\n\n\
     [[mcp_servers]]\nname = \"tracker\"\ntransport = \"http\"\nurl = \"https://tracker.example.com/mcp\"\n";

#[test]
fn zed_servers_are_merged_into_the_users_settings_and_removed_again_by_clean() {
    let project = project(r#"["zed"]"#, SERVERS);
    let user = "// Project settings\n{\n  \"tab_size\": 2,\n  \"context_servers\": {\n    \"mine\": { \"command\": \"my-mcp\", \"args\": [] }\n  }\n}\n";
    project.write(".zed/settings.json", user);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(warnings(&run.stderr()), Vec::<&str>::new());
    assert_eq!(
        project.read(".zed/settings.json"),
        "// Project settings\n{\n  \"tab_size\": 2,\n  \"context_servers\": {\n    \"mine\": { \"command\": \"my-mcp\", \"args\": [] },\n    \"docs\": {\n      \"source\": \"custom\",\n      \"command\": \"docs-mcp\",\n      \"args\": []\n    },\n    \"tracker\": {\n      \"url\": \"https://tracker.example.com/mcp\"\n    }\n  }\n}\n"
    );
    // The file holds the user's settings too, so it is not git-ignored.
    assert!(
        !project.exists(".gitignore") || !project.read(".gitignore").contains(".zed/settings.json")
    );
    project.run(&["generate", "--check"]).expect_code(0);
    assert_eq!(project.run(&["generate"]).expect_code(0).stdout(), "");
    project.run(&["clean"]).expect_code(0);
    assert_eq!(project.read(".zed/settings.json"), user);
}

#[test]
fn a_zed_server_the_user_wrote_under_our_name_is_never_overwritten() {
    let project = project(r#"["zed"]"#, SERVERS);
    let user = "{\n  \"context_servers\": {\n    \"docs\": { \"command\": \"their-docs\", \"args\": [] }\n  }\n}\n";
    project.write(".zed/settings.json", user);
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert!(
        run.stderr()
            .contains("context_servers.docs not written by ai-rulez"),
        "{}",
        run.stderr()
    );
    assert_eq!(project.read(".zed/settings.json"), user);
}

#[test]
fn kiro_amp_devin_and_antigravity_get_their_own_settings_files() {
    let project = project(r#"["kiro", "amp", "devin", "antigravity"]"#, SERVERS);
    project.write(
        ".amp/settings.json",
        "{\n  \"amp.dangerouslyAllowAll\": false\n}\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        project.read(".kiro/settings/mcp.json"),
        "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    },\n    \"tracker\": {\n      \"url\": \"https://tracker.example.com/mcp\"\n    }\n  }\n}\n"
    );
    assert_eq!(
        project.read(".amp/settings.json"),
        "{\n  \"amp.dangerouslyAllowAll\": false,\n  \"amp.mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    },\n    \"tracker\": {\n      \"url\": \"https://tracker.example.com/mcp\"\n    }\n  }\n}\n"
    );
    assert_eq!(
        project.read(".devin/config.json"),
        "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    },\n    \"tracker\": {\n      \"url\": \"https://tracker.example.com/mcp\",\n      \"transport\": \"http\"\n    }\n  }\n}\n"
    );
    assert_eq!(
        project.read(".agents/mcp_config.json"),
        "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    },\n    \"tracker\": {\n      \"serverUrl\": \"https://tracker.example.com/mcp\"\n    }\n  }\n}\n"
    );
    project.run(&["generate", "--check"]).expect_code(0);
    project.run(&["lock"]).expect_code(0);
    project.run(&["lock", "--check"]).expect_code(0);
}

#[test]
fn junie_gets_stdio_servers_and_a_warning_for_each_remote_one() {
    let project = project(r#"["junie"]"#, SERVERS);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        warnings(&run.stderr()),
        [
            "warning: junie: MCP server `tracker` is left out of .junie/mcp/mcp.json: JetBrains Junie has no http transport (the other assistants still get it)"
        ]
    );
    assert_eq!(
        project.read(".junie/mcp/mcp.json"),
        "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"command\": \"docs-mcp\"\n    }\n  }\n}\n"
    );
}

#[test]
fn gemini_commands_and_codex_agents_are_toml_files() {
    let project = project(r#"["gemini", "codex"]"#, "");
    project.write(
        ".ai-rulez/commands/review.md",
        "---\ndescription: Review a change\nargument-hint: \"[file]\"\n---\nReview $ARGUMENTS with \"care\" \\ detail.\nCompare $1 and $2.\n",
    );
    project.write(
        ".ai-rulez/agents/scribe.md",
        "---\nname: scribe\ndescription: Writes docs\ntools: Read, Grep\nmodel: sonnet\nmodel_reasoning_effort: high\n---\nYou write docs.\n\nKeep them short.\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        project.read(".gemini/commands/review.toml"),
        "# Generated by ai-rulez from .ai-rulez/commands/review.md; edit the source and run `ai-rulez generate`.\ndescription = \"Review a change\"\nprompt = '''\nReview {{args}} with \"care\" \\ detail.\nCompare $1 and $2.\n'''\n"
    );
    assert_eq!(
        project.read(".codex/agents/scribe.toml"),
        "# Generated by ai-rulez from .ai-rulez/agents/scribe.md; edit the source and run `ai-rulez generate`.\nname = \"scribe\"\ndescription = \"Writes docs\"\ndeveloper_instructions = \"\"\"\nYou write docs.\n\nKeep them short.\n\"\"\"\nmodel_reasoning_effort = \"high\"\n"
    );
    assert_eq!(
        warnings(&run.stderr()),
        [
            "warning: gemini: agent and command fields Gemini CLI has no equivalent for are left out: review (positional arguments ($1, $2, ...): Gemini CLI passes the whole argument text as {{args}}, argument-hint)",
            "warning: codex: agent and command fields OpenAI Codex has no equivalent for are left out: scribe (tools, model sonnet)",
        ]
    );
    // What TOML reads back is the body, `$ARGUMENTS` translated.
    let parsed: toml_edit::DocumentMut = project
        .read(".gemini/commands/review.toml")
        .parse()
        .expect("valid TOML");
    assert_eq!(
        parsed["prompt"].as_str(),
        Some("Review {{args}} with \"care\" \\ detail.\nCompare $1 and $2.\n")
    );
    project.run(&["generate", "--check"]).expect_code(0);
    assert_eq!(project.run(&["generate"]).expect_code(0).stdout(), "");
}

#[test]
fn a_hand_written_codex_agent_is_never_overwritten() {
    let project = project(r#"["codex"]"#, "");
    project.write(
        ".ai-rulez/agents/scribe.md",
        "---\ndescription: Writes docs\n---\nYou write docs.\n",
    );
    let mine = "name = \"scribe\"\ndescription = \"mine\"\ndeveloper_instructions = \"mine\"\n";
    project.write(".codex/agents/scribe.toml", mine);
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(project.read(".codex/agents/scribe.toml"), mine);
}

/// A codex + cursor project with `nested_agents_md = true`, a rule under `services/api/`, one
/// spanning two services and an always-on rule.
fn nested_project(presets: &str) -> Project {
    let project = project(presets, "nested_agents_md = true\n");
    project.write(
        ".ai-rulez/rules/api.md",
        "---\npaths: [\"services/api/**\"]\n---\n# API handlers\n\nReturn typed errors.\n",
    );
    project.write(
        ".ai-rulez/rules/services.md",
        "---\npaths: [\"services/api/**/*.sql\", \"services/web/**\"]\n---\n# Services\n\nNo raw SQL.\n",
    );
    project.write(".ai-rulez/rules/style.md", "# Style\n\nUse rustfmt.\n");
    project
}

/// `path`'s text after its banner line.
fn after_banner(project: &Project, path: &str) -> String {
    let text = project.read(path);
    let (banner, rest) = text.split_once('\n').expect("a banner line");
    assert!(banner.starts_with("<!-- Generated by ai-rulez"), "{banner}");
    rest.to_owned()
}

#[test]
fn nested_agents_md_puts_folder_scoped_rules_next_to_the_code() {
    let project = nested_project(r#"["codex", "cursor"]"#);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout(),
        "create: .ai-rulez/.generated-manifest.json\ncreate: AGENTS.md\ncreate: services/AGENTS.md\ncreate: services/api/AGENTS.md\n"
    );
    assert_eq!(
        after_banner(&project, "AGENTS.md"),
        "# demo\n\n## Rules\n\n### Style\n\nUse rustfmt.\n"
    );
    assert_eq!(
        after_banner(&project, "services/AGENTS.md"),
        "# demo: services/\n\n## Rules\n\n### Services\n\n_Applies to: `services/api/**/*.sql`, `services/web/**`_\n\nNo raw SQL.\n"
    );
    assert_eq!(
        after_banner(&project, "services/api/AGENTS.md"),
        "# demo: services/api/\n\n## Rules\n\n### API handlers\n\n_Applies to: `services/api/**`_\n\nReturn typed errors.\n"
    );
    project.run(&["generate", "--check"]).expect_code(0);
    project.run(&["lock"]).expect_code(0);
    project.run(&["lock", "--check"]).expect_code(0);
    // Turning it off moves the rules back and removes the nested files ai-rulez wrote.
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"codex\", \"cursor\"]\n",
    );
    let off = project.run(&["generate"]);
    off.expect_code(0);
    assert!(!project.exists("services/api/AGENTS.md"));
    assert!(!project.exists("services/AGENTS.md"));
    assert!(project.read("AGENTS.md").contains("Return typed errors."));
}

#[test]
fn nested_agents_md_stays_off_while_an_assistant_reads_only_the_root_file() {
    let project = nested_project(r#"["codex", "copilot"]"#);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        warnings(&run.stderr())[0],
        "warning: nested_agents_md is set, but copilot reads only the root AGENTS.md, so folder-scoped rules stay there; disable that preset to get nested AGENTS.md files"
    );
    assert!(!project.exists("services/api/AGENTS.md"));
    assert!(project.read("AGENTS.md").contains("Return typed errors."));
}

#[test]
fn a_hand_written_nested_agents_md_is_never_overwritten() {
    let project = nested_project(r#"["codex"]"#);
    let mine = "# API notes\n\nOurs.\n";
    project.write("services/api/AGENTS.md", mine);
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert!(
        run.stderr().contains("services/api/AGENTS.md"),
        "{}",
        run.stderr()
    );
    assert_eq!(project.read("services/api/AGENTS.md"), mine);
}
