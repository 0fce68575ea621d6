//! The rule sentences offered with each finding: one imperative sentence an agent may pass to
//! `propose_rules` as it is, or reword.

use super::Aspect;
use super::language::Language;
use super::observe::{ERR_NOT_NIL, INLINE_TESTS, QUESTION_MARK};
use super::tally::ABSOLUTE_IMPORTS;

/// The rule sentence for `option` winning `aspect` in `language`.
#[must_use]
pub(super) fn rule_text(language: Language, aspect: Aspect, option: &str) -> String {
    let name = language.display_name();
    match aspect {
        Aspect::Indentation => format!("Indent {name} code with {option}."),
        Aspect::Quotes => format!(
            "Write {name} strings with {option}, using the other kind only to avoid escaping."
        ),
        Aspect::Semicolons if option == "semicolons" => {
            format!("End {name} statements with semicolons.")
        }
        Aspect::Semicolons => format!("Do not end {name} statements with semicolons."),
        Aspect::FileNaming => format!("Name {name} files in {option}."),
        Aspect::FunctionNaming => format!("Name {name} functions in {option}."),
        Aspect::TypeNaming => format!("Name {name} types in {option}."),
        Aspect::TestLayout if option == INLINE_TESTS => format!(
            "Put {name} unit tests in an inline #[cfg(test)] module at the end of the file they test."
        ),
        Aspect::TestLayout if option == "tests/ folder" => {
            format!("Put {name} tests in the tests/ folder.")
        }
        Aspect::TestLayout => format!("Write {name} tests as {option}."),
        Aspect::ImportStyle if option == "relative paths" => {
            format!("Import local {name} modules with relative paths (./ and ../).")
        }
        Aspect::ImportStyle if option == "path aliases" => format!(
            "Import local {name} modules through path aliases (such as @/), not relative paths."
        ),
        Aspect::ImportStyle if option == ABSOLUTE_IMPORTS => format!(
            "Import the project's own {name} modules with absolute imports, not relative ones."
        ),
        Aspect::ImportStyle if option == "relative imports" => format!(
            "Import the project's own {name} modules with relative imports (from . import name)."
        ),
        Aspect::ImportStyle => format!("Import {name} items of this crate with {option}."),
        Aspect::ErrorHandling if option == QUESTION_MARK => format!(
            "Propagate {name} errors with the ? operator; do not call unwrap() or expect() outside tests."
        ),
        Aspect::ErrorHandling if option == ERR_NOT_NIL => {
            format!("Check {name} errors with if err != nil and return them; do not panic.")
        }
        Aspect::ErrorHandling => format!("Handle {name} errors with {option}."),
    }
}

/// The rule sentence for a toolchain file: its implication, capitalised, with a full stop.
#[must_use]
pub(super) fn toolchain_rule(implies: &str) -> String {
    let mut characters = implies.chars();
    let first = characters.next().map(|first| first.to_ascii_uppercase());
    format!(
        "{}{}.",
        first.map(String::from).unwrap_or_default(),
        characters.as_str()
    )
}
