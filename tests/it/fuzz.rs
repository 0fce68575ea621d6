//! Property-based fuzzing on stable Rust (proptest) of the readers that take user or client
//! input: the frontmatter reader (and the item checks behind it), the config reader (TOML and
//! v3 YAML), glob and scope compilation, and the MCP line framing; then, end to end, a whole
//! project through generate, lock, validate, scan, retrieval and clean, and random tool calls
//! to a running `ai-rulez mcp`. Each target asserts that nothing panics and that the result has
//! the right shape: a parse, or an error naming the file; for the framing, a reply that carries
//! the request's id or a message rmcp can read; for the server, a reply to every call.
//!
//! `cargo test` runs a few cases per target (4 to 48, a few seconds in all);
//! `AI_RULEZ_FUZZ_CASES` sets the count and `AI_RULEZ_FUZZ_SECONDS` bounds each target's time
//! (CI runs both, see `.ci/run`). `AI_RULEZ_FUZZ_SEED` (a number) repeats a run. Each target
//! prints one `fuzz <target>: ...` line with the executions run, the rate and the crashes found.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use ai_rulez::testing::content::Kind;
use ai_rulez::testing::error::Error;
use ai_rulez::testing::mcp::framing::{self, Line, Verdict, batch};
use ai_rulez::testing::{config, frontmatter, limits, scope};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseResult, TestRng, TestRunner};
use serde_json::{Value, json};

mod end_to_end;

/// Runs `test` on values of `strategy` until the case count (`default_cases` unless
/// `AI_RULEZ_FUZZ_CASES` is set) or the time budget is used up;
/// fails with the smallest failing value proptest finds (a panic counts as a failure).
fn fuzz<S>(target: &str, default_cases: u64, strategy: S, test: impl Fn(S::Value) -> TestCaseResult)
where
    S: Strategy,
    S::Value: Debug,
{
    let cases: u64 = std::env::var("AI_RULEZ_FUZZ_CASES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default_cases);
    let budget = std::env::var("AI_RULEZ_FUZZ_SECONDS")
        .ok()
        .and_then(|text| text.parse::<f64>().ok())
        .map(Duration::from_secs_f64);
    let seed: u64 = std::env::var("AI_RULEZ_FUZZ_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| {
                    u64::from(elapsed.subsec_nanos()) ^ elapsed.as_secs()
                })
        });
    let mut seed_bytes = [0_u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    let started = Instant::now();
    let mut executions = 0_u64;
    while executions < cases && budget.is_none_or(|budget| started.elapsed() < budget) {
        let tree = strategy
            .new_tree(&mut runner)
            .unwrap_or_else(|reason| panic!("fuzz {target}: no input: {reason}"));
        if let Err(failure) = runner.run_one(tree, &test) {
            panic!(
                "fuzz {target}: crash or wrong result after {executions} executions (AI_RULEZ_FUZZ_SEED={seed}): {failure}"
            );
        }
        executions += 1;
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "fuzz {target}: {executions} executions in {seconds:.1} s ({:.0}/s), crashes found: 0",
        f64::from(u32::try_from(executions).unwrap_or(u32::MAX)) / seconds.max(1e-9)
    );
}

/// Asserts that an error is the located kind naming `path`.
fn names_the_file(result: &Result<(), Error>, path: &str) -> TestCaseResult {
    if let Err(error) = result {
        match error {
            Error::Invalid { path: named, .. } => prop_assert_eq!(named, path),
            other => prop_assert!(false, "unexpected error kind: {other:?}"),
        }
        prop_assert!(error.to_string().starts_with(path), "{error}");
    }
    Ok(())
}

/// Text built from pieces that matter to glob, YAML and TOML syntax, sometimes repeated many
/// times (to reach the limits).
fn tricky_text(pieces: &'static [&'static str], longest: usize) -> BoxedStrategy<String> {
    prop_oneof![
        4 => proptest::collection::vec(proptest::sample::select(pieces), 0..longest)
            .prop_map(|parts| parts.concat()),
        1 => (proptest::sample::select(pieces), 0..3000_usize)
            .prop_map(|(piece, times)| piece.repeat(times)),
        1 => any::<String>(),
    ]
    .boxed()
}

const GLOB_PIECES: &[&str] = &[
    "*", "**", "/", "{", "}", ",", "[", "]", "!", "^", "-", "a", "z", ".", "\\", "?", "src", ".rs",
    " ", "é", "\u{0}", "./", "../", "{a,b}", "[a-z]",
];

const YAML_PIECES: &[&str] = &[
    "globs: ",
    "paths: ",
    "targets: ",
    "triggers: ",
    "scope: ",
    "priority: ",
    "always: ",
    "activation: ",
    "status: ",
    "title: ",
    "description: ",
    "\n",
    "  ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "'",
    "\"",
    "&a ",
    "*a",
    "!!str ",
    "|",
    ">",
    "#",
    "---",
    "\r\n",
    "glob:",
    "section:",
    "high",
    "true",
    "null",
    "~",
    "*.ts",
    "src/**",
    "{a,b}",
    "\\",
    "%YAML 1.2\n",
    "<<: ",
];

const TOML_PIECES: &[&str] = &[
    "version = \"4.0\"\n",
    "name = \"x\"\n",
    "presets = [\"claude\", \"cursor\"]\n",
    "[[includes]]\n",
    "source = \"/proc/self\"\n",
    "source = \"../x\"\n",
    "path = \"..\"\n",
    "[[rules]]\n",
    "content = \"c\"\n",
    "targets = [\"*a*a\"]\n",
    "[profiles]\n",
    "p = [\"d\"]\n",
    "[mcp]\n",
    "[[mcp_servers]]\n",
    "command = \"c\"\n",
    "url = \"u\"\n",
    "transport = \"sse\"\n",
    "[rules]\n",
    "mode = \"inline\"\n",
    "[lint]\n",
    "ignore = 3\n",
    "=",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "\n",
    "a",
    ".",
    ",",
    "#",
    "1e999",
    "\\u0000",
];

const CONFIG_YAML_PIECES: &[&str] = &[
    "name: x\n",
    "version: \"3.0\"\n",
    "presets:\n",
    "  - claude\n",
    "rules:\n",
    "  - name: r\n",
    "    content: c\n",
    "    targets: [\"*a\"]\n",
    "sections:\n",
    "includes:\n",
    "  - source: /proc/self\n",
    "&a [",
    "*a",
    "]",
    "[",
    "{",
    "}",
    ":",
    "- ",
    "  ",
    "\n",
    "'",
    "\"",
    "!!binary ",
    "<<: *a\n",
    "? ",
    "|\n",
    "~",
];

#[test]
fn fuzz_frontmatter_reader_and_item_checks() {
    let document = prop_oneof![
        1 => proptest::collection::vec(any::<u8>(), 0..256),
        4 => (
            any::<bool>(),
            tricky_text(YAML_PIECES, 48),
            tricky_text(GLOB_PIECES, 16),
            any::<bool>(),
        )
            .prop_map(|(bom, yaml, body, closed)| {
                let mut text = String::new();
                if bom {
                    text.push('\u{feff}');
                }
                text.push_str("---\n");
                text.push_str(&yaml);
                if closed {
                    text.push_str("\n---\n");
                }
                text.push_str(&body);
                text.into_bytes()
            }),
    ];
    fuzz("frontmatter", 48, document, |bytes| {
        let path = ".ai-rulez/rules/fuzz.md";
        match frontmatter::parse(path, &bytes) {
            Ok(document) => {
                if let Some(yaml) = &document.yaml {
                    let strict = frontmatter::is_strict_yaml(yaml);
                    let rewritten = frontmatter::rewrite_top_level(yaml, &["globs"], &[]);
                    // Dropping a key never adds text.
                    prop_assert!(rewritten.len() <= yaml.len() + 1, "{strict} {rewritten:?}");
                }
                for kind in Kind::ALL {
                    let checked =
                        ai_rulez::testing::content::check(kind, "fuzz", path, document.clone());
                    names_the_file(&checked, path)?;
                }
            }
            Err(error) => names_the_file(&Err(error), path)?,
        }
        Ok(())
    });
}

#[test]
fn fuzz_config_reader_toml_and_yaml() {
    let config_text = prop_oneof![
        3 => tricky_text(TOML_PIECES, 40).prop_map(|text| (text, false)),
        2 => tricky_text(CONFIG_YAML_PIECES, 40).prop_map(|text| (text, true)),
        1 => (0..3000_usize, any::<bool>()).prop_map(|(depth, yaml)| {
            let nested = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
            let text = if yaml {
                format!("name: x\nrules: {nested}\n")
            } else {
                format!("name = \"x\"\nrules = {nested}\n")
            };
            (text, yaml)
        }),
    ];
    fuzz("config", 48, config_text, |(text, yaml)| {
        let path = ".ai-rulez/config.toml";
        let parsed = config::parse(path, &text, yaml, &mut Vec::new()).map(|_| ());
        names_the_file(&parsed, path)
    });
}

#[test]
fn fuzz_glob_and_scope_compilation() {
    let patterns = proptest::collection::vec(tricky_text(GLOB_PIECES, 24), 0..120);
    fuzz("globs", 24, patterns, |patterns| {
        let checked = scope::check_globs("paths", &patterns);
        let targets = scope::check_targets("targets", &patterns);
        if checked.is_ok() {
            prop_assert!(scope::compile(&patterns).is_ok());
            for pattern in &patterns {
                let expanded = scope::try_expand_braces(pattern);
                prop_assert!(expanded.is_ok_and(
                    |list| !list.is_empty() && list.len() <= limits::MAX_BRACE_EXPANSIONS
                ));
            }
        }
        for message in [checked.err(), targets.err()].into_iter().flatten() {
            prop_assert!(message.starts_with("`paths`") || message.starts_with("`targets`"));
        }
        for pattern in &patterns {
            prop_assert!(!scope::expand_braces(pattern).is_empty());
            let _matches = scope::target_matches(&scope::normalize_target(pattern), "src/a.rs");
            let _scope = scope::scope_globs(&format!("glob:{pattern}"));
            prop_assert!(scope::split_globs(&Value::String(pattern.clone())).is_some());
        }
        Ok(())
    });
}

/// JSON values shaped like JSON-RPC messages, with every field sometimes of the wrong type.
fn message_like() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|number| json!(number)),
        any::<u64>().prop_map(Value::from),
        tricky_text(GLOB_PIECES, 8).prop_map(Value::String),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec(
                (
                    proptest::sample::select(
                        &["name", "arguments", "uri", "_meta", "cursor", "x"][..]
                    ),
                    inner
                ),
                0..4
            )
            .prop_map(|entries| Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.to_owned(), value))
                    .collect()
            )),
        ]
    });
    let method = proptest::sample::select(
        &[
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "resources/list",
            "resources/read",
            "resources/templates/list",
            "prompts/list",
            "notifications/initialized",
            "notifications/cancelled",
            "no/such",
        ][..],
    );
    (
        proptest::option::of(prop_oneof![
            Just(json!("2.0")),
            Just(json!("1.0")),
            Just(json!(2))
        ]),
        proptest::option::of(value.clone()),
        proptest::option::of(prop_oneof![method.prop_map(Value::from), value.clone()]),
        proptest::option::of(value.clone()),
        proptest::option::of(value),
    )
        .prop_map(|(jsonrpc, id, method, params, result)| {
            let mut message = serde_json::Map::new();
            for (key, field) in [
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
                ("result", result),
            ] {
                if let Some(field) = field {
                    message.insert(key.to_owned(), field);
                }
            }
            Value::Object(message)
        })
}

/// Checks one reply line the framing wrote itself: a JSON-RPC error object whose id is the
/// request's id when it can be read, else null.
fn is_error_reply_for(reply: &Value, request: Option<&Value>) -> TestCaseResult {
    prop_assert_eq!(&reply["jsonrpc"], "2.0");
    prop_assert!(reply["error"]["code"].is_i64(), "{reply}");
    prop_assert!(reply["error"]["message"].is_string(), "{reply}");
    let expected = match request.and_then(|request| request.get("id")) {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    };
    prop_assert_eq!(&reply["id"], &expected, "{}", reply);
    Ok(())
}

fn parses_for_rmcp(bytes: &[u8]) -> bool {
    serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes).is_ok()
}

#[test]
fn fuzz_json_rpc_line_framing() {
    let line = prop_oneof![
        4 => message_like().prop_map(|message| message.to_string().into_bytes()),
        2 => proptest::collection::vec(message_like(), 0..6)
            .prop_map(|batch| Value::Array(batch).to_string().into_bytes()),
        1 => (message_like(), any::<usize>()).prop_map(|(message, cut)| {
            let mut bytes = message.to_string().into_bytes();
            bytes.truncate(cut % (bytes.len() + 1));
            bytes
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..64),
    ];
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    fuzz("framing", 48, (line, 1..64_usize), |(bytes, capacity)| {
        // `read_line` splits a stream into the same lines however it is chunked.
        let mut stream = bytes.clone();
        stream.extend_from_slice(b"\n\r\n");
        stream.extend_from_slice(&bytes);
        let lines = runtime.block_on(async {
            let mut reader = tokio::io::BufReader::with_capacity(capacity, stream.as_slice());
            let mut lines = Vec::new();
            loop {
                match framing::read_line(&mut reader)
                    .await
                    .expect("in-memory read")
                {
                    Line::Complete(line) => lines.push(line),
                    Line::TooLong { .. } => panic!("a short line was called too long"),
                    Line::End => break lines,
                }
            }
        });
        let mut expected: Vec<Vec<u8>> = stream
            .split(|&byte| byte == b'\n')
            .map(<[u8]>::to_vec)
            .collect();
        if expected.last().is_some_and(Vec::is_empty) {
            expected.pop();
        }
        prop_assert_eq!(lines, expected);
        let request: Option<Value> = serde_json::from_slice(&bytes).ok();
        match framing::judge(bytes) {
            Verdict::Forward { bytes, .. } => {
                prop_assert_eq!(bytes.last(), Some(&b'\n'));
                prop_assert!(
                    parses_for_rmcp(&bytes),
                    "{}",
                    String::from_utf8_lossy(&bytes)
                );
            }
            Verdict::Reply(reply) => {
                let reply: Value = serde_json::from_str(&reply).expect("reply is JSON");
                is_error_reply_for(&reply, request.as_ref().filter(|value| value.is_object()))?;
            }
            Verdict::Batch(entries) => {
                prop_assert!(!entries.is_empty());
                for version in [Some(batch::BATCH_VERSION), Some("2025-06-18"), None] {
                    match batch::plan(entries.clone(), version, 3) {
                        batch::BatchPlan::Reply(reply) => {
                            let reply: Value = serde_json::from_str(&reply).expect("JSON");
                            if let Value::Array(replies) = reply {
                                prop_assert_eq!(version, Some(batch::BATCH_VERSION));
                                prop_assert!(!replies.is_empty());
                            } else {
                                is_error_reply_for(&reply, None)?;
                            }
                        }
                        batch::BatchPlan::Silent => {
                            prop_assert_eq!(version, Some(batch::BATCH_VERSION));
                        }
                        batch::BatchPlan::Gather {
                            lines,
                            slots,
                            routes,
                        } => {
                            prop_assert_eq!(version, Some(batch::BATCH_VERSION));
                            for line in &lines {
                                prop_assert!(parses_for_rmcp(line));
                            }
                            prop_assert_eq!(
                                slots.iter().filter(|slot| slot.is_none()).count(),
                                routes.len()
                            );
                        }
                    }
                }
            }
            Verdict::Skip => {}
        }
        Ok(())
    });
}
