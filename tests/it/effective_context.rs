//! Case B40 of `../shared/cases/bug-cases-2.md`: each rule and context item reaches each enabled
//! assistant exactly once. The test generates with the real binary, then computes every enabled
//! assistant's effective context: the generated files under the paths its preset's `reads` list
//! names, following a root file's `@AGENTS.md` import, and counts each item's marker in it.

use std::collections::BTreeMap;

use ai_rulez::testing::presets::{default_reads, reads_nested_agents_md};

use crate::support::Project;

/// Every preset, in the order of the README's table.
#[rustfmt::skip]
const ALL: &str = r#"["amp", "antigravity", "claude", "cline", "codex", "copilot", "cursor", "devin", "gemini", "junie", "kiro", "opencode", "windsurf", "zed", "aiassistant", "amazonq", "augment", "codebuddy", "continue", "crush", "factory", "gitlab-duo", "goose", "kilo", "kimi", "openhands", "qoder", "qwen", "replit", "roo", "tabnine", "trae", "warp", "grok", "zoocode"]"#;

/// The markers, one per item, in the order the items are written by [`project`].
const MARKERS: [&str; 5] = [
    "ALWAYSMARK",
    "GLOBMARK",
    "AUTOMARK",
    "MANUALMARK",
    "CTXMARK",
];

/// A git project enabling `presets` (TOML array text) plus the `extra` config lines, with one
/// rule of each activation and one context item, each body holding its marker.
fn project(presets: &str, extra: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("version = \"5.0\"\nname = \"b40\"\npresets = {presets}\n{extra}"),
    );
    project.write(
        ".ai-rulez/rules/always.md",
        "---\npriority: high\n---\nALWAYSMARK: run the linter.\n",
    );
    project.write(
        ".ai-rulez/rules/glob.md",
        "---\npaths: [\"src/**/*.rs\"]\n---\nGLOBMARK: no unwrap in library code.\n",
    );
    project.write(
        ".ai-rulez/rules/auto.md",
        "---\nactivation: auto\ndescription: Database migrations\n---\nAUTOMARK: migrations are reversible.\n",
    );
    project.write(
        ".ai-rulez/rules/manual.md",
        "---\nactivation: manual\ndescription: Release steps\n---\nMANUALMARK: tag, then publish.\n",
    );
    project.write(
        ".ai-rulez/context/arch.md",
        "# Architecture\n\nCTXMARK: three crates.\n",
    );
    project
}

/// The generated files `preset`'s assistant reads in `project`: every file equal to or below a
/// path of its `reads` list, the `AGENTS.md` files in sub-folders when it reads those, plus
/// `AGENTS.md` when one of those is a Markdown file importing it.
fn files_read(project: &Project, preset: &str) -> Vec<String> {
    let reads = default_reads(preset).unwrap_or_else(|| panic!("unknown preset {preset}"));
    let nested = reads_nested_agents_md(preset) == Some(true);
    let mut read: Vec<String> = project
        .files()
        .into_iter()
        .filter(|file| !file.starts_with(".ai-rulez/"))
        .filter(|file| {
            (nested && file.ends_with("/AGENTS.md"))
                || reads.iter().any(|path| {
                    file == path
                        || file
                            .strip_prefix(path.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                })
        })
        .collect();
    let imports_agents_md = read.iter().any(|file| {
        std::path::Path::new(file)
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("md"))
            && project
                .read(file)
                .lines()
                .any(|line| line.trim() == "@AGENTS.md")
    });
    if imports_agents_md && !read.iter().any(|file| file == "AGENTS.md") {
        read.push("AGENTS.md".to_owned());
    }
    read
}

/// For each preset in `presets` (names): marker → the files of its effective context holding
/// it, one entry per occurrence.
fn effective_context(
    project: &Project,
    presets: &[&str],
) -> BTreeMap<String, BTreeMap<&'static str, Vec<String>>> {
    let mut context = BTreeMap::new();
    for preset in presets {
        let mut found: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        for file in files_read(project, preset) {
            let text = project.read(&file);
            for marker in MARKERS {
                for _ in text.matches(marker) {
                    found.entry(marker).or_default().push(file.clone());
                }
            }
        }
        context.insert((*preset).to_owned(), found);
    }
    context
}

/// A marker not found exactly once: (preset, marker, the files holding it, one per occurrence).
type NotOnce = (String, &'static str, Vec<String>);

/// The markers, per preset, not found exactly once.
fn not_once(context: &BTreeMap<String, BTreeMap<&'static str, Vec<String>>>) -> Vec<NotOnce> {
    let mut wrong = Vec::new();
    for (preset, found) in context {
        for marker in MARKERS {
            let files = found.get(marker).cloned().unwrap_or_default();
            if files.len() != 1 {
                wrong.push((preset.clone(), marker, files));
            }
        }
    }
    wrong
}

/// Generates `presets` with `extra` config lines and returns (the names, stderr, the items not
/// read exactly once).
fn generate(presets: &str, extra: &str) -> (Vec<String>, String, Vec<NotOnce>) {
    let project = project(presets, extra);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    let names: Vec<String> = presets
        .trim_matches(|character| character == '[' || character == ']')
        .split(',')
        .map(|name| name.trim().trim_matches('"').to_owned())
        .collect();
    let borrowed: Vec<&str> = names.iter().map(String::as_str).collect();
    let context = effective_context(&project, &borrowed);
    (names, run.stderr(), not_once(&context))
}

#[test]
fn b40_cursor_codex_copilot_read_each_item_once() {
    let (_, _, wrong) = generate(r#"["cursor", "codex", "copilot"]"#, "");
    assert_eq!(wrong, Vec::new());
}

#[test]
fn codex_and_cursor_read_each_item_once() {
    let (_, _, wrong) = generate(r#"["codex", "cursor"]"#, "");
    assert_eq!(wrong, Vec::new());
}

#[test]
fn with_nested_agents_md_every_nested_reader_reads_each_item_once() {
    let presets = r#"["amp", "cline", "codex", "cursor", "devin", "kiro", "opencode", "windsurf"]"#;
    let project = project(presets, "nested_agents_md = true\n");
    project.run(&["generate"]).expect_code(0);
    // The glob rule (`src/**/*.rs`) moved next to the code it is about.
    assert!(project.read("src/AGENTS.md").contains("GLOBMARK"));
    assert!(!project.read("AGENTS.md").contains("GLOBMARK"));
    let names = [
        "amp", "cline", "codex", "cursor", "devin", "kiro", "opencode", "windsurf",
    ];
    assert_eq!(not_once(&effective_context(&project, &names)), Vec::new());
}

#[test]
fn claude_and_copilot_read_each_item_once() {
    let (_, _, wrong) = generate(r#"["claude", "copilot"]"#, "");
    assert_eq!(wrong, Vec::new());
}

#[test]
fn windsurf_and_devin_read_each_item_once() {
    let (_, _, wrong) = generate(r#"["windsurf", "devin"]"#, "");
    assert_eq!(wrong, Vec::new());
}

#[test]
fn claude_with_agents_md_reads_each_item_once() {
    let (_, _, wrong) = generate(r#"["claude"]"#, "agents_md = true\n");
    assert_eq!(wrong, Vec::new());
    let (_, _, wrong) = generate(r#"["claude", "codex"]"#, "agents_md = true\n");
    assert_eq!(wrong, Vec::new());
}

#[test]
fn every_preset_with_agents_md_reads_each_item_once() {
    let (names, stderr, wrong) = generate(ALL, "agents_md = true\n");
    assert_eq!(names.len(), 35);
    assert_eq!(wrong, Vec::new());
    assert!(
        !stderr.contains("because each of those files is the only one"),
        "{stderr}"
    );
}

#[test]
fn every_single_preset_reads_each_item_once() {
    let names: Vec<String> = ALL
        .trim_matches(|character| character == '[' || character == ']')
        .split(',')
        .map(|name| name.trim().to_owned())
        .collect();
    for name in names {
        let (_, _, wrong) = generate(&format!("[{name}]"), "");
        assert_eq!(wrong, Vec::new(), "{name}");
    }
}

#[test]
fn every_preset_without_agents_md_names_the_assistants_that_cannot_be_served_once() {
    // Codex reads only AGENTS.md, Claude Code only its own files and Gemini CLI only GEMINI.md;
    // VS Code reads both AGENTS.md and `.claude/`, Antigravity both AGENTS.md and GEMINI.md,
    // Augment both AGENTS.md and CLAUDE.md, Crush all three root files, and OpenCode both
    // AGENTS.md and `.claude/skills` (where Claude's auto and manual rules go). No placement
    // serves all of them once, so those five are named, with the setting that fixes it.
    let (_, stderr, wrong) = generate(ALL, "");
    let doubled: Vec<(String, &str, usize)> = wrong
        .iter()
        .map(|(preset, marker, files)| (preset.clone(), *marker, files.len()))
        .collect();
    // Claude Code holds only the context in CLAUDE.md (its rules are in `.claude/rules`, which
    // Augment and Crush do not read), so Augment reads only the context twice; Crush also reads
    // every rule in both AGENTS.md and GEMINI.md, and the context in all three.
    let expected: Vec<(String, &str, usize)> = [
        ("antigravity", &MARKERS[..], 2),
        ("augment", &["CTXMARK"][..], 2),
        ("copilot", &MARKERS[..], 2),
        ("crush", &MARKERS[..4], 2),
        ("crush", &["CTXMARK"][..], 3),
        ("opencode", &["AUTOMARK", "MANUALMARK"][..], 2),
    ]
    .into_iter()
    .flat_map(|(preset, markers, count)| {
        markers
            .iter()
            .map(move |marker| (preset.to_owned(), *marker, count))
    })
    .collect();
    assert_eq!(doubled, expected);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("because each of those files is the only one"))
        .collect();
    assert_eq!(lines.len(), 5, "{stderr}");
    assert!(
        lines[0].starts_with(
            "warning: antigravity: Antigravity reads 5 items twice, in AGENTS.md and GEMINI.md, because"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].starts_with("warning: copilot: GitHub Copilot reads 5 items twice, in"),
        "{}",
        lines[1]
    );
    let expected_starts = [
        "warning: antigravity: Antigravity reads 5 items twice, in AGENTS.md and GEMINI.md, because",
        "warning: copilot: GitHub Copilot reads 5 items twice, in",
        "warning: opencode: OpenCode reads 2 items twice, in .claude/skills and AGENTS.md, because",
        "warning: augment: Augment reads 1 item twice, in AGENTS.md and CLAUDE.md, because",
        "warning: crush: Crush reads 5 items 2 to 3 times, in AGENTS.md and CLAUDE.md and GEMINI.md, because",
    ];
    for (line, start) in lines.iter().zip(expected_starts) {
        assert!(line.starts_with(start), "{line}");
    }
}

#[test]
fn a_scoped_rule_stays_in_the_native_scoped_file_when_no_agents_md_reader_needs_it() {
    // Claude Code alone with `agents_md = true`: AGENTS.md (imported by CLAUDE.md) carries the
    // context, and the rules stay in `.claude/rules` and `.claude/skills`, where `paths` and the
    // skill description keep them scoped.
    let project = project(r#"["claude"]"#, "agents_md = true\n");
    project.run(&["generate"]).expect_code(0);
    let context = effective_context(&project, &["claude"]);
    let files: BTreeMap<&str, Vec<String>> = context["claude"]
        .iter()
        .map(|(marker, files)| (*marker, files.clone()))
        .collect();
    let expected: BTreeMap<&str, Vec<String>> = [
        ("ALWAYSMARK", ".claude/rules/always.md"),
        ("AUTOMARK", ".claude/skills/auto/SKILL.md"),
        ("CTXMARK", "AGENTS.md"),
        ("GLOBMARK", ".claude/rules/glob.md"),
        ("MANUALMARK", ".claude/skills/manual/SKILL.md"),
    ]
    .into_iter()
    .map(|(marker, file)| (marker, vec![file.to_owned()]))
    .collect();
    assert_eq!(files, expected);
}

#[test]
fn windsurf_and_devin_share_the_windsurf_rules_devin_also_reads() {
    let project = project(r#"["windsurf", "devin"]"#, "");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(project.exists(".windsurf/rules/glob.md"));
    assert!(!project.exists(".devin/rules/glob.md"));
    assert!(
        run.stderr().contains(
            "warning: devin: 5 items are left out of Devin Desktop's own files because Devin Desktop already reads them in files the windsurf preset writes: always (in .windsurf/rules), arch (in .windsurf/rules), auto (in .windsurf/rules), glob (in .windsurf/rules), manual (in .windsurf/rules)"
        ),
        "{}",
        run.stderr()
    );
}

#[test]
fn targets_still_decide_which_files_get_an_item() {
    // Only Cursor: Codex's AGENTS.md does not carry it, so Cursor keeps its own scoped file.
    let cursor_only = project(r#"["codex", "cursor"]"#, "");
    cursor_only.write(
        ".ai-rulez/rules/only-cursor.md",
        "---\ntargets: [cursor]\npaths: [\"src/**\"]\n---\nCURSORONLY: prefer early returns.\n",
    );
    cursor_only.run(&["generate"]).expect_code(0);
    assert!(
        cursor_only
            .read(".cursor/rules/only-cursor.mdc")
            .contains("CURSORONLY")
    );
    assert!(!cursor_only.read("AGENTS.md").contains("CURSORONLY"));
    // Only AGENTS.md, which CLAUDE.md imports: the import carries it and nothing else does.
    let shared = project(r#"["claude"]"#, "agents_md = true\n");
    shared.write(
        ".ai-rulez/rules/shared.md",
        "---\ntargets: [AGENTS.md]\n---\nSHAREDONLY: one shared file.\n",
    );
    shared.run(&["generate"]).expect_code(0);
    assert!(shared.read("AGENTS.md").contains("SHAREDONLY"));
    assert!(!shared.exists(".claude/rules/shared.md"));
}

#[test]
fn new_presets_beside_agents_md_readers_read_each_item_once() {
    // Roo Code, Kilo Code, Continue, Augment, Crush, goose, Qwen Code and GitLab Duo read
    // AGENTS.md besides their own files; Trae, Tabnine, Amazon Q and JetBrains AI Assistant do not.
    for presets in [
        r#"["roo", "zoocode", "kilo", "codex"]"#,
        r#"["continue", "augment", "warp"]"#,
        r#"["trae", "tabnine", "amazonq", "aiassistant", "factory"]"#,
        r#"["crush", "codex"]"#,
        r#"["grok", "roo"]"#,
        r#"["goose", "qwen", "gitlab-duo", "kimi", "openhands", "qoder"]"#,
        r#"["codebuddy", "replit", "cursor"]"#,
    ] {
        let (_, _, wrong) = generate(presets, "");
        assert_eq!(wrong, Vec::new(), "{presets}");
    }
}
