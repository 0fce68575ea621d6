//! MCP protocol details the official SDKs check (issue 15): bounds and enums in the input schemas
//! and enforced on every call, no `format` a strict validator refuses.

use serde_json::{Value, json};

use crate::mcp::{Server, sample};

/// Every `tools/list` entry of a server serving every toolset, following `nextCursor`.
fn every_tool(server: &mut Server) -> Vec<Value> {
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

/// The JSON paths of every `format` keyword in `schema` (Ajv's strict mode refuses `uint32`).
fn formats(schema: &Value, path: &str, found: &mut Vec<String>) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object {
                if key == "format" && !path.ends_with("/properties") {
                    found.push(format!("{path}/format = {value}"));
                }
                formats(value, &format!("{path}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                formats(item, &format!("{path}/{index}"), found);
            }
        }
        _ => {}
    }
}

#[test]
fn no_schema_of_any_tool_carries_a_format() {
    let project = sample();
    let mut server = Server::start(project.path());
    let tools = every_tool(&mut server);
    assert!(tools.len() > 40, "every toolset is served");
    let mut found = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().expect("name");
        for key in ["inputSchema", "outputSchema"] {
            formats(&tool[key], &format!("{name}/{key}"), &mut found);
        }
    }
    assert_eq!(found, Vec::<String>::new());
    server.finish();
}

#[test]
fn every_integer_argument_states_its_minimum_and_maximum() {
    let project = sample();
    let mut server = Server::start(project.path());
    let tools = every_tool(&mut server);
    let mut unbounded = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().expect("name");
        let Some(properties) = tool["inputSchema"]["properties"].as_object() else {
            continue;
        };
        for (argument, property) in properties {
            let integer = property["type"] == "integer"
                || property["type"]
                    .as_array()
                    .is_some_and(|types| types.contains(&json!("integer")));
            if integer && (property.get("minimum").is_none() || property.get("maximum").is_none()) {
                unbounded.push(format!("{name}.{argument}"));
            }
        }
    }
    assert_eq!(unbounded, Vec::<String>::new());
    // A value over the stated maximum is refused with the range the schema states, not with
    // the parser's "expected u32".
    assert_eq!(
        server.fails(
            "list_items",
            json!({"kind": "rule", "offset": 99_999_999_999_u64})
        ),
        "Invalid arguments: `offset` is 99999999999; use 0 to 2147483647."
    );
    let listed = server.ok(
        "list_items",
        json!({"kind": "rule", "offset": 2_147_483_647_u64}),
    );
    assert_eq!(listed["page"]["offset"], listed["page"]["total"]);
    server.finish();
}

#[test]
fn bounds_and_enums_are_in_the_input_schemas() {
    let project = sample();
    let mut server = Server::start(project.path());
    let tools = every_tool(&mut server);
    let property = |tool: &str, argument: &str| -> Value {
        let tool = tools
            .iter()
            .find(|entry| entry["name"] == tool)
            .unwrap_or_else(|| panic!("no tool {tool}"));
        let mut property = tool["inputSchema"]["properties"][argument].clone();
        property
            .as_object_mut()
            .expect("property")
            .remove("description");
        property
    };
    let range = |minimum: u64, maximum: u64| json!({"type": "integer", "minimum": minimum, "maximum": maximum});
    assert_eq!(property("get_rules", "max_tokens"), range(100, 1_000_000));
    assert_eq!(property("search_rules", "limit"), range(1, 50));
    assert_eq!(property("review_learnings", "limit"), range(1, 5000));
    assert_eq!(property("recent_activity", "limit"), range(1, 200));
    assert_eq!(property("list_memories", "limit"), range(1, 500));
    assert_eq!(property("get_tree", "depth"), range(0, 32));
    assert_eq!(property("learn_from_reviews", "since_days"), range(1, 3650));
    assert_eq!(
        property("learn_from_reviews", "min_repeats"),
        range(1, 1000)
    );
    assert_eq!(
        property("discover_conventions", "min_files"),
        range(1, 2_147_483_647)
    );
    for tool in ["list_items", "generate_outputs", "validate_config"] {
        assert_eq!(property(tool, "offset"), range(0, 2_147_483_647), "{tool}");
    }
    assert_eq!(
        property("create_rule", "priority"),
        json!({"type": "string", "enum": ["critical", "high", "medium", "low", "minimal"]})
    );
    assert_eq!(
        property("update_config", "rules_mode"),
        json!({"type": "string", "enum": ["split", "inline"]})
    );
    server.finish();
}

#[test]
fn out_of_range_and_unknown_values_are_refused_naming_the_argument_and_the_range() {
    let project = sample();
    let mut server = Server::start(project.path());
    let refusals = [
        (
            "get_rules",
            json!({"paths": ["a.rs"], "max_tokens": 10}),
            "Invalid arguments: `max_tokens` is 10; use 100 to 1000000.",
        ),
        (
            "search_rules",
            json!({"query": "errors", "limit": 1000}),
            "Invalid arguments: `limit` is 1000; use 1 to 50.",
        ),
        (
            "search_rules",
            json!({"query": "errors", "limit": 0}),
            "Invalid arguments: `limit` is 0; use 1 to 50.",
        ),
        (
            "list_memories",
            json!({"limit": 501}),
            "Invalid arguments: `limit` is 501; use 1 to 500.",
        ),
        (
            "get_tree",
            json!({"depth": 33}),
            "Invalid arguments: `depth` is 33; use 0 to 32.",
        ),
        (
            "discover_conventions",
            json!({"min_files": 0}),
            "Invalid arguments: `min_files` is 0; use 1 to 2147483647.",
        ),
        (
            "create_rule",
            json!({"name": "x", "content": "Body.\n", "priority": "urgent"}),
            "Invalid arguments: `priority` is `urgent`; use one of critical, high, medium, low, minimal.",
        ),
        (
            "update_config",
            json!({"rules_mode": "sideways"}),
            "Invalid arguments: `rules_mode` is `sideways`; use one of split, inline.",
        ),
    ];
    for (tool, arguments, message) in refusals {
        assert_eq!(
            server.fails(tool, arguments.clone()),
            message,
            "{tool} {arguments}"
        );
    }
    // Nothing was written by the refused create.
    assert!(!project.path().join(".ai-rulez/rules/x.md").exists());
    // The bounds themselves are accepted.
    server.ok("get_rules", json!({"paths": ["a.rs"], "max_tokens": 100}));
    server.ok("search_rules", json!({"query": "errors", "limit": 50}));
    server.finish();
}

#[test]
fn creating_an_item_in_a_missing_domain_is_refused_with_the_way_out() {
    let project = sample();
    let mut server = Server::start(project.path());
    assert_eq!(
        server.fails(
            "create_rule",
            json!({"name": "api", "content": "Rule.\n", "domain": "backend"})
        ),
        ".ai-rulez/domains/backend: domain `backend` does not exist (the project has no domains yet); create it first with create_domain {\"name\": \"backend\"}, or leave `domain` out"
    );
    assert!(!project.path().join(".ai-rulez/domains").exists());
    server.ok("create_domain", json!({"name": "backend"}));
    assert_eq!(
        server.fails(
            "create_skill",
            json!({"name": "deploy", "content": "Steps.\n", "domain": "bakend"})
        ),
        ".ai-rulez/domains/bakend: domain `bakend` does not exist (known domains: backend; did you mean `backend`?); create it first with create_domain {\"name\": \"bakend\"}, or leave `domain` out"
    );
    assert!(!project.path().join(".ai-rulez/domains/bakend").exists());
    let record = server.ok(
        "create_rule",
        json!({"name": "api", "content": "Rule.\n", "domain": "backend"}),
    );
    assert_eq!(record["path"], ".ai-rulez/domains/backend/rules/api.md");
    server.finish();
}

#[test]
fn resources_carry_the_media_type_of_their_file() {
    let project = sample();
    project.write(
        ".ai-rulez/skills/release/SKILL.md",
        "---\ndescription: Cut a release\n---\nSteps.\n",
    );
    let mut server = Server::start(project.path());
    let listed = server.request("resources/list", json!({}));
    let types: Vec<(&str, &str)> = listed["result"]["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|resource| {
            (
                resource["uri"].as_str().expect("uri"),
                resource["mimeType"].as_str().expect("mimeType"),
            )
        })
        .collect();
    assert_eq!(
        types,
        [
            ("ai-rulez://config", "application/toml"),
            ("ai-rulez://catalog", "application/json"),
            // No skill sets `delivery`, so every skill is served, each file a resource.
            ("skill://release/SKILL.md", "text/markdown")
        ]
    );
    let templates = server.request("resources/templates/list", json!({}));
    assert_eq!(
        templates["result"]["resourceTemplates"][0]["mimeType"],
        "text/markdown"
    );
    for (uri, media_type) in [
        ("ai-rulez://config", "application/toml"),
        ("ai-rulez://catalog", "application/json"),
        ("ai-rulez://rule/safety", "text/markdown"),
        ("ai-rulez://skill/release", "text/markdown"),
    ] {
        let read = server.request("resources/read", json!({"uri": uri}));
        let contents = &read["result"]["contents"][0];
        assert_eq!(contents["uri"], uri);
        assert_eq!(contents["mimeType"], media_type, "{uri}");
    }
    server.finish();
}

/// A project (claude preset) with 250 rules `r000`..`r249` and 120 rules `e000`..`e119` whose
/// bodies are empty, so that `generate` and `validate` warn once for each of those.
fn many_rules() -> crate::support::Project {
    let mut texts: Vec<(String, String)> = (0..250)
        .map(|number| {
            (
                format!("r{number:03}"),
                format!("---\npriority: low\n---\nRule {number}.\n"),
            )
        })
        .collect();
    texts.extend((0..120).map(|number| {
        (
            format!("e{number:03}"),
            format!("---\npriority: low\ndescription: Empty {number}\n---\n"),
        )
    }));
    let rules: Vec<(&str, &str)> = texts
        .iter()
        .map(|(name, text)| (name.as_str(), text.as_str()))
        .collect();
    crate::mcp::project_with(&rules)
}

/// Calls `tool` with `arguments` plus `offset`, page after page until `next_offset` is null;
/// returns every page's structured content.
fn every_page(server: &mut Server, tool: &str, arguments: &Value) -> Vec<Value> {
    let mut pages = Vec::new();
    let mut offset = 0;
    loop {
        let mut call = arguments.clone();
        call["offset"] = json!(offset);
        let reply = server.ok(tool, call);
        assert_eq!(reply["page"]["offset"], offset, "{tool}");
        let next = reply["page"]["next_offset"].as_u64();
        pages.push(reply);
        match next {
            Some(next) => offset = next,
            None => return pages,
        }
    }
}

/// The strings of `key` over every page, in order.
fn joined(pages: &[Value], key: &str) -> Vec<Value> {
    pages
        .iter()
        .flat_map(|page| page[key].as_array().expect(key).clone())
        .collect()
}

#[test]
fn large_list_replies_come_in_pages_with_a_next_offset() {
    let project = many_rules();
    let mut server = Server::start(project.path());
    let mut names: Vec<String> = (0..120).map(|number| format!("e{number:03}")).collect();
    names.extend((0..250).map(|number| format!("r{number:03}")));

    let first = server.ok("list_items", json!({"kind": "rule"}));
    assert_eq!(first["items"].as_array().expect("items").len(), 100);
    assert_eq!(
        first["page"],
        json!({"offset": 0, "total": 370, "next_offset": 100})
    );
    let pages = every_page(
        &mut server,
        "list_items",
        &json!({"kind": "rule", "limit": 150}),
    );
    let sizes: Vec<usize> = pages
        .iter()
        .map(|page| page["items"].as_array().expect("items").len())
        .collect();
    assert_eq!(sizes, [150, 150, 70]);
    let listed: Vec<Value> = joined(&pages, "items")
        .iter()
        .map(|item| item["name"].clone())
        .collect();
    assert_eq!(listed, json!(names).as_array().expect("names").clone());
    let whole = server.ok("list_items", json!({"kind": "rule", "limit": 1000}));
    assert_eq!(
        whole["page"],
        json!({"offset": 0, "total": 370, "next_offset": null})
    );
    assert_eq!(
        server.fails("list_items", json!({"kind": "rule", "limit": 1001})),
        "Invalid arguments: `limit` is 1001; use 1 to 1000."
    );

    // generate_outputs: 252 path statuses, then 120 warnings, 100 entries a page.
    let pages = every_page(&mut server, "generate_outputs", &json!({"dry_run": true}));
    let sizes: Vec<(usize, usize)> = pages
        .iter()
        .map(|page| {
            (
                page["changes"].as_array().expect("changes").len(),
                page["warnings"].as_array().expect("warnings").len(),
            )
        })
        .collect();
    assert_eq!(sizes, [(100, 0), (100, 0), (52, 48), (0, 72)]);
    let mut expected_paths = vec![json!(".ai-rulez/.generated-manifest.json")];
    expected_paths.extend((0..250).map(|number| json!(format!(".claude/rules/r{number:03}.md"))));
    expected_paths.push(json!("CLAUDE.md"));
    let paths: Vec<Value> = joined(&pages, "changes")
        .iter()
        .map(|change| change["path"].clone())
        .collect();
    assert_eq!(paths, expected_paths);
    let warnings = joined(&pages, "warnings");
    assert_eq!(warnings.len(), 120);
    assert_eq!(
        warnings[0],
        ".ai-rulez/rules/e000.md: empty body; no Claude Code file is written"
    );
    assert_eq!(
        pages[3]["page"],
        json!({"offset": 300, "total": 372, "next_offset": null})
    );
    assert!(pages.iter().all(|page| page["status"] == "ok"));
    assert!(!project.exists("CLAUDE.md"), "a dry run writes nothing");

    // validate_config: errors first, then warnings, with `valid` over all of them.
    let pages = every_page(&mut server, "validate_config", &json!({"limit": 50}));
    let warnings = joined(&pages, "warnings");
    assert_eq!(pages.len(), 3, "{}", pages[0]["page"]);
    assert_eq!(warnings.len(), 120);
    assert_eq!(joined(&pages, "errors"), Vec::<Value>::new());
    assert_eq!(
        warnings[0],
        ".ai-rulez/rules/e000.md:4: AR805 rule `e000` has an empty body; write its content or delete it"
    );
    assert!(pages.iter().all(|page| page["valid"] == true));
    server.finish();
}

/// Holds the project's writer lock (an exclusive `flock` on the root folder, as ai-rulez takes
/// it) until dropped, so a writing call waits for it for as long as the test wants.
fn hold_writer_lock(root: &std::path::Path) -> std::fs::File {
    let folder = std::fs::File::open(root).expect("open the project folder");
    rustix::fs::flock(&folder, rustix::fs::FlockOperation::LockExclusive).expect("flock");
    folder
}

#[test]
fn ping_is_answered_while_a_call_runs_and_a_cancelled_call_writes_nothing_and_gets_no_reply() {
    let project = sample();
    let mut server = Server::start_with(
        project.path(),
        &["--toolsets", crate::mcp::ALL_TOOLSETS],
        &[("AI_RULEZ_LOCK_WAIT_MS", "600000")],
    );
    let lock = hold_writer_lock(project.path());
    // The call waits for the writer lock, which only this test can release.
    server.line(
        &json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
                "params": {"name": "create_rule", "arguments": {"name": "late", "content": "Late.\n"}}})
        .to_string(),
    );
    // While it waits, ping and tools/list are answered.
    // `request` checks that the reply carries the request's id.
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    let listed = server.request("tools/list", json!({}));
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    // The client gives up; a ping after the cancel shows it has been read.
    server.line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": "slow", "reason": "user pressed stop"}})
        .to_string(),
    );
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    drop(lock);
    // The next line on stdout answers the next request: the cancelled call sends nothing.
    assert_eq!(server.request("ping", json!({}))["result"], json!({}));
    // Its reply would have come by now: a writing call made after it still goes through.
    let record = server.ok(
        "create_rule",
        json!({"name": "after", "content": "After.\n"}),
    );
    assert_eq!(record["path"], ".ai-rulez/rules/after.md");
    assert!(
        !project.exists(".ai-rulez/rules/late.md"),
        "a cancelled call writes nothing"
    );
    let (status, rest, _) = server.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        rest,
        Vec::<Vec<u8>>::new(),
        "nothing is sent after the cancel"
    );
}
