//! B51 and the whole kind: a committed symlink at any level of an item's path (`.ai-rulez`
//! itself, `domains/`, `domains/<d>`, a kind folder, a skill folder, the file) never lets any
//! MCP tool or CLI command read, list, change or delete anything outside the project.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::stdio_client::{HANDSHAKE, INITIALIZED, converse};
use crate::support::Project;

/// Text planted only outside the project: it must never appear in any output.
const MARKER: &str = "OUTSIDE-MARKER-7f3a";

/// Every file below `root` with its bytes (symlinks as their target text), for before/after
/// comparison of the outside tree.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walk");
        let relative = entry
            .path()
            .strip_prefix(root)
            .expect("prefix")
            .to_string_lossy()
            .into_owned();
        let bytes = if entry.path_is_symlink() {
            fs_err::read_link(entry.path())
                .expect("link")
                .to_string_lossy()
                .into_owned()
                .into_bytes()
        } else if entry.file_type().is_file() {
            fs_err::read(entry.path()).expect("read")
        } else {
            b"<folder>".to_vec()
        };
        files.insert(relative, bytes);
    }
    files
}

/// Writes a complete `.ai-rulez/` tree (every kind, a domain, a skill with a resource) below
/// `base`, with `text` in every item body.
fn write_tree(base: &Path, text: &str) {
    let files = [
        (
            "config.toml",
            "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n".to_owned(),
        ),
        ("rules/victim.md", format!("# Victim\n\n{text}\n")),
        ("context/victim.md", format!("# Victim\n\n{text}\n")),
        (
            "agents/victim.md",
            format!("---\nname: victim\ndescription: d\n---\n{text}\n"),
        ),
        (
            "commands/victim.md",
            format!("---\ndescription: d\n---\n{text}\n"),
        ),
        (
            "skills/victim/SKILL.md",
            format!("---\nname: victim\ndescription: d\n---\n{text}\n"),
        ),
        ("skills/victim/references/notes.md", format!("{text}\n")),
        ("domains/d/rules/victim.md", format!("# Victim\n\n{text}\n")),
    ];
    for (relative, contents) in files {
        let path = base.join(relative);
        fs_err::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs_err::write(path, contents).expect("write");
    }
}

/// One hostile layout: the project-relative path that becomes a symlink, and the path inside the
/// outside tree it points at.
struct Layout {
    link: &'static str,
    target: &'static str,
}

const LAYOUTS: [Layout; 11] = [
    Layout {
        link: ".ai-rulez",
        target: "",
    },
    Layout {
        link: ".ai-rulez/domains",
        target: "domains",
    },
    Layout {
        link: ".ai-rulez/domains/d",
        target: "domains/d",
    },
    Layout {
        link: ".ai-rulez/domains/d/rules",
        target: "domains/d/rules",
    },
    Layout {
        link: ".ai-rulez/rules",
        target: "rules",
    },
    Layout {
        link: ".ai-rulez/context",
        target: "context",
    },
    Layout {
        link: ".ai-rulez/agents",
        target: "agents",
    },
    Layout {
        link: ".ai-rulez/commands",
        target: "commands",
    },
    Layout {
        link: ".ai-rulez/skills",
        target: "skills",
    },
    Layout {
        link: ".ai-rulez/skills/victim",
        target: "skills/victim",
    },
    Layout {
        link: ".ai-rulez/rules/victim.md",
        target: "rules/victim.md",
    },
];

/// A project whose `layout.link` is a symlink into a full outside tree, and that outside tree.
fn hostile(layout: &Layout) -> (Project, tempfile::TempDir) {
    let outside = tempfile::tempdir().expect("temp");
    write_tree(outside.path(), MARKER);
    let project = Project::empty();
    write_tree(&project.path().join(".ai-rulez"), "Inside text.");
    let link = project.path().join(layout.link);
    if link.is_dir() {
        fs_err::remove_dir_all(&link).expect("rm");
    } else {
        fs_err::remove_file(&link).expect("rm");
    }
    std::os::unix::fs::symlink(outside.path().join(layout.target), &link).expect("symlink");
    (project, outside)
}

/// Every tool call a hostile client could make about the victim items.
fn tool_calls() -> Vec<(String, Value)> {
    let mut calls = Vec::new();
    let content = "# Replaced\n\nBy the test.\n";
    for kind in ["rule", "context", "skill", "agent", "command"] {
        for domain in [None, Some("d")] {
            let mut name = json!({"name": "victim"});
            if let Some(domain) = domain {
                name["domain"] = json!(domain);
            }
            let mut write = name.clone();
            write["content"] = json!(content);
            let mut read = name.clone();
            read["kind"] = json!(kind);
            calls.push(("read_item".to_owned(), read));
            calls.push((format!("update_{kind}"), write.clone()));
            calls.push((format!("create_{kind}"), write));
            calls.push((format!("delete_{kind}"), name));
        }
    }
    for kind in ["rule", "context", "skill", "agent", "command"] {
        calls.push(("list_items".to_owned(), json!({"kind": kind})));
    }
    calls.push((
        "get_rules".to_owned(),
        json!({"paths": ["src/main.rs"], "task": "victim"}),
    ));
    calls.push(("search_rules".to_owned(), json!({"query": "victim"})));
    calls.push(("get_context".to_owned(), json!({"path": "src/main.rs"})));
    calls.push(("list_domains".to_owned(), json!({})));
    calls.push(("create_domain".to_owned(), json!({"name": "e"})));
    calls.push(("delete_domain".to_owned(), json!({"name": "d"})));
    calls.push(("read_config".to_owned(), json!({})));
    calls.push((
        "update_config".to_owned(),
        json!({"description": "changed"}),
    ));
    calls.push(("generate_outputs".to_owned(), json!({})));
    calls.push(("validate_config".to_owned(), json!({})));
    calls.push(("lock_status".to_owned(), json!({})));
    calls
}

/// Runs one server over the whole list of calls (and resource reads); returns stdout and stderr.
fn mcp_session(dir: &Path) -> String {
    let mut lines = vec![HANDSHAKE.to_owned(), INITIALIZED.to_owned()];
    for (index, (name, arguments)) in tool_calls().into_iter().enumerate() {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 10 + index, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}})
            .to_string(),
        );
    }
    let uris = [
        "ai-rulez://config",
        "ai-rulez://catalog",
        "ai-rulez://rule/victim",
        "ai-rulez://skill/victim",
    ];
    for (index, uri) in uris.into_iter().enumerate() {
        lines.push(
            json!({"jsonrpc": "2.0", "id": 900 + index, "method": "resources/read",
                   "params": {"uri": uri}})
            .to_string(),
        );
    }
    let (stdout, stderr) = converse(dir, &["--toolsets", "read,author,admin"], &lines);
    format!("{}\n{stderr}", stdout.join("\n"))
}

const COMMANDS: [&[&str]; 9] = [
    &["generate"],
    &["generate", "--check"],
    &["generate", "--force"],
    &["clean"],
    &["lock"],
    &["lock", "--check"],
    &["validate"],
    &["scan"],
    &["explain", "src/main.rs"],
];

#[test]
fn b51_no_tool_or_command_reaches_outside_through_a_symlink_at_any_level() {
    for layout in &LAYOUTS {
        let (project, outside) = hostile(layout);
        let before = snapshot(outside.path());
        let mut seen = mcp_session(project.path());
        for args in COMMANDS {
            let run = project.run(args);
            seen.push_str(&run.stdout());
            seen.push_str(&run.stderr());
        }
        assert_eq!(
            snapshot(outside.path()),
            before,
            "something outside changed with {} linked",
            layout.link
        );
        assert!(
            !seen.contains(MARKER),
            "outside text reached an output with {} linked:\n{seen}",
            layout.link
        );
        // Nothing was written inside the linked folder's place either: the link is still a link.
        let link = fs_err::symlink_metadata(project.path().join(layout.link)).expect("link");
        assert!(
            link.file_type().is_symlink(),
            "{} was replaced",
            layout.link
        );
    }
}

#[test]
fn b51_delete_skill_through_a_linked_skills_folder_is_refused_and_deletes_nothing() {
    let (project, outside) = hostile(&LAYOUTS[8]);
    let lines = [
        HANDSHAKE.to_owned(),
        INITIALIZED.to_owned(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_skill","arguments":{"name":"victim"}}}"#.to_owned(),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_item","arguments":{"kind":"rule","name":"victim"}}}"#.to_owned(),
    ];
    let (replies, _) = converse(project.path(), &["--toolsets", "read,author,admin"], &lines);
    let replies: Vec<Value> = replies
        .iter()
        .map(|line| serde_json::from_str(line).expect("json"))
        .collect();
    let delete = replies
        .iter()
        .find(|reply| reply["id"] == 2)
        .expect("reply 2");
    assert_eq!(delete["result"]["isError"], true, "{delete}");
    assert_eq!(
        delete["result"]["content"][0]["text"],
        ".ai-rulez/skills/victim/SKILL.md: is (or is inside) a symlink; ai-rulez never reads or writes through symlinks (a committed link could point anywhere), so replace the link with a real file or folder"
    );
    assert!(outside.path().join("skills/victim/SKILL.md").is_file());
    assert!(
        outside
            .path()
            .join("skills/victim/references/notes.md")
            .is_file()
    );
    // The rule next to it is still served: one bad folder does not take the project down.
    let read = replies
        .iter()
        .find(|reply| reply["id"] == 3)
        .expect("reply 3");
    assert_eq!(read["result"]["isError"], false, "{read}");
}

#[test]
fn scan_and_lock_check_name_a_symlinked_folder_instead_of_passing_or_calling_it_removed() {
    let (project, outside) = hostile(&LAYOUTS[8]);
    let scan = project.run(&["scan"]);
    scan.expect_code(2);
    assert_eq!(
        scan.stdout(),
        ".ai-rulez/skills: AR035 is a symlink, so it was neither loaded nor scanned; replace it with the real file or folder\n"
    );
    // A lock made while the folder was real: afterwards the link is named, not "removed".
    let locked = Project::empty();
    write_tree(&locked.path().join(".ai-rulez"), "Inside text.");
    locked.run(&["generate"]).expect_code(0);
    locked.run(&["lock"]).expect_code(0);
    let skills = locked.path().join(".ai-rulez/skills");
    fs_err::remove_dir_all(&skills).expect("rm");
    std::os::unix::fs::symlink(outside.path().join("skills"), &skills).expect("symlink");
    let check = locked.run(&["lock", "--check"]);
    check.expect_code(1);
    assert!(
        check
            .stderr()
            .contains(".ai-rulez/skills: is (or is inside) a symlink; ai-rulez never reads"),
        "{}",
        check.stderr()
    );
}

#[test]
fn an_include_reaches_nothing_outside_the_repository_by_a_link_or_a_path() {
    let outside = tempfile::tempdir().expect("temp");
    write_tree(outside.path(), MARKER);
    let project = Project::empty();
    let config = "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n";
    std::os::unix::fs::symlink(outside.path(), project.path().join("vendor")).expect("symlink");
    for source in [
        "./vendor".to_owned(),
        "vendor/.".to_owned(),
        outside.path().display().to_string(),
        "../../../../../../../../..".to_owned() + &outside.path().display().to_string(),
    ] {
        project.write(
            ".ai-rulez/config.toml",
            format!("{config}\n[[includes]]\nname = \"v\"\nsource = {source:?}\n"),
        );
        let run = project.run(&["generate"]);
        run.expect_code(1);
        assert!(!run.stdout().contains(MARKER) && !run.stderr().contains(MARKER));
        assert!(!project.exists(".claude/rules/victim.md"), "{source}");
    }
}

#[test]
fn an_include_beside_the_project_inside_the_repository_is_read_with_a_relative_banner() {
    let repository = Project::empty();
    write_tree(&repository.path().join("shared"), "Shared text.");
    fs_err::remove_file(repository.path().join("shared/config.toml")).expect("rm");
    fs_err::remove_dir_all(repository.path().join("shared/domains")).expect("rm");
    repository.write(
        "pkg/.ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n\n[[includes]]\nname = \"s\"\nsource = \"../shared\"\n",
    );
    let run = repository.run(&["-C", "pkg", "generate"]);
    run.expect_code(0);
    let rule = repository.read("pkg/.claude/rules/victim.md");
    assert!(
        rule.starts_with("<!-- Generated by ai-rulez from ../shared/rules/victim.md;"),
        "{rule}"
    );
}

#[test]
fn hook_install_refuses_a_hooks_folder_that_is_a_committed_link_given_as_an_absolute_path() {
    let outside = tempfile::tempdir().expect("temp");
    let project = Project::empty();
    fs_err::remove_dir_all(project.path().join(".git")).expect("rm");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(project.path())
            .output()
            .expect("git")
    };
    git(&["init", "-q"]);
    std::os::unix::fs::symlink(outside.path(), project.path().join("hooks")).expect("symlink");
    let hooks = project.path().join("hooks").display().to_string();
    git(&["config", "core.hooksPath", &hooks]);
    let run = project.run(&["hook", "install"]);
    run.expect_code(1);
    assert!(
        run.stderr().contains("is (or is inside) a symlink"),
        "{}",
        run.stderr()
    );
    assert!(
        fs_err::read_dir(outside.path())
            .expect("list")
            .next()
            .is_none()
    );
}

#[test]
fn deleting_a_skill_nested_deeper_than_the_limit_is_refused_and_the_server_stays_up() {
    let project = Project::empty();
    write_tree(&project.path().join(".ai-rulez"), "Inside text.");
    let mut deep = project.path().join(".ai-rulez/skills/victim/references");
    for _ in 0..40 {
        deep.push("a");
    }
    fs_err::create_dir_all(&deep).expect("deep folders");
    let mut server =
        crate::stdio_client::McpProcess::start(project.path(), &["--toolsets", "read,author"], &[]);
    let deleted = server.call("delete_skill", &json!({"name": "victim"}));
    assert_eq!(deleted["isError"], true, "{deleted}");
    assert!(
        deleted["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("nests folders deeper than 32 levels")),
        "{deleted}"
    );
    let read = server.call("read_item", &json!({"kind": "rule", "name": "victim"}));
    assert_eq!(read["isError"], false, "{read}");
    server.finish();
}

#[test]
fn an_update_keeps_the_permission_bits_of_the_source_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let project = Project::empty();
    write_tree(&project.path().join(".ai-rulez"), "Inside text.");
    let rule = project.path().join(".ai-rulez/rules/victim.md");
    fs_err::set_permissions(&rule, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let mut server =
        crate::stdio_client::McpProcess::start(project.path(), &["--toolsets", "read,author"], &[]);
    let updated = server.call(
        "update_rule",
        &json!({"name": "victim", "content": "---\npriority: high\n---\n# Victim\n\nInside text.\n"}),
    );
    assert_eq!(updated["isError"], false, "{updated}");
    server.finish();
    assert_eq!(project.mode(".ai-rulez/rules/victim.md"), 0o600);
}

/// The inode numbers the inotify instances of process `pid` watch, from `/proc/PID/fdinfo`
/// (one `inotify wd:... ino:HEX ...` line per watch).
#[cfg(target_os = "linux")]
fn watched_inodes(pid: u32) -> Vec<u64> {
    let mut inodes = Vec::new();
    for entry in fs_err::read_dir(format!("/proc/{pid}/fdinfo")).expect("fdinfo") {
        let text = fs_err::read_to_string(entry.expect("entry").path()).unwrap_or_default();
        for line in text.lines().filter(|line| line.starts_with("inotify ")) {
            let hex = line
                .split_whitespace()
                .find_map(|field| field.strip_prefix("ino:"))
                .expect("ino field");
            inodes.push(u64::from_str_radix(hex, 16).expect("hex inode"));
        }
    }
    inodes
}

#[cfg(target_os = "linux")]
#[test]
fn b51_the_mcp_watcher_does_not_follow_a_symlinked_folder() {
    use std::os::unix::fs::MetadataExt as _;
    // Before, the watcher followed links: `.ai-rulez/rules/linked -> /usr` made the first reply
    // wait while it walked 130,000 files, and every folder behind the link was watched.
    let outside = tempfile::tempdir().expect("temp");
    let mut behind_the_link = Vec::new();
    for name in ["a", "a/b", "a/b/c", "d"] {
        let folder = outside.path().join(name);
        fs_err::create_dir_all(&folder).expect("folder");
        behind_the_link.push(fs_err::metadata(&folder).expect("metadata").ino());
    }
    let project = crate::mcp::sample();
    std::os::unix::fs::symlink(
        outside.path(),
        project.path().join(".ai-rulez/rules/linked"),
    )
    .expect("symlink");
    let mut server = crate::mcp::Server::start(project.path());
    let reply = server.ok(
        "get_rules",
        json!({"paths": ["src/main.rs"], "task": "tidy the code"}),
    );
    assert!(reply["rules"].is_array(), "{reply}");
    let watched = watched_inodes(server.pid());
    let rules_folder = fs_err::metadata(project.path().join(".ai-rulez/rules"))
        .expect("rules")
        .ino();
    assert!(
        watched.contains(&rules_folder),
        "the rules folder is watched: {watched:?}"
    );
    let followed: Vec<u64> = behind_the_link
        .iter()
        .copied()
        .filter(|inode| watched.contains(inode))
        .collect();
    assert_eq!(
        followed,
        Vec::<u64>::new(),
        "folders behind the link are watched"
    );
    server.finish();
}
