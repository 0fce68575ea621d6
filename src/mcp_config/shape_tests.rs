//! Exact documents for the settings files of Kiro, Zed, Amp, Junie, Devin and Antigravity, and
//! merging into a Zed settings file the user also edits.

use indexmap::IndexMap;

use super::*;

fn server(name: &str, transport: Transport) -> McpServer {
    McpServer {
        name: name.to_owned(),
        command: None,
        args: Vec::new(),
        env: IndexMap::new(),
        transport,
        url: None,
        headers: IndexMap::new(),
    }
}

/// A stdio server with a secret in `env`, one without arguments, a streamable HTTP server with
/// a bearer header, and an SSE server.
fn servers() -> Vec<McpServer> {
    let mut github = server("github", Transport::Stdio);
    github.command = Some("npx".to_owned());
    github.args = vec![
        "-y".to_owned(),
        "@modelcontextprotocol/server-github".to_owned(),
    ];
    github.env.insert(
        "GITHUB_PERSONAL_ACCESS_TOKEN".to_owned(),
        "${GITHUB_TOKEN}".to_owned(),
    );
    let mut bare = server("bare", Transport::Stdio);
    bare.command = Some("local-mcp".to_owned());
    let mut api = server("api", Transport::Http);
    api.url = Some("https://example.com/mcp".to_owned());
    api.headers
        .insert("Authorization".to_owned(), "Bearer ${API_TOKEN}".to_owned());
    let mut events = server("events", Transport::Sse);
    events.url = Some("https://example.com/sse".to_owned());
    vec![github, bare, api, events]
}

fn lookup(name: &str) -> Option<String> {
    match name {
        "GITHUB_TOKEN" => Some("ghp_secret".to_owned()),
        "API_TOKEN" => Some("api_secret".to_owned()),
        _ => None,
    }
}

/// The new document for `shape` and the names of the servers left out, with their reasons.
fn render(shape: DocumentShape) -> (String, Vec<McpConfigError>) {
    let (entries, left_out) = render_entries_leaving_out(shape, &servers(), &lookup).unwrap();
    let text = merge_document(shape, shape.default_path(), None, &[], &entries)
        .unwrap()
        .unwrap();
    (text, left_out)
}

#[test]
fn kiro_keeps_references_and_writes_url() {
    let (text, left_out) = render(DocumentShape::KiroMcpJson);
    assert_eq!(
        DocumentShape::KiroMcpJson.default_path(),
        ".kiro/settings/mcp.json"
    );
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
    "bare": {
      "command": "local-mcp"
    },
    "api": {
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer ${API_TOKEN}"
      }
    },
    "events": {
      "url": "https://example.com/sse"
    }
  }
}
"#
    );
    assert!(left_out.is_empty());
}

#[test]
fn zed_context_servers_resolve_values_and_always_carry_args() {
    let (text, left_out) = render(DocumentShape::ZedSettingsJson);
    assert_eq!(
        text,
        r#"{
  "context_servers": {
    "github": {
      "source": "custom",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"
      }
    },
    "bare": {
      "source": "custom",
      "command": "local-mcp",
      "args": []
    },
    "api": {
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer api_secret"
      }
    }
  }
}
"#
    );
    assert_eq!(
        left_out,
        vec![McpConfigError::UnsupportedTransport {
            server: "events".to_owned(),
            path: ".zed/settings.json".to_owned(),
            transport: "sse",
        }]
    );
}

#[test]
fn amp_servers_sit_under_one_dotted_key() {
    let (text, left_out) = render(DocumentShape::AmpSettingsJson);
    assert_eq!(
        text,
        r#"{
  "amp.mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret"
      }
    },
    "bare": {
      "command": "local-mcp"
    },
    "api": {
      "url": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer api_secret"
      }
    },
    "events": {
      "url": "https://example.com/sse"
    }
  }
}
"#
    );
    assert!(left_out.is_empty());
    // A user's `amp.*` settings beside ours survive, and ours are found again by their key.
    let user = "{\n  \"amp.notifications.enabled\": false\n}\n";
    let (entries, _) =
        render_entries_leaving_out(DocumentShape::AmpSettingsJson, &servers()[1..2], &lookup)
            .unwrap();
    let merged = merge_document(
        DocumentShape::AmpSettingsJson,
        ".amp/settings.json",
        Some(user),
        &[],
        &entries,
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        merged,
        "{\n  \"amp.notifications.enabled\": false,\n  \"amp.mcpServers\": {\n    \"bare\": {\n      \"command\": \"local-mcp\"\n    }\n  }\n}\n"
    );
    assert_eq!(
        list_server_keys(DocumentShape::AmpSettingsJson, &merged).unwrap(),
        vec![vec!["amp.mcpServers".to_owned(), "bare".to_owned()]]
    );
}

#[test]
fn junie_takes_stdio_servers_only() {
    let (text, left_out) = render(DocumentShape::JunieMcpJson);
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
    "bare": {
      "command": "local-mcp"
    }
  }
}
"#
    );
    let left: Vec<(&str, &str)> = left_out
        .iter()
        .map(|error| match error {
            McpConfigError::UnsupportedTransport {
                server, transport, ..
            } => (server.as_str(), *transport),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(left, vec![("api", "http"), ("events", "sse")]);
}

#[test]
fn devin_names_the_remote_transport() {
    let (text, left_out) = render(DocumentShape::DevinConfigJson);
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
    "bare": {
      "command": "local-mcp"
    },
    "api": {
      "url": "https://example.com/mcp",
      "transport": "http",
      "headers": {
        "Authorization": "Bearer api_secret"
      }
    },
    "events": {
      "url": "https://example.com/sse",
      "transport": "sse"
    }
  }
}
"#
    );
    assert!(left_out.is_empty());
}

#[test]
fn antigravity_remote_servers_use_server_url() {
    let (text, left_out) = render(DocumentShape::AntigravityMcpJson);
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
    "bare": {
      "command": "local-mcp"
    },
    "api": {
      "serverUrl": "https://example.com/mcp",
      "headers": {
        "Authorization": "Bearer api_secret"
      }
    },
    "events": {
      "serverUrl": "https://example.com/sse"
    }
  }
}
"#
    );
    assert!(left_out.is_empty());
}

#[test]
fn resolving_shapes_leave_out_a_server_whose_variable_is_unset() {
    for shape in [
        DocumentShape::ZedSettingsJson,
        DocumentShape::AmpSettingsJson,
        DocumentShape::JunieMcpJson,
        DocumentShape::DevinConfigJson,
        DocumentShape::AntigravityMcpJson,
    ] {
        assert!(!shape.expands_variables(), "{shape}");
        let (entries, left_out) =
            render_entries_leaving_out(shape, &servers()[..2], &|_: &str| None).unwrap();
        assert_eq!(
            entries
                .iter()
                .map(|entry| entry.key[1].as_str())
                .collect::<Vec<_>>(),
            vec!["bare"],
            "{shape}"
        );
        assert_eq!(
            left_out,
            vec![McpConfigError::UnresolvedVariable {
                variable: "GITHUB_TOKEN".to_owned(),
                server: "github".to_owned(),
                path: shape.default_path().to_owned(),
            }],
            "{shape}"
        );
    }
    assert!(DocumentShape::KiroMcpJson.expands_variables());
}

#[test]
fn zed_user_settings_survive_a_merge_and_a_removal() {
    let user = r#"// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "mine": { "command": "my-server", "args": [] }
  },
  "tab_size": 2
}
"#;
    let shape = DocumentShape::ZedSettingsJson;
    let (entries, _) = render_entries_leaving_out(shape, &servers()[1..2], &lookup).unwrap();
    let merged = merge_document(shape, ".zed/settings.json", Some(user), &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        merged,
        r#"// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "mine": { "command": "my-server", "args": [] },
    "bare": {
      "source": "custom",
      "command": "local-mcp",
      "args": []
    }
  },
  "tab_size": 2
}
"#
    );
    let keys: Vec<Vec<String>> = entries.iter().map(|entry| entry.key.clone()).collect();
    let removed = merge_document(shape, ".zed/settings.json", Some(&merged), &keys, &[])
        .unwrap()
        .unwrap();
    assert_eq!(
        removed,
        r#"// Zed settings
{
  "theme": "One Dark",
  "context_servers": {
    "mine": { "command": "my-server", "args": [] }
  },
  "tab_size": 2
}
"#
    );
}
