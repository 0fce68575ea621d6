//! Prints, for every case of `bench/selection/cases/`, the evidence `get_rules` weighs for each
//! candidate (one JSON document on stdout), so `bench/selection/tune.py` can choose the weights
//! and the threshold from the labelled data instead of by hand.
//!
//! Usage: `cargo run --example selection_features > features.json`

use std::path::Path;
use std::sync::Arc;

use ai_rulez::testing::project::load_lenient;
use ai_rulez::testing::retrieval::{Catalog, RulesRequest, candidate_features};

fn main() -> anyhow::Result<()> {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/selection");
    let mut names: Vec<String> = fs_err::read_dir(bench.join("cases"))?
        .filter_map(Result::ok)
        .filter_map(|entry| {
            entry
                .file_name()
                .to_str()?
                .strip_suffix(".json")
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    let mut output = serde_json::Map::new();
    for name in names {
        let cases: Vec<serde_json::Value> = serde_json::from_str(&fs_err::read_to_string(
            bench.join("cases").join(format!("{name}.json")),
        )?)?;
        let (project, _) = load_lenient(&bench.join("projects").join(&name), &mut Vec::new())?;
        let catalog = Catalog::new(Arc::new(project), Vec::new());
        let mut rows = Vec::new();
        for case in &cases {
            let request = RulesRequest {
                paths: serde_json::from_value(case["paths"].clone())?,
                task: case["task"].as_str().map(str::to_owned),
                ..RulesRequest::default()
            };
            rows.push(serde_json::to_value(candidate_features(
                &catalog, &request,
            ))?);
        }
        output.insert(name, serde_json::Value::Array(rows));
    }
    println!("{}", serde_json::to_string(&output)?);
    Ok(())
}
