//! What the assistants' own CLIs showed (compat/, 2026-12-01): Copilot CLI's `.github/mcp.json`,
//! Gemini CLI's explicit SSE type, and the server names Codex never starts.

use super::*;

fn stdio(name: &str) -> McpServer {
    McpServer {
        name: name.to_owned(),
        command: Some("python3".to_owned()),
        args: vec!["probe.py".to_owned(), "${PROBE_ARG}".to_owned()],
        env: IndexMap::from([("PROBE_TOKEN".to_owned(), "${PROBE_TOKEN}".to_owned())]),
        transport: Transport::Stdio,
        url: None,
        headers: IndexMap::new(),
    }
}

fn sse() -> McpServer {
    McpServer {
        name: "events".to_owned(),
        command: None,
        args: Vec::new(),
        env: IndexMap::new(),
        transport: Transport::Sse,
        url: Some("http://127.0.0.1:7/sse".to_owned()),
        headers: IndexMap::from([("Authorization".to_owned(), "Bearer ${TOKEN}".to_owned())]),
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

#[test]
fn copilot_cli_document_is_github_mcp_json_with_variables_kept() {
    let shape = DocumentShape::CopilotMcpJson;
    assert_eq!(
        (shape.default_path(), shape.name(), shape.servers_key()),
        (".github/mcp.json", "copilot-mcp-json", "mcpServers")
    );
    let entries = render_entries(shape, &[stdio("probe"), sse()], &no_env).unwrap();
    let text = merge_document(shape, shape.default_path(), None, &[], &entries)
        .unwrap()
        .unwrap();
    assert_eq!(
        text,
        r#"{
  "mcpServers": {
    "probe": {
      "type": "stdio",
      "command": "python3",
      "args": ["probe.py", "${PROBE_ARG}"],
      "env": {
        "PROBE_TOKEN": "${PROBE_TOKEN}"
      }
    },
    "events": {
      "type": "sse",
      "url": "http://127.0.0.1:7/sse",
      "headers": {
        "Authorization": "Bearer ${TOKEN}"
      }
    }
  }
}
"#
    );
    assert!(entries.iter().all(|entry| !entry.holds_resolved_secret));
}

#[test]
fn portable_server_names_are_those_codex_starts() {
    for name in [
        "probe",
        "A_b-9",
        "docs.v2",
        "ai.exa/exa",
        "a@b",
        &"x".repeat(64),
    ] {
        assert!(is_portable_server_name(name), "{name}");
    }
    for name in [
        "",
        "my server",
        "a:b",
        "a+b",
        "é",
        "tab\there",
        &"x".repeat(65),
    ] {
        assert!(!is_portable_server_name(name), "{name}");
    }
}

#[test]
fn codex_leaves_out_a_server_name_it_never_starts_and_others_keep_it() {
    let servers = [stdio("my server"), stdio("ok")];
    let lookup = |name: &str| Some(format!("value-of-{name}"));
    let (entries, left_out) =
        render_entries_leaving_out(DocumentShape::CodexConfigToml, &servers, &lookup).unwrap();
    assert_eq!(
        entries.iter().map(|e| e.key.clone()).collect::<Vec<_>>(),
        [vec!["mcp_servers".to_owned(), "ok".to_owned()]]
    );
    assert_eq!(
        left_out,
        [McpConfigError::UnsupportedName {
            server: "my server".to_owned(),
            path: ".codex/config.toml".to_owned(),
        }]
    );
    for shape in DocumentShape::ALL
        .into_iter()
        .filter(|shape| *shape != DocumentShape::CodexConfigToml)
    {
        let (entries, left_out) = render_entries_leaving_out(shape, &servers, &lookup).unwrap();
        assert_eq!((entries.len(), left_out.len()), (2, 0), "{shape}");
    }
}
