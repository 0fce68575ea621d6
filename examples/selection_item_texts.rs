//! Prints the title, description and body of every item of each project of
//! `bench/selection/projects/` (one JSON document on stdout: project → `kind:id` → texts), for
//! experiments that weigh the items' text by other means than the server does, such as
//! `bench/selection/embedding_probe.py`.
//!
//! Usage: `cargo run --example selection_item_texts > texts.json`

use std::path::Path;

use ai_rulez::testing::project::load_lenient;

fn main() -> anyhow::Result<()> {
    let projects = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/selection/projects");
    let mut output = serde_json::Map::new();
    for entry in fs_err::read_dir(&projects)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let (project, _) = load_lenient(&entry.path(), &mut Vec::new())?;
        let mut items = serde_json::Map::new();
        for item in &project.tree.items {
            let title = item
                .frontmatter
                .get("title")
                .and_then(|value| value.as_str())
                .unwrap_or_default();
            // The kind's name as the cases spell it (`rule:`, `context:`, `skill:`).
            let kind = format!("{:?}", item.kind).to_lowercase();
            items.insert(
                format!("{kind}:{}", item.id),
                serde_json::json!({"title": title, "description": item.description, "body": item.body}),
            );
        }
        output.insert(name, serde_json::Value::Object(items));
    }
    println!("{}", serde_json::to_string(&output)?);
    Ok(())
}
