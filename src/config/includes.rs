//! The `[[includes]]` entries of the config: local folders and git sources, their keys checked
//! and every URL shown with its credentials masked.
//!
//! Keys follow the Go ai-rulez (`source`, `name`, `path`, `ref`); the keys it defines that this
//! tool does not act on yet (`version`, `include`, `install_to`, `local_override`, `format`, a
//! `merge_strategy` other than the default `local-override`) are named in a warning.

use serde_json::{Map, Value};

use super::{Include, Reader};
use crate::error::Result;

/// Keys of one `[[includes]]` entry that this tool reads.
const INCLUDE_KEYS: [&str; 5] = ["source", "name", "path", "ref", "merge_strategy"];

/// Keys of one `[[includes]]` entry that the Go ai-rulez defines and this tool ignores.
const INCLUDE_KEYS_NOT_YET: [&str; 5] = [
    "version",
    "include",
    "install_to",
    "local_override",
    "format",
];

/// The merge strategy this tool applies: the project's own items win over included ones.
const DEFAULT_MERGE_STRATEGY: &str = "local-override";

/// Whether `source` (as written) names a git repository rather than a local folder: a `git+`
/// prefix, any `scheme://` URL except `file://` (a local folder), or the scp-like
/// `git@host:path`.
#[must_use]
pub(crate) fn is_git_source(source: &str) -> bool {
    if source.starts_with("git+") || source.starts_with("git@") {
        return true;
    }
    source.contains("://") && !source.starts_with("file://")
}

impl Reader<'_> {
    /// The `[[includes]]` entries: (local folders, git sources), both in config order. A
    /// default name is the source with its credentials masked.
    ///
    /// Errors: an entry that is not a table, a missing `source`, a value of the wrong type, or a
    /// name used by two entries (the lock and every message tell includes apart by name).
    pub(super) fn includes(
        &self,
        value: Option<&Value>,
        warnings: &mut Vec<String>,
    ) -> Result<(Vec<Include>, Vec<Include>)> {
        let Some(value) = value else {
            return Ok((Vec::new(), Vec::new()));
        };
        let Value::Array(items) = value else {
            return Err(self.error("includes", "must be `[[includes]]` entries"));
        };
        let mut includes: Vec<Include> = Vec::new();
        let mut git_includes: Vec<Include> = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let at = format!("includes[{index}]");
            let Value::Object(table) = item else {
                return Err(self.error(&at, "must be a table"));
            };
            let Some(Value::String(source)) = table.get("source") else {
                return Err(self.error(&format!("{at}.source"), "is required"));
            };
            self.check_include_keys(table, &at, warnings)?;
            let shown_source = crate::redact::mask_url_credentials(source).into_owned();
            let name = self
                .optional_string(table, "name")?
                .unwrap_or_else(|| shown_source.clone());
            if let Some(earlier) = includes
                .iter()
                .chain(&git_includes)
                .find(|earlier| earlier.name == name)
            {
                return Err(self.error(
                    &format!("{at}.name"),
                    &format!(
                        "the include name `{name}` is also used by `{}`; give each include its own `name`",
                        earlier.key
                    ),
                ));
            }
            let path = self.optional_string(table, "path")?;
            let git_ref = self.optional_string(table, "ref")?;
            if is_git_source(source) {
                if git_ref
                    .as_deref()
                    .is_some_and(|text| text.trim().is_empty())
                {
                    return Err(self.error(
                        &format!("{at}.ref"),
                        "is empty; name a branch, a tag or a full commit id, or leave `ref` out for the default branch",
                    ));
                }
                git_includes.push(Include {
                    name,
                    source: source.clone(),
                    path,
                    git_ref,
                    key: at,
                });
                continue;
            }
            if git_ref.is_some() {
                warnings.push(format!(
                    "{}: `{at}.ref` only applies to a git source; `{shown_source}` is a local folder, so it is ignored",
                    self.path
                ));
            }
            includes.push(Include {
                name,
                source: source.trim_start_matches("file://").to_owned(),
                path,
                git_ref: None,
                key: at,
            });
        }
        Ok((includes, git_includes))
    }

    /// Warns about unknown keys of the entry at `at`, and names the Go ai-rulez's keys this
    /// tool does not act on yet.
    ///
    /// Errors: a `merge_strategy` that is not a string.
    fn check_include_keys(
        &self,
        table: &Map<String, Value>,
        at: &str,
        warnings: &mut Vec<String>,
    ) -> Result<()> {
        let unknown: Map<String, Value> = table
            .iter()
            .filter(|(key, _)| !INCLUDE_KEYS_NOT_YET.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        self.check_entry_keys(&unknown, at, &INCLUDE_KEYS, warnings);
        let mut ignored: Vec<String> = table
            .keys()
            .filter(|key| INCLUDE_KEYS_NOT_YET.contains(&key.as_str()))
            .map(|key| format!("`{at}.{key}`"))
            .collect();
        match self.optional_string(table, "merge_strategy") {
            Ok(None) => {}
            Ok(Some(strategy)) if strategy == DEFAULT_MERGE_STRATEGY => {}
            Ok(Some(strategy)) => ignored.push(format!(
                "`{at}.merge_strategy` = \"{strategy}\" (the project's own items always win over included ones)"
            )),
            Err(_) => {
                return Err(self.error(
                    &format!("{at}.merge_strategy"),
                    "must be \"local-override\"",
                ));
            }
        }
        if !ignored.is_empty() {
            warnings.push(format!(
                "{}: include keys not supported by this version yet and ignored: {}",
                self.path,
                ignored.join(", ")
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Vec<Include>, Vec<Include>, Vec<String>) {
        let mut warnings = Vec::new();
        let config = crate::config::parse("c.toml", text, false, &mut warnings).expect("parses");
        (config.includes, config.git_includes, warnings)
    }

    #[test]
    fn git_sources_are_told_from_local_folders() {
        for git in [
            "git+https://example.com/r.git",
            "https://github.com/o/r",
            "git+ssh://git@example.com/r.git",
            "ssh://git@example.com/r.git",
            "git@github.com:o/r.git",
            "git://localhost/r.git",
            "git+file:///srv/r.git",
        ] {
            assert!(is_git_source(git), "{git}");
        }
        for local in ["../shared", "shared/rules", "file://../shared", "/abs/path"] {
            assert!(!is_git_source(local), "{local}");
        }
    }

    #[test]
    fn real_tree_keys_are_read_and_the_others_named() {
        let (local, git, warnings) = parse(
            "name = \"x\"\n[[includes]]\nname = \"core\"\nsource = \"https://github.com/o/r\"\npath = \"modules/core\"\nmerge_strategy = \"local-override\"\nref = \"v1\"\n\n[[includes]]\nsource = \"../shared\"\nref = \"main\"\nversion = \"^1\"\nmerge_strategy = \"error\"\nsorce = \"x\"\n",
        );
        assert_eq!(
            git,
            [Include {
                name: "core".to_owned(),
                source: "https://github.com/o/r".to_owned(),
                path: Some("modules/core".to_owned()),
                git_ref: Some("v1".to_owned()),
                key: "includes[0]".to_owned(),
            }]
        );
        assert_eq!(local[0].name, "../shared");
        assert_eq!(
            warnings,
            [
                "c.toml:14: unknown config key `includes[1].sorce`; it is ignored; did you mean `source`?",
                "c.toml: include keys not supported by this version yet and ignored: `includes[1].version`, `includes[1].merge_strategy` = \"error\" (the project's own items always win over included ones)",
                "c.toml: `includes[1].ref` only applies to a git source; `../shared` is a local folder, so it is ignored",
            ]
        );
    }

    #[test]
    fn a_name_used_twice_is_an_error() {
        let error = crate::config::parse(
            "c.toml",
            "name = \"x\"\n[[includes]]\nsource = \"git://h/r.git\"\npath = \"a\"\n[[includes]]\nsource = \"git://h/r.git\"\npath = \"b\"\n",
            false,
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "c.toml:5: `includes[1].name`: the include name `git://h/r.git` is also used by `includes[0]`; give each include its own `name`"
        );
    }
}
