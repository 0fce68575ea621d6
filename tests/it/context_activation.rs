//! Instruction files no path activates: a Cursor rule with only a description (read when the
//! assistant judges it fits the task), one with no description, globs or `alwaysApply` (read
//! only when mentioned), and a Copilot instructions file without `applyTo` (only when attached).
//! `find_context` and `explain` must not claim they apply to a path.

use serde_json::json;

use crate::nested_context::{monorepo, names, start};
use crate::support::Project;

/// The monorepo with three rules that no path activates, in the `web` scope and at the root.
fn with_rules_read_on_request() -> Project {
    let project = monorepo();
    project.write(
        "web/.cursor/rules/forms.mdc",
        "---\ndescription: How forms validate their fields\nalwaysApply: false\n---\nValidate on blur.\n",
    );
    project.write(
        "web/.cursor/rules/legacy.mdc",
        "---\nalwaysApply: false\n---\nThe old build, for reference.\n",
    );
    project.write(
        ".github/instructions/release.instructions.md",
        "---\ndescription: Release checklist\n---\nTag, then publish.\n",
    );
    project
}

#[test]
fn a_path_alone_never_activates_a_rule_read_on_request() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let reply = server.ok("find_context", json!({"path": "web/src/Form.tsx"}));
    assert_eq!(names(&reply), ["rule web react", "instruction . AGENTS.md"]);
    let folder = server.ok("find_context", json!({"path": "web"}));
    assert_eq!(names(&folder), ["instruction . AGENTS.md"]);
    server.finish();

    let output = project.run(&["explain", "web/src/Form.tsx"]);
    let stdout = output.stdout();
    assert_eq!(output.code(), 0, "{stdout}");
    assert!(stdout.contains("web/.cursor/rules/react.mdc"), "{stdout}");
    for on_request in ["forms.mdc", "legacy.mdc", "release.instructions.md"] {
        assert!(!stdout.contains(on_request), "{on_request} in {stdout}");
    }
}

#[test]
fn with_a_task_a_requested_rule_in_scope_is_found_by_its_description_and_marked() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let reply = server.ok(
        "find_context",
        json!({"path": "web/src/Form.tsx", "task": "validate the email field"}),
    );
    assert_eq!(
        names(&reply),
        [
            "rule web forms",
            "rule web react",
            "instruction . AGENTS.md"
        ]
    );
    assert_eq!(reply["results"][0]["activation"], "requested");
    assert_eq!(reply["results"][0]["score"], 2);
    assert_eq!(reply["results"][1].get("activation"), None);
    // Outside its scope the task does not bring it in.
    let elsewhere = server.ok(
        "find_context",
        json!({"path": "pkg/api/handlers/user.go", "task": "validate the email field"}),
    );
    assert!(
        !names(&elsewhere).contains(&"rule web forms".to_owned()),
        "{elsewhere}"
    );
    // A manual rule is not found through a path even when the task names it.
    let manual = server.ok(
        "find_context",
        json!({"path": "web/src/Form.tsx", "task": "the legacy build"}),
    );
    assert!(
        !names(&manual).contains(&"rule web legacy".to_owned()),
        "{manual}"
    );
    server.finish();
}

#[test]
fn a_scope_listing_names_how_each_rule_read_on_request_is_read() {
    let project = with_rules_read_on_request();
    let mut server = start(&project);
    let web = server.ok("find_context", json!({"scope": "web"}));
    assert_eq!(
        names(&web),
        ["rule web forms", "rule web legacy", "rule web react"]
    );
    let activations: Vec<_> = web["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|found| found.get("activation").cloned())
        .collect();
    assert_eq!(
        activations,
        [Some(json!("requested")), Some(json!("manual")), None]
    );
    let (text, _) = server.text("find_context", json!({"scope": "."}));
    assert!(
        text.contains(
            "- rule release in `.` (read only when attached or mentioned): Release checklist <context://./.github/instructions/release.instructions.md>"
        ),
        "{text}"
    );
    server.finish();
}
