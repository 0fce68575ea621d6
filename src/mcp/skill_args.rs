//! Argument types of the `skills` toolset's tools (doc comments become the schema
//! descriptions, so they stay short). The bounds are checked before a call runs
//! (see `bounds`).

use schemars::JsonSchema;
use serde::Deserialize;

/// `find_skill` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindSkillArgs {
    /// What you are about to do, in a few words; empty lists every served skill.
    pub(crate) query: String,
    /// Most skills to return (default 5).
    #[schemars(range(min = 1, max = 50))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `load_skill` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadSkillArgs {
    /// The skill's name, as `find_skill` returns it.
    pub(crate) name: String,
    /// Most bytes of SKILL.md to return; the rest is marked and readable with `read_skill_file`.
    #[schemars(range(min = 1, max = 2_147_483_647))]
    pub(crate) budget_bytes: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `list_skill_resources` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SkillNameArgs {
    /// The skill's name.
    pub(crate) name: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `read_skill_file` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadSkillFileArgs {
    /// `skill://<name>/<path>`, as `list_skill_resources` gives it.
    pub(crate) uri: String,
    /// First byte to return (default 0).
    #[schemars(range(min = 0, max = 2_147_483_647))]
    pub(crate) offset: Option<u32>,
    /// Most bytes to return (default and most 262144).
    #[schemars(range(min = 1, max = 262_144))]
    pub(crate) length: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}
