//! libFuzzer target: any UTF-8 text as a config, read as TOML and as v3 YAML. An error must name
//! the config file; a panic is a crash.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let path = ".ai-rulez/config.toml";
    for yaml in [false, true] {
        if let Err(error) = ai_rulez::testing::config::parse(path, text, yaml, &mut Vec::new()) {
            assert!(error.to_string().starts_with(path), "{error}");
        }
    }
});
