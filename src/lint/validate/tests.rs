use super::config::{classify_load_error, key_path_line};
use super::items::jaccard;
use super::links::{at_imports, is_external, resource_mentions};

#[test]
fn load_errors_are_classified() {
    assert_eq!(classify_load_error("invalid YAML frontmatter: x"), "AR306");
    assert_eq!(
        classify_load_error("rule `a` is defined twice in the same layer: x and y"),
        "AR704"
    );
    assert_eq!(
        classify_load_error("`activation: glob` needs `paths`"),
        "AR304"
    );
}

#[test]
fn import_mention_and_external_target_rules() {
    assert_eq!(
        at_imports("import @docs/guide.md and @types/node, mail a@b.io, @v1.2"),
        ["docs/guide.md"]
    );
    assert_eq!(at_imports("@README.md"), ["README.md"]);
    assert_eq!(
        resource_mentions("Run scripts/check.sh, read references/api.md; see assets/"),
        ["references/api.md", "scripts/check.sh"]
    );
    assert!(is_external("https://x.io"));
    assert!(is_external("mailto:a@b"));
    assert!(!is_external("docs/a.md"));
}

#[test]
fn jaccard_of_word_sets() {
    assert!((jaccard(&["a", "b", "c"], &["a", "b", "d"]) - 0.5).abs() < 1e-9);
    assert!((jaccard(&["a"], &["a"]) - 1.0).abs() < 1e-9);
}

#[test]
fn key_paths_find_their_lines() {
    let config = "name = \"x\"\n[header]\nbuiltins = []\n[[mcp_servers]]\nname = \"a\"\n[[mcp_servers]]\nname = \"b\"\n";
    assert_eq!(
        key_path_line(config, "unknown config key `header.builtins`"),
        Some(3)
    );
    assert_eq!(key_path_line(config, "`mcp_servers[1]`: server"), Some(6));
}
