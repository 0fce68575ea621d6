//! libFuzzer target: any bytes as an item file, through the frontmatter reader and the item
//! checks of every kind. A parse or an error naming the file are both fine; a panic is a crash.
#![no_main]

use ai_rulez::testing::content::Kind;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let path = ".ai-rulez/rules/fuzz.md";
    match ai_rulez::testing::frontmatter::parse(path, bytes) {
        Ok(document) => {
            for kind in Kind::ALL {
                if let Err(error) =
                    ai_rulez::testing::content::check(kind, "fuzz", path, document.clone())
                {
                    assert!(error.to_string().starts_with(path), "{error}");
                }
            }
        }
        Err(error) => assert!(error.to_string().starts_with(path), "{error}"),
    }
});
