//! `learn_from_reviews` limits through the real binary: at most 25 candidates, at most four
//! links each (all of a group's links recorded as offered), the 8,000-character budget, and the
//! remainder offered by the next call.

use serde_json::{Value, json};

use crate::learn::EPOCH_2026;
use crate::learn_reviews::{LINK, comment, json_of, project};

/// Nouns for requests that share no content word with each other.
const NOUNS: [&str; 58] = [
    "anchor", "badger", "candle", "dagger", "engine", "falcon", "garlic", "hammer", "island",
    "jacket", "kettle", "ladder", "magnet", "needle", "orchid", "parrot", "quiver", "rocket",
    "saddle", "tablet", "umpire", "velvet", "walnut", "yogurt", "zipper", "bishop", "cactus",
    "donkey", "empire", "fossil", "goblet", "harbor", "igloo", "jungle", "kitten", "lizard",
    "mitten", "nutmeg", "oyster", "pepper", "quartz", "ribbon", "salmon", "turnip", "uncle",
    "violin", "wizard", "yarrow", "zenith", "banjo", "cobalt", "dynamo", "ember", "fjord",
    "glacier", "hazel", "indigo", "juniper",
];

#[test]
fn at_most_25_candidates_with_four_links_each_and_the_rest_come_next_time() {
    let project = project();
    let mut all = Vec::new();
    for number in 0..5 {
        all.push(comment(
            100 + number,
            "alice",
            "User",
            "MEMBER",
            "2025-12-01",
            "src/a.rs",
            "Wrap every cobalt call in a retry.",
        ));
    }
    for number in 0..29 {
        let body = format!(
            "Check the {} before the {}.",
            NOUNS[2 * number],
            NOUNS[2 * number + 1]
        );
        all.push(comment(
            200 + number as u64,
            "bob",
            "User",
            "MEMBER",
            "2025-12-02",
            "src/b.rs",
            &body,
        ));
    }
    project.write("many.json", Value::Array(all).to_string());
    let first = project.run_with_env(
        &[
            "learn",
            "reviews",
            "--from",
            "many.json",
            "--format",
            "json",
        ],
        &[EPOCH_2026],
    );
    first.expect_code(0);
    let reply = json_of(&first);
    let candidates = reply["candidates"].as_array().expect("candidates");
    assert_eq!(candidates.len(), 25);
    assert_eq!(reply["more"], 5);
    assert_eq!(candidates[0]["count"], 5);
    assert_eq!(
        candidates[0]["refs"],
        json!(
            (100..104)
                .map(|id| format!("{LINK}{id}"))
                .collect::<Vec<_>>()
        )
    );
    assert_eq!(candidates[1]["body"], "Check the anchor before the badger.");
    let ledger: Value =
        serde_json::from_str(&project.read(".ai-rulez/local/ledger.json")).expect("ledger");
    // All five links of the repeated request are offered, though four are listed.
    let mut offered: Vec<String> = (100..105).map(|id| format!("{LINK}{id}")).collect();
    offered.extend((200..224).map(|id| format!("{LINK}{id}")));
    offered.sort();
    assert_eq!(ledger["offered"], json!(offered));
    let second = json_of(&project.run_with_env(
        &[
            "learn",
            "reviews",
            "--from",
            "many.json",
            "--format",
            "json",
        ],
        &[EPOCH_2026],
    ));
    let bodies: Vec<&str> = second["candidates"]
        .as_array()
        .expect("candidates")
        .iter()
        .map(|candidate| candidate["body"].as_str().expect("body"))
        .collect();
    assert_eq!(
        bodies,
        [
            "Check the zenith before the banjo.",
            "Check the cobalt before the dynamo.",
            "Check the ember before the fjord.",
            "Check the glacier before the hazel.",
            "Check the indigo before the juniper.",
        ]
    );
    assert_eq!(second["more"], 0);
    assert_eq!(second["skipped"]["already_seen"], 29);
}

/// The characters a candidate counts against the 8,000-character budget.
fn budget_chars(candidate: &Value) -> usize {
    let text = |value: &Value| value.as_str().expect("string").chars().count();
    let list = |value: &Value| {
        value
            .as_array()
            .expect("list")
            .iter()
            .map(text)
            .sum::<usize>()
    };
    text(&candidate["title"])
        + text(&candidate["body"])
        + text(&candidate["evidence"])
        + list(&candidate["refs"])
        + list(&candidate["quotes"])
}

#[test]
fn long_comments_stop_at_the_8000_character_budget() {
    let project = project();
    let all: Vec<Value> = (0..29)
        .map(|number| {
            let (first, second) = (NOUNS[2 * number], NOUNS[2 * number + 1]);
            let padding = format!(" {first} {second}").repeat(30);
            let body = format!("Check the {first} before the {second}{padding}.");
            comment(
                300 + number as u64,
                "bob",
                "User",
                "MEMBER",
                "2025-12-02",
                "src/b.rs",
                &body,
            )
        })
        .collect();
    project.write("long.json", Value::Array(all).to_string());
    let args = [
        "learn",
        "reviews",
        "--from",
        "long.json",
        "--format",
        "json",
    ];
    let first = json_of(&project.run_with_env(&args, &[EPOCH_2026]));
    let candidates = first["candidates"].as_array().expect("candidates");
    let used: usize = candidates.iter().map(budget_chars).sum();
    assert!(used <= 8_000, "{used}");
    assert_eq!(
        candidates.len() + usize::try_from(first["more"].as_u64().expect("more")).expect("small"),
        29
    );
    assert!(candidates.len() < 25);
    // The next candidate (first of the next call) would not have fit.
    let second = json_of(&project.run_with_env(&args, &[EPOCH_2026]));
    let next = budget_chars(&second["candidates"][0]);
    assert!(used + next > 8_000, "{used} + {next}");
    // It is the next request in order, its first sentence cut to 200 characters at a word.
    let body = second["candidates"][0]["body"].as_str().expect("body");
    let (first_noun, second_noun) = (NOUNS[2 * candidates.len()], NOUNS[2 * candidates.len() + 1]);
    assert!(
        body.starts_with(&format!("Check the {first_noun} before the {second_noun} ")),
        "{body}"
    );
    assert!(body.chars().count() <= 201 && body.ends_with('.'), "{body}");
}
