//! `ai-rulez import`: each source's real public tree (fixtures/import/<source>, see its
//! SOURCE.md) is read into exactly the snapshotted `.ai-rulez/` files; `--dry-run` writes
//! nothing and lists the same files; an existing file is never overwritten; and a following
//! `generate` adopts native files whose text is unchanged while showing a diff for the others.

use crate::support::Project;

/// The sources and their fixture folders.
const SOURCES: [&str; 9] = [
    "ruler",
    "rulesync",
    "cursor",
    "copilot",
    "windsurf",
    "claude",
    "cline",
    "agents-md",
    "ai-rulez-v2",
];

/// Every file under `.ai-rulez/` of `project` as `== path ==` and its text, in path order; the
/// temporary folder's name (the default project name) reads `PROJECT`.
fn imported_tree(project: &Project) -> String {
    let folder = project
        .path()
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tree = String::new();
    for path in project.files() {
        // `.ai-rulez/local/` describes this machine (the record of the files read), not the
        // imported content.
        if path.starts_with(".ai-rulez/") && !path.starts_with(".ai-rulez/local/") {
            tree.push_str(&format!("== {path} ==\n{}", project.read(&path)));
        }
    }
    tree.replace(&format!("name = \"{folder}\""), "name = \"PROJECT\"")
}

fn fixture(source: &str) -> Project {
    Project::fixture(&format!("import/{source}"))
}

#[test]
fn each_source_imports_into_exactly_these_files() {
    for source in SOURCES {
        let project = fixture(source);
        let run = project.run(&["import", "--from", source]);
        run.expect_code(0);
        insta::assert_snapshot!(format!("import_{source}"), imported_tree(&project));
        // What was imported loads and validates without errors (warnings are the fixtures'
        // own: links to files the fixture does not copy).
        project.run(&["validate"]).expect_code(0);
    }
}

#[test]
fn dry_run_writes_nothing_and_lists_the_files_a_real_run_creates() {
    for source in SOURCES {
        let project = fixture(source);
        let before = project.files();
        let dry = project.run(&["import", "--from", source, "--dry-run"]);
        dry.expect_code(0);
        assert_eq!(project.files(), before, "{source}: dry run wrote");
        let real = project.run(&["import", "--from", source]);
        real.expect_code(0);
        assert_eq!(dry.stdout(), real.stdout(), "{source}");
        // The notes hold for both runs; only the last line says what was done and what next.
        let (dry_stderr, real_stderr) = (dry.stderr(), real.stderr());
        let (dry_notes, dry_last) = split_last_line(&dry_stderr);
        let (real_notes, real_last) = split_last_line(&real_stderr);
        assert_eq!(dry_notes, real_notes, "{source}");
        assert!(
            dry_last.starts_with("would create ")
                && dry_last.ends_with("; next: run the import without --dry-run to write them"),
            "{source}: {dry_last}"
        );
        assert!(real_last.starts_with("created "), "{source}: {real_last}");
        let created: Vec<String> = project
            .files()
            .into_iter()
            .filter(|path| !before.contains(path) && !path.starts_with(".ai-rulez/local/"))
            .map(|path| format!("create: {path}\n"))
            .collect();
        assert_eq!(real.stdout(), created.concat(), "{source}");
    }
}

/// The lines of `stderr` before its last one, and its last line.
fn split_last_line(stderr: &str) -> (&str, &str) {
    let text = stderr.trim_end_matches('\n');
    text.rsplit_once('\n').unwrap_or(("", text))
}

#[test]
fn an_existing_file_with_other_text_stops_the_import_before_anything_is_written() {
    let project = fixture("rulesync");
    project.write(".ai-rulez/rules/overview.md", "# Mine\n");
    let before = project.files();
    let run = project.run(&["import", "--from", "rulesync"]);
    run.expect_code(1);
    assert!(
        run.stderr().contains(".ai-rulez/rules/overview.md")
            && run.stderr().contains("import never overwrites"),
        "{}",
        run.stderr()
    );
    assert_eq!(project.files(), before);
    assert_eq!(project.read(".ai-rulez/rules/overview.md"), "# Mine\n");
}

#[test]
fn importing_again_finds_every_file_unchanged() {
    let project = fixture("cursor");
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    let again = project.run(&["import", "--from", "cursor", "--format", "json"]);
    again.expect_code(0);
    let report: serde_json::Value = serde_json::from_str(&again.stdout()).expect("json");
    assert_eq!(report["created"], serde_json::json!([]));
    // config.toml exists now, so it is left alone (not compared, not listed).
    assert_eq!(
        report["unchanged"],
        serde_json::json!([".ai-rulez/rules/general.md", ".ai-rulez/rules/solidity.md"])
    );
}

#[test]
fn activation_is_kept_for_every_kind_of_windsurf_and_copilot_rule() {
    let project = Project::empty();
    project.write(
        ".windsurf/rules/glob.md",
        "---\ntrigger: glob\nglobs: src/**/*.ts\n---\nG\n",
    );
    project.write(
        ".windsurf/rules/model.md",
        "---\ntrigger: model_decision\ndescription: When touching the API\n---\nM\n",
    );
    project.write(
        ".windsurf/rules/manual.md",
        "---\ntrigger: manual\n---\nH\n",
    );
    project.write(
        ".windsurf/rules/always.md",
        "---\ntrigger: always_on\n---\nA\n",
    );
    project
        .run(&["import", "--from", "windsurf"])
        .expect_code(0);
    assert_eq!(
        project.read(".ai-rulez/rules/glob.md"),
        "---\npaths:\n  - src/**/*.ts\n---\n\nG\n"
    );
    assert_eq!(
        project.read(".ai-rulez/rules/model.md"),
        "---\ndescription: When touching the API\nactivation: auto\n---\n\nM\n"
    );
    assert_eq!(
        project.read(".ai-rulez/rules/manual.md"),
        "---\nactivation: manual\n---\n\nH\n"
    );
    // Turned on explicitly for every file: sent by `get_rules` whatever the task.
    assert_eq!(
        project.read(".ai-rulez/rules/always.md"),
        "---\nactivation: always\n---\n\nA\n"
    );

    let copilot = Project::empty();
    copilot.write(
        ".github/instructions/auto.instructions.md",
        "---\ndescription: Database migrations\n---\nD\n",
    );
    copilot.write(".github/instructions/hand.instructions.md", "H\n");
    copilot.write(
        ".github/instructions/all.instructions.md",
        "---\napplyTo: \"**\"\n---\nA\n",
    );
    copilot.run(&["import", "--from", "copilot"]).expect_code(0);
    assert_eq!(
        copilot.read(".ai-rulez/rules/auto.md"),
        "---\ndescription: Database migrations\nactivation: auto\n---\n\nD\n"
    );
    assert_eq!(
        copilot.read(".ai-rulez/rules/hand.md"),
        "---\nactivation: manual\n---\n\nH\n"
    );
    assert_eq!(copilot.read(".ai-rulez/rules/all.md"), "A\n");
}

#[test]
fn generate_adopts_native_files_with_the_same_text_without_force() {
    // A hand-written rule (ending without a final new line, as many do) whose text is what
    // generate writes is taken over (rewritten with the ai-rulez banner), nothing refused.
    let project = Project::empty();
    project.write(
        ".windsurf/rules/style.md",
        "---\ntrigger: glob\nglobs: \"src/**/*.rs\"\n---\n\n# Style\n\nUse rustfmt.",
    );
    project
        .run(&["import", "--from", "windsurf"])
        .expect_code(0);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stdout().contains("update: .windsurf/rules/style.md"),
        "{}",
        run.stdout()
    );
    let adopted = project.read(".windsurf/rules/style.md");
    assert!(adopted.contains("Content-Hash: sha256:"), "{adopted}");
    assert!(adopted.ends_with("# Style\n\nUse rustfmt.\n"), "{adopted}");
    project.run(&["generate", "--check"]).expect_code(0);
}

#[test]
fn an_imported_file_left_beside_the_generated_one_is_named_until_it_is_deleted() {
    // A rule in a subfolder of `.cursor/rules` is generated under another name (its id joins
    // the folder), so the original stays and Cursor would read the rule twice.
    let project = Project::empty();
    project.write(
        ".cursor/rules/web/react.mdc",
        "---\ndescription: React components\nglobs: \"*.tsx\"\nalwaysApply: false\n---\nFunction components only.\n",
    );
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    let warning = "warning: .cursor/rules/web/react.mdc: its text is in .ai-rulez/rules/web-react.md now (it was imported), and `generate` writes it into .cursor/rules/web-react.mdc, which Cursor also reads, so Cursor reads the text twice; delete .cursor/rules/web/react.mdc once the generated files are right (ai-rulez never deletes a file it did not write)\n";
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stdout().contains("create: .cursor/rules/web-react.mdc"),
        "{}",
        run.stdout()
    );
    assert!(run.stderr().starts_with(warning), "{}", run.stderr());
    // Said again on every run while the original is there, and never deleted by ai-rulez.
    let again = project.run(&["generate"]);
    assert!(again.stderr().starts_with(warning), "{}", again.stderr());
    assert!(project.path().join(".cursor/rules/web/react.mdc").exists());
    fs_err::remove_file(project.path().join(".cursor/rules/web/react.mdc")).expect("remove");
    let after = project.run(&["generate"]);
    assert!(
        !after.stderr().contains("reads it twice"),
        "{}",
        after.stderr()
    );
}

#[test]
fn a_left_imported_file_is_named_only_when_its_assistant_reads_its_text_again() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"codex\", \"claude\"]\n",
    );
    project.write(
        ".ai-rulez/rules/style.md",
        "# Style\n\nWrite a short summary.\n",
    );
    project.write(
        ".cursor/rules/web/react.mdc",
        "---\nalwaysApply: true\n---\nFunction components only.\n",
    );
    project.write(
        ".cursor/rules/web/tiny.mdc",
        "---\nalwaysApply: true\n---\na\n",
    );
    project.write(
        ".cursor/rules/web/empty.mdc",
        "---\nalwaysApply: true\n---\n",
    );
    project.write(
        ".cursor/rules/web/gone.mdc",
        "---\nalwaysApply: true\n---\nTo be removed.\n",
    );
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    fs_err::remove_file(project.path().join(".ai-rulez/rules/web-gone.md")).expect("remove");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    // Cursor is no preset here, but it reads the root AGENTS.md Codex gets, so the rules it
    // reads from its own folder reach it twice. The rule `a` names no file that merely holds
    // the letter; the empty rule and the one whose item was deleted reach it once.
    let stderr = run.stderr();
    let warned = stderr
        .lines()
        .filter(|line| line.contains("reads the text twice"))
        .count();
    assert_eq!(warned, 2, "{stderr}");
    assert!(
        run.stderr().contains(
            "warning: .cursor/rules/web/react.mdc: its text is in .ai-rulez/rules/web-react.md now (it was imported), and `generate` writes it into AGENTS.md, which Cursor also reads, so Cursor reads the text twice;"
        ),
        "{}",
        run.stderr()
    );
    // GEMINI.md is read by Crush, which also reads `.cursor/rules`, but the rule was
    // Cursor's, and Cursor does not read GEMINI.md.
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"gemini\"]\n",
    );
    let gemini = project.run(&["generate"]);
    gemini.expect_code(0);
    assert!(!gemini.stderr().contains("twice"), "{}", gemini.stderr());
    assert!(
        run.stderr().contains(
            "warning: .cursor/rules/web/tiny.mdc: its text is in .ai-rulez/rules/web-tiny.md now (it was imported), and `generate` writes it into AGENTS.md, which Cursor"
        ),
        "{}",
        run.stderr()
    );
}

/// The warning speaks for the items the import made of a file, not for any item with the same
/// text: two nested folders with the same rule are two items, and deleting one must not make
/// the other's file look replaced. A file edited since the import is named with what to do
/// about its change, which neither copy holds.
#[test]
fn a_left_imported_file_is_named_for_its_own_items_and_again_once_edited() {
    let project = Project::empty();
    let rule = "---\ndescription: Style\nalwaysApply: true\n---\nUse tabs.\n";
    project.write("packages/web/.cursor/rules/style.mdc", rule);
    project.write("packages/api/.cursor/rules/style.mdc", rule);
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    fs_err::remove_file(project.path().join(".ai-rulez/rules/packages-api-style.md"))
        .expect("remove");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    let stderr = run.stderr();
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("packages/"))
        .collect();
    assert_eq!(
        warned,
        [
            "warning: packages/web/.cursor/rules/style.mdc: its text is in .ai-rulez/rules/packages-web-style.md now (it was imported), and `generate` writes it into .cursor/rules/packages-web-style.mdc, which Cursor also reads, so Cursor reads the text twice; delete packages/web/.cursor/rules/style.mdc once the generated files are right (ai-rulez never deletes a file it did not write)"
        ],
        "{stderr}"
    );
    project.write(
        "packages/web/.cursor/rules/style.mdc",
        format!("{rule}Indent JSX by two.\n"),
    );
    let edited = project.run(&["generate"]);
    edited.expect_code(0);
    let stderr = edited.stderr();
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("packages/"))
        .collect();
    assert_eq!(
        warned,
        [
            "warning: packages/web/.cursor/rules/style.mdc: changed since it was imported into .ai-rulez/rules/packages-web-style.md, and `generate` writes .ai-rulez/rules/packages-web-style.md into .cursor/rules/packages-web-style.mdc, which Cursor also reads, so Cursor reads two versions of the rule; make .ai-rulez/rules/packages-web-style.md say what you want kept, then delete packages/web/.cursor/rules/style.mdc (ai-rulez never deletes a file it did not write)"
        ],
        "{stderr}"
    );
    // Both nested files are as the user left them.
    assert_eq!(project.read("packages/api/.cursor/rules/style.mdc"), rule);
    // An edited item reads as two versions as well, from the item's side.
    let item_edited = Project::empty();
    item_edited.write("packages/web/.cursor/rules/style.mdc", rule);
    item_edited
        .run(&["import", "--from", "cursor"])
        .expect_code(0);
    item_edited.write(
        ".ai-rulez/rules/packages-web-style.md",
        "---\ndescription: Style\npaths:\n  - packages/web/**\n---\n\nUse spaces.\n",
    );
    let run = item_edited.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains(
            "warning: packages/web/.cursor/rules/style.mdc: .ai-rulez/rules/packages-web-style.md changed since it was imported from it, and `generate` writes .ai-rulez/rules/packages-web-style.md into .cursor/rules/packages-web-style.mdc, which Cursor also reads, so Cursor reads two versions of the rule;"
        ),
        "{}",
        run.stderr()
    );
    // A record written before it named the items says nothing: which item holds the text can
    // no longer be told, and a wrong guess would tell the user to delete a rule.
    let record = item_edited.read(".ai-rulez/local/imported.json");
    let (files, _) = record
        .split_once(",\n  \"items\"")
        .expect("items in the record");
    item_edited.write(".ai-rulez/local/imported.json", format!("{files}\n}}\n"));
    let old_record = item_edited.run(&["generate"]);
    old_record.expect_code(0);
    assert!(
        !old_record.stderr().contains("packages/web/.cursor"),
        "{}",
        old_record.stderr()
    );
    assert_eq!(
        project.read("packages/web/.cursor/rules/style.mdc"),
        format!("{rule}Indent JSX by two.\n")
    );
}

/// A file whose text became several items is adopted only while all of them exist: with one
/// deleted, that text is in the file and nowhere else, so the hand-written root file keeps its
/// text and gets the generated section instead of being replaced.
#[test]
fn an_imported_file_is_not_adopted_once_an_item_made_of_it_was_deleted() {
    let project = Project::empty();
    let original = "# Project\n\nIntro text.\n\n## Testing\n\nRun cargo test.\n\n## Secrets\n\nNever commit .env.\n";
    project.write("CLAUDE.md", original);
    project.run(&["import", "--from", "claude"]).expect_code(0);
    fs_err::remove_file(project.path().join(".ai-rulez/rules/secrets.md")).expect("remove");
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(
        run.stdout().contains(
            "create: CLAUDE.md (adds the ai-rulez section; the rest of the file stays)\n"
        ),
        "{}",
        run.stdout()
    );
    assert!(project.read("CLAUDE.md").starts_with(original));
    assert!(
        run.stderr().contains(
            "warning: CLAUDE.md: kept as written (.ai-rulez/rules/secrets.md made of it was deleted since) and given the generated section; what was imported from it into .ai-rulez/rules/claude.md, .ai-rulez/rules/testing.md is generated now too, so assistants read that text twice: remove it from outside the section once the generated files are right\n"
        ),
        "{}",
        run.stderr()
    );
    // A rule file at the path its item is generated to is refused like a hand-written file,
    // with why, once its item was edited, and when an older record does not name its items.
    project.write(".cursor/rules/a.mdc", "---\nalwaysApply: true\n---\nA.\n");
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    let record = project.read(".ai-rulez/local/imported.json");
    project.write(
        ".ai-rulez/rules/a.md",
        "---\nactivation: always\n---\n\nA, shorter.\n",
    );
    let blocked = project.run(&["generate"]);
    blocked.expect_code(1);
    assert!(
        blocked.stderr().starts_with(
            "error: .cursor/rules/a.mdc: `ai-rulez import` read it into .ai-rulez/, but .ai-rulez/rules/a.md made of it no longer holds what the import wrote there, so replacing it could lose text only it holds; to keep the file, move it away (or copy what you want kept into .ai-rulez/ first); to replace it, run `ai-rulez generate --force`, which saves it as .cursor/rules/a.mdc.orig first"
        ),
        "{}",
        blocked.stderr()
    );
    project.write(
        ".ai-rulez/rules/a.md",
        "---\nactivation: always\n---\n\nA.\n",
    );
    let without_items = record
        .split_once(",\n  \"items\"")
        .map(|(files, _)| format!("{files}\n}}\n"))
        .expect("items in the record");
    project.write(".ai-rulez/local/imported.json", &without_items);
    let old_record = project.run(&["generate"]);
    old_record.expect_code(1);
    assert!(
        old_record.stderr().contains(
            "but the import that recorded it did not name the items it became, so whether they still hold all of its text cannot be told"
        ),
        "{}",
        old_record.stderr()
    );
    assert_eq!(
        project.read(".cursor/rules/a.mdc"),
        "---\nalwaysApply: true\n---\nA.\n"
    );
    // With the record as the import wrote it, the file is adopted.
    project.write(".ai-rulez/local/imported.json", &record);
    project.run(&["generate"]).expect_code(0);
}

/// A rule its source turns on for every file stays that way for agents too: `get_rules` sends
/// it whatever the task, as Cursor and Windsurf would.
#[test]
fn an_imported_always_on_rule_is_sent_by_get_rules_whatever_the_task() {
    let project = Project::empty();
    project.write(
        ".cursor/rules/general.mdc",
        "---\ndescription: General coding rules\nalwaysApply: true\n---\nKeep functions short.\n",
    );
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    let mut server = crate::mcp::Server::start(project.path());
    let (text, _) = server.text(
        "get_rules",
        serde_json::json!({"paths": ["web/src/App.tsx"], "task": "add a React component"}),
    );
    assert!(text.contains("Keep functions short."), "{text}");
    server.finish();
}

/// A record that cannot be used is never ignored in silence: `generate` says so and treats the
/// files as hand-written, and the next import says it replaced it.
#[test]
fn a_damaged_record_of_imported_files_is_named_by_generate_and_import() {
    let project = Project::empty();
    project.write(
        ".cursor/rules/root.mdc",
        "---\nalwaysApply: true\n---\nR.\n",
    );
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    project.write(
        ".ai-rulez/local/imported.json",
        "{\"version\": 1, \"files\": 5}\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert!(
        run.stderr().contains(
            "nothing was written (and .ai-rulez/local/imported.json: ignored (not a record of imported files: invalid type: integer `5`, expected a map at line 1 column 25); the files `ai-rulez import` read count as hand-written, so `generate` asks before replacing them. Import them again to record them anew, or delete the record)"
        ),
        "{}",
        run.stderr()
    );
    assert_eq!(
        project.read(".cursor/rules/root.mdc"),
        "---\nalwaysApply: true\n---\nR.\n"
    );
    let again = project.run(&["import", "--from", "cursor"]);
    again.expect_code(0);
    assert!(
        again.stderr().contains("note: .ai-rulez/local/imported.json: replaced, since it could not be used (not a record of imported files:"),
        "{}",
        again.stderr()
    );
    project.run(&["generate"]).expect_code(0);
}

#[test]
fn generate_adopts_every_file_the_import_read_while_it_is_unchanged() {
    // The real Cursor tree's rules carry empty `description:` and `globs:` keys that ai-rulez
    // does not write: the text differs, but the import read exactly these bytes, so the first
    // generate replaces them without `--force` and says why.
    let project = fixture("cursor");
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    assert_eq!(
        project.read(".ai-rulez/local/.gitignore"),
        "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n"
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    let adopted = "(adopted: `ai-rulez import` read this file into .ai-rulez/ and it is unchanged since, so it is now generated)";
    assert_eq!(
        run.stdout(),
        format!(
            "create: .ai-rulez/.generated-manifest.json\n\
             update: .cursor/rules/general.mdc {adopted}\n\
             update: .cursor/rules/solidity.mdc {adopted}\n"
        )
    );
    assert!(
        project
            .read(".cursor/rules/solidity.mdc")
            .contains("\nglobs: *.sol\nalwaysApply: false\n---\n"),
        "{}",
        project.read(".cursor/rules/solidity.mdc")
    );
    let copies: Vec<String> = project
        .files()
        .into_iter()
        .filter(|path| path.contains(".orig"))
        .collect();
    assert_eq!(copies, Vec::<String>::new());
    project.run(&["generate", "--check"]).expect_code(0);
}

#[test]
fn generate_refuses_a_file_changed_after_the_import_and_shows_the_diff() {
    let project = fixture("cursor");
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    let changed = format!(
        "{}- Added after the import.\n",
        project.read(".cursor/rules/general.mdc")
    );
    project.write(".cursor/rules/general.mdc", &changed);
    let run = project.run(&["generate"]);
    run.expect_code(1);
    let stderr = run.stderr();
    assert!(
        stderr.contains("--- a/.cursor/rules/general.mdc\n+++ b/.cursor/rules/general.mdc\n")
            && stderr.contains("\n-- Added after the import.\n")
            && stderr.contains(
                ".cursor/rules/general.mdc: changed since `ai-rulez import` read it into .ai-rulez/; to keep the change, copy it into its item under .ai-rulez/ and run `ai-rulez generate --force`"
            ),
        "{stderr}"
    );
    // Refused as a whole: the unchanged sibling is not written either.
    assert_eq!(project.read(".cursor/rules/general.mdc"), changed);
    assert!(
        !project
            .read(".cursor/rules/solidity.mdc")
            .contains("Content-Hash")
    );
    let forced = project.run(&["generate", "--force"]);
    forced.expect_code(0);
    assert_eq!(project.read(".cursor/rules/general.mdc.orig"), changed);
    assert!(
        !project
            .files()
            .contains(&".cursor/rules/solidity.mdc.orig".to_owned())
    );
}

#[test]
fn an_instruction_file_the_import_split_is_replaced_whole_not_given_a_second_copy() {
    // Before, generate kept the imported AGENTS.md and added its section: every rule twice.
    let project = fixture("agents-md");
    project
        .run(&["import", "--from", "agents-md"])
        .expect_code(0);
    project.run(&["generate"]).expect_code(0);
    let agents = project.read("AGENTS.md");
    assert_eq!(agents.matches("Codebase map").count(), 1, "{agents}");
    assert!(!agents.contains("<!-- BEGIN ai-rulez"), "{agents}");
}

/// A rulesync tree in the shape `bench/make-sample.sh` writes, and the `.ai-rulez/` tree that
/// holds the same content: importing the first gives items with the same meaning (keys and
/// values, body) as the second.
#[test]
fn a_rulesync_tree_round_trips_to_the_equivalent_ai_rulez_tree() {
    use ai_rulez::testing::frontmatter::parse;
    let project = Project::empty();
    project.write(
        ".rulesync/rules/00-overview.md",
        "---\nroot: true\ntargets: [\"*\"]\ndescription: \"Project overview\"\nglobs: [\"**/*\"]\n---\n# Overview\n\n- Be brief.\n",
    );
    project.write(
        ".rulesync/rules/rule-1.md",
        "---\nroot: false\ntargets: [\"*\"]\ndescription: \"Conventions for module 1\"\nglobs: [\"src/mod1/**/*.rs\"]\n---\n# Rule 1\n\n- Short functions.\n",
    );
    project.write(
        ".rulesync/skills/skill-1/SKILL.md",
        "---\nname: skill-1\ndescription: \"Workflow for task family 1\"\ntargets: [\"*\"]\n---\nUse this skill.\n",
    );
    project.write(
        ".rulesync/mcp.jsonc",
        "{\n  // one server\n  \"mcpServers\": {\n    \"echo\": { \"type\": \"stdio\", \"command\": \"echo-mcp\", \"args\": [\"--stdio\"], \"env\": {} },\n  }\n}\n",
    );
    project.write(
        "rulesync.jsonc",
        "{ \"targets\": [\"claudecode\", \"cursor\", \"copilot\", \"codexcli\", \"devin\", \"kiro-ide\", \"cline\", \"opencode\"] }\n",
    );
    let expected: [(&str, &str); 3] = [
        (
            ".ai-rulez/rules/00-overview.md",
            "---\ndescription: \"Project overview\"\n---\n# Overview\n\n- Be brief.\n",
        ),
        (
            ".ai-rulez/rules/rule-1.md",
            "---\ndescription: \"Conventions for module 1\"\npaths: [\"src/mod1/**/*.rs\"]\n---\n# Rule 1\n\n- Short functions.\n",
        ),
        (
            ".ai-rulez/skills/skill-1/SKILL.md",
            "---\nname: skill-1\ndescription: \"Workflow for task family 1\"\n---\nUse this skill.\n",
        ),
    ];
    project
        .run(&["import", "--from", "rulesync"])
        .expect_code(0);
    for (path, text) in expected {
        let want = parse(path, text.as_bytes()).expect("expected parses");
        let got = parse(path, project.read(path).as_bytes()).expect("imported parses");
        assert_eq!(got.values, want.values, "{path}");
        assert_eq!(got.body.trim_start(), want.body, "{path}");
    }
    assert_eq!(
        project
            .read(".ai-rulez/config.toml")
            .split_once("presets")
            .map(|(_, rest)| rest),
        Some(
            " = [\"claude\", \"cursor\", \"copilot\", \"codex\", \"devin\", \"kiro\", \"cline\", \"opencode\"]\n\n\
             # Maintain a block of generated paths in .gitignore.\ngitignore = false\n\n\
             [[mcp_servers]]\nname = \"echo\"\ncommand = \"echo-mcp\"\nargs = [\"--stdio\"]\n"
        )
    );
}

#[test]
fn claude_paths_cursor_activations_and_ruler_servers_keep_their_meaning() {
    let claude = Project::empty();
    claude.write(
        ".claude/rules/api.md",
        "---\npaths:\n  - \"src/api/**/*.ts\"\n---\n\n# API\n",
    );
    claude.write(
        ".claude/commands/git/commit.md",
        "---\ndescription: Commit\n---\nCommit it.\n",
    );
    claude.write("CLAUDE.md", "<!-- hidden -->\nUse pnpm.\n");
    let run = claude.run(&["import", "--from", "claude"]);
    run.expect_code(0);
    // Imported text passes the screening MCP writes pass; findings are said, not refused.
    assert!(
        run.stderr().contains(
            "note: .ai-rulez/rules/claude.md (from CLAUDE.md): review it, screening found: AR003 on line 1"
        ),
        "{}",
        run.stderr()
    );
    assert_eq!(
        claude.read(".ai-rulez/rules/claude.md"),
        "<!-- hidden -->\nUse pnpm.\n"
    );
    assert_eq!(
        claude.read(".ai-rulez/rules/api.md"),
        "---\npaths:\n  - src/api/**/*.ts\n---\n\n# API\n"
    );
    assert_eq!(
        claude.read(".ai-rulez/commands/git-commit.md"),
        "---\ndescription: Commit\n---\n\nCommit it.\n"
    );

    let cursor = Project::empty();
    cursor.write(
        ".cursor/rules/auto.mdc",
        "---\ndescription: Writing migrations\nglobs:\nalwaysApply: false\n---\nM\n",
    );
    cursor.write(
        ".cursor/rules/manual.mdc",
        "---\nalwaysApply: false\n---\nH\n",
    );
    cursor.run(&["import", "--from", "cursor"]).expect_code(0);
    assert_eq!(
        cursor.read(".ai-rulez/rules/auto.md"),
        "---\ndescription: Writing migrations\nactivation: auto\n---\n\nM\n"
    );
    assert_eq!(
        cursor.read(".ai-rulez/rules/manual.md"),
        "---\nactivation: manual\n---\n\nH\n"
    );

    let ruler = Project::empty();
    ruler.write(".ruler/AGENTS.md", "# Overview\n");
    ruler.write(
        ".ruler/ruler.toml",
        "default_agents = [\"cursor\", \"gemini-cli\", \"aider\"]\n[mcp_servers.docs]\nurl = \"https://docs.example.com/mcp\"\n[mcp_servers.local]\ncommand = \"npx\"\nargs = [\"-y\", \"x-mcp\"]\nenv = { TOKEN = \"${TOKEN}\" }\n",
    );
    let run = ruler.run(&["import", "--from", "ruler"]);
    run.expect_code(0);
    assert!(
        run.stderr()
            .contains("agent `aider` has no ai-rulez preset"),
        "{}",
        run.stderr()
    );
    let config = ruler.read(".ai-rulez/config.toml");
    assert!(
        config.contains("presets = [\"cursor\", \"gemini\"]\n")
            && config.contains(
                "[[mcp_servers]]\nname = \"docs\"\ntransport = \"http\"\nurl = \"https://docs.example.com/mcp\"\n"
            )
            && config.contains(
                "[[mcp_servers]]\nname = \"local\"\ncommand = \"npx\"\nargs = [\"-y\", \"x-mcp\"]\nenv = { \"TOKEN\" = \"${TOKEN}\" }\n"
            ),
        "{config}"
    );
    assert_eq!(ruler.read(".ai-rulez/rules/agents.md"), "# Overview\n");
}

#[test]
fn a_second_import_adds_its_preset_and_servers_to_the_existing_config() {
    let project = Project::empty();
    project.write("CLAUDE.md", "# App\n\n## Build\n\nRun make.\n");
    project.run(&["import", "--from", "claude"]).expect_code(0);
    let config = project.read(".ai-rulez/config.toml");
    project.write(
        ".ai-rulez/config.toml",
        format!(
            "{config}\n# A comment of ours.\n[[mcp_servers]]\nname = \"github\"\ncommand = \"gh\"\n"
        ),
    );
    project.write(
        ".cursor/rules/style.mdc",
        "---\nalwaysApply: true\n---\n\nUse tabs.\n",
    );
    project.write(
        ".cursor/mcp.json",
        "{\"mcpServers\": {\"github\": {\"command\": \"gh\"}, \"docs\": {\"command\": \"npx\", \"args\": [\"docs-mcp\"]}}}",
    );
    let dry = project.run(&["import", "--from", "cursor", "--dry-run"]);
    dry.expect_code(0);
    assert_eq!(
        dry.stdout(),
        "create: .ai-rulez/rules/style.md\nupdate: .ai-rulez/config.toml\n"
    );
    let before = project.read(".ai-rulez/config.toml");
    let run = project.run(&["import", "--from", "cursor"]);
    run.expect_code(0);
    assert_eq!(run.stdout(), dry.stdout());
    assert!(
        run.stderr().contains(
            "note: .ai-rulez/config.toml: MCP server `github` is already configured; the config's entry is kept as it is\n"
        ) && run.stderr().contains("note: .ai-rulez/config.toml: presets `cursor` added\n")
            && run.stderr().contains("note: .ai-rulez/config.toml: MCP servers `docs` added\n"),
        "{}",
        run.stderr()
    );
    let expected = before.replace(
        "presets = [\"claude\"]",
        "presets = [\"claude\", \"cursor\"]",
    ) + "\n[[mcp_servers]]\nname = \"docs\"\ncommand = \"npx\"\nargs = [\"docs-mcp\"]\n";
    assert_eq!(project.read(".ai-rulez/config.toml"), expected);
    project.run(&["generate"]).expect_code(0);
    assert!(
        project
            .read(".cursor/rules/style.mdc")
            .contains("Use tabs.")
    );
    // Importing once more changes nothing: the rule file is generated now (skipped with a
    // note), and the config has both servers and the preset.
    let again = project.run(&["import", "--from", "cursor"]);
    again.expect_code(0);
    assert_eq!(again.stdout(), "");
    assert_eq!(project.read(".ai-rulez/config.toml"), expected);
}

#[test]
fn a_file_that_lost_keys_on_import_is_not_adopted_and_vs_code_tool_names_survive() {
    let project = Project::empty();
    project.write(
        ".github/prompts/review.prompt.md",
        "---\ndescription: Review a PR\nmode: agent\n---\n\nReview it.\n",
    );
    project.write(
        ".github/agents/planner.agent.md",
        "---\ndescription: Planner\ntools: ['fetch', 'githubRepo', 'search']\n---\n\nPlan things.\n",
    );
    let import = project.run(&["import", "--from", "copilot"]);
    import.expect_code(0);
    assert!(
        import.stderr().contains(
            "note: .github/prompts/review.prompt.md: left out keys ai-rulez does not read for this command: mode; so `generate` will not replace .github/prompts/review.prompt.md unasked"
        ),
        "{}",
        import.stderr()
    );
    let refused = project.run(&["generate"]);
    refused.expect_code(1);
    assert!(
        refused.stderr().contains("\n-mode: agent\n"),
        "{}",
        refused.stderr()
    );
    fs_err::remove_file(project.path().join(".github/prompts/review.prompt.md")).unwrap();
    project.run(&["generate"]).expect_code(0);
    assert!(
        project
            .read(".github/agents/planner.agent.md")
            .contains("\ntools:\n  - fetch\n  - githubRepo\n  - search\n"),
        "{}",
        project.read(".github/agents/planner.agent.md")
    );
}

/// Nested `.cursor/rules` folders apply to their folder only: each rule is imported with the
/// folder in its id, its globs rebased onto the folder, and a rule without globs scoped to the
/// whole folder; a manual one stays manual, and the root's rules are imported as before.
#[test]
fn nested_cursor_rules_are_imported_scoped_to_their_folder() {
    let project = Project::empty();
    project.write(
        ".cursor/rules/style.mdc",
        "---\ndescription: Root style\nalwaysApply: true\n---\nUse tabs.\n",
    );
    project.write(
        "packages/web/.cursor/rules/react.mdc",
        "---\ndescription: React components\nglobs: src/**/*.tsx, ./lib/*.ts\n---\nUse function components.\n",
    );
    project.write(
        "packages/web/.cursor/rules/sub/always.mdc",
        "---\nalwaysApply: true\n---\nWeb folder rule.\n",
    );
    project.write(
        "packages/api/.cursor/rules/errors.mdc",
        "---\ndescription: API errors\n---\nReturn problem+json.\n",
    );
    project.write("packages/api/.cursor/rules/manual.mdc", "Manual only.\n");
    let run = project.run(&["import", "--from", "cursor"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains("note: packages/web/.cursor/rules/react.mdc: a nested Cursor rule, imported to apply to packages/web/src/**/*.tsx, packages/web/lib/*.ts only"),
        "{}",
        run.stderr()
    );
    let tree = imported_tree(&project);
    let rules: Vec<&str> = tree
        .split("== ")
        .filter(|file| file.starts_with(".ai-rulez/rules/"))
        .collect();
    let rules = format!("== {}", rules.join("== "));
    assert_eq!(
        rules,
        "== .ai-rulez/rules/packages-api-errors.md ==\n---\ndescription: API errors\npaths:\n  - packages/api/**\n---\n\nReturn problem+json.\n\
         == .ai-rulez/rules/packages-api-manual.md ==\n---\nactivation: manual\n---\n\nManual only.\n\
         == .ai-rulez/rules/packages-web-react.md ==\n---\ndescription: React components\npaths:\n  - packages/web/src/**/*.tsx\n  - packages/web/lib/*.ts\n---\n\nUse function components.\n\
         == .ai-rulez/rules/packages-web-sub-always.md ==\n---\npaths:\n  - packages/web/**\n---\n\nWeb folder rule.\n\
         == .ai-rulez/rules/style.md ==\n---\ndescription: Root style\nactivation: always\n---\n\nUse tabs.\n"
    );
    project.run(&["validate"]).expect_code(0);
    // Cursor reads the nested folders too, so once `generate` writes their rules to the root
    // folder, each nested file still there is read a second time and is named (the manual
    // rule too: asked for by name, Cursor finds it in both folders).
    let generate = project.run(&["generate"]);
    generate.expect_code(0);
    let stderr = generate.stderr();
    let twice: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("reads the text twice"))
        .collect();
    assert_eq!(
        twice,
        [
            "warning: packages/api/.cursor/rules/errors.mdc: its text is in .ai-rulez/rules/packages-api-errors.md now (it was imported), and `generate` writes it into .cursor/rules/packages-api-errors.mdc, which Cursor also reads, so Cursor reads the text twice; delete packages/api/.cursor/rules/errors.mdc once the generated files are right (ai-rulez never deletes a file it did not write)",
            "warning: packages/api/.cursor/rules/manual.mdc: its text is in .ai-rulez/rules/packages-api-manual.md now (it was imported), and `generate` writes it into .cursor/rules/packages-api-manual.mdc, which Cursor also reads, so Cursor reads the text twice; delete packages/api/.cursor/rules/manual.mdc once the generated files are right (ai-rulez never deletes a file it did not write)",
            "warning: packages/web/.cursor/rules/react.mdc: its text is in .ai-rulez/rules/packages-web-react.md now (it was imported), and `generate` writes it into .cursor/rules/packages-web-react.mdc, which Cursor also reads, so Cursor reads the text twice; delete packages/web/.cursor/rules/react.mdc once the generated files are right (ai-rulez never deletes a file it did not write)",
            "warning: packages/web/.cursor/rules/sub/always.mdc: its text is in .ai-rulez/rules/packages-web-sub-always.md now (it was imported), and `generate` writes it into .cursor/rules/packages-web-sub-always.mdc, which Cursor also reads, so Cursor reads the text twice; delete packages/web/.cursor/rules/sub/always.mdc once the generated files are right (ai-rulez never deletes a file it did not write)",
        ],
        "{stderr}"
    );
    // The nested files were never written by ai-rulez: they stay as they were.
    assert_eq!(
        project.read("packages/web/.cursor/rules/react.mdc"),
        "---\ndescription: React components\nglobs: src/**/*.tsx, ./lib/*.ts\n---\nUse function components.\n"
    );
}

/// A nested rule's folder is a literal name in its globs (`app/[id]` is a Next.js route, not a
/// character class), and globs that cannot keep their meaning are left out with a note.
#[test]
fn a_nested_rule_keeps_its_folder_literal_and_leaves_out_globs_it_cannot_keep() {
    let project = Project::empty();
    project.write(
        "app/[id]/.cursor/rules/page.mdc",
        "---\ndescription: Page\nglobs: \"*.tsx\"\n---\nDynamic page.\n",
    );
    project.write(
        "pkg/.cursor/rules/x.mdc",
        "---\ndescription: Pkg\nglobs: src/*.ts, !*.test.ts, ../shared/**\n---\nPkg rule.\n",
    );
    project.write("app/[id]/page.tsx", "");
    project.write("app/i/page.tsx", "");
    let run = project.run(&["import", "--from", "cursor"]);
    run.expect_code(0);
    assert_eq!(
        project.read(".ai-rulez/rules/app-id-page.md"),
        "---\ndescription: Page\npaths:\n  - app/[[]id[]]/**/*.tsx\n---\n\nDynamic page.\n"
    );
    assert_eq!(
        project.read(".ai-rulez/rules/pkg-x.md"),
        "---\ndescription: Pkg\npaths:\n  - pkg/src/*.ts\n---\n\nPkg rule.\n"
    );
    for note in [
        "note: pkg/.cursor/rules/x.mdc: glob `!*.test.ts` left out: a negation, which Cursor and Windsurf do not document and ai-rulez would read as a name starting with `!`; the rule keeps its other globs; so `generate` will not replace pkg/.cursor/rules/x.mdc unasked (it shows the diff; `--force` keeps a copy)\n",
        "note: pkg/.cursor/rules/x.mdc: glob `../shared/**` left out: it points outside the folder the rule is read for (`..`); the rule keeps its other globs; so `generate` will not replace pkg/.cursor/rules/x.mdc unasked (it shows the diff; `--force` keeps a copy)\n",
    ] {
        assert!(run.stderr().contains(note), "{}", run.stderr());
    }
    // A bare pattern matches at any depth below the folder, as Cursor reads it.
    let deep = project.run(&["explain", "app/[id]/parts/deep/card.tsx"]);
    assert!(
        deep.stdout().contains("## rule app-id-page"),
        "{}",
        deep.stdout()
    );
    let own = project.run(&["explain", "app/[id]/page.tsx"]);
    assert!(
        own.stdout().contains("## rule app-id-page"),
        "{}",
        own.stdout()
    );
    let other = project.run(&["explain", "app/i/page.tsx"]);
    assert!(
        !other.stdout().contains("app-id-page"),
        "{}",
        other.stdout()
    );

    // Braces, commas and backslashes in a folder's name stay literal too, in the item and in
    // the Cursor rule generated from it (whose comma-separated `globs` match the comma with
    // `?`, so the glob is not cut in two); a `..` that stays inside the folder is taken back,
    // and a rule whose every glob is left out becomes manual instead of covering the folder.
    let odd = Project::empty();
    odd.write(
        "app/{a,b}/.cursor/rules/r.mdc",
        "---\nglobs: \"**/*.ts\"\n---\nBraces.\n",
    );
    odd.write(
        "app/back\\slash/.cursor/rules/r.mdc",
        "---\nglobs: \"**/*.ts\"\n---\nSlash.\n",
    );
    odd.write(
        "pk/.cursor/rules/d.mdc",
        "---\ndescription: D\nglobs: src/../top.ts\n---\nD.\n",
    );
    odd.write(
        "pk/.cursor/rules/e.mdc",
        "---\ndescription: E\nglobs: ../*.ts\n---\nE.\n",
    );
    odd.run(&["import", "--from", "cursor"]).expect_code(0);
    let paths = |id: &str| {
        let text = odd.read(&format!(".ai-rulez/rules/{id}.md"));
        text.split("---\n").nth(1).expect("frontmatter").to_owned()
    };
    assert_eq!(paths("app-a-b-r"), "paths:\n  - app/[{]a[,]b[}]/**/*.ts\n");
    assert_eq!(
        paths("app-back-slash-r"),
        "paths:\n  - app/back\\\\slash/**/*.ts\n"
    );
    assert_eq!(paths("pk-d"), "description: D\npaths:\n  - pk/top.ts\n");
    assert_eq!(paths("pk-e"), "description: E\nactivation: manual\n");
    odd.run(&["generate"]).expect_code(0);
    assert!(
        odd.read(".cursor/rules/app-a-b-r.mdc")
            .contains("globs: app/[{]a?b[}]/**/*.ts\n"),
        "{}",
        odd.read(".cursor/rules/app-a-b-r.mdc")
    );
    for (path, rule) in [
        ("app/{a,b}/src/x.ts", "app-a-b-r"),
        ("app/back\\slash/x.ts", "app-back-slash-r"),
        ("pk/top.ts", "pk-d"),
    ] {
        let explain = odd.run(&["explain", path]);
        assert!(
            explain.stdout().contains(&format!("## rule {rule} ")),
            "{path}: {}",
            explain.stdout()
        );
    }
    for (path, rule) in [
        ("app/a/src/x.ts", "app-a-b-r"),
        ("app/backslash/x.ts", "app-back-slash-r"),
    ] {
        let explain = odd.run(&["explain", path]);
        assert!(
            !explain.stdout().contains(rule),
            "{path}: {}",
            explain.stdout()
        );
    }
}

#[test]
fn import_after_init_names_the_examples_init_left_unchanged() {
    let project = Project::empty();
    project.write("AGENTS.md", "# Conventions\n\nUse make.\n");
    project.run(&["init"]).expect_code(0);
    // One example edited by the user is theirs now and is not named.
    project.write(
        ".ai-rulez/rules/code-style.md",
        "# Code style\n\nOur own words.\n",
    );
    let run = project.run(&["import", "--from", "agents-md"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains(
            "note: .ai-rulez/context/ai-rulez.md, .ai-rulez/skills/review/SKILL.md, .ai-rulez/agents/tester.md, .ai-rulez/commands/check.md: the example item(s) `ai-rulez init` wrote are still as it wrote them and would be generated beside the imported ones; delete them unless you want them\n"
        ),
        "{}",
        run.stderr()
    );
    // An import into a project init did not create has no such note.
    let fresh = Project::empty();
    fresh.write("AGENTS.md", "# Conventions\n\nUse make.\n");
    let run = fresh.run(&["import", "--from", "agents-md"]);
    run.expect_code(0);
    assert!(!run.stderr().contains("example item"), "{}", run.stderr());
}

#[test]
fn a_legacy_rules_file_is_not_promised_a_replacement_generate_never_writes() {
    let project = Project::empty();
    project.write(".cursorrules", "Use tabs.\n");
    let run = project.run(&["import", "--from", "cursor"]);
    run.expect_code(0);
    assert!(
        run.stderr().contains(
            "note: .cursorrules: its text becomes rules under .ai-rulez/rules/; `generate` writes no .cursorrules, and its assistant still reads it beside the generated files, so delete .cursorrules once those are right\n"
        ),
        "{}",
        run.stderr()
    );
    assert!(!run.stderr().contains("replaces it"), "{}", run.stderr());
    project.run(&["generate"]).expect_code(0);
    assert_eq!(project.read(".cursorrules"), "Use tabs.\n");
}

/// A copy in another assistant's folder that only some of this assistant's surfaces read is no
/// reason to delete the file: Copilot reads `.claude/rules` in VS Code only, not in code review
/// on github.com, which reads `.github/instructions`.
#[test]
fn a_copy_only_some_surfaces_read_is_no_reason_to_delete_the_file() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\", \"copilot\"]\n",
    );
    project.write(
        ".github/instructions/api.instructions.md",
        "---\napplyTo: \"src/api/**\"\n---\nReturn problem+json.\n",
    );
    project.run(&["import", "--from", "copilot"]).expect_code(0);
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(!run.stderr().contains("twice"), "{}", run.stderr());
    assert!(project.exists(".claude/rules/api.md"));
}

/// A project whose `.cursor/rules/react.mdc` was imported and then generated from its item.
fn imported_cursor_rule_generated() -> Project {
    let project = Project::empty();
    project.write(
        ".cursor/rules/react.mdc",
        "---\nglobs: \"*.tsx\"\n---\nReact.\n",
    );
    project.run(&["import", "--from", "cursor"]).expect_code(0);
    project.run(&["generate"]).expect_code(0);
    project
}

/// The error of an import that found only files it skips, each with its note.
fn nothing_new(project: &Project, notes: &[&str]) -> String {
    format!(
        "error: found nothing new to import from cursor in {}:\n  {}\n",
        project.path().display(),
        notes.join("\n  ")
    )
}

#[test]
fn a_generated_file_edited_by_hand_is_named_with_where_the_edit_belongs() {
    let project = imported_cursor_rule_generated();
    let generated = project.read(".cursor/rules/react.mdc");
    let again = project.run(&["import", "--from", "cursor", "--dry-run"]);
    again.expect_code(1);
    assert_eq!(
        again.stderr(),
        nothing_new(
            &project,
            &[
                ".cursor/rules/react.mdc: skipped, it was generated by ai-rulez (its source is already under .ai-rulez/)"
            ]
        )
    );
    project.write(
        ".cursor/rules/react.mdc",
        format!("{generated}Extra line.\n"),
    );
    let edited = project.run(&["import", "--from", "cursor", "--dry-run"]);
    edited.expect_code(1);
    assert_eq!(
        edited.stderr(),
        nothing_new(
            &project,
            &[
                ".cursor/rules/react.mdc: skipped, it was generated by ai-rulez and then edited by hand; the edit is not under .ai-rulez/ yet: copy it into .ai-rulez/rules/react.md (`ai-rulez generate --dry-run --diff` shows it)"
            ]
        )
    );
}

#[test]
fn a_generated_file_whose_source_is_gone_says_where_its_text_lives() {
    let project = imported_cursor_rule_generated();
    fs_err::remove_dir_all(project.path().join(".ai-rulez")).expect("remove");
    let run = project.run(&["import", "--from", "cursor", "--dry-run"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        nothing_new(
            &project,
            &[
                ".cursor/rules/react.mdc: skipped, it was generated by ai-rulez from .ai-rulez/rules/react.md, which is not here; restore .ai-rulez/ from git (`git checkout -- .ai-rulez`) instead of importing what was generated from it"
            ]
        )
    );
}
