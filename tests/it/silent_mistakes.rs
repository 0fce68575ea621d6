//! Cases B60, B62, B63, B65 and B66 of `../shared/cases/bug-cases-2.md` (issue 14, part A): no
//! silent mistakes, no secrets copied into outputs, CRLF checkouts, credentials in include URLs
//! and names that cannot be checked out on Windows. Each test runs the real binary and asserts
//! the exact output.

use crate::support::Project;

/// A project whose `.ai-rulez/config.toml` enables `presets` (TOML array text) followed by
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

#[test]
fn b60_generate_names_every_misspelling_with_a_hint() {
    let project = project(
        r#"["claude", "cursr"]"#,
        "pressets = 1\n[lint]\nignroe = []\n",
    );
    project.write(
        ".ai-rulez/rules/style.md",
        "---\npahts: [\"src/**\"]\ndescription: Rust style\n---\n# Style\n\nUse rustfmt.\n",
    );
    project.write(".ai-rulez/rule/old.md", "Old.\n");
    project.write(".ai-rulez/rules/notes.txt", "Notes.\n");
    project.write(".ai-rulez/rules/backend/api.md", "Api.\n");
    project.write(".ai-rulez/rules/.gitkeep", "");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        warnings(&run.stderr()),
        [
            "warning: .ai-rulez/config.toml:4: unknown config key `pressets`; it is ignored; did you mean `presets`?",
            "warning: .ai-rulez/config.toml:6: unknown config key `lint.ignroe`; did you mean `ignore`?",
            "warning: .ai-rulez/rule/: ai-rulez reads no folder of this name, so nothing in it is used; did you mean `rules`? (read here: rules, context, skills, agents, commands, domains, local, memories)",
            "warning: .ai-rulez/rules/backend/: not read; rule files are read only directly inside .ai-rulez/rules/, so move its files up (or into `domains/<name>/rules/` for a domain)",
            "warning: .ai-rulez/rules/notes.txt: not read; rule files are Markdown files ending in `.md`, so rename it or move it out of .ai-rulez/rules/",
            "warning: .ai-rulez/rules/style.md:2: unknown rule frontmatter key `pahts`; assistants ignore it; did you mean `paths`?",
            "warning: .ai-rulez/config.toml:3: unknown preset `cursr`; it is skipped, so that assistant gets no files; did you mean `cursor`? (known: aiassistant, amazonq, amp, antigravity, augment, claude, cline, codebuddy, codex, continue, copilot, crush, cursor, devin, factory, gemini, gitlab-duo, goose, grok, junie, kilo, kimi, kiro, opencode, openhands, qoder, qwen, replit, roo, tabnine, trae, warp, windsurf, zed, zoocode)",
        ]
    );
    // `validate` reports the same mistakes: the keys and the preset as findings, the folders and
    // files as warnings.
    let validate = project.run(&["validate"]);
    assert_eq!(
        validate.stdout(),
        "\
.ai-rulez/config.toml:3: AR312 unknown preset `cursr`; it is skipped, so that assistant gets no files; did you mean `cursor`? (known: aiassistant, amazonq, amp, antigravity, augment, claude, cline, codebuddy, codex, continue, copilot, crush, cursor, devin, factory, gemini, gitlab-duo, goose, grok, junie, kilo, kimi, kiro, opencode, openhands, qoder, qwen, replit, roo, tabnine, trae, warp, windsurf, zed, zoocode)
.ai-rulez/config.toml:4: AR310 unknown config key `pressets`; it is ignored; did you mean `presets`?
.ai-rulez/config.toml:6: AR310 unknown config key `lint.ignroe`; did you mean `ignore`?
.ai-rulez/rules/style.md:2: AR303 unknown rule frontmatter key `pahts`; assistants ignore it; did you mean `paths`?
"
    );
    assert_eq!(
        warnings(&validate.stderr()),
        [
            "warning: .ai-rulez/rule/: ai-rulez reads no folder of this name, so nothing in it is used; did you mean `rules`? (read here: rules, context, skills, agents, commands, domains, local, memories)",
            "warning: .ai-rulez/rules/backend/: not read; rule files are read only directly inside .ai-rulez/rules/, so move its files up (or into `domains/<name>/rules/` for a domain)",
            "warning: .ai-rulez/rules/notes.txt: not read; rule files are Markdown files ending in `.md`, so rename it or move it out of .ai-rulez/rules/",
        ]
    );
}

#[test]
fn b60_keys_of_every_kind_come_from_one_list() {
    let project = project(r#"["claude"]"#, "");
    // `alwaysApply`, `status` and `model` are known keys; a misspelling of each is not.
    project.write(
        ".ai-rulez/rules/a.md",
        "---\nalways_aply: true\nstatus: active\n---\nA.\n",
    );
    project.write(
        ".ai-rulez/agents/helper.md",
        "---\ndescription: Helps\nmodle: opus\n---\nHelp.\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        warnings(&run.stderr()),
        [
            "warning: .ai-rulez/agents/helper.md:3: unknown agent frontmatter key `modle`; assistants ignore it; did you mean `model`?",
            "warning: .ai-rulez/rules/a.md:2: unknown rule frontmatter key `always_aply`; assistants ignore it; did you mean `alwaysApply`?",
        ]
    );
}

#[test]
fn b60_a_misspelt_or_unknown_presets_list_never_removes_every_generated_file() {
    let project = project(r#"["claude", "cursor"]"#, "");
    project.write(".ai-rulez/rules/style.md", "# Style\n\nUse rustfmt.\n");
    project.run(&["generate"]).expect_code(0);
    // Every file but the config, which the test edits.
    let outputs = |project: &Project| {
        let mut states = project.states();
        states.remove(".ai-rulez/config.toml");
        states
    };
    let generated = outputs(&project);
    assert_eq!(generated.len(), 5);
    let refusal = |named: &str| {
        format!(
            "error: .ai-rulez/config.toml {named}, so generate would remove the 4 file(s) an earlier run wrote and write none; nothing was changed. List the assistants in `presets` (the warnings above name the unknown key or preset), or run `ai-rulez clean` to remove the generated files on purpose"
        )
    };
    // The key misspelt: the warning naming it is printed before the refusal.
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npressets = [\"claude\", \"cursor\"]\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr().lines().collect::<Vec<_>>(),
        [
            "warning: .ai-rulez/config.toml:3: unknown config key `pressets`; it is ignored; did you mean `presets`?",
            refusal("names no preset").as_str(),
        ]
    );
    assert!(outputs(&project) == generated, "a file changed");
    // Only unknown names.
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claud\"]\n",
    );
    let dry_run = project.run(&["generate", "--dry-run"]);
    dry_run.expect_code(1);
    assert_eq!(
        dry_run.stderr().lines().last(),
        Some(refusal("names only unknown presets (claud)").as_str())
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr().lines().last(),
        Some(refusal("names only unknown presets (claud)").as_str())
    );
    assert!(outputs(&project) == generated, "a file changed");
    // Removing them on purpose is what clean is for; with nothing generated, generate just
    // writes nothing.
    project.run(&["clean"]).expect_code(0);
    assert!(!project.exists("CLAUDE.md"));
    project.run(&["generate"]).expect_code(0);
    assert!(!project.exists("CLAUDE.md"));
}

#[test]
fn b60_always_on_note_is_said_when_the_files_change_not_on_every_check() {
    let project = project(r#"["claude"]"#, "");
    project.write(
        ".ai-rulez/rules/release.md",
        "---\nactivation: manual\ndescription: Release steps\n---\n# Release\n\nTag it.\n",
    );
    // Claude Code gets a manual rule as a skill, unless a skill of the same id takes that place.
    project.write(
        ".ai-rulez/skills/release/SKILL.md",
        "---\nname: release\ndescription: Cut a release.\n---\nRun the release script.\n",
    );
    let note = "warning: claude: 1 rule uses an activation Claude Code cannot express and is written always-on: release (manual)";
    let first = project.run(&["generate"]);
    first.expect_code(0);
    assert_eq!(warnings(&first.stderr()), [note]);
    // Nothing changed: a repeat run, the pre-commit checks and `lock` say nothing.
    for args in [
        &["generate"][..],
        &["generate", "--check"],
        &["lock"],
        &["lock", "--check"],
    ] {
        let run = project.run(args);
        run.expect_code(0);
        assert_eq!(warnings(&run.stderr()), Vec::<&str>::new(), "{args:?}");
    }
    // The rule changes: the check that finds the stale file says it, and so does the write.
    project.write(
        ".ai-rulez/rules/release.md",
        "---\nactivation: manual\ndescription: Release steps\n---\n# Release\n\nTag it and push.\n",
    );
    let check = project.run(&["generate", "--check"]);
    check.expect_code(2);
    assert_eq!(warnings(&check.stderr()), [note]);
    let write = project.run(&["generate"]);
    write.expect_code(0);
    assert_eq!(warnings(&write.stderr()), [note]);
}

/// A GitHub token of the documented shape (`ghp_` and 36 letters and digits); not a real one.
const TOKEN: &str = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A";

/// What `generate`, `lock` and `lock --check` say about [`TOKEN`] on line 3 of `deploy.md`.
const SECRET_REFUSAL: &str = "\
error: 1 literal secret(s) in the sources; nothing was written, because the generated files would copy them:
  .ai-rulez/rules/deploy.md:3: AR001 GitHub token `ghp_…(40 chars, masked)` in the text; remove it, rotate it, and read it from the environment
remove each one, rotate it (it may already be in git history) and read it from the environment; for a false positive, put `ai-rulez-ignore AR001` on that line or the line above
";

/// Runs `git <args>` in the project, asserting success.
fn git(project: &Project, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(project.path())
        .output()
        .expect("git runs")
        .status;
    assert!(status.success(), "git {args:?}");
}

#[test]
fn b62_generate_refuses_a_literal_secret_before_writing_anything() {
    let project = project(r#"["claude", "codex"]"#, "");
    project.write(".ai-rulez/rules/style.md", "Use rustfmt.\n");
    project.write(
        ".ai-rulez/rules/deploy.md",
        format!("# Deploy\n\nPush with {TOKEN} as the token.\n"),
    );
    let before = project.files();
    for args in [&["generate"][..], &["generate", "--check"], &["lock"]] {
        let run = project.run(args);
        run.expect_code(1);
        assert_eq!(run.stderr(), SECRET_REFUSAL, "{args:?}");
        assert!(!run.stdout().contains("ghp_aB3d"), "{args:?}");
    }
    assert_eq!(project.files(), before, "nothing was written");
    // A reviewed false positive is marked on its line and no longer refused.
    project.write(
        ".ai-rulez/rules/deploy.md",
        format!("# Deploy\n\nPush with {TOKEN} as the token. <!-- ai-rulez-ignore AR001 -->\n"),
    );
    project.run(&["generate"]).expect_code(0);
}

#[test]
fn b62_lock_check_and_the_hook_report_a_literal_secret() {
    let project = project(r#"["claude"]"#, "");
    project.write(".ai-rulez/rules/deploy.md", "# Deploy\n\nPush.\n");
    git(&project, &["init", "-q"]);
    project.run(&["generate"]).expect_code(0);
    project.run(&["lock"]).expect_code(0);
    git(&project, &["add", "-A"]);
    project.write(
        ".ai-rulez/rules/deploy.md",
        format!("# Deploy\n\nPush with {TOKEN} as the token.\n"),
    );
    let check = project.run(&["lock", "--check"]);
    check.expect_code(1);
    assert_eq!(check.stderr(), SECRET_REFUSAL);
    // Not staged yet: the commit would not carry it.
    project.run(&["lock", "--check", "--staged"]).expect_code(0);
    git(&project, &["add", ".ai-rulez/rules/deploy.md"]);
    let hook = project.run(&["lock", "--check", "--staged"]);
    hook.expect_code(1);
    assert_eq!(hook.stderr(), SECRET_REFUSAL);
}

/// Rewrites the project-relative file with CRLF line ends, as `core.autocrlf=true` checks it out.
fn to_crlf(project: &Project, relative: &str) {
    let text = project.read(relative);
    assert!(!text.contains('\r'), "{relative} starts with LF line ends");
    project.write(relative, text.replace('\n', "\r\n"));
}

#[test]
fn b63_crlf_only_differences_are_never_edits() {
    // Cursor reads the style rule and the context in AGENTS.md, so it writes no rule file (B40).
    let project = project(r#"["claude", "cursor", "codex"]"#, "");
    project.write(
        ".ai-rulez/rules/style.md",
        "---\npaths: [\"src/**\"]\n---\n# Style\n\nUse rustfmt.\n",
    );
    project.write(".ai-rulez/context/overview.md", "# Overview\n\nA demo.\n");
    // A hand-written root file: ai-rulez keeps its part between markers in it.
    project.write("AGENTS.md", "# Our notes\n\nKeep them.\n");
    project.write(".gitignore", "target/\n");
    project.run(&["generate"]).expect_code(0);
    project.run(&["lock"]).expect_code(0);
    let written: Vec<String> = project
        .files()
        .into_iter()
        .filter(|path| !path.starts_with(".ai-rulez/") || path.ends_with("manifest.json"))
        .collect();
    assert_eq!(
        written,
        [
            ".ai-rulez/.generated-manifest.json",
            ".claude/rules/style.md",
            ".gitignore",
            "AGENTS.md",
            "CLAUDE.md",
        ]
    );
    for path in &written {
        to_crlf(&project, path);
    }
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");
    assert_eq!(check.stderr(), "generated files are up to date\n");
    let lock = project.run(&["lock", "--check"]);
    lock.expect_code(0);
    assert_eq!(
        lock.stderr(),
        "the lock matches the sources and generated files\n"
    );
    let write = project.run(&["generate"]);
    write.expect_code(0);
    assert_eq!(write.stderr(), "0 written, 4 unchanged, 0 removed\n");
    assert!(
        project.read("CLAUDE.md").contains("\r\n"),
        "left as checked out"
    );
    // A real edit under CRLF is still an edit.
    let claude = project.read("CLAUDE.md");
    project.write("CLAUDE.md", format!("{claude}A hand edit.\r\n"));
    let edited = project.run(&["generate", "--check"]);
    edited.expect_code(2);
    assert_eq!(edited.stdout(), "edited: CLAUDE.md\n");
    project.write("CLAUDE.md", claude);
    // `clean` proves every CRLF output its own and removes it; the hand-written text stays.
    let clean = project.run(&["clean"]);
    clean.expect_code(0);
    assert_eq!(
        clean.stdout(),
        "\
removed: .ai-rulez/.generated-manifest.json
removed: .claude/rules/style.md
removed: AGENTS.md (the ai-rulez section only; the rest of the file stays)
removed: CLAUDE.md
"
    );
    // The hand-written text comes back as checked out, CRLF line ends included.
    assert_eq!(
        project.read("AGENTS.md"),
        "# Our notes\r\n\r\nKeep them.\r\n"
    );
    assert!(!project.exists("CLAUDE.md"));
}

#[test]
fn b66_names_windows_cannot_check_out_are_refused_by_the_create_tools() {
    let project = project(r#"["claude"]"#, "");
    let mut server = crate::mcp::Server::start(project.path());
    let device = "which Windows reserves in any case and with any extension, so the repository could not be checked out there; choose another name";
    for (tool, name, reserved) in [
        ("create_rule", "CON", "CON"),
        ("create_rule", "aux", "AUX"),
        ("create_context", "com1", "COM1"),
        ("create_skill", "Lpt9", "LPT9"),
        ("create_agent", "nul.v2", "NUL"),
    ] {
        let noun = tool.trim_start_matches("create_");
        assert_eq!(
            server.fails(
                tool,
                serde_json::json!({"name": name, "content": "Text.\n"})
            ),
            format!("invalid {noun} name \"{name}\": it is the device name `{reserved}`, {device}"),
        );
    }
    assert_eq!(
        server.fails(
            "create_command",
            serde_json::json!({"name": "x.", "content": "Text.\n"})
        ),
        "invalid command name \"x.\": it ends with a dot or a space, which Windows strips, so the repository could not be checked out there; drop the trailing character"
    );
    assert_eq!(
        server.fails("create_domain", serde_json::json!({"name": "prn"})),
        format!("invalid domain name \"prn\": it is the device name `PRN`, {device}"),
    );
    assert_eq!(
        project.files(),
        [".ai-rulez/config.toml"],
        "nothing created"
    );
    // An existing item of such a name can still be read and deleted (that is how it is renamed).
    // (A pending rule, since an agent may not delete an active one.)
    project.write(
        ".ai-rulez/rules/aux.md",
        "---\nstatus: pending\n---\nAux.\n",
    );
    server.ok(
        "read_item",
        serde_json::json!({"kind": "rule", "name": "aux"}),
    );
    server.ok("delete_rule", serde_json::json!({"name": "aux"}));
    assert!(!project.exists(".ai-rulez/rules/aux.md"));
    server.finish();
}

#[test]
fn b66_existing_unportable_names_are_reported_by_generate_and_validate() {
    let project = project(r#"["claude"]"#, "");
    project.write(".ai-rulez/rules/aux.md", "Aux.\n");
    project.write(
        ".ai-rulez/skills/x./SKILL.md",
        "---\ndescription: X\n---\nX.\n",
    );
    project.write(".ai-rulez/domains/con/rules/a.md", "A.\n");
    let expected = [
        "warning: .ai-rulez/domains/con: the name `con` is the device name `CON`, which Windows reserves in any case and with any extension, so the repository could not be checked out there; choose another name",
        "warning: .ai-rulez/rules/aux.md: the name `aux.md` is the device name `AUX`, which Windows reserves in any case and with any extension, so the repository could not be checked out there; choose another name",
        "warning: .ai-rulez/skills/x.: the name `x.` ends with a dot or a space, which Windows strips, so the repository could not be checked out there; drop the trailing character",
    ];
    let generate = project.run(&["generate"]);
    generate.expect_code(0);
    let stderr = generate.stderr();
    let mut said = warnings(&stderr);
    said.sort_unstable();
    assert_eq!(said, expected);
    let validate = project.run(&["validate"]);
    let stderr = validate.stderr();
    let mut said = warnings(&stderr);
    said.sort_unstable();
    assert_eq!(said, expected);
}

/// A config with two git includes whose URLs carry credentials: a password and a token user.
const CONFIG_WITH_CREDENTIALS: &str = "\
version = \"5.0\"
name = \"demo\"
presets = [\"claude\"]

[[includes]]
source = \"https://user:tok3n@git.example.com/rules.git\"

[[includes]]
name = \"shared\"
source = \"git+https://ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A@github.com/o/r\"
";

#[test]
fn b65_credentials_in_include_urls_are_masked_everywhere_and_scanned() {
    if cfg!(feature = "https") {
        // With HTTPS these includes would be fetched from the internet; git_includes.rs covers
        // masking with a local server instead.
        crate::support::skip_notice("b65 expects a build without the `https` feature");
        return;
    }
    let project = Project::empty();
    project.write(".ai-rulez/config.toml", CONFIG_WITH_CREDENTIALS);
    project.write(".ai-rulez/rules/style.md", "Use rustfmt.\n");
    // The includes are fetched now; this build has no HTTPS client, so both are errors that
    // show their URLs masked (tests/it/git_includes.rs covers fetching with credentials).
    let cache = tempfile::tempdir().expect("cache");
    let env = [("AI_RULEZ_CACHE_DIR", cache.path().to_str().expect("utf8"))];
    let why = "this ai-rulez was built without HTTPS support for git includes; use an SSH URL (`git+ssh://git@host/owner/repo.git` or `git@host:owner/repo.git`), send this one over SSH with git's `url.<base>.insteadOf`, or install a build with HTTPS (`cargo install --path . --features https`)";
    let failed = format!(
        "error: .ai-rulez/config.toml: `includes[0]` (https://user:****@git.example.com/rules.git): {why}\n.ai-rulez/config.toml: `includes[1]` (`shared`, git+https://****@github.com/o/r): {why}\n"
    );
    let generate = project.run_with_env(&["generate"], &env);
    generate.expect_code(1);
    assert_eq!(generate.stderr(), failed);
    let lock = project.run_with_env(&["lock"], &env);
    lock.expect_code(1);
    assert_eq!(lock.stderr(), failed);
    let explain = project.run_with_env(&["explain", "src/a.rs"], &env);
    explain.expect_code(1);
    assert_eq!(explain.stderr(), failed);
    let validate = project.run_with_env(&["validate"], &env);
    assert_eq!(
        validate.stdout(),
        format!(
            "\
.ai-rulez/config.toml: AR304 `includes[0]` (https://user:****@git.example.com/rules.git): {why}
.ai-rulez/config.toml: AR304 `includes[1]` (`shared`, git+https://****@github.com/o/r): {why}
"
        )
    );
    let scan = project.run_with_env(&["scan"], &env);
    scan.expect_code(2);
    assert_eq!(
        scan.stdout(),
        "\
.ai-rulez/config.toml:6: AR001 include `https://user:****@git.example.com/rules.git`: credentials in the URL `https://user:****@git.example.com/rules.git`; remove them and let git supply them (a credential helper or an SSH key), and rotate the token
.ai-rulez/config.toml:10: AR001 include `shared`: credentials in the URL `git+https://****@github.com/o/r`; remove them and let git supply them (a credential helper or an SSH key), and rotate the token
"
    );
    // Nothing the commands wrote or printed holds either credential.
    for run in [&generate, &lock, &explain, &validate, &scan] {
        let all = format!("{}{}", run.stdout(), run.stderr());
        assert!(!all.contains("tok3n") && !all.contains("ghp_aB3d"), "{all}");
    }
    for path in project.files() {
        if path != ".ai-rulez/config.toml" {
            let text = String::from_utf8_lossy(&project.read_bytes(&path)).into_owned();
            assert!(
                !text.contains("tok3n") && !text.contains("ghp_aB3d"),
                "{path}"
            );
        }
    }
    // MCP replies: the config resource, and the warnings of the generate and validate tools.
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", crate::mcp::ALL_TOOLSETS],
        &env,
    );
    let config = server.request(
        "resources/read",
        serde_json::json!({"uri": "ai-rulez://config"}),
    );
    assert_eq!(
        config["result"]["contents"][0]["text"],
        CONFIG_WITH_CREDENTIALS
            .replace("user:tok3n@", "user:****@")
            .replace("ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A@", "****@")
    );
    let generated = server
        .call("generate_outputs", serde_json::json!({}))
        .to_string();
    assert!(
        generated.contains("`includes[1]` (`shared`, git+https://****@github.com/o/r): this ai-rulez was built without HTTPS support"),
        "{generated}"
    );
    for reply in [
        generated,
        server
            .call("validate_config", serde_json::json!({}))
            .to_string(),
    ] {
        assert!(
            !reply.contains("tok3n") && !reply.contains("ghp_aB3d"),
            "{reply}"
        );
    }
    server.finish();
}

#[test]
fn b60_keys_of_config_entries_are_checked_too() {
    let project = project(
        r#"["claude"]"#,
        "[[rules]]\nname = \"inline\"\ncontent = \"Be brief.\"\nprority = \"high\"\n\n[[includes]]\nsource = \"shared\"\npth = \"rules\"\n",
    );
    project.write("shared/rules/a.md", "A.\n");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        warnings(&run.stderr()),
        [
            "warning: .ai-rulez/config.toml:7: unknown config key `rules[0].prority`; it is ignored; did you mean `priority`?",
            "warning: .ai-rulez/config.toml:11: unknown config key `includes[0].pth`; it is ignored; did you mean `path`?",
        ]
    );
}

#[test]
fn a_crlf_gitignore_keeps_its_line_ends_and_clean_says_only_the_block_goes() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\"]\ngitignore = true\n",
    );
    project.write(".ai-rulez/rules/a.md", "# A\n\nA.\n");
    let original = "node_modules\r\n*.log\r\n";
    project.write(".gitignore", original);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stdout().contains(
            "update: .gitignore (the ai-rulez section only; the rest of the file stays)\n"
        ),
        "{}",
        run.stdout()
    );
    let written = project.read(".gitignore");
    assert!(written.starts_with(original), "{written:?}");
    assert!(!written.replace("\r\n", "").contains('\n'), "{written:?}");
    project.run(&["generate", "--check"]).expect_code(0);
    let clean = project.run(&["clean"]);
    clean.expect_code(0);
    assert!(
        clean.stdout().contains(
            "removed: .gitignore (the ai-rulez section only; the rest of the file stays)\n"
        ),
        "{}",
        clean.stdout()
    );
    assert_eq!(project.read(".gitignore"), original);
}

#[test]
fn a_second_config_file_beside_the_one_read_is_named() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\"]\n",
    );
    project.write(".ai-rulez/config.yaml", "name: other\npresets: [cursor]\n");
    project.write(".ai-rulez/rules/a.md", "# A\n\nA.\n");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(
        run.stderr(),
        "warning: .ai-rulez/config.yaml: not read, since .ai-rulez/config.toml is this project's config; move what it sets into .ai-rulez/config.toml and delete it\n3 written, 0 unchanged, 0 removed\n"
    );
}

#[test]
fn an_updated_output_keeps_the_users_permission_bits_but_not_an_execute_bit() {
    use std::os::unix::fs::PermissionsExt as _;
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\"]\n",
    );
    project.write(".ai-rulez/rules/a.md", "# A\n\nA.\n");
    project.run(&["generate"]).expect_code(0);
    let chmod = |relative: &str, mode: u32| {
        fs_err::set_permissions(
            project.path().join(relative),
            std::fs::Permissions::from_mode(mode),
        )
        .expect("chmod");
    };
    chmod(".claude/rules/a.md", 0o600);
    chmod("CLAUDE.md", 0o755);
    // A private file is not drift; an execute bit on a rule is.
    let check = project.run(&["generate", "--check"]);
    check.expect_code(2);
    assert_eq!(check.stdout(), "stale: CLAUDE.md\n");
    project.write(".ai-rulez/rules/a.md", "# A\n\nA, changed.\n");
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.mode(".claude/rules/a.md"), 0o600);
    assert_eq!(project.mode("CLAUDE.md"), 0o644);
    assert!(project.read(".claude/rules/a.md").contains("A, changed."));
}
