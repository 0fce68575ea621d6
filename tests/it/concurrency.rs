//! B53 and B54: several real `ai-rulez mcp` processes on one project. Compare-and-swap updates
//! (`expected_hash`) never lose an acknowledged update, of two processes creating one item
//! exactly one succeeds, a CLI `generate` never interleaves with a server's write, and servers
//! saving the same correction at once save it once.

use serde_json::{Value, json};

use crate::stdio_client::McpProcess;
use crate::support::Project;

fn project() -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n",
    );
    // Pending: agents may edit a pending rule's text, while an active rule's text changes
    // only through a reviewed revision (tested in `learn`).
    project.write(
        ".ai-rulez/rules/shared.md",
        "---\nstatus: pending\n---\n# Shared\n\nLines:\n",
    );
    project
}

const AUTHOR: [&str; 2] = ["--toolsets", "read,author"];

/// Appends `line` to the shared rule with compare-and-swap, retrying on a stale hash (and on a
/// busy lock); returns how many attempts it took.
fn append_with_retry(server: &mut McpProcess, line: &str) -> usize {
    for attempt in 1..=1000 {
        let read = server.call("read_item", &json!({"kind": "rule", "name": "shared"}));
        assert_eq!(read["isError"], false, "{read}");
        let record = &read["structuredContent"];
        let content = format!("{}{line}\n", record["content"].as_str().expect("content"));
        let update = server.call(
            "update_rule",
            &json!({"name": "shared", "content": content, "expected_hash": record["hash"]}),
        );
        if update["isError"] == false {
            return attempt;
        }
        let message = update["content"][0]["text"].as_str().unwrap_or_default();
        assert!(
            message.contains("changed since you read it") || message.contains("retry"),
            "unexpected refusal: {message}"
        );
    }
    panic!("no update went through in 1000 attempts");
}

#[test]
fn b53_compare_and_swap_across_server_processes_loses_no_acknowledged_update() {
    let project = project();
    let processes = 4;
    let updates = 25;
    let root = project.path().to_path_buf();
    let workers: Vec<_> = (0..processes)
        .map(|worker| {
            let root = root.clone();
            std::thread::spawn(move || {
                let mut server = McpProcess::start(&root, &AUTHOR, &[]);
                let mut acknowledged = Vec::new();
                for update in 0..updates {
                    let line = format!("- worker {worker} update {update}");
                    append_with_retry(&mut server, &line);
                    acknowledged.push(line);
                }
                server.finish();
                acknowledged
            })
        })
        .collect();
    let acknowledged: Vec<String> = workers
        .into_iter()
        .flat_map(|worker| worker.join().expect("worker"))
        .collect();
    assert_eq!(acknowledged.len(), processes * updates);
    let text = project.read(".ai-rulez/rules/shared.md");
    let lines: Vec<&str> = text.lines().filter(|line| line.starts_with("- ")).collect();
    // Every acknowledged update is there, each exactly once, and nothing else.
    assert_eq!(lines.len(), processes * updates, "{text}");
    for line in &acknowledged {
        assert_eq!(
            lines.iter().filter(|found| *found == line).count(),
            1,
            "{line} lost or doubled"
        );
    }
}

#[test]
fn b54_of_two_processes_creating_one_item_exactly_one_succeeds() {
    let project = project();
    let root = project.path().to_path_buf();
    let mut first = McpProcess::start(&root, &AUTHOR, &[]);
    let mut second = McpProcess::start(&root, &AUTHOR, &[]);
    for round in 0..20 {
        let name = format!("race-{round}");
        let arguments = json!({"name": name, "content": format!("# Race {round}\n\nBody.\n")});
        // Both requests are on their way before either reply is read.
        let request = |id: u64| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "create_rule", "arguments": arguments}})
            .to_string()
        };
        first.send(&request(1000 + round));
        second.send(&request(1000 + round));
        let replies: Vec<Value> = [first.recv(), second.recv()]
            .into_iter()
            .map(|reply| reply.expect("reply"))
            .collect();
        let successes = replies
            .iter()
            .filter(|reply| reply["result"]["isError"] == false)
            .count();
        assert_eq!(successes, 1, "round {round}: {replies:?}");
        let refusal = replies
            .iter()
            .find(|reply| reply["result"]["isError"] == true)
            .expect("one refusal");
        let message = refusal["result"]["content"][0]["text"]
            .as_str()
            .expect("message");
        assert!(
            message.starts_with(&format!(".ai-rulez/rules/{name}.md: ")),
            "{message}"
        );
        assert!(message.contains("already exists"), "{message}");
    }
    first.finish();
    second.finish();
}

#[test]
fn a_writer_waiting_past_the_lock_patience_is_told_to_retry_and_changes_nothing() {
    let project = project();
    // Another process holds the project's writer lock (flock on the root folder) for a while.
    let holder = std::process::Command::new("flock")
        .args(["--exclusive", ".", "sleep", "3"])
        .current_dir(project.path())
        .spawn();
    let Ok(mut holder) = holder else {
        crate::support::skip_notice("flock(1) is not installed");
        return;
    };
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut server =
        McpProcess::start(project.path(), &AUTHOR, &[("AI_RULEZ_LOCK_WAIT_MS", "200")]);
    let before = project.read(".ai-rulez/rules/shared.md");
    let update = server.call(
        "update_rule",
        &json!({"name": "shared", "content": "# Changed\n"}),
    );
    assert_eq!(update["isError"], true, "{update}");
    let message = update["content"][0]["text"].as_str().expect("message");
    assert!(
        message.contains("another ai-rulez process is changing this project")
            && message.ends_with("nothing was changed, retry in a moment"),
        "{message}"
    );
    assert_eq!(project.read(".ai-rulez/rules/shared.md"), before);
    let run = project.run_with_env(&["generate"], &[("AI_RULEZ_LOCK_WAIT_MS", "200")]);
    run.expect_code(1);
    assert!(
        run.stderr().contains("retry in a moment"),
        "{}",
        run.stderr()
    );
    assert!(!project.exists("CLAUDE.md"));
    server.finish();
    holder.wait().expect("flock");
}

#[test]
fn several_servers_saving_the_same_correction_at_once_save_it_once() {
    let project = project();
    let root = project.path().to_path_buf();
    let learn = ["--toolsets", "read,learn"];
    let mut servers: Vec<McpProcess> = (0..4)
        .map(|_| McpProcess::start(&root, &learn, &[]))
        .collect();
    // Every server has its catalog loaded before the race, so none may trust it alone.
    for server in &mut servers {
        let warm = server.call("get_rules", &json!({"paths": ["README.md"]}));
        assert_eq!(warm["isError"], false, "{warm}");
    }
    let sentences = [
        "Prefer explicit retries around flaky network calls.",
        "Log every failed payment with its order number.",
        "Keep database migrations reversible.",
        "Name feature flags after the ticket that adds them.",
        "Pin container base images by digest.",
        "Write changelog entries in the past tense.",
    ];
    for (round, sentence) in (0u64..).zip(sentences) {
        let request = json!({"jsonrpc": "2.0", "id": 2000 + round, "method": "tools/call",
                             "params": {"name": "record_feedback", "arguments": {"rule": sentence}}})
        .to_string();
        for server in &mut servers {
            server.send(&request);
        }
        let mut outcomes: Vec<(String, String)> = servers
            .iter_mut()
            .map(|server| {
                let reply = server.recv().expect("reply");
                assert_eq!(reply["result"]["isError"], false, "{reply}");
                let content = &reply["result"]["structuredContent"];
                (
                    content["outcome"].as_str().expect("outcome").to_owned(),
                    content["id"].as_str().expect("id").to_owned(),
                )
            })
            .collect();
        outcomes.sort();
        let id = outcomes[3].1.clone();
        let known = ("already_known".to_owned(), id.clone());
        assert_eq!(
            outcomes,
            vec![
                known.clone(),
                known.clone(),
                known,
                ("saved".to_owned(), id)
            ],
            "{sentence}"
        );
    }
    // Exactly one file per sentence besides the rule the project started with.
    let rules: Vec<String> = project
        .files()
        .into_iter()
        .filter(|path| path.starts_with(".ai-rulez/rules/"))
        .collect();
    assert_eq!(rules.len(), 1 + sentences.len(), "{rules:?}");
    for server in servers {
        server.finish();
    }
}

/// Writers replacing one file at once (machine-local caches are written so, without the
/// project lock) each use a temporary file of their own: a reader only ever sees one writer's
/// complete bytes, every write succeeds, and no temporary file is left.
#[test]
fn writers_replacing_one_file_at_once_never_expose_a_half_file() {
    use ai_rulez::testing::confined_fs::ProjectDir;
    use std::sync::atomic::{AtomicBool, Ordering};

    const SIZE: usize = 256 * 1024;
    const WRITES: usize = 60;
    let project = Project::empty();
    let dir = ProjectDir::open(project.path()).expect("open project");
    let writing = AtomicBool::new(true);
    let complete_reads = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4_u8)
            .map(|writer| {
                let dir = &dir;
                scope.spawn(move || {
                    let bytes = vec![b'a' + writer; SIZE];
                    for _ in 0..WRITES {
                        dir.write("local/cache.bin", &bytes, 0o644)
                            .expect("every concurrent write succeeds");
                    }
                })
            })
            .collect();
        let reader = scope.spawn(|| {
            let mut complete_reads = 0;
            while writing.load(Ordering::Relaxed) {
                let Some((bytes, _)) = dir.read("local/cache.bin", 1 << 20).expect("read") else {
                    continue;
                };
                assert_eq!(
                    bytes.len(),
                    SIZE,
                    "a read saw a file of {} bytes",
                    bytes.len()
                );
                assert!(
                    bytes.iter().all(|&byte| byte == bytes[0]),
                    "a read saw the bytes of two writers mixed"
                );
                complete_reads += 1;
            }
            complete_reads
        });
        // The reader stops once every writer has ended, failed or not, so a failure cannot
        // hang the test.
        let writers_ended: Vec<_> = writers
            .into_iter()
            .map(std::thread::ScopedJoinHandle::join)
            .collect();
        writing.store(false, Ordering::Relaxed);
        let complete_reads = reader.join().expect("reader thread");
        for ended in writers_ended {
            ended.expect("writer thread");
        }
        complete_reads
    });
    assert!(complete_reads > 0, "the reader never saw the file");
    assert_eq!(project.files(), ["local/cache.bin"]);
}
