//! One golden scenario per preset on `fixtures/rich` (every item kind, every activation, two MCP
//! servers, `gitignore = true`): `--check` and `--dry-run` before the first write, generate, an
//! insta snapshot of every generated file with its mode, a second generate that touches nothing,
//! `--check` clean, every banner's `Content-Hash` recomputed with `sha256sum`, a hand edit
//! reported as `edited:` and refused, and `clean` back to the sources. One more scenario renders
//! all 35 presets at once and compares every file with the single-preset runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::support::{Project, Run, sha256sum};

const PRESETS: [&str; 35] = [
    "aiassistant",
    "amazonq",
    "amp",
    "antigravity",
    "augment",
    "claude",
    "cline",
    "codebuddy",
    "codex",
    "continue",
    "copilot",
    "crush",
    "cursor",
    "devin",
    "factory",
    "gemini",
    "gitlab-duo",
    "goose",
    "grok",
    "junie",
    "kilo",
    "kimi",
    "kiro",
    "opencode",
    "openhands",
    "qoder",
    "qwen",
    "replit",
    "roo",
    "tabnine",
    "trae",
    "warp",
    "windsurf",
    "zed",
    "zoocode",
];

/// The `.gitignore` lines a user wrote (used by the clean test that keeps them).
const USER_GITIGNORE: &str = "node_modules/\n*.log\n";

/// `fixtures/rich` with its config's `presets = [...]` line replaced by `presets`.
fn rich_with(presets: &[&str]) -> Project {
    let project = Project::fixture("rich");
    let config = project.read(".ai-rulez/config.toml");
    let list: Vec<String> = presets
        .iter()
        .map(|preset| format!("\"{preset}\""))
        .collect();
    let mut replaced = 0;
    let mut text = String::new();
    for line in config.lines() {
        if line.starts_with("presets = ") {
            replaced += 1;
            writeln!(text, "presets = [{}]", list.join(", ")).expect("write");
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    assert_eq!(
        replaced, 1,
        "fixtures/rich config must have one `presets = ` line"
    );
    project.write(".ai-rulez/config.toml", text);
    project
}

/// The paths after `<word>: ` on every stdout line, asserting each line has that word.
#[track_caller]
fn paths_with_word(run: &Run, word: &str) -> BTreeSet<String> {
    run.stdout()
        .lines()
        .map(|line| {
            line.strip_prefix(&format!("{word}: "))
                .unwrap_or_else(|| panic!("expected `{word}: <path>`, got {line:?}"))
                .to_owned()
        })
        .collect()
}

/// The last stderr line (the summary line after any warnings).
fn summary_line(run: &Run) -> String {
    run.stderr().lines().last().unwrap_or_default().to_owned()
}

/// Every file except `sources`, each as `=== <path> (mode NNN) ===` followed by its content.
fn document(project: &Project, sources: &BTreeSet<String>) -> String {
    let mut document = String::new();
    for path in project.files() {
        if sources.contains(&path) {
            continue;
        }
        let text = String::from_utf8(project.read_bytes(&path))
            .unwrap_or_else(|error| panic!("{path} is not UTF-8: {error}"));
        writeln!(document, "=== {path} (mode {:o}) ===", project.mode(&path)).expect("write");
        document.push_str(&text);
        if !text.ends_with('\n') {
            document.push_str("\n(no newline at end of file)\n");
        }
    }
    document
}

/// Whether `path` is a skill resource (copied verbatim, so it carries no banner).
fn skill_resource(path: &str) -> Option<String> {
    let (_, rest) = path.split_once("/skills/")?;
    let (skill, resource) = rest.split_once('/')?;
    (resource != "SKILL.md").then(|| format!(".ai-rulez/skills/{skill}/{resource}"))
}

/// Checks every generated `.md`/`.mdc` file: the banner sits on line 1 (line 2 after an opening
/// `---`), its Content-Hash equals `sha256sum` of exactly the bytes after the banner line; skill
/// resources are byte-for-byte copies of their sources instead. Returns how many banners it checked.
fn verify_banners(project: &Project, generated: &BTreeSet<String>) -> usize {
    let mut checked = 0;
    for path in generated {
        let extension = std::path::Path::new(path).extension();
        let markdown = extension.is_some_and(|extension| extension == "md" || extension == "mdc");
        if !(markdown || path == ".rules" || path == ".goosehints") {
            continue;
        }
        let bytes = project.read_bytes(path);
        if let Some(source) = skill_resource(path) {
            assert_eq!(
                bytes,
                project.read_bytes(&source),
                "{path} must be a copy of {source}"
            );
            continue;
        }
        let banner_start = if bytes.starts_with(b"---\n") { 4 } else { 0 };
        let banner_end = banner_start
            + bytes[banner_start..]
                .iter()
                .position(|&byte| byte == b'\n')
                .unwrap_or_else(|| panic!("{path}: no banner line"))
            + 1;
        let banner = std::str::from_utf8(&bytes[banner_start..banner_end]).expect("utf8 banner");
        let claimed = banner
            .split("Content-Hash: sha256:")
            .nth(1)
            .unwrap_or_else(|| panic!("{path}: banner line has no Content-Hash: {banner:?}"))
            .get(..64)
            .unwrap_or_else(|| panic!("{path}: short hash in {banner:?}"));
        assert_eq!(
            claimed,
            sha256sum(&bytes[banner_end..]),
            "{path}: banner hash differs from sha256sum of the bytes after the banner"
        );
        checked += 1;
    }
    checked
}

/// The golden scenario for one preset; `edited` is a generated Markdown file to edit by hand.
fn golden(preset: &str, edited: &str) {
    let project = rich_with(&[preset]);
    let sources: BTreeSet<String> = project.files().into_iter().collect();
    let source_states = project.states();
    let source_dirs = project.dirs();
    assert!(
        sources.iter().all(|path| path.starts_with(".ai-rulez/")),
        "{sources:?}"
    );

    // Before the first write: --check lists every output as missing, --dry-run as create.
    let check = project.run(&["generate", "--check"]);
    check.expect_code(2);
    let missing = paths_with_word(&check, "missing");
    let dry_run = project.run(&["generate", "--dry-run"]);
    dry_run.expect_code(0);
    let planned = paths_with_word(&dry_run, "create");
    assert_eq!(
        project.states(),
        source_states,
        "--check/--dry-run wrote files"
    );

    // First generate.
    let first = project.run(&["generate"]);
    first.expect_code(0);
    let created = paths_with_word(&first, "create");
    let generated: BTreeSet<String> = project
        .files()
        .into_iter()
        .filter(|path| !sources.contains(path))
        .collect();
    assert_eq!(
        created, generated,
        "`create:` lines must name exactly the new files"
    );
    assert_eq!(
        missing, generated,
        "--check must have listed exactly these as missing"
    );
    assert_eq!(
        planned, generated,
        "--dry-run must have listed exactly these"
    );
    assert!(
        generated.contains(".gitignore")
            && generated.contains(".ai-rulez/.generated-manifest.json")
    );
    assert_eq!(
        summary_line(&first),
        format!("{} written, 0 unchanged, 0 removed", generated.len())
    );
    for (path, state) in &source_states {
        assert_eq!(
            &project.states()[path],
            state,
            "generate changed the source {path}"
        );
    }

    insta::assert_snapshot!(preset, document(&project, &sources));

    // Second generate: nothing written, no byte, mode or mtime changes.
    project.age_files();
    let before = project.states();
    let second = project.run(&["generate"]);
    second.expect_code(0);
    assert_eq!(
        second.stdout(),
        "",
        "second generate must print no create:/update: lines"
    );
    // Every output and the manifest are reported unchanged; an unchanged .gitignore is not counted.
    assert_eq!(
        summary_line(&second),
        format!("0 written, {} unchanged, 0 removed", generated.len() - 1)
    );
    assert_eq!(project.states(), before, "second generate touched files");

    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");
    assert_eq!(summary_line(&check), "generated files are up to date");

    // Every banner verifies with an independent SHA-256.
    let banners = verify_banners(&project, &generated);
    assert!(banners >= 1, "{preset}: no banner checked");

    // A hand edit is reported by --check and refused by generate.
    let original = project.read_bytes(edited);
    let mut changed = original.clone();
    changed.extend_from_slice(b"A line added by hand.\n");
    project.write(edited, &changed);
    let check = project.run(&["generate", "--check"]);
    check.expect_code(2);
    assert_eq!(check.stdout(), format!("edited: {edited}\n"));
    let refused_before = project.states();
    let refused = project.run(&["generate"]);
    refused.expect_code(1);
    assert_eq!(refused.stdout(), "");
    assert!(
        refused.stderr().contains(edited),
        "the refusal must name {edited}: {}",
        refused.stderr()
    );
    assert_eq!(
        project.states(),
        refused_before,
        "a refused generate wrote files"
    );
    project.write(edited, &original);
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");

    // clean leaves exactly the sources (no .gitignore: it held only ai-rulez's block).
    let clean = project.run(&["clean"]);
    clean.expect_code(0);
    assert_eq!(paths_with_word(&clean, "removed"), generated);
    let remaining = project.states();
    for (path, state) in &source_states {
        assert_eq!(
            remaining.get(path).map(|found| &found.bytes),
            Some(&state.bytes),
            "clean changed the source {path}"
        );
    }
    assert_eq!(
        project.files().into_iter().collect::<BTreeSet<_>>(),
        sources,
        "clean must leave exactly the sources"
    );
    assert_eq!(
        project.dirs(),
        source_dirs,
        "clean must remove the folders it emptied"
    );
}

macro_rules! golden_tests {
    ($($test:ident: $preset:literal => $edited:literal,)*) => {
        $(
            #[test]
            fn $test() {
                golden($preset, $edited);
            }
        )*
        /// The macro must cover exactly the built-in presets.
        #[test]
        fn every_preset_has_a_golden_test() {
            assert_eq!([$($preset),*], PRESETS);
        }
    };
}

golden_tests! {
    aiassistant: "aiassistant" => ".aiassistant/rules/typescript.md",
    amazonq: "amazonq" => ".amazonq/rules/always.md",
    amp: "amp" => "AGENTS.md",
    antigravity: "antigravity" => ".agents/rules/always.md",
    augment: "augment" => ".augment/rules/release.md",
    claude: "claude" => "CLAUDE.md",
    cline: "cline" => ".clinerules/typescript.md",
    codebuddy: "codebuddy" => "CODEBUDDY.md",
    codex: "codex" => ".agents/skills/reviewer/SKILL.md",
    continue_dev: "continue" => ".continue/rules/typescript.md",
    copilot: "copilot" => ".github/copilot-instructions.md",
    crush: "crush" => "CRUSH.md",
    cursor: "cursor" => ".cursor/rules/typescript.mdc",
    devin: "devin" => ".devin/rules/migrations.md",
    factory: "factory" => ".factory/droids/tester.md",
    gemini: "gemini" => "GEMINI.md",
    gitlab_duo: "gitlab-duo" => ".gitlab/duo/chat-rules.md",
    goose: "goose" => ".goosehints",
    grok: "grok" => ".grok/agents/tester.md",
    junie: "junie" => ".junie/skills/reviewer/SKILL.md",
    kilo: "kilo" => ".kilocode/rules/always.md",
    kimi: "kimi" => "AGENTS.md",
    kiro: "kiro" => ".kiro/steering/typescript.md",
    opencode: "opencode" => ".opencode/agents/tester.md",
    openhands: "openhands" => ".agents/skills/reviewer/SKILL.md",
    qoder: "qoder" => "AGENTS.md",
    qwen: "qwen" => "QWEN.md",
    replit: "replit" => "replit.md",
    roo: "roo" => ".roo/rules/context-overview.md",
    tabnine: "tabnine" => ".tabnine/guidelines/migrations.md",
    trae: "trae" => ".trae/rules/migrations.md",
    warp: "warp" => "AGENTS.md",
    windsurf: "windsurf" => ".windsurf/workflows/ship.md",
    zed: "zed" => ".rules",
    zoocode: "zoocode" => ".roo/commands/ship.md",
}

/// What one preset writes alone: path → bytes (without the manifest and `.gitignore`, which
/// list every output and so differ between runs).
fn single_preset_outputs(preset: &str) -> BTreeMap<String, Vec<u8>> {
    let project = rich_with(&[preset]);
    let sources: BTreeSet<String> = project.files().into_iter().collect();
    project.run(&["generate"]).expect_code(0);
    project
        .files()
        .into_iter()
        .filter(|path| {
            !sources.contains(path)
                && path != ".gitignore"
                && path != ".ai-rulez/.generated-manifest.json"
        })
        .map(|path| {
            let bytes = project.read_bytes(&path);
            (path, bytes)
        })
        .collect()
}

#[test]
fn all_presets_together_write_the_same_bytes_as_each_alone() {
    let mut union: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut writers: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for preset in PRESETS {
        for (path, bytes) in single_preset_outputs(preset) {
            if let Some(previous) = union.get(&path) {
                assert_eq!(
                    String::from_utf8_lossy(previous),
                    String::from_utf8_lossy(&bytes),
                    "{path}: {preset} writes different bytes than {:?}",
                    writers[&path]
                );
            }
            writers.entry(path.clone()).or_default().push(preset);
            union.insert(path, bytes);
        }
    }
    // The shared files really are shared.
    assert_eq!(
        writers["AGENTS.md"],
        [
            "amp",
            "codex",
            "factory",
            "grok",
            "junie",
            "kimi",
            "opencode",
            "openhands",
            "qoder",
            "warp"
        ]
    );
    for file in ["SKILL.md", "references/checklist.md", "scripts/run.sh"] {
        assert_eq!(
            writers[&format!(".agents/skills/reviewer/{file}")],
            ["amp", "antigravity", "codex", "openhands"]
        );
    }

    let project = rich_with(&PRESETS);
    let sources: BTreeSet<String> = project.files().into_iter().collect();
    let first = project.run(&["generate"]);
    first.expect_code(0);
    let expected: BTreeSet<String> = paths_with_word(&first, "create");
    // Together, a preset leaves out of its own files the rules and context its assistant
    // already reads in another enabled preset's file (B40, tests/it/effective_context.rs), so
    // the all-presets run writes a subset of the union: every left-out file is a rule or
    // context file, and only the root files that carry such items change.
    let left_out: BTreeSet<&str> = union
        .keys()
        .map(String::as_str)
        .filter(|path| !expected.contains(*path))
        .collect();
    for path in &left_out {
        assert!(
            [
                ".agents/rules/",
                ".augment/rules/",
                ".cline/skills/migrations/",
                ".clinerules/",
                ".continue/rules/",
                ".cursor/rules/",
                ".devin/rules/",
                ".github/instructions/",
                ".kilocode/rules/",
                ".kiro/steering/",
                ".roo/rules/",
                ".windsurf/rules/",
                // Gemini CLI reads the skill in Codex's .agents/skills, Copilot and OpenCode in
                // .claude/skills (compat/).
                ".gemini/skills/",
                ".github/skills/",
                ".opencode/skills/",
            ]
            .iter()
            .any(|folder| path.starts_with(folder)),
            "{path} is left out of the all-presets run but is no rule, context or shared skill file"
        );
    }
    // 54 rule and context files, and the 3 files of the skill in each of Gemini's, Copilot's
    // and OpenCode's folders (their assistants read it in .agents/skills or .claude/skills).
    assert_eq!(left_out.len(), 63, "{left_out:?}");
    let mut changed: Vec<&str> = Vec::new();
    for path in &expected {
        if path == ".gitignore" || path == ".ai-rulez/.generated-manifest.json" {
            continue;
        }
        let bytes = union
            .get(path)
            .unwrap_or_else(|| panic!("{path} is written only when all presets are enabled"));
        if project.read_bytes(path) != *bytes {
            changed.push(path);
        }
    }
    assert_eq!(
        changed,
        [
            ".github/copilot-instructions.md",
            ".gitlab/duo/chat-rules.md",
            ".goosehints",
            "CRUSH.md",
            "QWEN.md"
        ]
    );
    assert_eq!(
        project.mode(".agents/skills/reviewer/scripts/run.sh"),
        0o755
    );
    assert_eq!(
        project.mode(".claude/skills/reviewer/scripts/run.sh"),
        0o755
    );
    let gitignore = project.read(".gitignore");
    let mut lines: Vec<&str> = gitignore.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(
            "# BEGIN ai-rulez (managed by `ai-rulez generate`; edit .ai-rulez/config.toml instead)"
        )
    );
    assert_eq!(lines.pop(), Some("# END ai-rulez"));
    let ignored: BTreeSet<String> = lines[1..].iter().map(|line| (*line).to_owned()).collect();
    let mut expected_ignored: BTreeSet<String> = expected
        .iter()
        .filter(|path| *path != ".gitignore")
        .map(|path| format!("/{path}"))
        .collect();
    // The journal of a run in progress and temporary files of an interrupted write.
    expected_ignored.insert("/.ai-rulez/.generated-manifest.pending.json".to_owned());
    expected_ignored.insert(".ai-rulez-*.tmp".to_owned());
    // Machine-local state (local items, rule usage counts, the learning ledger).
    expected_ignored.insert("/.ai-rulez/local/".to_owned());
    assert_eq!(ignored, expected_ignored);

    project.age_files();
    let before = project.states();
    let second = project.run(&["generate"]);
    second.expect_code(0);
    assert_eq!(second.stdout(), "");
    assert_eq!(project.states(), before);
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");
    // Alone, 127 Markdown outputs carry a banner: 2 amp, 6 antigravity, 8 claude, 7 cline (with
    // the `ship` command as a workflow), 0 codex (shares AGENTS.md and .agents/skills; its agent
    // is TOML), 8 copilot, 8 cursor, 6 devin, 2 gemini (its command is TOML), 1 junie, 7 kiro
    // (with the `ship` prompt), 3 opencode, 6 windsurf, 1 zed; 5 aiassistant, 5 amazonq,
    // 5 augment, 1 codebuddy, 5 continue, 1 crush, 3 factory (shares AGENTS.md), 1 gitlab-duo,
    // 1 goose, 5 kilo, 0 kimi, 0 openhands, 0 qoder, 0 warp (share AGENTS.md and .agents/skills),
    // 2 qwen, 1 replit, 7 roo, 5 tabnine, 5 trae, 3 grok (shares AGENTS.md), 7 zoocode (the same
    // .roo files as roo): 120 distinct files. Together, the 54 rule and context files left out
    // above are gone, and the SKILL.md of Gemini, Copilot and OpenCode (each reads the skill
    // in .agents/skills or .claude/skills): 63.
    assert_eq!(verify_banners(&project, &expected), 63);

    project.run(&["clean"]).expect_code(0);
    assert_eq!(
        project.files().into_iter().collect::<BTreeSet<_>>(),
        sources
    );
}

#[test]
fn clean_keeps_the_users_gitignore_lines_and_drops_only_the_block() {
    let project = rich_with(&["claude"]);
    project.write(".gitignore", USER_GITIGNORE);
    project.run(&["generate"]).expect_code(0);
    assert_eq!(
        project.read(".gitignore"),
        format!(
            "{USER_GITIGNORE}\n# BEGIN ai-rulez (managed by `ai-rulez generate`; edit .ai-rulez/config.toml instead)\n\
             .ai-rulez-*.tmp\n/.ai-rulez/.generated-manifest.json\n/.ai-rulez/.generated-manifest.pending.json\n/.ai-rulez/local/\n/.claude/agents/tester.md\n/.claude/commands/ship.md\n\
             /.claude/rules/always.md\n\
             /.claude/rules/typescript.md\n/.claude/skills/migrations/SKILL.md\n/.claude/skills/release/SKILL.md\n/.claude/skills/reviewer/SKILL.md\n\
             /.claude/skills/reviewer/references/checklist.md\n/.claude/skills/reviewer/scripts/run.sh\n\
             /.mcp.json\n/CLAUDE.md\n# END ai-rulez\n"
        )
    );
    project.run(&["clean"]).expect_code(0);
    assert_eq!(project.read(".gitignore"), USER_GITIGNORE);
}
