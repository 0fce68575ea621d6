//! The MCP tool registry seen from outside: which tools each toolset serves, the parity table the
//! README embeds, portable schemas (B43), the default list's size (B44), `--read-only`,
//! `[mcp] toolsets` and `--toolsets`, `enable_toolset` with `notifications/tools/list_changed`,
//! the project bound of `--root` (B52), and protocol errors for unknown tools.

use std::path::Path;

use ai_rulez::testing::mcp::registry::{CLI_ONLY, Pairing, Toolset, parity_markdown};
use serde_json::{Value, json};

use crate::mcp::{
    ALL_TOOLSETS, CONFIG, HANDSHAKE, INITIALIZED, Server, TOOLSETS, sample, tool_names,
};
use crate::support::Project;

/// The tools of `toolset`, as the tests expect them.
fn names_of(toolset: &str) -> &'static [&'static str] {
    TOOLSETS
        .iter()
        .find(|(name, _)| *name == toolset)
        .map_or_else(|| panic!("no toolset {toolset}"), |(_, names)| *names)
}

/// The names `tools/list` returns, following `nextCursor` to the end.
fn listed(server: &mut Server) -> Vec<Value> {
    let mut tools = Vec::new();
    let mut params = json!({});
    loop {
        let reply = server.request("tools/list", params);
        let result = &reply["result"];
        tools.extend(result["tools"].as_array().expect("tools").iter().cloned());
        match result.get("nextCursor").and_then(Value::as_str) {
            Some(cursor) => params = json!({"cursor": cursor}),
            None => return tools,
        }
    }
}

fn names(tools: &[Value]) -> Vec<String> {
    tools
        .iter()
        .map(|tool| tool["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The expected listing for `toolsets`: core first, then each toolset's tools in listing order.
fn expected(toolsets: &[&str]) -> Vec<String> {
    TOOLSETS
        .iter()
        .filter(|(toolset, _)| *toolset == "core" || toolsets.contains(toolset))
        .flat_map(|(_, names)| names.iter().map(|name| (*name).to_owned()))
        .collect()
}

#[test]
fn the_registry_declares_every_tool_once_in_the_toolset_the_tests_expect() {
    let declared = ai_rulez::testing::mcp::declared_tools();
    let declared_names: Vec<&str> = declared.iter().map(|spec| spec.name.as_ref()).collect();
    assert_eq!(declared_names, tool_names());
    for spec in &declared {
        assert!(
            names_of(spec.toolset.name()).contains(&spec.name.as_ref()),
            "{} is declared in `{}`",
            spec.name,
            spec.toolset.name()
        );
        assert!(!spec.title.is_empty() && !spec.description.is_empty());
        // A reading tool never writes: read-only implies not destructive.
        assert!(
            !(spec.hints.read_only && spec.hints.destructive),
            "{}",
            spec.name
        );
        assert!(!spec.hints.open_world, "{}", spec.name);
    }
    let toolset_names: Vec<&str> = TOOLSETS.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        ai_rulez::testing::mcp::registry::TOOLSETS.map(|(_, name, _)| name),
        toolset_names.as_slice()
    );
    assert_eq!(
        Toolset::choosable_names(),
        [
            "read", "skills", "author", "admin", "learn", "memory", "context"
        ]
    );
}

#[test]
fn every_tool_is_listed_in_the_toolsets_that_name_it_and_in_no_other() {
    let project = sample();
    for toolsets in [
        vec!["read"],
        vec!["author"],
        vec!["admin"],
        vec!["read", "author"],
        vec!["read", "admin"],
        vec!["author", "admin"],
        vec!["read", "author", "admin"],
        // Order and repetition do not matter.
        vec!["admin", "read", "admin"],
    ] {
        let flag = toolsets.join(",");
        let mut server = Server::start_with(project.path(), &["--toolsets", &flag], &[]);
        assert_eq!(names(&listed(&mut server)), expected(&toolsets), "{flag}");
        server.finish();
    }
    // Without --toolsets and without `[mcp] toolsets`: the default, the read toolset.
    let mut server = Server::start_with(project.path(), &[], &[]);
    assert_eq!(names(&listed(&mut server)), expected(&["read"]));
    server.finish();
}

#[test]
fn parity_table_comes_from_the_registry_and_the_readme_shows_it() {
    let declared = ai_rulez::testing::mcp::declared_tools();
    let cli = <ai_rulez::testing::cli::Cli as clap::CommandFactory>::command();
    let commands: Vec<&str> = cli.get_subcommands().map(clap::Command::get_name).collect();
    // Every CLI command is paired with a tool or says why it has none (`lock` does both: the
    // tool pairs with `lock --check`, and writing a lock has no tool); every pairing names a
    // command that exists.
    for command in &commands {
        let paired = declared.iter().any(|spec| {
            matches!(spec.pairing, Pairing::Command(paired) if paired.split_whitespace().next() == Some(command))
        });
        let one_sided = CLI_ONLY.iter().any(|(name, _)| name == command);
        assert!(
            paired || one_sided,
            "CLI command `{command}` is paired with no tool and not listed in CLI_ONLY"
        );
    }
    for spec in &declared {
        match spec.pairing {
            Pairing::Command(command) => {
                let first = command.split_whitespace().next().expect("command");
                assert!(
                    first == "--version" || commands.contains(&first),
                    "{}: `{command}` is no CLI command",
                    spec.name
                );
            }
            Pairing::NoCommand(reason) => assert!(!reason.is_empty(), "{}", spec.name),
        }
    }
    for (command, reason) in CLI_ONLY {
        assert!(
            commands.contains(&command) && !reason.is_empty(),
            "{command}"
        );
    }
    let table = parity_markdown(&declared);
    assert!(table.contains("| `get_context` | `read` | `explain` |  |\n"));
    assert!(table.contains(
        "| `create_rule`, `update_rule`, `delete_rule`, `create_context`, `update_context`, `delete_context`, `create_skill`, `update_skill`, `delete_skill`, `create_agent`, `update_agent`, `delete_agent`, `create_command`, `update_command`, `delete_command` | `author` | — | people edit the Markdown files directly |\n"
    ));
    assert!(table.contains("| `read` | `get_rules`, `search_rules`, `get_context`, `read_item`, `list_items`, `list_domains` | yes |"));
    let readme = fs_err::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let section = readme
        .split("\n## MCP tools and CLI commands\n")
        .nth(1)
        .expect("README section `MCP tools and CLI commands`");
    assert!(
        section.contains(&table),
        "the README's tables differ from registry::parity_markdown(); paste this:\n{table}"
    );
}

/// The schema keywords every client we serve accepts: Gemini's `parametersJsonSchema`
/// (<https://ai.google.dev/api/caching#FunctionDeclaration>), `OpenAI` function `parameters`
/// (<https://platform.openai.com/docs/guides/function-calling>) and Anthropic `input_schema`
/// (<https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use>). Keywords
/// outside this set (`$schema`, `$ref`, `$defs`, `format`, `title`, `oneOf`, `anyOf`, `allOf`,
/// `default`, `exclusiveMinimum`) are where one of them has refused or ignored a schema (B43).
/// `minimum` and `maximum` are in the set on purpose (issue 15): all three document them for
/// integers, a client that ignores them loses nothing (the server checks the same bounds on
/// every call), and without them the bounds lived only in descriptions.
const PORTABLE_KEYWORDS: [&str; 9] = [
    "type",
    "description",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
];

/// Every problem B43 names in one schema, and every keyword outside [`PORTABLE_KEYWORDS`], with
/// the JSON path where it is.
fn portability_problems(schema: &Value, path: &str, problems: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            // The keys of `properties` are field names (`title` is one), not keywords.
            let keywords = !path.ends_with("/properties");
            for (key, value) in object {
                let at = format!("{path}/{key}");
                if keywords && !PORTABLE_KEYWORDS.contains(&key.as_str()) {
                    problems.push(format!("{at} is not a portable keyword"));
                }
                if keywords && key == "type" && !value.is_string() {
                    problems.push(format!("{at} is not one string: {value}"));
                }
                portability_problems(value, &at, problems);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                portability_problems(item, &format!("{path}/{index}"), problems);
            }
        }
        _ => {}
    }
}

#[test]
fn b43_every_input_and_output_schema_is_portable() {
    let project = sample();
    let mut server = Server::start(project.path());
    let tools = listed(&mut server);
    assert_eq!(names(&tools), tool_names());
    let mut problems = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().expect("name");
        for key in ["inputSchema", "outputSchema"] {
            let schema = &tool[key];
            assert_eq!(schema["type"], "object", "{name} {key}");
            portability_problems(schema, &format!("{name}/{key}"), &mut problems);
        }
        assert_eq!(tool["inputSchema"]["additionalProperties"], false, "{name}");
    }
    assert_eq!(problems, Vec::<String>::new());
    // An optional argument is simply not required; its type stays one string.
    let get_rules = &tools[1];
    assert_eq!(get_rules["inputSchema"]["required"], json!(["paths"]));
    assert_eq!(
        get_rules["inputSchema"]["properties"]["max_tokens"]["type"],
        "integer"
    );
    assert_eq!(
        tools[4]["inputSchema"]["properties"]["kind"],
        json!({"type": "string", "enum": ["rule", "context", "skill", "agent", "command"], "description": "Item kind."})
    );
    server.finish();
}

#[test]
fn b44_the_default_list_is_at_most_20_tools_and_12_kb() {
    let project = sample();
    let mut server = Server::start_with(project.path(), &[], &[]);
    let tools = listed(&mut server);
    assert_eq!(
        names(&tools),
        [
            "enable_toolset",
            "get_rules",
            "search_rules",
            "get_context",
            "read_item",
            "list_items",
            "list_domains"
        ]
    );
    assert!(tools.len() <= 40, "clients pass only the first 40 tools");
    assert!(tools.len() <= 20, "our own target");
    let bytes = serde_json::to_string(&json!({"tools": tools}))
        .expect("json")
        .len();
    assert!(bytes <= 12 * 1024, "default tools/list is {bytes} bytes");
    server.finish();
}

#[test]
fn read_only_lists_no_writing_tool_and_refuses_writes() {
    let project = sample();
    let before = project.read(".ai-rulez/config.toml");
    let mut server = Server::start_with(
        project.path(),
        &["--read-only", "--toolsets", ALL_TOOLSETS],
        &[],
    );
    let tools = listed(&mut server);
    assert_eq!(
        names(&tools),
        [
            "enable_toolset",
            "get_rules",
            "search_rules",
            "get_context",
            "read_item",
            "list_items",
            "list_domains",
            "find_skill",
            "load_skill",
            "list_skill_resources",
            "read_skill_file",
            "read_config",
            "list_profiles",
            "validate_config",
            "lock_status",
            "get_version",
            "organize_rules",
            "learn_from_reviews",
            "discover_conventions",
            "list_memories",
            "read_memory",
            "get_tree",
            "resolve",
            "read_items",
            "review_learnings",
            "list_refresh_requests",
            "recent_activity",
            "find_context",
            "load_context",
        ]
    );
    for tool in &tools {
        assert_eq!(
            tool["annotations"]["readOnlyHint"], true,
            "{}",
            tool["name"]
        );
    }
    assert_eq!(
        server.fails("create_rule", json!({"name": "x", "content": "X\n"})),
        "`create_rule` writes, and this server runs with --read-only: it serves only reading tools"
    );
    assert_eq!(
        server.fails("update_config", json!({"description": "changed"})),
        "`update_config` writes, and this server runs with --read-only: it serves only reading tools"
    );
    assert!(!project.exists(".ai-rulez/rules/x.md"));
    assert_eq!(project.read(".ai-rulez/config.toml"), before);
    server.finish();

    // A toolset that only writes cannot be enabled; one with reading tools adds only those.
    let mut server = Server::start_with(project.path(), &["--read-only"], &[]);
    assert_eq!(
        server.fails("enable_toolset", json!({"toolset": "author"})),
        "the `author` toolset only writes, and this server runs with --read-only"
    );
    let (reply, notified) = enable(&mut server, "admin");
    assert!(notified);
    assert_eq!(
        reply,
        json!({"toolsets": ["read", "admin"], "added": ["read_config", "list_profiles", "validate_config", "lock_status", "get_version"]})
    );
    server.finish();
}

/// Calls `enable_toolset`; returns its structured content and whether
/// `notifications/tools/list_changed` came before the reply.
fn enable(server: &mut Server, toolset: &str) -> (Value, bool) {
    server.line(
        &json!({"jsonrpc": "2.0", "id": 900, "method": "tools/call",
                "params": {"name": "enable_toolset", "arguments": {"toolset": toolset}}})
        .to_string(),
    );
    let first = server.recv();
    if first["method"] == "notifications/tools/list_changed" {
        assert_eq!(
            first,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        );
        let reply = server.recv();
        assert_eq!(reply["id"], 900);
        assert_eq!(reply["result"]["isError"], false, "{reply}");
        return (reply["result"]["structuredContent"].clone(), true);
    }
    assert_eq!(first["id"], 900, "{first}");
    assert_eq!(first["result"]["isError"], false, "{first}");
    (first["result"]["structuredContent"].clone(), false)
}

#[test]
fn enable_toolset_sends_list_changed_and_the_next_list_has_the_new_tools() {
    let project = sample();
    let mut server = Server::spawn(project.path(), &[], &[]);
    server.line(HANDSHAKE);
    let initialized = server.recv();
    assert_eq!(
        initialized["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    server.line(INITIALIZED);
    assert_eq!(
        server.fails("create_rule", json!({"name": "x", "content": "X\n"})),
        "`create_rule` belongs to the `author` toolset, which this session does not serve; call enable_toolset with {\"toolset\": \"author\"} first"
    );
    let (reply, notified) = enable(&mut server, "author");
    assert!(notified);
    assert_eq!(
        reply,
        json!({"toolsets": ["read", "author"], "added": names_of("author")})
    );
    assert_eq!(names(&listed(&mut server)), expected(&["read", "author"]));
    let record = server.ok("create_rule", json!({"name": "x", "content": "X\n"}));
    assert_eq!(record["path"], ".ai-rulez/rules/x.md");
    // Enabling a served toolset again changes nothing and sends no notification.
    let (reply, notified) = enable(&mut server, "author");
    assert!(!notified);
    assert_eq!(reply, json!({"toolsets": ["read", "author"], "added": []}));
    assert_eq!(
        server.fails("enable_toolset", json!({"toolset": "core"})),
        "Invalid arguments: `toolset` is `core`; use one of read, skills, author, admin, learn, memory, context."
    );
    let (status, rest, _) = server.finish();
    assert_eq!(status.code(), Some(0));
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn config_toolsets_choose_and_the_cli_flag_overrides_them() {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("{CONFIG}\n[mcp]\ntoolsets = [\"admin\"]\n"),
    );
    let mut server = Server::start_with(project.path(), &[], &[]);
    assert_eq!(names(&listed(&mut server)), expected(&["admin"]));
    server.finish();
    let mut server = Server::start_with(project.path(), &["--toolsets", "author"], &[]);
    assert_eq!(names(&listed(&mut server)), expected(&["author"]));
    server.finish();

    // An unknown name: the config names the file and the valid toolsets wherever it is read.
    project.write(
        ".ai-rulez/config.toml",
        format!("{CONFIG}\n[mcp]\ntoolsets = [\"read\", \"raed\"]\n"),
    );
    let message = ".ai-rulez/config.toml:7: `mcp.toolsets`: unknown toolset `raed`; valid toolsets: read, skills, author, admin, learn, memory, context";
    let run = project.run(&["generate"]);
    run.expect_code(1);
    assert_eq!(run.stderr(), format!("error: {message}\n"));
    let mut server = Server::start_with(project.path(), &[], &[]);
    assert_eq!(names(&listed(&mut server)), expected(&["read"]));
    assert_eq!(
        server.fails("get_rules", json!({"paths": ["a.rs"]})),
        message
    );
    let (_, _, stderr) = server.finish();
    assert_eq!(
        stderr,
        format!("warning: {message}; serving the default toolsets (read)\n")
    );
    // The flag wins over the config, and is checked the same way.
    let run = project.run(&["mcp", "--toolsets", "read,writer"]);
    run.expect_code(1);
    assert_eq!(
        run.stderr(),
        "error: --toolsets: unknown toolset `writer`; valid toolsets: read, skills, author, admin, learn, memory, context\n"
    );
}

#[test]
fn b52_a_project_above_root_is_refused_and_nothing_is_written() {
    let project = sample();
    fs_err::create_dir_all(project.path().join("pkg")).expect("pkg");
    let pkg = project.path().join("pkg");
    let above = fs_err::canonicalize(project.path()).expect("canonical");
    let refusal = format!(
        "the project at {} lies outside --root {}; this server serves only projects inside --root, so start it with a --root that contains the project",
        above.display(),
        above.join("pkg").display()
    );
    let mut server = Server::start_with(&pkg, &["--root", ".", "--toolsets", ALL_TOOLSETS], &[]);
    assert_eq!(
        server.fails("create_rule", json!({"name": "x", "content": "# X\n"})),
        refusal
    );
    assert_eq!(server.fails("generate_outputs", json!({})), refusal);
    assert_eq!(
        server.fails("get_rules", json!({"paths": ["a.rs"]})),
        refusal
    );
    assert_eq!(server.fails("validate_config", json!({})), refusal);
    assert_eq!(
        server.fails(
            "list_items",
            json!({"kind": "rule", "working_directory": "."})
        ),
        refusal
    );
    let resource = server.request("resources/read", json!({"uri": "ai-rulez://config"}));
    assert_eq!(resource["error"]["message"], refusal);
    server.finish();
    assert!(!project.exists(".ai-rulez/rules/x.md"));
    assert!(!project.exists("CLAUDE.md"));
    assert!(!project.exists(".ai-rulez/.generated-manifest.json"));

    // Without --root the server serves the project around where it starts, as before; with a
    // --root that contains the project, too.
    for args in [vec![], vec!["--root", ".."]] {
        let mut server = Server::start_with(&pkg, &args, &[]);
        let reply = server.ok("get_rules", json!({"paths": ["a.rs"]}));
        assert_eq!(reply["project"], "demo", "{args:?}");
        server.finish();
    }
}

#[test]
fn an_unknown_tool_or_a_call_without_params_is_invalid_params() {
    let project = sample();
    let mut server = Server::start(project.path());
    let reply = server.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(
        reply["error"],
        json!({"code": -32602, "message": "Unknown tool `nope`; call tools/list for the available tools."})
    );
    server.line(r#"{"jsonrpc":"2.0","id":77,"method":"tools/call"}"#);
    let reply = server.recv();
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 77, "error": {"code": -32602,
            "message": "Invalid params for `tools/call`: missing field `params`"}})
    );
    // An unknown method is still -32601, and the message says what is wrong.
    let reply = server.request("no/such/method", json!({}));
    assert_eq!(reply["error"]["code"], -32601);
    assert_eq!(
        reply["error"]["message"],
        "Method not found: `no/such/method` is not a method this server offers (see the capabilities in its initialize reply)"
    );
    server.finish();
}
