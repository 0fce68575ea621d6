//! Reliability cases of issue 8 with their exact right values: no panic on oversized or broken
//! globs (B55) in `generate`, `lock` and over MCP; every JSON-RPC reply carries the request's id
//! (B57); batches per the negotiated protocol version (B42); include errors name the config file
//! and the key.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::Project;

/// How long a test waits for one reply line before it fails as a hang (not a speed check).
const HANG_GUARD: Duration = Duration::from_mins(1);

/// The B55 rule: one `targets` glob of `*a` × 100000 (200000 bytes).
fn huge_target_rule() -> String {
    format!("---\ntargets: [\"{}\"]\n---\n# T\n", "*a".repeat(100_000))
}

/// What `generate` and `lock` print for [`huge_target_rule`] at `.ai-rulez/rules/t.md`.
const HUGE_TARGET_ERROR: &str = "error: .ai-rulez/rules/t.md:2: `targets` pattern 1 (`*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a…`): it is 200000 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns\n";

fn project_with_rule(rule: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "name = \"demo\"\npresets = [\"claude\", \"cursor\"]\n",
    );
    project.write(".ai-rulez/rules/t.md", rule);
    project
}

#[test]
fn b55_generate_refuses_an_oversized_target_glob_with_file_line_and_limit() {
    let project = project_with_rule(&huge_target_rule());
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(run.stderr(), HUGE_TARGET_ERROR);
    assert_eq!(run.stdout(), "");
    assert!(!project.exists("CLAUDE.md"));
}

#[test]
fn b55_lock_refuses_an_oversized_target_glob_with_file_line_and_limit() {
    let project = project_with_rule(&huge_target_rule());
    let run = project.run(&["lock"]);
    run.expect_code(1);
    assert_eq!(run.stderr(), HUGE_TARGET_ERROR);
    assert!(!project.exists(".ai-rulez/ai-rulez.lock"));
}

#[test]
fn b55_every_glob_limit_is_an_error_naming_file_line_and_limit() {
    let many: Vec<String> = (0..101)
        .map(|index| format!("\"src/{index}/**\""))
        .collect();
    let cases = [
        (
            "---\ntitle: T\npaths: [\"src/[a\"]\n---\nx\n",
            "error: .ai-rulez/rules/t.md:3: `paths` pattern 1 (`src/[a`): not a valid glob: unclosed character class; missing ']'\n".to_owned(),
        ),
        (
            &format!("---\nglobs: [{}]\n---\nx\n", many.join(", ")),
            "error: .ai-rulez/rules/t.md:2: `globs` lists 101 patterns, over the limit of 100 per key; merge them (for example with `{a,b}` or `**`) or split the item\n".to_owned(),
        ),
        (
            "---\nglobs: \"{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}/*.rs\"\n---\nx\n",
            "error: .ai-rulez/rules/t.md:2: `globs` pattern 1 (`{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}…`): its `{a,b}` alternatives expand to more than 256 patterns, the limit; list fewer alternatives\n".to_owned(),
        ),
        (
            "---\nscope: \"glob:{{{{{{{{{a}}}}}}}}}\"\n---\nx\n",
            "error: .ai-rulez/rules/t.md:2: `scope` pattern 1 (`{{{{{{{{{a}}}}}}}}}`): its `{}`/`[]` groups nest 9 deep, over the limit of 8; flatten them\n".to_owned(),
        ),
        (
            &format!("---\ntriggers: [\"{}\"]\n---\nx\n", "w".repeat(1025)),
            format!(
                "error: .ai-rulez/rules/t.md:2: `triggers` pattern 1 (`{}…`): it is 1025 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns\n",
                "w".repeat(40)
            ),
        ),
    ];
    for (rule, expected) in cases {
        let project = project_with_rule(rule);
        let run = project.run(&["generate"]);
        run.expect_code(1);
        assert_eq!(run.stderr(), expected, "{rule}");
    }
    // An inline rule in the config names the config key.
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!(
            "name = \"demo\"\npresets = [\"claude\"]\n[[rules]]\nname = \"r\"\ncontent = \"c\"\ntargets = [\"{}\"]\n",
            "*a".repeat(600)
        ),
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .ai-rulez/config.toml: `rules[0].targets` pattern 1 (`*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a…`): it is 1200 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns\n"
    );
}

/// A running `ai-rulez mcp` that has agreed on `version`, read line by line on a thread.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Session {
    fn start(dir: &Path, version: &str) -> Self {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("ai-rulez"))
            .args(["mcp", "--toolsets", "read,author,admin"])
            .current_dir(dir)
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ai-rulez mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Self {
            stdin: child.stdin.take(),
            child,
            lines,
        };
        session.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {},
                "clientInfo": {"name": "probe", "version": "0"}}})
            .to_string(),
        );
        let reply = session.recv();
        assert_eq!(reply["result"]["protocolVersion"], version, "{reply}");
        session.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        session
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(HANG_GUARD)
            .expect("a reply line before the hang guard");
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}"))
    }

    /// Sends `line` and returns the next reply.
    fn ask(&mut self, line: &str) -> Value {
        self.send(line);
        self.recv()
    }

    fn call(&mut self, id: u64, tool: &str, arguments: &Value) -> Value {
        let reply = self.ask(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}})
            .to_string(),
        );
        assert_eq!(reply["id"], id, "{reply}");
        reply["result"].clone()
    }

    /// Closes stdin; the server must exit with code 0 (it did not crash).
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().expect("wait");
        assert_eq!(status.code(), Some(0));
    }
}

const PING_5: &str = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;

#[test]
fn b55_mcp_create_rule_refuses_the_glob_and_generate_outputs_reports_a_hand_written_one() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "name = \"demo\"\npresets = [\"claude\", \"cursor\"]\n",
    );
    let mut session = Session::start(project.path(), "2025-06-18");
    let refused = session.call(
        2,
        "create_rule",
        &json!({"name": "t", "content": huge_target_rule()}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"],
        ".ai-rulez/rules/t.md:2: `targets` pattern 1 (`*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a…`): it is 200000 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns"
    );
    assert!(!project.exists(".ai-rulez/rules/t.md"));
    // The `targets` argument goes through the same check.
    let refused = session.call(
        3,
        "create_rule",
        &json!({"name": "t", "content": "# T\n", "targets": ["{a,b"]}),
    );
    assert_eq!(
        refused["content"][0]["text"],
        ".ai-rulez/rules/t.md:2: `targets` pattern 1 (`{a,b`): not a valid glob: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
    );
    // Written by hand instead, the next generate is refused with the same message and the
    // server keeps serving.
    project.write(".ai-rulez/rules/t.md", huge_target_rule());
    let generated = session.call(4, "generate_outputs", &json!({}));
    assert_eq!(generated["isError"], true, "{generated}");
    assert_eq!(
        generated["content"][0]["text"],
        ".ai-rulez/rules/t.md:2: `targets` pattern 1 (`*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a…`): it is 200000 bytes long, over the limit of 1024 bytes per pattern; shorten it or split it into several patterns"
    );
    assert_eq!(
        session.ask(PING_5),
        json!({"jsonrpc": "2.0", "id": 5, "result": {}})
    );
    session.finish();
}

fn sample_project() -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "name = \"demo\"\npresets = [\"claude\"]\n",
    );
    project.write(".ai-rulez/rules/style.md", "# Style\n\nKeep it short.\n");
    project
}

#[test]
fn b57_every_reply_carries_the_request_id_when_it_can_be_read() {
    let project = sample_project();
    let mut session = Session::start(project.path(), "2025-06-18");
    assert_eq!(
        session.ask(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[]}"#),
        json!({"jsonrpc": "2.0", "id": 7, "error": {"code": -32602,
            "message": "Invalid params for `tools/list`: `params` must be an object"}})
    );
    // The same for every method rmcp would answer without an id, and for ids of every kind.
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"ping","params":5}"#,
            json!("s"),
            -32602,
            "Invalid params for `ping`: `params` must be an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{}}"#,
            json!(8),
            -32602,
            "Invalid params for `tools/call`: missing field `name`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":3}}"#,
            json!(9),
            -32602,
            "Invalid params for `resources/read`: invalid type: integer `3`, expected a string",
        ),
        (
            r#"{"jsonrpc":"2.0","id":10,"method":"initialize","params":{}}"#,
            json!(10),
            -32602,
            "Invalid params for `initialize`: missing field `protocolVersion`",
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"no/such","params":"x"}"#,
            json!(11),
            -32602,
            "Invalid params for `no/such`: `params` must be an object",
        ),
        (
            r#"{"jsonrpc":"2.0","id":12.5,"method":"ping"}"#,
            json!(12.5),
            -32600,
            "Invalid Request: `id` must be a string or an integer between -2^63 and 2^63-1",
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#,
            json!(18_446_744_073_709_551_615_u64),
            -32600,
            "Invalid Request: `id` must be a string or an integer between -2^63 and 2^63-1",
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            Value::Null,
            -32600,
            "Invalid Request: `id` must be a string or an integer between -2^63 and 2^63-1",
        ),
    ];
    for (line, id, code, message) in cases {
        assert_eq!(
            session.ask(line),
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}),
            "{line}"
        );
    }
    assert_eq!(
        session.ask(PING_5),
        json!({"jsonrpc": "2.0", "id": 5, "result": {}})
    );
    session.finish();
}

#[test]
fn b42_batches_under_2025_03_26_are_answered_with_one_array() {
    let project = sample_project();
    let mut session = Session::start(project.path(), "2025-03-26");
    let tools = session.ask(r#"{"jsonrpc":"2.0","id":"single","method":"tools/list"}"#);
    let batch = session.ask(
        r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#,
    );
    assert_eq!(
        batch,
        json!([
            {"jsonrpc": "2.0", "id": 5, "result": {}},
            {"jsonrpc": "2.0", "id": 6, "result": tools["result"]},
        ])
    );
    // Notifications get no entry; an all-notification batch gets no reply at all (the next line
    // is the answer to the ping after it); invalid entries get their own errors, in order.
    session.send(r#"[{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]"#);
    assert_eq!(
        session.ask(PING_5),
        json!({"jsonrpc": "2.0", "id": 5, "result": {}})
    );
    assert_eq!(
        session.ask(r#"[1,{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","id":"b","method":"tools/list","params":[]},{"jsonrpc":"2.0","id":"c","method":"initialize","params":{}}]"#),
        json!([
            {"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: a message must be a JSON object"}},
            {"jsonrpc": "2.0", "id": "a", "result": {}},
            {"jsonrpc": "2.0", "id": "b", "error": {"code": -32602, "message": "Invalid params for `tools/list`: `params` must be an object"}},
            {"jsonrpc": "2.0", "id": "c", "error": {"code": -32600, "message": "Invalid Request: `initialize` must not be part of a batch"}},
        ])
    );
    assert_eq!(
        session.ask("[]"),
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request: an empty batch"}})
    );
    session.finish();
}

#[test]
fn b42_batches_under_later_versions_get_one_invalid_request_error() {
    let project = sample_project();
    for version in ["2025-06-18", "2025-11-25"] {
        let mut session = Session::start(project.path(), version);
        assert_eq!(
            session.ask(
                r#"[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"tools/list"}]"#
            ),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": format!(
                "Invalid Request: JSON-RPC batches are not part of MCP protocol version {version}; send one message per line"
            )}})
        );
        assert_eq!(
            session.ask(PING_5),
            json!({"jsonrpc": "2.0", "id": 5, "result": {}})
        );
        session.finish();
    }
}

#[test]
fn include_errors_name_the_config_file_the_key_and_the_value() {
    let outside = tempfile::tempdir().expect("outside");
    let outside_real = fs_err::canonicalize(outside.path()).expect("canonical");
    let project = sample_project();
    std::os::unix::fs::symlink(outside.path(), project.path().join("linked")).expect("symlink");
    project.write("notes.txt", "not a folder\n");
    let cases = [
        (
            "source = \"linked\"".to_owned(),
            format!(
                "`includes[0].source` = \"linked\" is a symlink to {}, outside the project; the tree is read only through real folders, so name that folder itself or remove the include",
                outside_real.display()
            ),
        ),
        (
            "source = \"../absent\"".to_owned(),
            "`includes[0].source` = \"../absent\" does not exist (`source` is relative to the project root); fix it or remove the include".to_owned(),
        ),
        (
            "source = \"notes.txt\"".to_owned(),
            "`includes[0].source` = \"notes.txt\" is not a folder; name a folder or remove the include".to_owned(),
        ),
        (
            "source = \".ai-rulez\"\npath = \"nope\"".to_owned(),
            "`includes[0].path` = \"nope\" (inside \".ai-rulez\") does not exist (`path` is relative to `source`); fix it or remove the include".to_owned(),
        ),
    ];
    for (include, message) in cases {
        project.write(
            ".ai-rulez/config.toml",
            format!("name = \"demo\"\npresets = [\"claude\"]\n[[includes]]\n{include}\n"),
        );
        let run = project.run(&["generate"]);
        run.expect_code(1);
        assert_eq!(
            run.stderr(),
            format!("error: .ai-rulez/config.toml: {message}\n")
        );
    }
}

/// A client that writes its requests and closes stdin at once still gets every reply: the
/// server finishes the requests it has read (here `enable_toolset`, whose reply waits for its
/// list-changed notification) before it shuts down.
#[test]
fn requests_read_before_the_end_of_input_are_all_answered() {
    use std::io::{Read as _, Write as _};
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n",
    );
    for round in 0..60 {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ai-rulez"))
            .arg("mcp")
            .current_dir(project.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(
                format!(
                    "{}\n{}\n{}\n{}\n",
                    crate::stdio_client::HANDSHAKE,
                    crate::stdio_client::INITIALIZED,
                    r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"enable_toolset","arguments":{"toolset":"author"}}}"#,
                    r#"{"jsonrpc":"2.0","id":6,"method":"tools/list"}"#,
                )
                .as_bytes(),
            )
            .expect("write");
        drop(stdin);
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .expect("stdout")
            .read_to_string(&mut stdout)
            .expect("read");
        child.wait().expect("wait");
        let ids: Vec<Value> = stdout
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).expect("json"))
            .filter_map(|message| message.get("id").cloned())
            .collect();
        for id in [1, 5, 6] {
            assert!(
                ids.contains(&json!(id)),
                "round {round}: no reply {id} in {stdout}"
            );
        }
    }
}

#[test]
fn a_config_value_of_the_wrong_type_is_named_with_its_line_by_generate() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"x\"\npresets = [\"claude\"]\n\n[[mcp_servers]]\nname = \"a\"\ncommand = \"a\"\n\n[[mcp_servers]]\nname = \"b\"\nargs = []\ncommand = 5\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .ai-rulez/config.toml:12: `mcp_servers[1].command`: must be a string\n"
    );
    project.write(
        ".ai-rulez/config.toml",
        "version = \"5.0\"\nname = \"x\"\n\n# The assistants.\npresets = \"claude\"\n",
    );
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: .ai-rulez/config.toml:5: `presets`: must be a list of preset names\n"
    );
}
