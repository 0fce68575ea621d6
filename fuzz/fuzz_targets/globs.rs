//! libFuzzer target: any UTF-8 text, one pattern per line, as `paths` and `targets` lists. A
//! list that passes the checks must compile and expand within the limits; a panic is a crash.
#![no_main]

use ai_rulez::testing::{limits, scope};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let patterns: Vec<String> = text.lines().map(str::to_owned).collect();
    if scope::check_globs("paths", &patterns).is_ok() {
        assert!(scope::compile(&patterns).is_ok());
        for pattern in &patterns {
            let expanded = scope::try_expand_braces(pattern).expect("checked patterns expand");
            assert!(expanded.len() <= limits::MAX_BRACE_EXPANSIONS);
        }
    }
    let _targets = scope::check_targets("targets", &patterns);
    for pattern in &patterns {
        let _matches = scope::target_matches(&scope::normalize_target(pattern), "src/a.rs");
        let _expanded = scope::expand_braces(pattern);
    }
});
