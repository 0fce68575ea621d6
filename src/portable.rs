//! Names that every operating system can check out: a repository holding `.ai-rulez/rules/CON.md`
//! or a folder `x.` cannot be cloned on Windows, so such names are refused where items are
//! created and reported where they already exist.

/// Device names Windows reserves in every folder, whatever the case and the extension
/// (`con.md`, `Aux.txt`), from Microsoft's "Naming Files, Paths, and Namespaces" page.
const RESERVED_DEVICE_NAMES: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// Why the file or folder name `name` (one path component, extension included) cannot be
/// checked out on Windows, or `None` when it can. Two rules: a reserved device name
/// ([`RESERVED_DEVICE_NAMES`]) before the first dot, in any case; and a name ending in a dot or a
/// space, which Windows strips, so the checkout would name a different file.
#[must_use]
pub(crate) fn windows_problem(name: &str) -> Option<String> {
    if name.ends_with(['.', ' ']) {
        return Some(
            "ends with a dot or a space, which Windows strips, so the repository could not be checked out there; drop the trailing character".to_owned(),
        );
    }
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    RESERVED_DEVICE_NAMES
        .iter()
        .find(|reserved| reserved.eq_ignore_ascii_case(stem))
        .map(|reserved| {
            format!(
                "is the device name `{reserved}`, which Windows reserves in any case and with any extension, so the repository could not be checked out there; choose another name"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_in_any_case_and_with_any_extension_are_found() {
        for name in [
            "CON", "con", "aux", "Com1", "lpt9", "nul.md", "PRN.txt", "con .md",
        ] {
            assert!(windows_problem(name).is_some(), "{name}");
        }
        for name in ["x.", "x ", "rules. "] {
            assert!(windows_problem(name).is_some(), "{name}");
        }
        for name in ["console", "com10", "auxiliary.md", "lpt", "x.y", "nullable"] {
            assert_eq!(windows_problem(name), None, "{name}");
        }
    }
}
