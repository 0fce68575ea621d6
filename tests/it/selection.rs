//! `get_rules` as one ranked candidate set over rules, context files and skills: exact replies
//! for a rule written for the edited file, context and skills chosen for a task, `include` by
//! kind, and the one token budget.

use serde_json::{Value, json};

use crate::mcp::{Server, project_with};

/// The `demo` project with a billing rule written for one file, a global style rule, a context
/// file for the database folder and a migration skill.
fn billing() -> crate::support::Project {
    let project = project_with(&[
        (
            "invoice-rounding",
            "---\npaths: [\"src/billing/invoice.rs\"]\npriority: high\ntitle: Invoice rounding\n---\nRound each line to the cent before summing; never round the total.\n",
        ),
        (
            "style",
            "---\ntitle: Code style\n---\nKeep functions short.\n",
        ),
    ]);
    project.write(
        ".ai-rulez/context/orders-schema.md",
        "---\npaths: [\"src/db/**\"]\ndescription: Columns and indexes of the orders table\n---\n# Orders schema\nThe orders table holds one row per order: id, customer_id, total_minor, created_at.\n",
    );
    project.write(
        ".ai-rulez/skills/write-migration/SKILL.md",
        "---\nname: write-migration\ndescription: Write a database migration for a new column or index, with a backfill\n---\n# Write a migration\n1. Add a timestamped file under src/db/migrations/.\n2. Add columns as nullable, backfill in batches, then add the constraint.\n",
    );
    project
}

fn ids(reply: &Value, field: &str) -> Vec<String> {
    reply[field]
        .as_array()
        .expect("list")
        .iter()
        .map(|item| item["id"].as_str().expect("id").to_owned())
        .collect()
}

#[test]
fn a_high_priority_rule_written_for_the_edited_file_is_sent_whatever_the_task_says() {
    // Before, the task's words decided alone: this rule shares none of them and was named as
    // "1 other rule cover these files but were not chosen".
    let project = billing();
    let mut server = Server::start(project.path());
    let (text, _) = server.text(
        "get_rules",
        json!({"paths": ["src/billing/invoice.rs"], "task": "rename the helper that builds the PDF footer"}),
    );
    assert_eq!(
        text,
        "Rules for `demo` (1 sent; follow them for this change):\n\
         \n## Invoice rounding (`invoice-rounding`, high, src/billing/invoice.rs; written for this file: `src/billing/invoice.rs` matches `src/billing/invoice.rs`)\n\
         \nRound each line to the cent before summing; never round the total.\n\
         \nAlso covering these files, not sent (2; to read one, call get_rules with it in `include` as `kind:id`):\n\
         - rule style: Code style\n\
         - less likely: skill write-migration\n"
    );
    server.finish();
}

#[test]
fn context_and_skills_are_ranked_with_the_rules_and_sent_when_the_task_needs_them() {
    let project = billing();
    let mut server = Server::start(project.path());
    let reply = server.ok(
        "get_rules",
        json!({"paths": ["src/db/migrations/0042_order_notes.sql"], "task": "write a migration that adds a notes column to the orders table"}),
    );
    assert_eq!(ids(&reply, "rules"), Vec::<String>::new());
    assert_eq!(ids(&reply, "context"), ["orders-schema"]);
    assert_eq!(ids(&reply, "skills"), ["write-migration"]);
    // The reason also names the related words it holds ("add column", "backfill": the
    // related-terms table joins them with "migration" and "column") and that its text names
    // the folder of the edited file (`src/db/migrations/`).
    assert_eq!(
        reply["skills"][0]["reason"],
        "task words: write, migration (title); adds (text); related words: add column, backfill; its text names this path"
    );
    assert_eq!(
        reply["others"],
        json!([{"kind": "rule", "id": "style", "title": "Code style", "summary": "Code style"}])
    );
    // A task about something else leaves both out and names them.
    let other = server.ok(
        "get_rules",
        json!({"paths": ["src/db/pool.rs"], "task": "log how long a connection waits", "refresh": true}),
    );
    assert_eq!(ids(&other, "context"), Vec::<String>::new());
    assert_eq!(ids(&other, "skills"), Vec::<String>::new());
    let named: Vec<String> = other["others"]
        .as_array()
        .expect("others")
        .iter()
        .map(|item| {
            format!(
                "{} {}",
                item["kind"].as_str().expect("kind"),
                item["id"].as_str().expect("id")
            )
        })
        .collect();
    assert_eq!(
        named,
        [
            "rule style",
            "context orders-schema",
            "skill write-migration"
        ]
    );
    server.finish();
}

#[test]
fn include_takes_kind_and_id_and_the_budget_covers_every_kind() {
    let project = billing();
    let mut server = Server::start(project.path());
    let reply = server.ok(
        "get_rules",
        json!({"paths": ["src/db/pool.rs"], "task": "log how long a connection waits", "include": ["skill:write-migration", "context:orders-schema", "context:nope"]}),
    );
    assert_eq!(ids(&reply, "skills"), ["write-migration"]);
    assert_eq!(reply["skills"][0]["reason"], "asked for with include");
    assert_eq!(ids(&reply, "context"), ["orders-schema"]);
    assert_eq!(reply["unknown_ids"], json!(["context:nope"]));
    // One budget for all kinds: 100 tokens hold the context file, not the skill after it.
    let cut = server.ok(
        "get_rules",
        json!({"paths": ["src/db/pool.rs"], "task": "log how long a connection waits", "include": ["context:orders-schema", "skill:write-migration"], "refresh": true, "max_tokens": 100}),
    );
    assert_eq!(ids(&cut, "context"), ["orders-schema"]);
    assert_eq!(ids(&cut, "skills"), Vec::<String>::new());
    assert_eq!(
        cut["cut"],
        json!([{"id": "write-migration", "title": "Write a migration"}])
    );
    server.finish();
}

/// A project whose rate-limit rule says "429" and never the task's words.
fn bank_client() -> crate::support::Project {
    project_with(&[
        (
            "back-off",
            "---\ntitle: Back off\n---\nOn HTTP 429, wait as long as the Retry-After header says before calling again.\n",
        ),
        (
            "style",
            "---\ntitle: Code style\n---\nKeep functions short.\n",
        ),
    ])
}

#[test]
fn a_rule_that_shares_only_a_related_word_with_the_task_is_sent_and_says_which() {
    // Before, "too many requests" shared no word with a rule about 429 answers, so the rule was
    // left out; the related-terms table joins the two, and the reason names the word.
    let project = bank_client();
    let mut server = Server::start(project.path());
    let (text, _) = server.text(
        "get_rules",
        json!({"paths": ["src/bank/client.rs"], "task": "handle too many requests from the bank"}),
    );
    assert_eq!(
        text,
        "Rules for `demo` (1 sent; follow them for this change):\n\
         \n## Back off (`back-off`, medium, global; related words: 429)\n\
         \nOn HTTP 429, wait as long as the Retry-After header says before calling again.\n\
         \nAlso covering these files, not sent (1; to read one, call get_rules with it in `include` as `kind:id`):\n\
         - rule style: Code style\n"
    );
    server.finish();
}

/// A project with one long pagination rule, a one-line style rule and, when `with_guide` is
/// set, a long release guide.
fn orders_api(with_guide: bool) -> crate::support::Project {
    let mut steps = String::new();
    for step in 1..=12 {
        steps.push_str(&format!(
            "- Step {step}: pass the opaque cursor of the last row back as `after`, never an offset.\n"
        ));
    }
    let pagination = format!(
        "---\ntitle: Pagination of list endpoints\n---\nEvery list endpoint pages with a cursor.\n{steps}"
    );
    let mut rules = vec![
        ("pagination", pagination.as_str()),
        (
            "style",
            "---\ntitle: Code style\n---\nKeep functions short.\n",
        ),
    ];
    let guide = format!(
        "---\ntitle: Release guide\n---\n{}",
        "Tag the release, write the changelog entry and publish the crate, one after another.\n"
            .repeat(12)
    );
    if with_guide {
        rules.push(("release-guide", guide.as_str()));
    }
    project_with(&rules)
}

/// The structured reply of `get_rules` for a pagination change in [`orders_api`].
fn pagination_reply(with_guide: bool) -> Value {
    let project = orders_api(with_guide);
    let mut server = Server::start(project.path());
    let reply = server.ok(
        "get_rules",
        json!({"paths": ["src/api/orders.rs"], "task": "add pagination to the orders endpoint"}),
    );
    server.finish();
    reply
}

#[test]
fn what_is_left_out_is_sent_too_when_it_adds_at_most_a_quarter_to_the_reply() {
    // The style rule shares no word with the task, but it is one line next to a long rule the
    // task needs, so leaving it out would save little and could miss what the change needs.
    let reply = pagination_reply(false);
    assert_eq!(ids(&reply, "rules"), ["pagination", "style"]);
    assert_eq!(
        reply["rules"][1]["reason"],
        "sent with the rest: what was left out adds at most a quarter to this reply"
    );
    assert_eq!(reply["others"], json!([]));
}

#[test]
fn what_is_left_out_stays_out_when_it_would_add_more_than_a_quarter() {
    // With a long release guide beside it, the rest costs more than a quarter of the reply,
    // so both unrelated rules are only named.
    let reply = pagination_reply(true);
    assert_eq!(ids(&reply, "rules"), ["pagination"], "{reply:#}");
    // The style rule, one line, comes closer to being sent, so it is named first.
    assert_eq!(ids(&reply, "others"), ["style", "release-guide"]);
}

#[test]
fn the_reason_of_a_rule_written_for_two_edited_files_does_not_depend_on_their_order() {
    // Before, the first path given named the match, so the same change could get two replies.
    let project = project_with(&[(
        "money-types",
        "---\npaths: [\"src/billing/invoice.rs\", \"src/billing/refund.rs\"]\ntitle: Money types\n---\nKeep amounts in minor units.\n",
    )]);
    let mut server = Server::start(project.path());
    let expected = "Rules for `demo` (1 sent; follow them for this change):\n\
         \n## Money types (`money-types`, medium, src/billing/invoice.rs, src/billing/refund.rs; written for this file: `src/billing/invoice.rs` matches `src/billing/invoice.rs`)\n\
         \nKeep amounts in minor units.\n";
    for paths in [
        ["src/billing/invoice.rs", "src/billing/refund.rs"],
        ["src/billing/refund.rs", "src/billing/invoice.rs"],
    ] {
        let (text, _) = server.text(
            "get_rules",
            // `refresh`, since a session sends a rule once.
            json!({"paths": paths, "task": "rename the helper that builds the PDF footer", "refresh": true}),
        );
        assert_eq!(text, expected, "paths {paths:?}");
    }
    server.finish();
}
