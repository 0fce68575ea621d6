//! The `learn_from_reviews` MCP tool through the real server: `gh` by default (a fake on PATH),
//! a JSON file inside the project, argument errors, and the ledger shared with the CLI.

use serde_json::json;

use crate::learn::{EPOCH_2026, learner};
use crate::learn_reviews::{
    expected_candidates, expected_skipped, fake_gh_dir, pages_text, project,
};

#[test]
fn the_mcp_tool_reads_a_project_file_and_shares_the_ledger() {
    let project = project();
    project.write("review-comments.json", pages_text());
    let mut server = learner(&project);
    let reply = server.ok(
        "learn_from_reviews",
        json!({"source": "file", "file": "review-comments.json"}),
    );
    assert_eq!(reply["candidates"], expected_candidates());
    assert_eq!(reply["skipped"], expected_skipped());
    let again = server.ok(
        "learn_from_reviews",
        json!({"file": "review-comments.json"}),
    );
    assert_eq!(again["candidates"], json!([]));
    assert_eq!(
        server.fails("learn_from_reviews", json!({"source": "file"})),
        "source `file` needs `file`: the project-relative path of a JSON file of review comments"
    );
    assert_eq!(
        server.fails("learn_from_reviews", json!({"file": "/etc/passwd"})),
        "`file` /etc/passwd is not inside the project; pass a project-relative path"
    );
    server.finish();
}

#[test]
fn the_mcp_tool_asks_gh_by_default() {
    let project = project();
    let bin = fake_gh_dir(&project);
    project.write("pages.json", pages_text());
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let log = project.path().join("gh.log").display().to_string();
    let pages = project.path().join("pages.json").display().to_string();
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", "learn"],
        &[
            EPOCH_2026,
            ("PATH", &path),
            ("FAKE_GH_LOG", &log),
            ("FAKE_GH_PAGES", &pages),
        ],
    );
    let (text, reply) = server.text("learn_from_reviews", json!({"since_days": 90}));
    assert_eq!(reply["source"], "gh api repos/acme/shop/pulls/comments");
    assert_eq!(reply["candidates"], expected_candidates());
    assert!(
        text.starts_with(
            "Read 12 review comment(s) from gh api repos/acme/shop/pulls/comments; 8 left out"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n\nCandidate 1: Use the repository layer for database\n"),
        "{text}"
    );
    server.finish();
}

/// A `--read-only` server still offers candidates (reading review comments changes nothing in
/// the project) but records nothing: no ledger is created, an existing one is read (earlier
/// dismissals still hold) and left byte for byte, and the same candidates come again.
#[test]
fn a_read_only_server_offers_candidates_without_recording_them() {
    let project = project();
    project.write("review-comments.json", pages_text());
    let before = project.files();
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", "learn", "--read-only"],
        &[EPOCH_2026],
    );
    let arguments = json!({"source": "file", "file": "review-comments.json"});
    let (text, first) = server.text("learn_from_reviews", arguments.clone());
    assert_eq!(first["candidates"], expected_candidates());
    assert!(
        text.contains(" This server is read-only, so nothing was recorded: the same candidates are offered again next time."),
        "{text}"
    );
    let again = server.ok("learn_from_reviews", arguments.clone());
    assert_eq!(again["candidates"], expected_candidates());
    server.finish();
    assert_eq!(project.files(), before);
    // An existing ledger is honoured and not touched.
    let first_link = expected_candidates()[0]["refs"][0]
        .as_str()
        .expect("link")
        .to_owned();
    let ledger =
        format!("{{\"version\": 1, \"dismissed\": [\"{first_link}\"], \"proposed\": []}}\n");
    project.write(".ai-rulez/local/ledger.json", &ledger);
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", "learn", "--read-only"],
        &[EPOCH_2026],
    );
    let reply = server.ok("learn_from_reviews", arguments);
    assert_eq!(reply["skipped"]["already_seen"], 1, "{reply}");
    server.finish();
    assert_eq!(project.read(".ai-rulez/local/ledger.json"), ledger);
}
