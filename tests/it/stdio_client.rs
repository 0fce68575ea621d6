//! A minimal MCP client over stdio for tests that run several servers at once or pipeline many
//! requests: stdout is read on a thread (one JSON value per line), stderr is drained as it comes
//! (a full pipe would block the server), and every wait is bounded.

use std::io::{BufRead as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::{Value, json};

/// How long one reply may take before the test fails as a hang; not a speed assertion.
const HANG_GUARD: Duration = Duration::from_mins(2);

/// The `initialize` request every session starts with.
pub(crate) const HANDSHAKE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}"#;
/// The notification that completes the handshake.
pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// One running `ai-rulez mcp`.
pub(crate) struct McpProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
    next_id: u64,
}

impl McpProcess {
    /// Starts `ai-rulez mcp <args>` in `dir` with `env` set, without the handshake.
    pub(crate) fn spawn(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(assert_cmd::cargo::cargo_bin("ai-rulez"));
        command
            .arg("mcp")
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("start ai-rulez mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().expect("stderr");
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut text).ok();
            text
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
            next_id: 100,
        }
    }

    /// Starts the server with `args` and completes the handshake.
    pub(crate) fn start(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut process = Self::spawn(dir, args, env);
        process.send(HANDSHAKE);
        let reply = process.recv().expect("initialize reply");
        assert_eq!(reply["id"], 1, "{reply}");
        process.send(INITIALIZED);
        process
    }

    /// Writes one line.
    pub(crate) fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write stdin");
        stdin.flush().expect("flush stdin");
    }

    /// The next reply line as JSON; `None` when the server closed stdout or hung past the guard.
    pub(crate) fn recv(&mut self) -> Option<Value> {
        let line = self.lines.recv_timeout(HANG_GUARD).ok()?;
        Some(serde_json::from_str(&line).expect("a reply line is JSON"))
    }

    /// Calls a tool and returns its result (`isError` true or false); panics on a protocol error.
    pub(crate) fn call(&mut self, name: &str, arguments: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": {"name": name, "arguments": arguments}})
            .to_string(),
        );
        let reply = self.recv().expect("a reply");
        assert_eq!(reply["id"], id, "{reply}");
        assert!(reply.get("error").is_none(), "protocol error: {reply}");
        reply["result"].clone()
    }

    /// Closes stdin, waits for the exit and returns stderr.
    pub(crate) fn finish(mut self) -> String {
        drop(self.stdin.take());
        self.child.wait().expect("wait");
        self.stderr
            .take()
            .and_then(|handle| handle.join().ok())
            .unwrap_or_default()
    }
}

/// Sends `lines` to one server in `dir` at once (pipelined), reads one reply per line holding an
/// `id`, then closes stdin. Returns the reply lines and stderr.
pub(crate) fn converse(dir: &Path, args: &[&str], lines: &[String]) -> (Vec<String>, String) {
    let expected = lines.iter().filter(|line| line.contains("\"id\"")).count();
    let mut process = McpProcess::spawn(dir, args, &[]);
    process.send(&lines.join("\n"));
    let mut replies = Vec::new();
    while replies.len() < expected {
        match process.lines.recv_timeout(HANG_GUARD) {
            Ok(line) => replies.push(line),
            Err(_) => break,
        }
    }
    let stderr = process.finish();
    assert_eq!(
        replies.len(),
        expected,
        "the server stopped early: {replies:?}"
    );
    (replies, stderr)
}
