use super::config::{config_error_code, key_path_line, load_error_code};
use super::items::jaccard;
use super::links::{at_imports, is_external, resource_mentions};
use crate::error::InvalidKind;

#[test]
fn every_error_kind_maps_to_its_intended_code() {
    // (kind, code as an item error, code when it stops the config from loading). Codes are
    // those the message-matching classifier gave before kinds existed.
    let table = [
        (InvalidKind::NotUtf8, "AR306", "AR311"),
        (InvalidKind::Yaml, "AR306", "AR311"),
        (InvalidKind::DuplicateKey, "AR306", "AR311"),
        (InvalidKind::UnclosedFrontmatter, "AR306", "AR311"),
        (InvalidKind::FrontmatterNotMapping, "AR306", "AR311"),
        (InvalidKind::Toml, "AR306", "AR311"),
        (InvalidKind::Symlink, "AR306", "AR311"),
        (InvalidKind::NotRegularFile, "AR304", "AR311"),
        (InvalidKind::TooLarge, "AR306", "AR311"),
        (InvalidKind::Unreadable, "AR306", "AR311"),
        (InvalidKind::ControlCharacterInName, "AR304", "AR311"),
        (InvalidKind::DuplicateId, "AR704", "AR311"),
        (InvalidKind::FrontmatterValue, "AR304", "AR311"),
        (InvalidKind::IncludeNotFolder, "AR304", "AR311"),
        (InvalidKind::GitInclude, "AR304", "AR311"),
        (InvalidKind::ConfigValue, "AR304", "AR311"),
        (InvalidKind::McpServer, "AR304", "AR602"),
        (InvalidKind::Other, "AR304", "AR311"),
    ];
    for (kind, item_code, config_code) in table {
        assert_eq!(
            load_error_code(kind),
            item_code,
            "{kind:?} as an item error"
        );
        assert_eq!(
            config_error_code(kind),
            config_code,
            "{kind:?} in the config"
        );
    }
    let kinds: std::collections::HashSet<InvalidKind> =
        table.iter().map(|(kind, _, _)| *kind).collect();
    assert_eq!(kinds.len(), 18, "each kind once");
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
    assert_eq!(key_path_line(config, "header.builtins"), Some(3));
    assert_eq!(key_path_line(config, "mcp_servers[1]"), Some(6));
    assert_eq!(key_path_line(config, "mcp_servers[1].url"), Some(6));
    assert_eq!(key_path_line(config, "absent"), None);
}
