//! The memory toolset's learnings, refresh queue and activity log through the real binary:
//! learnings turn stale when a source file changes (in the working tree or by a commit) or
//! vanishes and fresh again when it is restored, a CRLF checkout changes nothing, the blob ids
//! are git's own; refresh requests are filed, listed by `review` and resolved; the activity log
//! is appended, filtered and kept out of git. Days are fixed with `SOURCE_DATE_EPOCH`.

use std::process::Output;

use serde_json::{Value, json};

use crate::mcp::{CONFIG, Server};
use crate::support::Project;

/// 2026-01-01 00:00:00 UTC.
const EPOCH: (&str, &str) = ("SOURCE_DATE_EPOCH", "1767225600");

const POOL: &str = "pub fn pool() -> Pool {\n    Pool::new(8)\n}\n";
const MAIN: &str = "fn main() {\n    let pool = db::pool();\n    serve(pool);\n}\n";
const CLAIM: &str = "The database pool is created once in main and passed down.";
const CLAIM_ID: &str = "the-database-pool-is-created-once-in-main-and";

/// A project in a real git repository with two committed source files.
fn repository() -> Project {
    let project = Project::empty();
    fs_err::remove_dir(project.path().join(".git")).expect("remove the marker");
    git_ok(&project, &["init", "-q"]);
    project.write(".ai-rulez/config.toml", CONFIG);
    project.write("src/db/pool.rs", POOL);
    project.write("src/main.rs", MAIN);
    git_ok(&project, &["add", "-A"]);
    git_ok(&project, &["commit", "-q", "-m", "start"]);
    project
}

fn git(project: &Project, args: &[&str]) -> Output {
    std::process::Command::new("git")
        .current_dir(project.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .output()
        .expect("git runs")
}

/// Runs git, which must succeed; returns its stdout, trimmed.
#[track_caller]
fn git_ok(project: &Project, args: &[&str]) -> String {
    let output = git(project, args);
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

fn memory_server(project: &Project) -> Server {
    Server::start_with(project.path(), &["--toolsets", "read,memory"], &[EPOCH])
}

/// (id, status, stale sources as `path reason`) of each learning `review_learnings` lists.
fn statuses(review: &Value) -> Vec<(String, String, Vec<String>)> {
    review["learnings"]
        .as_array()
        .expect("learnings")
        .iter()
        .map(|learning| {
            let stale = learning["stale_sources"]
                .as_array()
                .map(|sources| {
                    sources
                        .iter()
                        .map(|source| {
                            format!(
                                "{} {}",
                                source["path"].as_str().unwrap(),
                                source["reason"].as_str().unwrap()
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            (
                learning["id"].as_str().expect("id").to_owned(),
                learning["status"].as_str().expect("status").to_owned(),
                stale,
            )
        })
        .collect()
}

fn one(status: &str, stale: &[&str]) -> Vec<(String, String, Vec<String>)> {
    vec![(
        CLAIM_ID.to_owned(),
        status.to_owned(),
        stale.iter().map(|line| (*line).to_owned()).collect(),
    )]
}

/// Ids of the learnings `get_context` serves for `path`.
fn served(server: &mut Server, path: &str) -> Vec<String> {
    let reply = server.ok("get_context", json!({"path": path}));
    reply["learnings"]
        .as_array()
        .map_or_else(Vec::new, |learnings| {
            learnings
                .iter()
                .map(|learning| learning["id"].as_str().expect("id").to_owned())
                .collect()
        })
}

#[test]
fn a_learning_is_stale_while_a_source_differs_in_the_working_tree_or_a_commit_and_fresh_again_when_restored()
 {
    let project = repository();
    let mut server = memory_server(&project);
    let pool_blob = git_ok(&project, &["hash-object", "src/db/pool.rs"]);
    let main_blob = git_ok(&project, &["hash-object", "src/main.rs"]);
    let recorded = server.ok(
        "record_learning",
        json!({"claim": CLAIM, "files_read": ["src/main.rs", "src/db/pool.rs", "src/main.rs"]}),
    );
    let path = format!(".ai-rulez/learnings/{CLAIM_ID}.md");
    assert_eq!(
        recorded,
        json!({
            "id": CLAIM_ID,
            "path": path,
            "sources": [
                {"path": "src/db/pool.rs", "blob": pool_blob},
                {"path": "src/main.rs", "blob": main_blob},
            ],
            "replaced": null,
            "message": format!("learning `{CLAIM_ID}` saved with 2 source file(s)"),
        })
    );
    assert_eq!(
        project.read(&path),
        format!(
            "---\nsources:\n  - path: src/db/pool.rs\n    blob: {pool_blob}\n  - path: src/main.rs\n    blob: {main_blob}\ncreated: 2026-01-01\n---\n{CLAIM}\n"
        )
    );
    // Served for a source file and for a folder holding one, labelled; not for other paths.
    let context = server.ok("get_context", json!({"path": "src/db"}));
    assert_eq!(
        context["learnings"],
        json!([{
            "id": CLAIM_ID,
            "claim": CLAIM,
            "sources": ["src/db/pool.rs", "src/main.rs"],
            "label": "verify before relying on it",
        }])
    );
    let (text, _) = server.text("get_context", json!({"path": "src/main.rs"}));
    assert!(
        text.ends_with(&format!("\n## Learnings (verify before relying on it: each was read from the files named, which have not changed since)\n- `{CLAIM_ID}`: {CLAIM} (from src/db/pool.rs, src/main.rs)\n")),
        "{text}"
    );
    assert_eq!(served(&mut server, "docs"), Vec::<String>::new());

    // A change in the working tree only.
    project.write("src/db/pool.rs", POOL.replace('8', "16"));
    let review = server.ok("review_learnings", json!({}));
    assert_eq!(statuses(&review), one("stale", &["src/db/pool.rs changed"]));
    assert_eq!(
        (review["current"].clone(), review["stale"].clone()),
        (json!(0), json!(1))
    );
    assert_eq!(served(&mut server, "src"), Vec::<String>::new());
    git_ok(&project, &["checkout", "--", "src/db/pool.rs"]);
    assert_eq!(
        statuses(&server.ok("review_learnings", json!({}))),
        one("current", &[])
    );
    assert_eq!(served(&mut server, "src"), [CLAIM_ID]);

    // A committed change, then a commit that restores the file.
    project.write("src/main.rs", MAIN.replace("serve", "run"));
    git_ok(&project, &["commit", "-q", "-am", "rename"]);
    assert_eq!(
        statuses(&server.ok("review_learnings", json!({"path": "src"}))),
        one("stale", &["src/main.rs changed"])
    );
    git_ok(&project, &["revert", "--no-edit", "HEAD"]);
    assert_eq!(
        statuses(&server.ok("review_learnings", json!({}))),
        one("current", &[])
    );

    // A vanished source, named; the CLI gives the same answer as the tool.
    git_ok(&project, &["rm", "-q", "src/main.rs"]);
    let review = server.ok("review_learnings", json!({"path": "src/main.rs"}));
    assert_eq!(statuses(&review), one("stale", &["src/main.rs vanished"]));
    let run = project.run_with_env(&["learnings", "--stale", "--format", "json"], &[EPOCH]);
    run.expect_code(0);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout()).expect("json"),
        review
    );
    let run = project.run(&["learnings"]);
    assert_eq!(
        run.stdout(),
        format!(
            "1 learning(s): 0 current, 1 stale, 0 conflicting pair(s); 0 retired.\n- {CLAIM_ID} [stale] {CLAIM}\n    src/main.rs vanished\n"
        )
    );
    // A path filter that names no source lists nothing.
    assert_eq!(
        statuses(&server.ok("review_learnings", json!({"path": "docs"}))),
        []
    );
    server.finish();
}

#[test]
fn a_crlf_checkout_keeps_the_blob_id_git_reports() {
    let project = repository();
    let mut server = memory_server(&project);
    let recorded = server.ok(
        "record_learning",
        json!({"claim": CLAIM, "files_read": ["src/db/pool.rs"]}),
    );
    let committed = git_ok(&project, &["rev-parse", "HEAD:src/db/pool.rs"]);
    assert_eq!(recorded["sources"][0]["blob"], committed);
    // Check the file out again with CRLF line ends, as Windows users get it.
    git_ok(&project, &["config", "core.autocrlf", "true"]);
    fs_err::remove_file(project.path().join("src/db/pool.rs")).expect("remove");
    git_ok(&project, &["checkout", "--", "src/db/pool.rs"]);
    assert_eq!(project.read("src/db/pool.rs"), POOL.replace('\n', "\r\n"));
    assert_eq!(
        git_ok(&project, &["hash-object", "src/db/pool.rs"]),
        committed
    );
    assert_eq!(
        statuses(&server.ok("review_learnings", json!({}))),
        one("current", &[])
    );
    // A learning recorded from the CRLF file has the same id as the committed blob.
    let again = server.ok(
        "record_learning",
        json!({"claim": "Pool size is eight connections.", "files_read": ["src/db/pool.rs"]}),
    );
    assert_eq!(again["sources"][0]["blob"], committed);
    server.finish();
}

#[test]
fn replacing_retiring_and_conflicting_learnings() {
    let project = repository();
    let mut server = memory_server(&project);
    server.ok(
        "record_learning",
        json!({"claim": "Always open the pool before the server starts.", "files_read": ["src/main.rs"]}),
    );
    server.ok(
        "record_learning",
        json!({"claim": "Never open the pool before the server starts.", "files_read": ["src/main.rs"]}),
    );
    let review = server.ok("review_learnings", json!({}));
    assert_eq!(
        review["conflicting"],
        json!([{
            "first": "always-open-the-pool-before-the-server-starts",
            "second": "never-open-the-pool-before-the-server-starts",
            "shared_source": "src/main.rs",
            "similarity": 1.0,
        }])
    );
    // A limit keeps the listing short; counts and conflicts still cover every learning.
    let limited = server.ok("review_learnings", json!({"limit": 1}));
    assert_eq!(
        (
            limited["learnings"].as_array().map(Vec::len),
            limited["omitted"].clone(),
            limited["current"].clone()
        ),
        (Some(1), json!(1), json!(2))
    );
    assert_eq!(limited["conflicting"], review["conflicting"]);
    // The newer learning replaces the wrong one, which is retired in its file.
    let replaced = server.ok(
        "record_learning",
        json!({
            "claim": "The pool opens lazily on the first query.",
            "files_read": ["src/db/pool.rs"],
            "replaces": "never-open-the-pool-before-the-server-starts",
        }),
    );
    assert_eq!(replaced["id"], "the-pool-opens-lazily-on-the-first-query");
    assert_eq!(
        replaced["replaced"],
        "never-open-the-pool-before-the-server-starts"
    );
    let blob = git_ok(&project, &["hash-object", "src/main.rs"]);
    assert_eq!(
        project.read(".ai-rulez/learnings/never-open-the-pool-before-the-server-starts.md"),
        format!(
            "---\nretired: 2026-01-01\nreplaced_by: the-pool-opens-lazily-on-the-first-query\nsources:\n  - path: src/main.rs\n    blob: {blob}\ncreated: 2026-01-01\n---\nNever open the pool before the server starts.\n"
        )
    );
    assert!(
        project
            .read(".ai-rulez/learnings/the-pool-opens-lazily-on-the-first-query.md")
            .contains("\nreplaces: never-open-the-pool-before-the-server-starts\n")
    );
    let review = server.ok("review_learnings", json!({}));
    assert_eq!(review["conflicting"], json!([]));
    assert_eq!(review["retired"], 1);
    assert_eq!(
        server.fails(
            "record_learning",
            json!({"claim": "Something else.", "files_read": ["src/main.rs"], "replaces": "never-open-the-pool-before-the-server-starts"}),
        ),
        "learning `never-open-the-pool-before-the-server-starts` is already retired; record the new learning without `replaces`"
    );
    let retired = server.ok(
        "retire_learning",
        json!({"id": "always-open-the-pool-before-the-server-starts"}),
    );
    assert_eq!(retired["outcome"], "retired");
    assert_eq!(
        server.ok(
            "retire_learning",
            json!({"id": "always-open-the-pool-before-the-server-starts"})
        )["outcome"],
        "unchanged"
    );
    assert_eq!(
        served(&mut server, "src"),
        ["the-pool-opens-lazily-on-the-first-query"]
    );
    assert_eq!(
        server.fails("retire_learning", json!({"id": "no-such-learning"})),
        "no learning has the id `no-such-learning`; review_learnings lists them"
    );
    assert_eq!(
        server.fails("retire_learning", json!({"id": "../rules/x"})),
        "`../rules/x` is not an id: ids are lowercase letters, digits and dashes, as the listing shows them"
    );
    server.finish();
}

#[test]
fn record_learning_refuses_what_cannot_back_a_claim() {
    let project = repository();
    let mut server = memory_server(&project);
    let cases = [
        (
            json!({"claim": "  ", "files_read": ["src/main.rs"]}),
            "`claim` is empty; state what you learned from the files in a sentence or two",
        ),
        (
            json!({"claim": CLAIM, "files_read": []}),
            "`files_read` is empty; a learning names the files it was read from",
        ),
        (
            json!({"claim": CLAIM, "files_read": ["src/gone.rs"]}),
            "`files_read`: src/gone.rs does not exist; name only files you read (project-relative)",
        ),
        (
            json!({"claim": CLAIM, "files_read": ["../outside.rs"]}),
            "`files_read`: ../outside.rs is not a file inside the project; pass project-relative paths",
        ),
        (
            json!({"claim": CLAIM, "files_read": ["src"]}),
            "src: is not a regular file (a folder, a pipe or a device); move it away",
        ),
    ];
    for (arguments, message) in cases {
        assert_eq!(server.fails("record_learning", arguments), message);
    }
    // A symlink is never read through, inside the project or out of it.
    std::os::unix::fs::symlink("/etc/hostname", project.path().join("src/link.rs")).expect("link");
    assert_eq!(
        server.fails(
            "record_learning",
            json!({"claim": CLAIM, "files_read": ["src/link.rs"]})
        ),
        "src/link.rs: is (or is inside) a symlink; ai-rulez never reads or writes through symlinks (a committed link could point anywhere), so replace the link with a real file or folder"
    );
    let secret = server.fails(
        "record_learning",
        json!({"claim": format!("The key is AKIA{} for staging.", "Q3JH7XK2M9PLR4TZ"), "files_read": ["src/main.rs"]}),
    );
    assert!(
        secret.starts_with(
            "the claim was not saved, since learnings are served to agents as written: AR001"
        ),
        "{secret}"
    );
    assert!(!project.exists(".ai-rulez/learnings"));
    server.finish();
}

#[test]
fn generate_leaves_learnings_out_and_the_lock_does_not_pin_them() {
    let project = repository();
    project.run(&["generate"]).expect_code(0);
    project.run(&["lock"]).expect_code(0);
    let mut server = memory_server(&project);
    server.ok(
        "record_learning",
        json!({"claim": CLAIM, "files_read": ["src/main.rs"]}),
    );
    server.ok(
        "request_refresh",
        json!({"item_id": CLAIM_ID, "reason": "unclear", "note": "Which pool?"}),
    );
    server.finish();
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert!(!project.read("CLAUDE.md").contains("pool"));
    project.run(&["lock", "--check"]).expect_code(0);
    let run = project.run(&["validate"]);
    run.expect_code(0);
    // No warning about the learnings or refresh-requests folders.
    assert_eq!(run.stderr(), "validate: no findings\n");
}

#[test]
fn a_refresh_request_is_filed_listed_by_review_and_resolved() {
    let project = repository();
    // A request is only filed for an item that exists.
    project.write(
        ".ai-rulez/context/database.md",
        "---\npriority: medium\n---\nThe pool is created in main.\n",
    );
    let mut server = memory_server(&project);
    let filed = server.ok(
        "request_refresh",
        json!({"item_id": "database", "reason": "too_narrow", "note": "It should cover migrations too."}),
    );
    let path = ".ai-rulez/refresh-requests/database-too-narrow.md";
    assert_eq!(
        filed,
        json!({
            "id": "database-too-narrow",
            "path": path,
            "item": "database",
            "reason": "too_narrow",
            "status": "open",
            "note": "It should cover migrations too.",
            "created": "2026-01-01",
        })
    );
    assert_eq!(
        project.read(path),
        "---\nitem: database\nreason: too_narrow\nstatus: open\ncreated: 2026-01-01\n---\nIt should cover migrations too.\n"
    );
    // A second request for the same item and reason gets its own file.
    let second = server.ok(
        "request_refresh",
        json!({"item_id": "database", "reason": "too_narrow", "note": "And seeds."}),
    );
    assert_eq!(second["id"], "database-too-narrow-2");
    let (text, listed) = server.text("list_refresh_requests", json!({}));
    assert_eq!(
        text,
        "- database-too-narrow [too_narrow] database: It should cover migrations too.\n- database-too-narrow-2 [too_narrow] database: And seeds."
    );
    assert_eq!(listed["requests"][0], filed);

    let run = project.run(&["review"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout(),
        "No rule waits for review.\n2 open refresh request(s) (resolve with the MCP tool resolve_refresh, or set `status: applied` or `status: rejected` in the file):\n- database-too-narrow [too_narrow] database: It should cover migrations too.\n- database-too-narrow-2 [too_narrow] database: And seeds.\n"
    );

    let resolved = server.ok(
        "resolve_refresh",
        json!({"id": "database-too-narrow", "outcome": "applied", "note": "Scope widened: src/db and migrations."}),
    );
    assert_eq!(resolved["status"], "applied");
    assert_eq!(
        project.read(path),
        "---\nstatus: applied\nresolved: 2026-01-01\nresolution_note: \"Scope widened: src/db and migrations.\"\nitem: database\nreason: too_narrow\ncreated: 2026-01-01\n---\nIt should cover migrations too.\n"
    );
    assert_eq!(
        server.fails(
            "resolve_refresh",
            json!({"id": "database-too-narrow", "outcome": "rejected"})
        ),
        "refresh request `database-too-narrow` is already applied (2026-01-01); file a new request if the item needs another look"
    );
    server.ok(
        "resolve_refresh",
        json!({"id": "database-too-narrow-2", "outcome": "rejected"}),
    );
    let (text, _) = server.text("list_refresh_requests", json!({}));
    assert_eq!(text, "No refresh request is open.");
    let all = server.ok("list_refresh_requests", json!({"all": true}));
    let states: Vec<&str> = all["requests"]
        .as_array()
        .expect("requests")
        .iter()
        .map(|request| request["status"].as_str().expect("status"))
        .collect();
    assert_eq!(states, ["applied", "rejected"]);
    let run = project.run(&["review", "--format", "json"]);
    let list: Value = serde_json::from_str(&run.stdout()).expect("json");
    assert_eq!(list["refresh_requests"], json!([]));

    // Unknown reasons are refused by the schema; a note is required.
    let bad = server.fails(
        "request_refresh",
        json!({"item_id": "database", "reason": "old", "note": "x"}),
    );
    assert_eq!(
        bad,
        "Invalid arguments: `reason` is `old`; use one of stale, contradictory, duplicate, too_narrow, unclear."
    );
    assert_eq!(
        server.fails(
            "request_refresh",
            json!({"item_id": "database", "reason": "stale", "note": " "})
        ),
        "`note` must say what is wrong with the item (1 to 2000 characters)"
    );
    server.finish();
}

#[test]
fn a_refresh_request_for_an_id_that_names_nothing_is_refused_and_writes_nothing() {
    let project = repository();
    project.write(
        ".ai-rulez/context/database.md",
        "---\npriority: medium\n---\nThe pool is created in main.\n",
    );
    let mut server = memory_server(&project);
    for item_id in [
        "../../x",
        "/etc/passwd",
        "rule:does-not-exist",
        "rule:database",
    ] {
        assert_eq!(
            server.fails(
                "request_refresh",
                json!({"item_id": item_id, "reason": "stale", "note": "Out of date."})
            ),
            format!(
                "no learning, item or memory has the id `{item_id}`, so there is nothing to refresh; review_learnings, list_items and list_memories list the ids (resolve finds one by name)"
            ),
            "{item_id}"
        );
    }
    assert!(!project.exists(".ai-rulez/refresh-requests"));
    // An item by its id or as `kind:id`, a learning and a memory are all known.
    let memory = server.ok(
        "write_memory",
        json!({"node_path": "src", "title": "pool", "content": "One pool per process."}),
    );
    server.ok(
        "record_learning",
        json!({"claim": CLAIM, "files_read": ["src/main.rs"]}),
    );
    let memory_id = memory["id"].as_str().expect("memory id").to_owned();
    for item_id in ["database", "context:database", CLAIM_ID, memory_id.as_str()] {
        server.ok(
            "request_refresh",
            json!({"item_id": item_id, "reason": "stale", "note": "Out of date."}),
        );
    }
    server.finish();
}

#[test]
fn the_activity_log_is_appended_filtered_and_kept_out_of_git() {
    let project = repository();
    let mut server = memory_server(&project);
    let logged = server.ok(
        "log_activity",
        json!({"action": "edited", "paths": ["src/db/pool.rs"], "summary": "Pool size\n from config."}),
    );
    assert_eq!(
        logged["entry"],
        json!({"at": "2026-01-01T00:00:00Z", "action": "edited", "paths": ["src/db/pool.rs"], "summary": "Pool size from config."})
    );
    // The default config keeps no .gitignore block: the machine-local folder ignores itself.
    assert_eq!(logged.get("warning"), None);
    assert_eq!(
        project.read(".ai-rulez/local/.gitignore"),
        "# Written by ai-rulez: this folder describes one machine (usage, ledger, activity).\n*\n"
    );
    assert_eq!(
        git_ok(
            &project,
            &[
                "status",
                "--porcelain",
                "--untracked-files=all",
                "--",
                ".ai-rulez/local"
            ]
        ),
        ""
    );
    project.write(
        ".ai-rulez/config.toml",
        format!("{CONFIG}gitignore = true\n"),
    );
    project.run(&["generate"]).expect_code(0);
    let logged = server.ok(
        "log_activity",
        json!({"action": "reviewed", "paths": ["src/main.rs", "src"], "summary": "Checked the start-up."}),
    );
    assert_eq!(logged.get("warning"), None);
    assert_eq!(
        git_ok(
            &project,
            &["status", "--porcelain", "--", ".ai-rulez/local"]
        ),
        ""
    );
    assert_eq!(
        project.read(".ai-rulez/local/activity.jsonl"),
        "{\"at\":\"2026-01-01T00:00:00Z\",\"action\":\"edited\",\"paths\":[\"src/db/pool.rs\"],\"summary\":\"Pool size from config.\"}\n{\"at\":\"2026-01-01T00:00:00Z\",\"action\":\"reviewed\",\"paths\":[\"src\",\"src/main.rs\"],\"summary\":\"Checked the start-up.\"}\n"
    );
    // A cut line (a crash mid-append) is skipped, the rest still read.
    let mut log = project.read(".ai-rulez/local/activity.jsonl");
    log.push_str("{\"at\":\"2026-01-01T00:00:00Z\",\"act");
    project.write(".ai-rulez/local/activity.jsonl", log);
    let recent = server.ok("recent_activity", json!({"path": "src/db"}));
    assert_eq!(recent["skipped_lines"], 1);
    let actions: Vec<&str> = recent["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|entry| entry["action"].as_str().expect("action"))
        .collect();
    assert_eq!(actions, ["edited"]);
    let (text, _) = server.text("recent_activity", json!({"limit": 5}));
    assert_eq!(
        text,
        "2026-01-01T00:00:00Z reviewed src, src/main.rs: Checked the start-up.\n2026-01-01T00:00:00Z edited src/db/pool.rs: Pool size from config."
    );
    let run = project.run(&["activity", "src/main.rs"]);
    run.expect_code(0);
    assert_eq!(
        run.stdout(),
        "2026-01-01T00:00:00Z reviewed src, src/main.rs: Checked the start-up.\n"
    );
    let run = project.run(&["activity", "--format", "json"]);
    let json: Value = serde_json::from_str(&run.stdout()).expect("json");
    assert_eq!(json["entries"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        server.fails(
            "log_activity",
            json!({"action": "two words", "paths": [], "summary": "x"})
        ),
        "`action` must be one word of at most 40 characters (edited, reviewed, refactored, ...)"
    );
    assert_eq!(
        server.fails(
            "log_activity",
            json!({"action": "edited", "paths": ["/etc/passwd"], "summary": "x"})
        ),
        "`paths`: /etc/passwd is not inside the project; pass project-relative paths"
    );
    assert_eq!(
        server.fails(
            "log_activity",
            json!({"action": "edited", "paths": ["a\u{202e}b.rs"], "summary": "x"})
        ),
        "`paths`: `a\\u{202e}b.rs` holds a character a reader would not see, or a line break; name the file as it is spelt"
    );
    assert_eq!(
        server.fails(
            "log_activity",
            json!({"action": "edited", "paths": ["a".repeat(5_000)], "summary": "x"})
        ),
        "`paths`: a path of 5000 characters; name each file in at most 4096"
    );
    server.finish();
}

#[test]
fn under_read_only_the_reading_tools_are_served_and_the_writing_ones_refused() {
    let project = repository();
    let mut server = Server::start_with(
        project.path(),
        &["--read-only", "--toolsets", "memory"],
        &[EPOCH],
    );
    assert_eq!(
        server.fails(
            "record_learning",
            json!({"claim": CLAIM, "files_read": ["src/main.rs"]})
        ),
        "`record_learning` writes, and this server runs with --read-only: it serves only reading tools"
    );
    assert_eq!(
        server.fails(
            "log_activity",
            json!({"action": "edited", "paths": [], "summary": "x"})
        ),
        "`log_activity` writes, and this server runs with --read-only: it serves only reading tools"
    );
    let review = server.ok("review_learnings", json!({}));
    assert_eq!(review["learnings"], json!([]));
    server.ok("list_refresh_requests", json!({}));
    server.ok("recent_activity", json!({}));
    server.finish();
    assert!(!project.exists(".ai-rulez/local"));
}

#[test]
fn a_server_sees_a_hand_edit_of_a_learning_it_has_read_before() {
    let project = repository();
    let mut server = memory_server(&project);
    server.ok(
        "record_learning",
        json!({"claim": CLAIM, "files_read": ["src/main.rs"]}),
    );
    // Old files are kept parsed between calls; a hand edit gives the file a new time.
    project.age_files();
    let claims = |server: &mut Server| -> Vec<String> {
        let reply = server.ok("get_context", json!({"path": "src"}));
        reply["learnings"]
            .as_array()
            .map_or_else(Vec::new, |learnings| {
                learnings
                    .iter()
                    .map(|learning| learning["claim"].as_str().expect("claim").to_owned())
                    .collect()
            })
    };
    assert_eq!(claims(&mut server), [CLAIM]);
    assert_eq!(claims(&mut server), [CLAIM]);
    let path = format!(".ai-rulez/learnings/{CLAIM_ID}.md");
    let edited = project.read(&path).replace("passed down", "handed down");
    project.write(&path, edited);
    assert_eq!(
        claims(&mut server),
        [CLAIM.replace("passed down", "handed down")]
    );
    fs_err::remove_file(project.path().join(&path)).expect("remove");
    assert_eq!(claims(&mut server), Vec::<String>::new());
    server.finish();
}

#[test]
fn the_activity_log_is_cut_to_its_newest_half_past_four_mebibytes() {
    let project = repository();
    let line = |number: usize| {
        format!(
            "{{\"at\":\"2025-12-31T00:00:00Z\",\"action\":\"edited\",\"paths\":[\"src/main.rs\"],\"summary\":\"entry {number:06} {}\"}}\n",
            "x".repeat(100)
        )
    };
    let lines: Vec<String> = (0..40_000).map(line).collect();
    let log = lines.concat();
    assert!(log.len() > 4 * 1024 * 1024);
    project.write(".ai-rulez/local/activity.jsonl", &log);
    let mut server = memory_server(&project);
    server.ok(
        "log_activity",
        json!({"action": "edited", "paths": ["src/main.rs"], "summary": "The newest."}),
    );
    server.finish();
    let kept = project.read(".ai-rulez/local/activity.jsonl");
    let newest = "{\"at\":\"2026-01-01T00:00:00Z\",\"action\":\"edited\",\"paths\":[\"src/main.rs\"],\"summary\":\"The newest.\"}\n";
    // 40,001 lines: the newest 20,001 are kept, whole lines only.
    assert_eq!(kept, format!("{}{newest}", lines[20_000..].concat()));
}
