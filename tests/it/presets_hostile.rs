//! The new preset surfaces on hostile and careless input: nested `AGENTS.md` folders that are
//! files (on disk or in the plan), and assistants' JSON settings holding a key twice. Each case
//! asserts the exact error and that nothing was written; several files in the way get a line each.

use crate::support::Project;

fn nested_project(rule_paths: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"codex\", \"claude\"]\nnested_agents_md = true\n",
    );
    project.write(
        ".ai-rulez/rules/scoped.md",
        format!("---\npaths: [{rule_paths}]\n---\n# Scoped\n\nScoped text.\n"),
    );
    project.write(".ai-rulez/rules/style.md", "# Style\n\nUse rustfmt.\n");
    project
}

#[test]
fn a_nested_agents_md_under_a_file_on_disk_is_refused_before_anything_is_written() {
    let project = nested_project("\"docs/**\"");
    project.write("docs", "A file called docs, not a folder.\n");
    let before = project.states();
    let expected = "error: docs/AGENTS.md: docs is a file where this output needs a folder; nothing was written. Move docs away, or change what puts an output under it\n";
    for args in [&["generate", "--dry-run"][..], &["generate"]] {
        let run = project.run(args);
        run.expect_code(1);
        assert_eq!(run.stderr(), expected, "{args:?}");
        assert_eq!(project.states(), before, "{args:?}");
    }
}

#[test]
fn a_nested_agents_md_inside_another_output_is_refused_before_anything_is_written() {
    let project = nested_project("\"AGENTS.md/**\"");
    let before = project.states();
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: AGENTS.md/AGENTS.md: would lie inside the output AGENTS.md, which is a file; nothing was written. Change what puts a file here (a rule whose `paths` all lie under one folder gets that folder's AGENTS.md with nested_agents_md)\n"
    );
    assert_eq!(project.states(), before);
}

#[test]
fn a_settings_file_holding_the_servers_key_or_a_server_twice_is_refused_not_half_merged() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"zed\"]\n\n[[mcp_servers]]\nname = \"docs\"\ncommand = \"docs-mcp\"\n",
    );
    let cases = [
        (
            "{\"context_servers\": {\"mine\": {\"command\": \"m\", \"args\": []}},\n \"context_servers\": {}}\n",
            "error: .zed/settings.json: invalid JSON document: the key `context_servers` appears 2 times in the top level, and the assistant reads only one of them; merge them into one; fix or move the file; ai-rulez never overwrites a file it cannot parse\n",
        ),
        (
            "{\"context_servers\": {\"docs\": {\"command\": \"a\"}, \"docs\": {\"command\": \"b\"}}}\n",
            "error: .zed/settings.json: invalid JSON document: the key `docs` appears 2 times in `context_servers`, and the assistant reads only one of them; merge them into one; fix or move the file; ai-rulez never overwrites a file it cannot parse\n",
        ),
    ];
    for (settings, expected) in cases {
        project.write(".zed/settings.json", settings);
        let before = project.states();
        let run = project.run(&["generate"]);
        run.expect_code(1);
        assert_eq!(run.stderr(), expected);
        assert_eq!(project.states(), before);
    }
}

#[test]
fn several_files_in_the_way_get_a_line_each_and_nothing_is_written() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\"]\n",
    );
    project.write(".ai-rulez/rules/style.md", "# Style\n\nUse rustfmt.\n");
    project.write(".ai-rulez/rules/tests.md", "# Tests\n\nTest it.\n");
    project.write(".claude/rules/style.md", "mine\n");
    project.write(".claude/rules/tests.md", "also mine\n");
    let before = project.states();
    let run = project.run(&["generate"]);
    run.expect_code(1);
    let reason = |path: &str| {
        format!(
            "  {path}: exists and was not written by ai-rulez; to keep it, move it away (or its text into .ai-rulez/); to replace it, run `ai-rulez generate --force`, which saves it as {path}.orig first\n"
        )
    };
    let heading = format!(
        "error: 2 files are in the way:\n{}{}nothing was written. What `generate` would change in the files it did not write:\n--- a/.claude/rules/style.md\n",
        reason(".claude/rules/style.md"),
        reason(".claude/rules/tests.md"),
    );
    assert!(run.stderr().starts_with(&heading), "{}", run.stderr());
    assert!(
        run.stderr().contains("\n--- a/.claude/rules/tests.md\n"),
        "{}",
        run.stderr()
    );
    assert_eq!(project.states(), before);
}

#[test]
fn an_output_name_too_long_for_file_systems_is_refused_before_anything_is_written() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\", \"cursor\"]\n",
    );
    // 252 bytes of id: `.md` fits in 255, Cursor's `.mdc` does not.
    let id = "l".repeat(252);
    project.write(&format!(".ai-rulez/rules/{id}.md"), "# Long\n\nLong.\n");
    project.write(".ai-rulez/rules/short.md", "# Short\n\nShort.\n");
    let before = project.states();
    let expected = format!(
        "error: .cursor/rules/{id}.mdc: the name `{}...` is 256 bytes, over the 255 bytes file systems allow; nothing was written. Give what it is named after a shorter name (for an item, rename its file under .ai-rulez/) and run again\n",
        "l".repeat(40)
    );
    for args in [
        &["generate"][..],
        &["generate", "--dry-run"],
        &["generate", "--check"],
    ] {
        let run = project.run(args);
        run.expect_code(1);
        assert_eq!(run.stderr(), expected, "{args:?}");
        assert_eq!(project.states(), before, "{args:?}");
    }
}
