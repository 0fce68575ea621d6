//! What `find_context` and `explain` claim must be true. Instruction files no path activates (a
//! Cursor rule or a Copilot instructions file with a description but no globs, `applyTo` or
//! `alwaysApply: true`, read when the assistant judges it fits the task: `activation: auto`;
//! one without a description either, read only when attached or mentioned: `activation:
//! manual`) are not said to apply to a path, and a scope that is no folder is not answered as an
//! empty folder.

use serde_json::json;

use crate::nested_context::{monorepo, names, start};
use crate::support::Project;

/// The monorepo with three rules that no path activates, in the `web` scope and at the root.
fn with_rules_read_on_request() -> Project {
    let project = monorepo();
    project.write(
        "web/.cursor/rules/forms.mdc",
        "---\ndescription: How forms validate their fields\nalwaysApply: false\n---\nValidate on blur.\n",
    );
    project.write(
        "web/.cursor/rules/legacy.mdc",
        "---\nalwaysApply: false\n---\nThe old build, for reference.\n",
    );
    project.write(
        ".github/instructions/release.instructions.md",
        "Tag, then publish.\n",
    );
    project.write(
        ".github/instructions/deploy.instructions.md",
        "---\ndescription: How to deploy the web app\n---\nUse the pipeline.\n",
    );
    project
}

#[test]
fn a_path_alone_never_activates_a_rule_read_on_request() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let reply = server.ok("find_context", json!({"path": "web/src/Form.tsx"}));
    assert_eq!(names(&reply), ["rule web react", "instruction . AGENTS.md"]);
    let folder = server.ok("find_context", json!({"path": "web"}));
    assert_eq!(names(&folder), ["instruction . AGENTS.md"]);
    server.finish();

    let output = project.run(&["explain", "web/src/Form.tsx"]);
    let stdout = output.stdout();
    assert_eq!(output.code(), 0, "{stdout}");
    assert!(stdout.contains("web/.cursor/rules/react.mdc"), "{stdout}");
    for on_request in [
        "forms.mdc",
        "legacy.mdc",
        "release.instructions.md",
        "deploy.instructions.md",
    ] {
        assert!(!stdout.contains(on_request), "{on_request} in {stdout}");
    }
}

#[test]
fn with_a_task_an_auto_rule_in_scope_is_found_by_its_description_and_marked() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let reply = server.ok(
        "find_context",
        json!({"path": "web/src/Form.tsx", "task": "validate the email field"}),
    );
    assert_eq!(
        names(&reply),
        [
            "rule web forms",
            "rule web react",
            "instruction . AGENTS.md"
        ]
    );
    assert_eq!(reply["results"][0]["activation"], "auto");
    assert_eq!(reply["results"][0]["score"], 2);
    assert_eq!(reply["results"][1].get("activation"), None);
    // A Copilot file with a description and no `applyTo` is read the same way, at the root.
    let deploy = server.ok(
        "find_context",
        json!({"path": "web/src/Form.tsx", "task": "deploy it"}),
    );
    assert_eq!(
        names(&deploy),
        ["rule . deploy", "rule web react", "instruction . AGENTS.md"]
    );
    assert_eq!(deploy["results"][0]["activation"], "auto");
    // Outside its scope the task does not bring it in.
    let elsewhere = server.ok(
        "find_context",
        json!({"path": "pkg/api/handlers/user.go", "task": "validate the email field"}),
    );
    assert!(
        !names(&elsewhere).contains(&"rule web forms".to_owned()),
        "{elsewhere}"
    );
    // A manual rule is not found through a path even when the task names it.
    let manual = server.ok(
        "find_context",
        json!({"path": "web/src/Form.tsx", "task": "the legacy build"}),
    );
    assert!(
        !names(&manual).contains(&"rule web legacy".to_owned()),
        "{manual}"
    );
    server.finish();
}

#[test]
fn a_scope_listing_names_how_each_rule_read_on_request_is_read() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let web = server.ok("find_context", json!({"scope": "web"}));
    assert_eq!(
        names(&web),
        ["rule web forms", "rule web legacy", "rule web react"]
    );
    let activations: Vec<_> = web["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|found| found.get("activation").cloned())
        .collect();
    assert_eq!(
        activations,
        [Some(json!("auto")), Some(json!("manual")), None]
    );
    // Frontmatter alone, with a blank description: no summary, and no empty one printed.
    project.write(
        ".github/instructions/blank.instructions.md",
        "---\ndescription: \"\"\n---\n",
    );
    let (text, _) = server.text("find_context", json!({"scope": "."}));
    assert!(
        text.contains(
            "- rule blank in `.` (read only when attached or mentioned): <context://./.github/instructions/blank.instructions.md>\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "- rule release in `.` (read only when attached or mentioned): Tag, then publish. <context://./.github/instructions/release.instructions.md>"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "- rule deploy in `.` (read when its description fits the task): How to deploy the web app <context://./.github/instructions/deploy.instructions.md>"
        ),
        "{text}"
    );
    server.finish();
}

#[test]
fn a_scope_that_is_no_folder_is_named_for_what_it_is() {
    let project = monorepo();
    project.write("web/notes.txt", "not a folder\n");
    project.write("web/node_modules/left-pad/AGENTS.md", "Not ours.\n");
    std::os::unix::fs::symlink(project.path().join("pkg"), project.path().join("linked"))
        .expect("symlink");
    let mut server = start(&project);
    let file = server.fails("find_context", json!({"scope": "pkg/api/AGENTS.md"}));
    assert_eq!(
        file,
        "scope `pkg/api/AGENTS.md` is a file, not a folder; pass it as `path` for the instruction files that apply to it, or its folder `pkg/api` as `scope`"
    );
    for (scope, folder) in [
        (".ai-rulez", ".ai-rulez"),
        ("web/node_modules/left-pad", "node_modules"),
    ] {
        assert_eq!(
            server.fails("find_context", json!({"scope": scope})),
            format!(
                "scope `{scope}` is inside `{folder}`, a folder the index never walks (version control, dependencies, build output and ai-rulez's own items, which get_rules serves); give a folder of the project's own files"
            )
        );
    }
    let missing = server.fails("find_context", json!({"scope": "pkg/nope"}));
    assert_eq!(
        missing,
        "scope `pkg/nope` is no folder of the project (nothing is there); give an existing folder relative to the project root, `.` for the root"
    );
    let linked = server.fails("find_context", json!({"scope": "linked"}));
    assert_eq!(
        linked,
        "scope `linked` is a symlink, which is never followed: instruction files behind it are not indexed; give the real folder"
    );
    // Given absolutely, the link is not followed either.
    let absolute = project.path().join("linked");
    assert_eq!(
        server.fails("find_context", json!({"scope": absolute.to_string_lossy()})),
        "scope `linked` is a symlink, which is never followed: instruction files behind it are not indexed; give the real folder"
    );
    // Reached through a link outside the project, or a `..` that comes back to it, the path
    // inside is still read as written.
    let outside = tempfile::tempdir().expect("tempdir");
    let alias = outside.path().join("repo");
    std::os::unix::fs::symlink(project.path(), &alias).expect("symlink");
    let folder_name = project
        .path()
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let around = project.path().join("..").join(&folder_name).join("linked");
    for scope in [alias.join("linked"), around] {
        assert_eq!(
            server.fails("find_context", json!({"scope": scope.to_string_lossy()})),
            "scope `linked` is a symlink, which is never followed: instruction files behind it are not indexed; give the real folder",
            "{}",
            scope.display()
        );
    }
    let through_alias = server.ok(
        "find_context",
        json!({"path": alias.join("pkg/api/new.py").to_string_lossy()}),
    );
    let direct = server.ok("find_context", json!({"path": "pkg/api/new.py"}));
    assert_eq!(names(&through_alias), names(&direct));
    assert!(!names(&direct).is_empty());
    let behind = server.fails("find_context", json!({"scope": "linked/api"}));
    assert_eq!(
        behind,
        "scope `linked/api` cannot be listed: linked/api: is (or is inside) a symlink; ai-rulez never reads or writes through symlinks (a committed link could point anywhere), so replace the link with a real file or folder"
    );
    // A real folder without instruction files is answered as one.
    let (text, reply) = server.text("find_context", json!({"scope": "pkg"}));
    assert_eq!(text, "No instruction files found.\n");
    assert_eq!(reply["total"], 0);
    server.finish();
}

#[test]
fn a_symlinked_instruction_file_is_named_as_withheld() {
    let project = monorepo();
    project.write("docs/conventions.md", "# Conventions\n");
    std::os::unix::fs::symlink(
        "../docs/conventions.md",
        project.path().join("web/AGENTS.md"),
    )
    .expect("symlink");
    let mut server = start(&project);
    let reply = server.ok("find_context", json!({"scope": "web"}));
    assert_eq!(
        reply["withheld"],
        json!([
            "web/AGENTS.md: not read: is (or is inside) a symlink; ai-rulez never reads or writes through symlinks (a committed link could point anywhere), so replace the link with a real file or folder"
        ])
    );
    assert_eq!(names(&reply), ["rule web react"]);
    server.finish();
}

#[test]
fn a_symlinked_tool_folder_is_named_and_withheld_files_are_named_where_asked() {
    let project = monorepo();
    project.write(
        "shared/cursor/rules/ts.mdc",
        "---\nglobs: \"*.ts\"\n---\nStrict mode.\n",
    );
    fs_err::create_dir_all(project.path().join("app")).expect("folder");
    std::os::unix::fs::symlink("../shared/cursor", project.path().join("app/.cursor"))
        .expect("symlink");
    // A link to a shared folder of rules inside a rules folder, and one to nothing, are links
    // where instruction files belong; a link git ignores is not the project's, and one beside
    // the rule folders hides no instruction file.
    fs_err::create_dir_all(project.path().join("lib/.claude/rules/team")).expect("folder");
    std::os::unix::fs::symlink(
        "../../../../shared/cursor/rules",
        project.path().join("lib/.claude/rules/team/linked"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink("nowhere", project.path().join("lib/.github")).expect("symlink");
    fs_err::create_dir_all(project.path().join("app/.github")).expect("folder");
    std::os::unix::fs::symlink("../../shared", project.path().join("app/.github/workflows"))
        .expect("symlink");
    fs_err::create_dir_all(project.path().join("ignored")).expect("folder");
    std::os::unix::fs::symlink("../shared/cursor", project.path().join("ignored/.cursor"))
        .expect("symlink");
    // A file withheld in another scope than the one asked for.
    project.write("docs/AGENTS.md", "Ship it \u{1b}[31mnow.\n");
    let named = |path: &str| {
        format!(
            "{path}: a symlink where a tool folder belongs, never followed, so no instruction file behind it is served; make it a real folder to serve them"
        )
    };
    let linked = named("app/.cursor");
    let mut server = start(&project);
    let everything = server.ok("find_context", json!({"scope": ".", "recursive": true}));
    assert_eq!(
        everything["withheld"],
        json!([
            linked,
            "docs/AGENTS.md: AR002 on line 1: 1 hidden character: U+001B ESCAPE at column 9; delete it",
            named("lib/.claude/rules/team/linked"),
            named("lib/.github"),
        ])
    );
    for arguments in [
        json!({"scope": "app"}),
        json!({"path": "app/src/main.ts"}),
        json!({"scope": "app", "recursive": true}),
    ] {
        let reply = server.ok("find_context", arguments.clone());
        assert_eq!(reply["withheld"], json!([linked]), "{arguments}");
    }
    let reply = server.ok("find_context", json!({"scope": "lib"}));
    assert_eq!(
        reply["withheld"],
        json!([named("lib/.claude/rules/team/linked"), named("lib/.github")])
    );
    // Asked about another folder, none is named.
    for arguments in [json!({"scope": "pkg"}), json!({"path": "pkg/api/x.py"})] {
        let reply = server.ok("find_context", arguments.clone());
        assert_eq!(reply["withheld"], json!(null), "{arguments}");
    }
    server.finish();
}

/// A path behind a symlinked folder, or inside a folder the index never walks, gets the files
/// of the folders above it and the folder that hid the rest, so the answer does not read as
/// "nothing else applies there".
#[test]
fn a_path_behind_a_link_or_in_an_unwalked_folder_names_that_folder() {
    let project = monorepo();
    // `alias` points at a real folder of the project: its AGENTS.md is served for `pkg/api`
    // paths, never for paths spelled through the link.
    std::os::unix::fs::symlink("pkg/api", project.path().join("alias")).expect("symlink");
    project.write("node_modules/left-pad/AGENTS.md", "Vendored.\n");
    let mut server = start(&project);
    let through_link = server.ok("find_context", json!({"path": "alias/handlers/get.py"}));
    assert_eq!(names(&through_link), ["instruction . AGENTS.md"]);
    assert_eq!(
        through_link["withheld"],
        json!([
            "alias: a symlink on the way to the path, never followed, so no instruction file behind it is served; the files of the folders above it still apply"
        ])
    );
    let unwalked = "a folder the index never walks (version control, dependencies, build output, ai-rulez's own items), so no instruction file inside it is served; the files of the folders above it still apply";
    for (path, folder) in [
        ("node_modules/left-pad/index.js", "node_modules"),
        (".git/config", ".git"),
        ("web/node_modules/x/y.js", "web/node_modules"),
    ] {
        let reply = server.ok("find_context", json!({"path": path}));
        assert_eq!(
            reply["withheld"],
            json!([format!("{folder}: {unwalked}")]),
            "{path}"
        );
    }
    // The link or the skipped folder asked about itself, with or without a trailing `/`.
    let itself = "a symlink, never followed, so no instruction file behind it is served; the files of the folders above it still apply";
    for (path, folder, why) in [
        ("alias", "alias", itself),
        ("alias/", "alias", itself),
        ("node_modules/", "node_modules", unwalked),
    ] {
        let reply = server.ok("find_context", json!({"path": path}));
        assert_eq!(
            reply["withheld"],
            json!([format!("{folder}: {why}")]),
            "{path}"
        );
    }
    // A linked tool folder on the way is named once, by the index.
    std::os::unix::fs::symlink("../pkg/api/.claude", project.path().join("web/.claude"))
        .expect("symlink");
    let tool_link = server.ok("find_context", json!({"path": "web/.claude/rules/x.md"}));
    assert_eq!(
        tool_link["withheld"],
        json!([
            "web/.claude: a symlink where a tool folder belongs, never followed, so no instruction file behind it is served; make it a real folder to serve them"
        ])
    );
    // The real folder, a file not written yet, a file named like a skipped folder and a folder
    // merely named like one are answered without a note.
    project.write("pkg/target", "not a folder\n");
    for path in [
        "pkg/api/handlers/get.py",
        "pkg/new/x.py",
        "node_modules_extra/x.js",
        "pkg/target",
    ] {
        let reply = server.ok("find_context", json!({"path": path}));
        assert_eq!(reply["withheld"], json!(null), "{path}");
    }
    server.finish();
}

/// A symlink git tracks inside an ignored folder (`git add --force`) is the project's: a linked
/// tool folder or instruction file there is named like one the walk finds, and an ignored link
/// git does not track is not.
#[test]
fn a_tracked_link_in_an_ignored_folder_is_named_like_any_other() {
    let project = monorepo();
    crate::edit_hints::git_ok(&project, &["init", "-q"]);
    project.write(
        "shared/cursor/rules/ts.mdc",
        "---\nglobs: \"*.ts\"\n---\nStrict.\n",
    );
    project.write("shared/AGENTS.md", "# Shared\n");
    fs_err::create_dir_all(project.path().join("ignored/tracked")).expect("folder");
    fs_err::create_dir_all(project.path().join("ignored/untracked")).expect("folder");
    std::os::unix::fs::symlink(
        "../../shared/cursor",
        project.path().join("ignored/tracked/.cursor"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(
        "../../shared/AGENTS.md",
        project.path().join("ignored/tracked/AGENTS.md"),
    )
    .expect("symlink");
    std::os::unix::fs::symlink(
        "../../shared/cursor",
        project.path().join("ignored/untracked/.cursor"),
    )
    .expect("symlink");
    crate::edit_hints::git_ok(
        &project,
        &[
            "add",
            "--force",
            "ignored/tracked/.cursor",
            "ignored/tracked/AGENTS.md",
        ],
    );
    let mut server = start(&project);
    let reply = server.ok(
        "find_context",
        json!({"scope": "ignored", "recursive": true}),
    );
    let withheld: Vec<String> = reply["withheld"]
        .as_array()
        .expect("withheld")
        .iter()
        .map(|entry| {
            entry
                .as_str()
                .expect("text")
                .split(": ")
                .next()
                .expect("path")
                .to_owned()
        })
        .collect();
    assert_eq!(
        withheld,
        ["ignored/tracked/.cursor", "ignored/tracked/AGENTS.md"],
        "{reply}"
    );
    assert_eq!(
        reply["withheld"][0],
        "ignored/tracked/.cursor: a symlink where a tool folder belongs, never followed, so no instruction file behind it is served; make it a real folder to serve them"
    );
    server.finish();
}
