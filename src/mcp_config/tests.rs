use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn stdio(name: &str, command: &str, args: &[&str]) -> McpServer {
    McpServer {
        name: name.to_owned(),
        command: Some(command.to_owned()),
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        env: IndexMap::new(),
        transport: Transport::Stdio,
        url: None,
        headers: IndexMap::new(),
    }
}

fn remote(name: &str, transport: Transport, url: &str) -> McpServer {
    McpServer {
        name: name.to_owned(),
        command: None,
        args: Vec::new(),
        env: IndexMap::new(),
        transport,
        url: Some(url.to_owned()),
        headers: IndexMap::new(),
    }
}

fn github() -> McpServer {
    let mut s = stdio(
        "github",
        "npx",
        &["-y", "@modelcontextprotocol/server-github"],
    );
    s.env.insert(
        "GITHUB_PERSONAL_ACCESS_TOKEN".to_owned(),
        "${GITHUB_TOKEN}".to_owned(),
    );
    s
}

fn api() -> McpServer {
    let mut s = remote("api", Transport::Http, "https://example.com/mcp");
    s.headers
        .insert("Authorization".to_owned(), "Bearer ${API_TOKEN}".to_owned());
    s
}

fn render_doc(shape: DocumentShape, servers: &[McpServer]) -> String {
    let lookup = |name: &str| (name == "GITHUB_TOKEN").then(|| "ghp_secret".to_owned());
    let entries = render_entries(shape, servers, &lookup).unwrap();
    merge_document(shape, shape.default_path(), None, &[], &entries)
        .unwrap()
        .unwrap()
}

#[test]
fn placeholders_are_parsed_by_hand() {
    assert_eq!(
        split_placeholders("a${B}c"),
        vec![Piece::Text("a"), Piece::Var("B"), Piece::Text("c")]
    );
    assert_eq!(
        split_placeholders("$${X}"),
        vec![Piece::Text("$"), Piece::Var("X")]
    );
    assert_eq!(split_placeholders("${open"), vec![Piece::Text("${open")]);
    assert_eq!(split_placeholders("${1A}"), vec![Piece::Text("${1A}")]);
    assert_eq!(
        split_placeholders("${a${_B9}"),
        vec![Piece::Text("${a"), Piece::Var("_B9")]
    );
    assert_eq!(sole_placeholder("${TOKEN}"), Some("TOKEN"));
    assert_eq!(sole_placeholder("x${TOKEN}"), None);
}

#[test]
fn shape_names_and_paths() {
    for shape in DocumentShape::ALL {
        assert_eq!(shape.name().parse::<DocumentShape>(), Ok(shape));
    }
    assert_eq!(
        "codex-config-toml"
            .parse::<DocumentShape>()
            .map(DocumentShape::default_path),
        Ok(".codex/config.toml")
    );
    assert_eq!(
        "nope".parse::<DocumentShape>(),
        Err(McpConfigError::UnknownShape("nope".to_owned()))
    );
}

#[test]
fn claude_exact() {
    let text = render_doc(DocumentShape::ClaudeMcpJson, &[github(), api()]);
    assert_eq!(
        text,
        r#"{
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"
      }
    },
    "api": {
      "type": "http",
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${API_TOKEN}"
      }
    }
  }
}
"#
    );
}

#[test]
fn cursor_exact() {
    let text = render_doc(DocumentShape::CursorMcpJson, &[github(), api()]);
    assert_eq!(
        text,
        r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"
      }
    },
    "api": {
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${env:API_TOKEN}"
      }
    }
  }
}
"#
    );
}

#[test]
fn roo_exact() {
    // Roo Code documents no variable syntax in `.roo/mcp.json`: `${GITHUB_TOKEN}` is written
    // as its value (so the entry holds a secret), remote servers carry Roo's transport names.
    let mut stream = remote("stream", Transport::Http, "https://example.com/mcp");
    stream
        .headers
        .insert("X-Client".to_owned(), "ai-rulez".to_owned());
    let events = remote("events", Transport::Sse, "https://example.com/sse");
    let text = render_doc(DocumentShape::RooMcpJson, &[github(), stream, events]);
    assert_eq!(
        text,
        r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"
      }
    },
    "stream": {
      "type": "streamable-http",
      "url": "https://example.com/mcp",
      "headers": {
        "X-Client": "ai-rulez"
      }
    },
    "events": {
      "type": "sse",
      "url": "https://example.com/sse"
    }
  }
}
"#
    );
    let lookup = |name: &str| (name == "GITHUB_TOKEN").then(|| "ghp_secret".to_owned());
    let entries = render_entries(DocumentShape::RooMcpJson, &[github()], &lookup).unwrap();
    assert!(entries[0].holds_resolved_secret);
    // A variable that is not set leaves that server out of Roo's file only.
    let (entries, left_out) =
        render_entries_leaving_out(DocumentShape::RooMcpJson, &[api(), github()], &no_env).unwrap();
    assert_eq!(entries.len(), 0);
    assert_eq!(
        left_out,
        [
            McpConfigError::UnresolvedVariable {
                variable: "API_TOKEN".to_owned(),
                server: "api".to_owned(),
                path: ".roo/mcp.json".to_owned(),
            },
            McpConfigError::UnresolvedVariable {
                variable: "GITHUB_TOKEN".to_owned(),
                server: "github".to_owned(),
                path: ".roo/mcp.json".to_owned(),
            },
        ]
    );
}

#[test]
fn vscode_exact() {
    let text = render_doc(DocumentShape::VscodeMcpJson, &[github(), api()]);
    assert_eq!(
        text,
        r#"{
  "servers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${env:GITHUB_TOKEN}"
      }
    },
    "api": {
      "type": "http",
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${env:API_TOKEN}"
      }
    }
  }
}
"#
    );
}

#[test]
fn gemini_exact() {
    let sse = remote("events", Transport::Sse, "https://example.com/sse");
    let text = render_doc(DocumentShape::GeminiSettingsJson, &[github(), api(), sse]);
    assert_eq!(
        text,
        r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"
      }
    },
    "api": {
      "httpUrl": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${API_TOKEN}"
      }
    },
    "events": {
      "type": "sse",
      "url": "https://example.com/sse"
    }
  }
}
"#
    );
}

#[test]
fn opencode_exact() {
    let text = render_doc(DocumentShape::OpencodeJson, &[github(), api()]);
    assert_eq!(
        text,
        r#"{
  "mcp": {
    "github": {
      "type": "local",
      "command": ["npx", "-y", "@modelcontextprotocol/server-github"],
      "environment": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "{env:GITHUB_TOKEN}"
      },
      "enabled": true
    },
    "api": {
      "type": "remote",
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer {env:API_TOKEN}"
      },
      "enabled": true
    }
  }
}
"#
    );
}

#[test]
fn codex_exact() {
    let mut api = api();
    api.headers
        .insert("X-Team".to_owned(), "${TEAM_ID}".to_owned());
    api.headers
        .insert("X-Client".to_owned(), "ai-rulez".to_owned());
    let mut local = stdio("local", "node", &["server.js"]);
    local
        .env
        .insert("HOME_DIR".to_owned(), "${HOME_DIR}".to_owned());
    local.env.insert("DEBUG".to_owned(), "1".to_owned());
    let text = render_doc(DocumentShape::CodexConfigToml, &[github(), local, api]);
    assert_eq!(
        text,
        r#"[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_secret" }

[mcp_servers.local]
command = "node"
args = ["server.js"]
env = { DEBUG = "1" }
env_vars = ["HOME_DIR"]

[mcp_servers.api]
url = "https://example.com/mcp"
bearer_token_env_var = "API_TOKEN"
http_headers = { X-Client = "ai-rulez" }
env_http_headers = { X-Team = "TEAM_ID" }
"#
    );
}

#[test]
fn b16_codex_keeps_model_and_is_idempotent() {
    let servers = [
        stdio("playwright", "npx", &["-y", "@playwright/mcp@latest"]),
        remote("ai.exa/exa", Transport::Http, "https://mcp.exa.ai/mcp"),
    ];
    let shape = DocumentShape::CodexConfigToml;
    let entries = render_entries(shape, &servers, &no_env).unwrap();
    let existing = "model = \"o3\"\n";
    let once = merge_document(shape, ".codex/config.toml", Some(existing), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        once,
        r#"model = "o3"

[mcp_servers.playwright]
command = "npx"
args = ["-y", "@playwright/mcp@latest"]

[mcp_servers."ai.exa/exa"]
url = "https://mcp.exa.ai/mcp"
"#
    );
    assert!(!once.contains("type"));
    let twice = merge_document(shape, ".codex/config.toml", Some(&once), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(twice, once);
    assert_eq!(
        list_server_keys(shape, &once).unwrap(),
        vec![
            vec!["mcp_servers".to_owned(), "playwright".to_owned()],
            vec!["mcp_servers".to_owned(), "ai.exa/exa".to_owned()],
        ]
    );
    for entry in &entries {
        assert_eq!(
            disk_entry_digest(shape, &once, &entry.key, Some(entry)).unwrap(),
            Some(entry_digest(entry))
        );
    }
    // Removing both servers leaves the user's setting alone.
    let keys: Vec<Vec<String>> = entries.iter().map(|e| e.key.clone()).collect();
    let removed = merge_document(shape, ".codex/config.toml", Some(&once), &keys, &[])
        .unwrap()
        .unwrap();
    assert_eq!(removed, "model = \"o3\"\n");
}

#[test]
fn codex_replacement_keeps_place_and_comments() {
    let shape = DocumentShape::CodexConfigToml;
    let existing = "# settings\nmodel = \"o3\"\n\n# browser\n[mcp_servers.playwright]\ncommand = \"old\"\n\n[profiles.x]\nmodel = \"o4\" # fast\n";
    let entries = render_entries(shape, &[stdio("playwright", "npx", &[])], &no_env).unwrap();
    let merged = merge_document(shape, "c.toml", Some(existing), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merged,
        "# settings\nmodel = \"o3\"\n\n# browser\n[mcp_servers.playwright]\ncommand = \"npx\"\n\n[profiles.x]\nmodel = \"o4\" # fast\n"
    );
}

#[test]
fn vscode_jsonc_comments_survive_upsert_and_remove() {
    let shape = DocumentShape::VscodeMcpJson;
    let existing = r#"{
  // Servers this workspace needs.
  "servers": {
    // Hand-written, not managed by ai-rulez.
    "mine": {
      "type": "stdio",
      "command": "my-server" /* local build */
    }
  },
  "inputs": []
}
"#;
    let entries = render_entries(shape, &[api()], &no_env).unwrap();
    let merged = merge_document(shape, ".vscode/mcp.json", Some(existing), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merged,
        r#"{
  // Servers this workspace needs.
  "servers": {
    // Hand-written, not managed by ai-rulez.
    "mine": {
      "type": "stdio",
      "command": "my-server" /* local build */
    },
    "api": {
      "type": "http",
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${env:API_TOKEN}"
      }
    }
  },
  "inputs": []
}
"#
    );
    let again = merge_document(shape, ".vscode/mcp.json", Some(&merged), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(again, merged);
    let removed = merge_document(
        shape,
        ".vscode/mcp.json",
        Some(&merged),
        &[entries[0].key.clone()],
        &[],
    )
    .unwrap()
    .unwrap();
    assert_eq!(removed, existing);
    assert_eq!(
        list_server_keys(shape, &merged).unwrap(),
        vec![
            vec!["servers".to_owned(), "mine".to_owned()],
            vec!["servers".to_owned(), "api".to_owned()],
        ]
    );
}

#[test]
fn removing_last_entry_from_our_own_file_allows_deletion() {
    let shape = DocumentShape::ClaudeMcpJson;
    let entries = render_entries(shape, &[api()], &no_env).unwrap();
    let created = merge_document(shape, ".mcp.json", None, &[], &entries)
        .unwrap()
        .unwrap();
    let keys = vec![entries[0].key.clone()];
    assert_eq!(
        merge_document(shape, ".mcp.json", Some(&created), &keys, &[]),
        Ok(None)
    );
    let commented = "// keep me\n{\"mcpServers\": {\"api\": {}}}\n";
    assert_eq!(
        merge_document(shape, ".mcp.json", Some(commented), &keys, &[]),
        Ok(Some("// keep me\n{\"mcpServers\": {}}\n".to_owned()))
    );
    let codex = DocumentShape::CodexConfigToml;
    let codex_entries = render_entries(codex, &[api()], &no_env).unwrap();
    let created = merge_document(codex, "c.toml", None, &[], &codex_entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merge_document(
            codex,
            "c.toml",
            Some(&created),
            &[codex_entries[0].key.clone()],
            &[]
        ),
        Ok(None)
    );
}

#[test]
fn invalid_documents_are_errors() {
    let shape = DocumentShape::CursorMcpJson;
    let err = merge_document(
        shape,
        ".cursor/mcp.json",
        Some("{\"mcpServers\": {"),
        &[],
        &[],
    )
    .unwrap_err();
    let McpConfigError::InvalidDocument { path, line, .. } = &err else {
        panic!("unexpected error {err:?}");
    };
    assert_eq!(path, ".cursor/mcp.json");
    assert_eq!(*line, Some(1));
    assert!(
        err.to_string()
            .ends_with("fix or move the file; ai-rulez never overwrites a file it cannot parse")
    );
    assert!(matches!(
        merge_document(shape, "x", Some("[1, 2]"), &[], &[]),
        Err(McpConfigError::InvalidDocument { .. })
    ));
    assert_eq!(
        merge_document(shape, "x", Some("{\"mcpServers\": []}"), &[], &[]),
        Err(McpConfigError::ServersNotContainer {
            path: "x".to_owned(),
            key: "mcpServers".to_owned(),
            expected: "an object",
        })
    );
    let toml_err = merge_document(
        DocumentShape::CodexConfigToml,
        ".codex/config.toml",
        Some("model = \"o3\"\n[broken\n"),
        &[],
        &[],
    )
    .unwrap_err();
    assert!(matches!(
        toml_err,
        McpConfigError::InvalidDocument {
            line: Some(2),
            format: "TOML",
            ..
        }
    ));
    assert!(matches!(
        list_server_keys(DocumentShape::CodexConfigToml, "mcp_servers = 3\n"),
        Err(McpConfigError::ServersNotContainer { .. })
    ));
}

#[test]
fn codex_secret_resolution_and_digest() {
    let shape = DocumentShape::CodexConfigToml;
    let first = |name: &str| (name == "GITHUB_TOKEN").then(|| "ghp_one".to_owned());
    let second = |name: &str| (name == "GITHUB_TOKEN").then(|| "ghp_two".to_owned());
    let a = render_entries(shape, &[github()], &first)
        .unwrap()
        .remove(0);
    let b = render_entries(shape, &[github()], &second)
        .unwrap()
        .remove(0);
    assert!(a.holds_resolved_secret);
    assert_eq!(
        a.value["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        Value::from("ghp_one")
    );
    assert_eq!(
        a.template["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        Value::from("${GITHUB_TOKEN}")
    );
    assert_eq!(entry_digest(&a), entry_digest(&b));
    let digest = entry_digest(&a);
    assert_eq!(digest.len(), "sha256:".len() + 64);
    assert!(digest.starts_with("sha256:"));

    // The file holds the first secret; with the second entry as hint the digest still matches.
    let text = merge_document(shape, "c.toml", None, &[], std::slice::from_ref(&a))
        .unwrap()
        .unwrap();
    assert_eq!(
        disk_entry_digest(shape, &text, &a.key, Some(&b)).unwrap(),
        Some(digest.clone())
    );
    // Without the hint the secret is part of what is hashed, so it differs.
    assert_ne!(
        disk_entry_digest(shape, &text, &a.key, None).unwrap(),
        Some(digest)
    );
    let absent = vec!["mcp_servers".to_owned(), "nope".to_owned()];
    assert_eq!(disk_entry_digest(shape, &text, &absent, Some(&a)), Ok(None));

    // A same-name reference is forwarded, not resolved.
    let mut fwd = stdio("fwd", "srv", &[]);
    fwd.env
        .insert("GITHUB_TOKEN".to_owned(), "${GITHUB_TOKEN}".to_owned());
    let entry = render_entries(shape, &[fwd], &no_env).unwrap().remove(0);
    assert!(!entry.holds_resolved_secret);
    assert_eq!(
        entry.value,
        serde_json::json!({"command": "srv", "env_vars": ["GITHUB_TOKEN"]})
    );
}

#[test]
fn unset_variable_is_an_error() {
    let err = render_entries(DocumentShape::CodexConfigToml, &[github()], &no_env).unwrap_err();
    assert_eq!(
        err,
        McpConfigError::UnresolvedVariable {
            variable: "GITHUB_TOKEN".to_owned(),
            server: "github".to_owned(),
            path: ".codex/config.toml".to_owned(),
        }
    );
    assert!(err.to_string().contains("`GITHUB_TOKEN`"));
}

#[test]
fn incomplete_servers_are_errors() {
    let mut s = stdio("x", "c", &[]);
    s.command = None;
    assert!(matches!(
        render_entries(DocumentShape::ClaudeMcpJson, &[s], &no_env),
        Err(McpConfigError::MissingCommand { .. })
    ));
    let mut r = remote("y", Transport::Http, "u");
    r.url = None;
    assert!(matches!(
        render_entries(DocumentShape::CursorMcpJson, &[r], &no_env),
        Err(McpConfigError::MissingUrl { .. })
    ));
    let sse = remote("z", Transport::Sse, "https://e/sse");
    assert!(matches!(
        render_entries(DocumentShape::CodexConfigToml, &[sse], &no_env),
        Err(McpConfigError::UnsupportedTransport { .. })
    ));
}

#[test]
fn other_settings_and_jsonc_syntax_survive() {
    let shape = DocumentShape::GeminiSettingsJson;
    let existing =
        "{\n    \"theme\": \"dark\", // mine\n    \"checkpointing\": {\"enabled\": true,},\n}\n";
    let entries = render_entries(shape, &[stdio("fs", "mcp-fs", &[])], &no_env).unwrap();
    let merged = merge_document(
        shape,
        ".gemini/settings.json",
        Some(existing),
        &[],
        &entries,
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        merged,
        "{\n    \"theme\": \"dark\", // mine\n    \"checkpointing\": {\"enabled\": true,},\n    \"mcpServers\": {\n        \"fs\": {\n            \"command\": \"mcp-fs\"\n        }\n    },\n}\n"
    );
    let removed = merge_document(
        shape,
        ".gemini/settings.json",
        Some(&merged),
        &[entries[0].key.clone()],
        &[],
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        removed,
        "{\n    \"theme\": \"dark\", // mine\n    \"checkpointing\": {\"enabled\": true,},\n    \"mcpServers\": {},\n}\n"
    );
}

#[test]
fn empty_and_missing_files() {
    let shape = DocumentShape::ClaudeMcpJson;
    let key = vec!["mcpServers".to_owned(), "x".to_owned()];
    assert_eq!(
        merge_document(shape, "p", None, std::slice::from_ref(&key), &[]),
        Ok(None)
    );
    assert_eq!(
        merge_document(shape, "p", Some(""), std::slice::from_ref(&key), &[]),
        Ok(None)
    );
    assert_eq!(
        merge_document(shape, "p", Some("{}\n"), &[key], &[]),
        Ok(None)
    );
    let entries = render_entries(shape, &[stdio("x", "c", &[])], &no_env).unwrap();
    assert_eq!(
            merge_document(shape, "p", Some("  \n"), &[], &entries),
            Ok(Some(
                "{\n  \"mcpServers\": {\n    \"x\": {\n      \"type\": \"stdio\",\n      \"command\": \"c\"\n    }\n  }\n}\n"
                    .to_owned()
            ))
        );
    assert_eq!(
        merge_document(
            DocumentShape::CodexConfigToml,
            "c.toml",
            None,
            &[vec!["mcp_servers".to_owned(), "x".to_owned()]],
            &[]
        ),
        Ok(None)
    );
    assert!(matches!(
        merge_document(
            shape,
            "p",
            None,
            &[vec!["servers".to_owned(), "x".to_owned()]],
            &[]
        ),
        Err(McpConfigError::InvalidKey { .. })
    ));
}

#[test]
fn codex_explicit_servers_header_and_inline_table() {
    let shape = DocumentShape::CodexConfigToml;
    let entries = render_entries(shape, &[stdio("b", "srv", &["--x"])], &no_env).unwrap();
    let existing = "[mcp_servers]\n\n[mcp_servers.a] # user server\ncommand = \"a\"\n";
    let merged = merge_document(shape, "c.toml", Some(existing), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merged,
        "[mcp_servers]\n\n[mcp_servers.a] # user server\ncommand = \"a\"\n\n[mcp_servers.b]\ncommand = \"srv\"\nargs = [\"--x\"]\n"
    );
    let inline = "mcp_servers = { a = { command = \"a\" } }\n";
    let merged = merge_document(shape, "c.toml", Some(inline), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        list_server_keys(shape, &merged).unwrap(),
        vec![
            vec!["mcp_servers".to_owned(), "a".to_owned()],
            vec!["mcp_servers".to_owned(), "b".to_owned()],
        ]
    );
    assert_eq!(
        disk_entry_digest(shape, &merged, &entries[0].key, None),
        Ok(Some(entry_digest(&entries[0])))
    );
}

#[test]
fn codex_trailing_comment_round_trips() {
    let shape = DocumentShape::CodexConfigToml;
    let entries = render_entries(shape, &[stdio("b", "srv", &[])], &no_env).unwrap();
    for existing in ["# only a comment\n", "model = \"o3\"\n# trailing note\n"] {
        let merged = merge_document(shape, "c.toml", Some(existing), &[], &entries)
            .unwrap()
            .unwrap();
        let removed = merge_document(
            shape,
            "c.toml",
            Some(&merged),
            &[entries[0].key.clone()],
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(removed, existing);
    }
    let merged = merge_document(shape, "c.toml", Some("# only a comment\n"), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merged,
        "[mcp_servers.b]\ncommand = \"srv\"\n# only a comment\n"
    );
}

#[test]
fn a_json_settings_file_starting_with_a_byte_order_mark_is_merged_and_keeps_it() {
    let shape = DocumentShape::ZedSettingsJson;
    let entries = render_entries(shape, &[stdio("docs", "docs-mcp", &[])], &no_env).unwrap();
    let existing = "\u{feff}{\n  \"theme\": \"One Dark\"\n}\n";
    let merged = merge_document(shape, ".zed/settings.json", Some(existing), &[], &entries)
        .unwrap()
        .unwrap();
    assert!(
        merged.starts_with("\u{feff}{\n  \"theme\": \"One Dark\",\n"),
        "{merged:?}"
    );
    assert!(merged.contains("\"docs\""), "{merged}");
    assert_eq!(merged.matches('\u{feff}').count(), 1);
}
