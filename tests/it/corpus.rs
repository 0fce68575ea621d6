//! The real `.ai-rulez/` trees in `../shared/corpus/ai-rulez/` (with the outputs their projects
//! committed): each loads, generates, is `--check` clean afterwards, and a second generate writes
//! nothing. Files generate does not name are left byte-for-byte alone. Per-project tests pin what
//! was created, that hand-written root files keep their text, that files the Go ai-rulez wrote
//! are replaced without `--force`, and that the v3 include modules load.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support::{FileState, Project, Run, sha256sum};

/// `xberg-io__ai-rulez` references `${GITHUB_TOKEN}` in an MCP server that Codex needs resolved.
const ENV: [(&str, &str); 1] = [("GITHUB_TOKEN", "test-token")];

/// What `generate` prints after the path of a hand-written file whose ai-rulez section changed.
const SECTION_ONLY: &str = " (the ai-rulez section only; the rest of the file stays)";
const SECTION_ADDED: &str = " (adds the ai-rulez section; the rest of the file stays)";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/ai-rulez")
}

/// The real trees live beside the repository (`../shared/corpus/`), as on this project's machines
/// and in CI. A clone elsewhere has no copy: there the corpus tests say so and pass, while in CI
/// (`CI` set) a missing corpus fails, so the tests can never be skipped where they must run.
fn corpus_available() -> bool {
    if corpus_dir().is_dir() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "missing corpus {}: CI must run the real-tree tests",
        corpus_dir().display()
    );
    crate::support::skip_notice(&format!(
        "no real-tree corpus at {}",
        corpus_dir().display()
    ));
    false
}

/// A corpus project after its first generate.
struct Generated {
    project: Project,
    /// Every file before the first generate.
    before: BTreeMap<String, FileState>,
    /// The first generate run.
    first: Run,
}

impl Generated {
    /// Paths on the first run's stdout lines that start with `<word>: `.
    fn paths(&self, word: &str) -> BTreeSet<String> {
        let prefix = format!("{word}: ");
        self.first
            .stdout()
            .lines()
            .filter_map(|line| line.strip_prefix(&prefix))
            .map(|path| {
                // A change to the ai-rulez section of a hand-written file says so after the
                // path; that file existed before and keeps the user's text.
                match path
                    .strip_suffix(SECTION_ONLY)
                    .or_else(|| path.strip_suffix(SECTION_ADDED))
                {
                    Some(file) => {
                        assert!(
                            self.before.contains_key(file),
                            "{file} was not hand-written"
                        );
                        file.to_owned()
                    }
                    None => path.to_owned(),
                }
            })
            .collect()
    }

    /// Files that exist now and did not before the first generate.
    fn new_files(&self) -> BTreeSet<String> {
        self.project
            .files()
            .into_iter()
            .filter(|path| !self.before.contains_key(path))
            .collect()
    }

    /// The original bytes of a corpus file.
    fn original(&self, path: &str) -> &[u8] {
        &self.before[path].bytes
    }
}

/// Copies `name`, generates, checks and generates again; returns the state after the first run.
fn round_trip(name: &str) -> Generated {
    round_trip_with(name, &ENV)
}

/// [`round_trip`] with the environment `env` for every run.
fn round_trip_with(name: &str, env: &[(&str, &str)]) -> Generated {
    let source = corpus_dir().join(name);
    assert!(
        source.join(".ai-rulez").is_dir(),
        "missing corpus tree {}",
        source.display()
    );
    let project = Project::copy_of(&source);
    let before = project.states();
    let first = project.run_with_env(&["generate"], env);
    first.expect_code(0);
    let generated = Generated {
        project,
        before,
        first,
    };
    let project = &generated.project;

    // Every stdout line is `create:`, `update:` or `delete:` and matches the disk.
    let created = generated.paths("create");
    let updated = generated.paths("update");
    let deleted = generated.paths("delete");
    assert_eq!(
        created.len() + updated.len() + deleted.len(),
        generated.first.stdout().lines().count(),
        "unexpected stdout line:\n{}",
        generated.first.stdout()
    );
    let now = project.states();
    for path in &created {
        assert!(now.contains_key(path), "created {path} is missing");
    }
    for path in &deleted {
        assert!(!now.contains_key(path), "deleted {path} still exists");
        assert!(
            generated.before.contains_key(path),
            "deleted {path} never existed"
        );
    }
    // Files generate does not name are untouched.
    for (path, state) in &generated.before {
        if updated.contains(path) || deleted.contains(path) || created.contains(path) {
            continue;
        }
        assert_eq!(
            now.get(path).map(|found| &found.bytes),
            Some(&state.bytes),
            "{path} changed although generate did not name it"
        );
    }

    let check = project.run_with_env(&["generate", "--check"], env);
    check.expect_code(0);
    assert_eq!(
        check.stdout(),
        "",
        "--check after generate must find no drift"
    );

    project.age_files();
    let aged = project.states();
    let second = project.run_with_env(&["generate"], env);
    second.expect_code(0);
    assert_eq!(second.stdout(), "", "a second generate must write nothing");
    assert_eq!(project.states(), aged, "a second generate touched files");
    generated
}

/// Checks the managed section of a root file: its BEGIN line's hash is `sha256sum` of the text
/// between the BEGIN line and the END marker. Returns `(text before the section, section body)`.
fn managed_section(text: &str) -> (&str, &str) {
    let begin = text
        .find("<!-- BEGIN ai-rulez: generated section (")
        .expect("a managed section");
    let begin_line_end = begin + text[begin..].find('\n').expect("BEGIN line end") + 1;
    let end = text.find("<!-- END ai-rulez -->\n").expect("END marker");
    assert_eq!(
        end + "<!-- END ai-rulez -->\n".len(),
        text.len(),
        "the section ends the file"
    );
    let body = &text[begin_line_end..end];
    let claimed = text[begin..begin_line_end]
        .split("Content-Hash: sha256:")
        .nth(1)
        .expect("hash in BEGIN line");
    assert_eq!(&claimed[..64], sha256sum(body.as_bytes()));
    (&text[..begin], body)
}

#[test]
fn corpus_goldziher_poly() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("Goldziher__poly");
    assert_eq!(generated.paths("update"), BTreeSet::new());
    assert_eq!(generated.paths("delete"), BTreeSet::new());
    assert_eq!(generated.paths("create"), generated.new_files());
    // 25 before Codex custom agents; its two agents add `.codex/agents/<id>.toml`.
    assert_eq!(generated.new_files().len(), 27);
}

#[test]
fn corpus_goldziher_uncomment_creates_exactly_its_outputs() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("Goldziher__uncomment");
    let expected: BTreeSet<String> = [
        ".claude/commands/build.md",
        ".claude/commands/fix.md",
        ".claude/commands/lint.md",
        ".claude/commands/review.md",
        ".claude/commands/test.md",
        ".claude/rules/configuration-system.md",
        ".claude/rules/cross-platform-distribution.md",
        ".claude/rules/grammar-management.md",
        ".claude/rules/preservation-rules.md",
        ".claude/rules/tree-sitter-ast-parsing.md",
        ".claude/rules/version-synchronization.md",
        ".gitignore",
        "AGENTS.md",
        "CLAUDE.md",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(generated.new_files(), expected);
    assert_eq!(generated.paths("create"), expected);
    // The Go tool's manifest (format version 1) is replaced by ours.
    assert_eq!(
        generated.paths("update"),
        BTreeSet::from([".ai-rulez/.generated-manifest.json".to_owned()])
    );
    assert_eq!(generated.paths("delete"), BTreeSet::new());
    // Three context files, no rule inlined: CLAUDE.md holds the context only; rules go to .claude/rules.
    let claude = generated.project.read("CLAUDE.md");
    assert!(claude.starts_with("<!-- Generated by ai-rulez from .ai-rulez/; "));
    assert!(!claude.contains("## Rules"), "{claude}");
    assert_eq!(claude.matches("\n### ").count(), 3, "{claude}");
    // AGENTS.md (Codex) holds all six rules and three context items inline.
    assert_eq!(
        generated
            .project
            .read("AGENTS.md")
            .matches("\n### ")
            .count(),
        9
    );
}

#[test]
fn corpus_xberg_io_alef_creates_exactly_its_outputs() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("xberg-io__alef");
    let rules = [
        "atomic-commits",
        "basemind-tools",
        "binding-audit-pattern",
        "branch-hygiene",
        "centralized-naming",
        "codegen-structure",
        "comment-discipline",
        "commit-messages",
        "commit-procedure",
        "file-modularization",
        "jinja-templates",
        "local-alef-install",
        "logging-tracing",
        "no-ai-signatures",
        "project-agnostic-codegen",
        "publish-flow",
        "safe-git-operations",
        "sibling-agent-coordination",
        "tdd-workflow",
        "test-alongside-code",
        "upstream-triage",
        "verify-before-acting",
    ];
    let skills = ["binding-audit", "release-procedure", "release-workflow"];
    let mut expected: BTreeSet<String> = rules
        .iter()
        .map(|rule| format!(".claude/rules/{rule}.md"))
        .collect();
    for skill in skills {
        expected.insert(format!(".claude/skills/{skill}/SKILL.md"));
        expected.insert(format!(".agents/skills/{skill}/SKILL.md"));
    }
    for path in [
        ".ai-rulez/.generated-manifest.json",
        ".claude/agents/alef-developer.md",
        ".codex/agents/alef-developer.toml",
        ".gitignore",
        "AGENTS.md",
        "CLAUDE.md",
    ] {
        expected.insert(path.to_owned());
    }
    assert_eq!(expected.len(), 34);
    assert_eq!(generated.new_files(), expected);
    assert_eq!(generated.paths("create"), expected);
    assert_eq!(generated.paths("update"), BTreeSet::new());
    // The committed .mcp.json is not ai-rulez's (the config has no `mcp_servers`): left alone.
    assert_eq!(
        generated.project.read_bytes(".mcp.json"),
        generated.original(".mcp.json")
    );
    assert!(!generated.project.read(".gitignore").contains("/.mcp.json"));
}

#[test]
fn corpus_botsandbytes_decode_replaces_go_outputs_and_keeps_unprovable_settings() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("botsandbytes__decode");
    let project = &generated.project;
    // `gitignore = false`: no .gitignore. Go outputs with a blake3 banner (and the Go manifest's
    // skill copies) are replaced without --force; outputs no preset produces any more are deleted
    // (Copilot reads the skills in .claude/skills and .agents/skills, so .github/skills goes).
    assert_eq!(
        generated.first.stdout(),
        "update: .agents/skills/ai-rulez/SKILL.md\n\
         update: .agents/skills/code-reviewer/SKILL.md\n\
         update: .ai-rulez/.generated-manifest.json\n\
         create: .claude/rules/code-quality.md\n\
         update: .claude/skills/ai-rulez/SKILL.md\n\
         update: .claude/skills/code-reviewer/SKILL.md\n\
         delete: .codex/skills/ai-rulez/SKILL.md\n\
         delete: .codex/skills/code-reviewer/SKILL.md\n\
         update: .github/copilot-instructions.md\n\
         delete: .github/skills/ai-rulez/SKILL.md\n\
         delete: .github/skills/code-reviewer/SKILL.md\n\
         update: AGENTS.md\n\
         update: CLAUDE.md\n\
         delete: GEMINI.md\n"
    );
    assert_eq!(
        generated.new_files(),
        BTreeSet::from([".claude/rules/code-quality.md",].map(str::to_owned))
    );

    // CLAUDE.md (Go, blake3 banner) became ours entirely: no managed section, our banner verifies.
    let original = String::from_utf8(generated.original("CLAUDE.md").to_vec()).expect("utf8");
    assert!(original.contains("Content-Hash: blake3:"));
    let claude = project.read("CLAUDE.md");
    let (banner, body) = claude.split_once('\n').expect("banner line");
    assert!(
        banner.starts_with("<!-- Generated by ai-rulez from .ai-rulez/; edit the source and run `ai-rulez generate`. Content-Hash: sha256:"),
        "{banner}"
    );
    assert_eq!(
        &banner[banner.len() - 68..banner.len() - 4],
        sha256sum(body.as_bytes())
    );
    assert!(
        body.starts_with("# decode\n\nAI-powered development governance for FTC decode project\n")
    );
    assert!(!claude.contains("blake3"));
    assert!(!claude.contains("BEGIN ai-rulez"));

    // .agents/settings.json was a Go output at a path no preset of ours writes: the manifest entry
    // is ignored with a warning, the file is kept as it was, and it is no longer tracked.
    assert_eq!(
        project.read_bytes(".agents/settings.json"),
        generated.original(".agents/settings.json")
    );
    assert!(
        generated.first.stderr().lines().any(|line| line
            == "warning: .ai-rulez/.generated-manifest.json: lists `.agents/settings.json`, which no preset generates; the entry is ignored (nothing there is read or deleted)"),
        "{}",
        generated.first.stderr()
    );
    assert!(
        !project
            .read(".ai-rulez/.generated-manifest.json")
            .contains("settings.json")
    );
    // .claude/settings.local.json was never ai-rulez's.
    assert_eq!(
        project.read_bytes(".claude/settings.local.json"),
        generated.original(".claude/settings.local.json")
    );
    assert!(!project.exists(".gitignore"));
}

#[test]
fn corpus_osmantic_ods_keeps_the_hand_written_claude_md() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("Osmantic__ODS");
    let original = String::from_utf8(generated.original("CLAUDE.md").to_vec()).expect("utf8");
    assert!(original.ends_with('\n'));
    let claude = generated.project.read("CLAUDE.md");
    let (before, body) = managed_section(&claude);
    assert_eq!(
        before,
        format!("{original}\n"),
        "the hand-written text must stay byte-for-byte"
    );
    assert!(body.starts_with("# ods-health-probe\n"), "{body}");
    assert!(generated.paths("create").contains("CLAUDE.md"));
    // The hand-written slash commands (four with invalid YAML frontmatter) are not touched.
    for path in generated
        .before
        .keys()
        .filter(|path| path.starts_with(".claude/commands/"))
    {
        assert_eq!(
            generated.project.read_bytes(path),
            generated.original(path),
            "{path}"
        );
    }
    assert_eq!(
        generated
            .before
            .keys()
            .filter(|path| path.starts_with(".claude/commands/"))
            .count(),
        9
    );
}

#[test]
fn corpus_hasansezertasan_mise_cookbooks_keeps_hand_written_root_files() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("hasansezertasan__mise-cookbooks");
    for path in ["CLAUDE.md", "AGENTS.md"] {
        let original = String::from_utf8(generated.original(path).to_vec()).expect("utf8");
        let text = generated.project.read(path);
        let (before, body) = managed_section(&text);
        // The text stays; a missing final newline is added, then one blank line separates the
        // section (the corpus AGENTS.md is git's stand-in for a symlink: `CLAUDE.md`, no newline).
        let separator = if original.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        assert_eq!(
            before,
            format!("{original}{separator}"),
            "{path}: hand-written text must stay"
        );
        assert!(body.starts_with("# mise-cookbooks\n"), "{path}: {body}");
    }
    // The committed skill copy (identical to the output minus its banner) is replaced; its
    // reference file already matched.
    assert!(
        generated
            .paths("update")
            .contains(".claude/skills/cookbook-creator/SKILL.md")
    );
    assert_eq!(
        generated
            .project
            .read_bytes(".claude/skills/cookbook-creator/references/anatomy.md"),
        generated
            .project
            .read_bytes(".ai-rulez/skills/cookbook-creator/references/anatomy.md")
    );
}

#[test]
fn corpus_kreuzberg_dev_liter_llm() {
    if !corpus_available() {
        return;
    }
    // Its two includes are `https://github.com/kreuzberg-dev/ai-rulez` (`modules/core`,
    // `modules/cicd`). This build fetches no HTTPS, which it says, naming both.
    let machine = kreuzberg_upstream();
    let project = Project::copy_of(&corpus_dir().join("kreuzberg-dev__liter-llm"));
    if !cfg!(feature = "https") {
        let unrouted: Vec<(String, String)> = machine
            .env()
            .into_iter()
            .filter(|(name, _)| name != "HOME")
            .collect();
        let unrouted: Vec<(&str, &str)> = unrouted
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        let refused = project.run_with_env(&["generate"], &unrouted);
        refused.expect_code(1);
        let why = "this ai-rulez was built without HTTPS support for git includes; use an SSH URL (`git+ssh://git@host/owner/repo.git` or `git@host:owner/repo.git`), send this one over SSH with git's `url.<base>.insteadOf`, or install a build with HTTPS (`cargo install --path . --features https`)";
        assert!(
            refused.stderr().ends_with(&format!(
                "error: .ai-rulez/config.toml: `includes[0]` (`kreuzberg-core`, https://github.com/kreuzberg-dev/ai-rulez): {why}\n.ai-rulez/config.toml: `includes[1]` (`kreuzberg-cicd`, https://github.com/kreuzberg-dev/ai-rulez): {why}\n"
            )),
            "{}",
            refused.stderr()
        );
    }
    // With the URL sent to a local copy (as `insteadOf` in a user's git config does), the tree
    // generates with the included rules and agents, below its own.
    let env = with_upstream(&machine);
    let env: Vec<(&str, &str)> = env
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let generated = round_trip_with("kreuzberg-dev__liter-llm", &env);
    assert_eq!(
        generated.new_files(),
        BTreeSet::from(
            [
                ".ai-rulez/.generated-manifest.json",
                ".claude/agents/code-reviewer.md",
                ".claude/rules/gh-workflows.md",
                ".claude/rules/rust-polyglot-conventions.md",
                ".codex/agents/code-reviewer.toml",
                ".codex/config.toml",
                ".gemini/settings.json",
                ".gitignore",
                ".mcp.json",
                "AGENTS.md",
                "CLAUDE.md",
                "GEMINI.md",
            ]
            .map(str::to_owned)
        )
    );
    assert!(
        generated
            .project
            .read(".claude/rules/gh-workflows.md")
            .starts_with(
                "<!-- Generated by ai-rulez from include:kreuzberg-cicd/rules/gh-workflows.md; "
            )
    );
}

/// A stand-in for `kreuzberg-dev/ai-rulez` laid out as the real one is (one `.ai-rulez/` per
/// module, with its own `config.yaml`), with `https://github.com/kreuzberg-dev/ai-rulez`
/// routed to it.
fn kreuzberg_upstream() -> crate::git_includes::Machine {
    let machine = crate::git_includes::Machine::new();
    machine.commit(&[
        ("modules/core/.ai-rulez/config.yaml", "metadata:\n  name: core\n"),
        (
            "modules/core/.ai-rulez/rules/rust-polyglot-conventions.md",
            "---\npriority: high\n---\n# Rust polyglot conventions\n\nKeep the core in Rust; bindings stay thin.\n",
        ),
        (
            "modules/core/.ai-rulez/agents/code-reviewer.md",
            "---\nname: code-reviewer\ndescription: Reviews changes for correctness and style.\n---\nYou review code changes.\n",
        ),
        ("modules/cicd/.ai-rulez/config.yaml", "metadata:\n  name: cicd\n"),
        (
            "modules/cicd/.ai-rulez/rules/gh-workflows.md",
            "# GitHub workflows\n\nPin every action to a commit.\n",
        ),
    ]);
    machine.route("https://github.com/kreuzberg-dev/ai-rulez");
    machine
}

/// [`ENV`] and the environment of `machine` (its home, whose git config routes the include
/// URL, and its cache).
fn with_upstream(machine: &crate::git_includes::Machine) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = ENV
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    env.extend(machine.env());
    env
}

#[test]
fn corpus_xberg_io_ai_rulez_resolves_the_codex_secret_privately() {
    if !corpus_available() {
        return;
    }
    let generated = round_trip("xberg-io__ai-rulez");
    let project = &generated.project;
    assert_eq!(
        project.read(".codex/config.toml"),
        "[mcp_servers.github]\ncommand = \"npx\"\nargs = [\"-y\", \"@modelcontextprotocol/server-github\"]\n\
         env = { GITHUB_PERSONAL_ACCESS_TOKEN = \"test-token\" }\n\n\
         [mcp_servers.ai-rulez]\ncommand = \"npx\"\nargs = [\"-y\", \"ai-rulez@latest\", \"mcp\"]\n"
    );
    assert_eq!(project.mode(".codex/config.toml"), 0o600);
    assert!(
        project
            .read(".gitignore")
            .lines()
            .any(|line| line == "/.codex/config.toml")
    );
    // Formats that can reference the variable keep the reference.
    assert!(
        project
            .read(".mcp.json")
            .contains("\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${GITHUB_TOKEN}\"")
    );
    assert!(
        project
            .read(".vscode/mcp.json")
            .contains("\"GITHUB_PERSONAL_ACCESS_TOKEN\": \"${env:GITHUB_TOKEN}\"")
    );
    // --check judges drift without the secret.
    let check = project.run(&["generate", "--check"]);
    check.expect_code(0);
    assert_eq!(check.stdout(), "");
}

/// Module name → the Claude outputs its items map to (rules, agents and skills get files;
/// context is inlined in CLAUDE.md).
fn module_outputs(module: &Path) -> (BTreeSet<String>, usize) {
    let config_dir = module.join(".ai-rulez");
    let stems = |kind: &str| -> Vec<String> {
        let dir = config_dir.join(kind);
        if !dir.is_dir() {
            return Vec::new();
        }
        let mut names: Vec<String> = fs_err::read_dir(&dir)
            .expect("read_dir")
            .map(|entry| {
                entry
                    .expect("entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    let mut expected = BTreeSet::new();
    for name in stems("rules") {
        expected.insert(format!(".claude/rules/{name}"));
    }
    for name in stems("agents") {
        expected.insert(format!(".claude/agents/{name}"));
    }
    for name in stems("skills") {
        expected.insert(format!(".claude/skills/{name}/SKILL.md"));
    }
    expected.insert("CLAUDE.md".to_owned());
    expected.insert(".ai-rulez/.generated-manifest.json".to_owned());
    (expected, stems("context").len())
}

#[test]
fn corpus_xberg_io_ai_rulez_v3_modules_load() {
    if !corpus_available() {
        return;
    }
    let modules = [
        "cicd",
        "core",
        "e2e-generator",
        "infrastructure",
        "languages",
    ];
    let source = corpus_dir().join("xberg-io__ai-rulez/modules");
    let mut found: Vec<String> = fs_err::read_dir(&source)
        .expect("modules")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    found.sort();
    assert_eq!(found, modules);

    let repository = Project::copy_of(&corpus_dir().join("xberg-io__ai-rulez"));
    for module in modules {
        let directory = format!("modules/{module}");
        // No presets in a module config: it loads, and nothing is written (the repository root's
        // 12 outputs would count as `unchanged` if the search had walked up to it).
        let run = repository.run_with_env(&["-C", &directory, "generate"], &ENV);
        run.expect_code(0);
        assert_eq!(run.stdout(), "", "{module}");
        assert_eq!(
            run.stderr(),
            "0 written, 0 unchanged, 0 removed\n",
            "{module}"
        );

        // With `presets: [claude]` added, every item of the module reaches its Claude file.
        let project = Project::copy_of(&source.join(module));
        let config = project.read(".ai-rulez/config.yaml");
        assert!(config.contains("version: \"3.0\""), "{module}: {config}");
        project.write(
            ".ai-rulez/config.yaml",
            format!("{config}presets:\n  - claude\n"),
        );
        let before: BTreeSet<String> = project.files().into_iter().collect();
        let run = project.run(&["generate"]);
        run.expect_code(0);
        let created: BTreeSet<String> = project
            .files()
            .into_iter()
            .filter(|path| !before.contains(path))
            .collect();
        let (expected, context) = module_outputs(&source.join(module));
        assert_eq!(created, expected, "{module}");
        let claude = project.read("CLAUDE.md");
        assert_eq!(
            claude.matches("\n### ").count(),
            context,
            "{module}: every context file is inlined in CLAUDE.md:\n{claude}"
        );
        project.run(&["generate", "--check"]).expect_code(0);
    }
}

/// The presets added for issue 13 ("Breadth: ≥ 32 presets"), enabled beside each tree's own.
const NEW_PRESETS: [&str; 21] = [
    "aiassistant",
    "amazonq",
    "augment",
    "codebuddy",
    "continue",
    "crush",
    "factory",
    "gitlab-duo",
    "goose",
    "grok",
    "kilo",
    "kimi",
    "openhands",
    "qoder",
    "qwen",
    "replit",
    "roo",
    "tabnine",
    "trae",
    "warp",
    "zoocode",
];

#[test]
fn corpus_every_tree_generates_with_every_new_preset_enabled() {
    if !corpus_available() {
        return;
    }
    let mut trees: Vec<PathBuf> = fs_err::read_dir(corpus_dir())
        .expect("corpus")
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.join(".ai-rulez/config.toml").is_file())
        .collect();
    trees.sort();
    assert_eq!(trees.len(), 8, "{trees:?}");
    let added: Vec<String> = NEW_PRESETS
        .iter()
        .map(|preset| format!("\"{preset}\""))
        .collect();
    // The liter-llm tree's git includes are served by a local stand-in (see above).
    let machine = kreuzberg_upstream();
    let upstream: Vec<(String, String)> = machine.env();
    let upstream: Vec<(&str, &str)> = upstream
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    for tree in trees {
        let name = tree
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let project = Project::copy_of(&tree);
        let config = project.read(".ai-rulez/config.toml");
        let mut replaced = 0;
        let text: String = config
            .lines()
            .map(|line| match line.strip_prefix("presets = [") {
                Some(rest) => {
                    replaced += 1;
                    let own = rest.trim_end().trim_end_matches(']');
                    format!("presets = [{own}, {}]\n", added.join(", "))
                }
                None => format!("{line}\n"),
            })
            .collect();
        assert_eq!(replaced, 1, "{name}: one `presets = [` line");
        project.write(".ai-rulez/config.toml", text);

        // No environment variable set but the upstream's (GITHUB_TOKEN is removed by `run`).
        let first = project.run_with_env(&["generate"], &upstream);
        first.expect_code(0);
        // The root files of the new presets are always written (an item their assistant reads
        // in AGENTS.md is left out of them, so some hold only the title).
        for root in [
            "AGENTS.md",
            "CODEBUDDY.md",
            "CRUSH.md",
            "QWEN.md",
            "replit.md",
            ".goosehints",
            ".gitlab/duo/chat-rules.md",
        ] {
            assert!(project.exists(root), "{name}: {root} not written");
        }
        // CodeBuddy Code and Replit read no file another enabled preset writes, so both root
        // files carry every item meant for them, in the same bytes.
        let codebuddy = project.read("CODEBUDDY.md");
        assert_eq!(codebuddy, project.read("replit.md"), "{name}");
        let holds_items = |text: &str| text.lines().any(|line| line.starts_with("### "));
        assert_eq!(
            holds_items(&codebuddy),
            holds_items(&project.read("AGENTS.md")),
            "{name}: CODEBUDDY.md and AGENTS.md disagree on whether the tree has items"
        );
        let check = project.run_with_env(&["generate", "--check"], &upstream);
        check.expect_code(0);
        assert_eq!(check.stdout(), "", "{name}: drift right after generate");
        project.age_files();
        let aged = project.states();
        let second = project.run_with_env(&["generate"], &upstream);
        second.expect_code(0);
        assert_eq!(second.stdout(), "", "{name}: a second generate wrote files");
        assert_eq!(
            project.states(),
            aged,
            "{name}: a second generate touched files"
        );
    }
}
