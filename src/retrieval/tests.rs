//! Catalog tests: a call compiles only the glob matchers it needs, and each distinct glob list
//! once.

use std::sync::Arc;

use super::{Catalog, RulesRequest, Session, get_rules};

/// A project of 300 rules scoped to `services/s<n>/**/*.rs`, 100 rules sharing `**/*.md`, and
/// 10 global rules.
fn catalog() -> (tempfile::TempDir, Catalog) {
    let folder = tempfile::tempdir().expect("temporary folder");
    let rules = folder.path().join(".ai-rulez/rules");
    fs_err::create_dir_all(&rules).expect("rules folder");
    fs_err::write(
        folder.path().join(".ai-rulez/config.toml"),
        "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n",
    )
    .expect("config");
    for number in 0..300 {
        fs_err::write(
            rules.join(format!("service-{number:03}.md")),
            format!("---\npaths: [\"services/s{number}/**/*.rs\"]\n---\nService {number}.\n"),
        )
        .expect("rule");
    }
    for number in 0..100 {
        fs_err::write(
            rules.join(format!("markdown-{number:03}.md")),
            format!("---\npaths: [\"**/*.md\"]\n---\nMarkdown {number}.\n"),
        )
        .expect("rule");
    }
    for number in 0..10 {
        fs_err::write(
            rules.join(format!("global-{number:03}.md")),
            format!("Global {number}.\n"),
        )
        .expect("rule");
    }
    // A folder on disk, so `services` is asked about as a folder.
    fs_err::create_dir_all(folder.path().join("services")).expect("services folder");
    let project = crate::project::load(folder.path(), &mut Vec::new()).expect("project loads");
    (folder, Catalog::new(Arc::new(project), Vec::new()))
}

fn sent_ids(catalog: &Catalog, path: &str) -> Vec<String> {
    let request = RulesRequest {
        paths: vec![path.to_owned()],
        ..RulesRequest::default()
    };
    let reply = get_rules(catalog, &mut Session::default(), &request);
    reply.rules.into_iter().map(|rule| rule.id).collect()
}

#[test]
fn a_file_compiles_only_the_matchers_filed_under_its_folders() {
    let (_folder, catalog) = catalog();
    assert_eq!(catalog.compiled_matchers(), 0);
    let mut expected: Vec<String> = (0..10)
        .map(|number| format!("global-{number:03}"))
        .collect();
    expected.push("service-007".to_owned());
    assert_eq!(sent_ids(&catalog, "services/s7/src/lib.rs"), expected);
    // `services/s7/` files one glob list, the empty prefix the shared `**/*.md`: two of 301.
    assert_eq!(catalog.compiled_matchers(), 2);
}

#[test]
fn a_folder_compiles_each_distinct_glob_list_once() {
    let (_folder, catalog) = catalog();
    let sent = sent_ids(&catalog, "services");
    // The global rules, the service rules and the `**/*.md` rules: a Markdown file in
    // `services` would match those.
    assert_eq!(sent.len(), 10 + 300 + 100);
    // 400 scoped rules hold 301 distinct glob lists.
    assert_eq!(catalog.compiled_matchers(), 301);
    assert_eq!(sent_ids(&catalog, "services"), sent);
    assert_eq!(catalog.compiled_matchers(), 301);
}

#[test]
fn included_ids_are_sent_once_leave_the_others_and_unknown_ones_are_named() {
    let (_folder, catalog) = catalog();
    let request = RulesRequest {
        paths: vec!["services/s7/src/lib.rs".to_owned()],
        task: Some("zzz".to_owned()),
        include: ["service-007", "service-009", "service-009", "nope"]
            .map(str::to_owned)
            .to_vec(),
        ..RulesRequest::default()
    };
    let reply = get_rules(&catalog, &mut Session::default(), &request);
    let sent: Vec<&str> = reply.rules.iter().map(|rule| rule.id.as_str()).collect();
    assert_eq!(sent, ["service-007", "service-009"]);
    let others: Vec<&str> = reply.others.iter().map(|other| other.id.as_str()).collect();
    let globals: Vec<String> = (0..10)
        .map(|number| format!("global-{number:03}"))
        .collect();
    assert_eq!(others, globals);
    assert_eq!(reply.unknown_ids, ["nope"]);
}

#[test]
fn at_most_forty_items_left_out_are_named_and_the_rest_counted() {
    let (_folder, catalog) = catalog();
    let request = RulesRequest {
        paths: vec!["docs/guide.md".to_owned()],
        task: Some("zzz".to_owned()),
        ..RulesRequest::default()
    };
    let reply = get_rules(&catalog, &mut Session::default(), &request);
    // 100 rules sharing the broad `**/*.md` and 10 global rules cover the file. The task
    // matches none of them and the path's words (`docs`, `guide`, `md`) none of their texts,
    // so none is sent; 40 are named and the other 70 counted.
    assert!(reply.rules.is_empty(), "{:?}", reply.rules);
    assert_eq!(reply.others.len(), 40);
    assert_eq!(reply.others_more, 110 - 40);
}

#[test]
fn the_tuner_gets_no_candidates_for_a_task_of_only_stopwords_as_get_rules_ranks_none() {
    let (_folder, catalog) = catalog();
    let request = |task: &str| RulesRequest {
        paths: vec!["services/s1/src/main.rs".to_owned()],
        task: Some(task.to_owned()),
        ..RulesRequest::default()
    };
    assert!(super::candidate_features(&catalog, &request("the, and of it?")).is_empty());
    // Service 1's rule and the ten global ones.
    assert_eq!(
        super::candidate_features(&catalog, &request("service main loop")).len(),
        11
    );
}
