//! What the assistants' own CLIs showed when they loaded the generated files (compat/,
//! 2026-12-01), pinned here so it holds without them: a server name Codex never starts, the one
//! skill Gemini CLI finds twice, and Copilot CLI's own MCP file.

use crate::support::Project;

const MY_SERVER: &str = "[[mcp_servers]]\nname = \"my server\"\ncommand = \"python3\"\nargs = [\"probe.py\"]\n\n[[mcp_servers]]\nname = \"ai.exa/exa\"\ntransport = \"http\"\nurl = \"https://mcp.exa.ai/mcp\"\n";

fn project(presets: &str, extra: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("version = \"5.0\"\nname = \"x\"\npresets = {presets}\n\n{extra}"),
    );
    project
}

#[test]
fn validate_warns_about_a_server_name_codex_never_starts() {
    let project = project(r#"["claude"]"#, MY_SERVER);
    let run = project.run(&["validate"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout(),
        ".ai-rulez/config.toml:5: AR603 MCP server name `my server` is not portable: Codex lists it but never starts it, so `generate` leaves it out of .codex/config.toml; rename it to 1 to 64 ASCII letters, digits, `_`, `-`, `.`, `/` and `@`\n"
    );
}

#[test]
fn generate_leaves_a_server_name_codex_never_starts_out_of_codex_only() {
    let project = project(r#"["codex", "claude"]"#, MY_SERVER);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains("warning: codex: MCP server `my server` is left out of .codex/config.toml: OpenAI Codex lists a server with that name but never starts it (the other assistants still get it); rename it to ASCII letters, digits, `_`, `-`, `.`, `/` and `@` only\n"),
        "{}",
        run.stderr()
    );
    assert_eq!(
        project.read(".codex/config.toml"),
        "[mcp_servers.\"ai.exa/exa\"]\nurl = \"https://mcp.exa.ai/mcp\"\n"
    );
    let claude: serde_json::Value = serde_json::from_str(&project.read(".mcp.json")).unwrap();
    let names: Vec<&String> = claude["mcpServers"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["my server", "ai.exa/exa"]);
}

const SKILL: &str = "---\nname: reviewer\ndescription: Review a change.\n---\nRead the diff.\n";

#[test]
fn gemini_reads_codex_skills_folder_so_writes_no_second_copy() {
    let both = project(r#"["codex", "gemini"]"#, "");
    both.write(".ai-rulez/skills/reviewer/SKILL.md", SKILL);
    both.write(
        ".ai-rulez/skills/gemini-only/SKILL.md",
        "---\nname: gemini-only\ndescription: Only for Gemini.\ntargets: [gemini]\n---\nBody.\n",
    );
    let run = both.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains("warning: gemini: skills are left out of .gemini/skills because Gemini CLI reads them in .agents/skills, which the codex preset writes: reviewer\n"),
        "{}",
        run.stderr()
    );
    assert!(both.exists(".agents/skills/reviewer/SKILL.md"));
    assert!(!both.exists(".gemini/skills/reviewer/SKILL.md"));
    // A skill only Gemini gets is not in Codex's folder, so Gemini keeps its own copy.
    assert!(both.exists(".gemini/skills/gemini-only/SKILL.md"));
    assert!(!both.exists(".agents/skills/gemini-only/SKILL.md"));

    let alone = project(r#"["gemini"]"#, "");
    alone.write(".ai-rulez/skills/reviewer/SKILL.md", SKILL);
    alone.run(&["generate"]).expect_code(0);
    assert!(alone.exists(".gemini/skills/reviewer/SKILL.md"));
}

#[test]
fn copilot_alone_gives_copilot_cli_its_github_mcp_json() {
    let project = project(
        r#"["copilot"]"#,
        "[[mcp_servers]]\nname = \"docs\"\ncommand = \"npx\"\nargs = [\"-y\", \"docs-mcp@1.0.0\"]\nenv = { TOKEN = \"${DOCS_TOKEN}\" }\n",
    );
    project.run(&["generate"]).expect_code(0);
    assert_eq!(
        project.read(".github/mcp.json"),
        "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"type\": \"stdio\",\n      \"command\": \"npx\",\n      \"args\": [\"-y\", \"docs-mcp@1.0.0\"],\n      \"env\": {\n        \"TOKEN\": \"${DOCS_TOKEN}\"\n      }\n    }\n  }\n}\n"
    );
    assert!(
        project
            .read(".vscode/mcp.json")
            .contains("${env:DOCS_TOKEN}")
    );
    project.run(&["generate", "--check"]).expect_code(0);
    project.run(&["clean"]).expect_code(0);
    assert!(!project.exists(".github/mcp.json"));
}
