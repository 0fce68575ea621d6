//! Argument and result types of the MCP tools. Their JSON schemas (schemars) are the tools'
//! input and output schemas; `deny_unknown_fields` makes every input schema
//! `additionalProperties: false`.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::authoring::ItemSummary;

/// `get_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetRulesArgs {
    /// Paths of the files you will create or edit (absolute, or relative to the project root).
    pub paths: Vec<String>,
    /// One sentence about the change, such as "add pagination to the orders endpoint" (first 500 characters used). Without it every applicable rule is sent.
    pub task: Option<String>,
    /// Rule ids from a previous reply's list that you want in full.
    pub include: Option<Vec<String>>,
    /// Send rules again even if already sent in this session (after your context was reset).
    pub refresh: Option<bool>,
    /// Cap on the reply size in estimated tokens (at least 100; default 20000).
    pub max_tokens: Option<u32>,
    /// Directory to resolve the project from (inside the server's root); default: the server's root.
    pub working_directory: Option<String>,
}

/// `search_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchRulesArgs {
    /// The topic, in a few words.
    pub query: String,
    /// Most rules to return (1-50, default 10).
    pub limit: Option<u32>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// `get_context` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetContextArgs {
    /// A file or folder (absolute, or relative to the project root).
    pub path: String,
    /// Optional sentence about the task, used to order entries by relevance.
    pub task: Option<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// Arguments naming one item.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ItemArgs {
    /// Item name: letters, digits, `.`, `_`, `-` (the file name without `.md`, or the skill folder).
    pub name: String,
    /// Domain folder under .ai-rulez/domains/, if the item belongs to one.
    pub domain: Option<String>,
    /// Machine-local item under .ai-rulez/local/ (never generated into shared files).
    pub local: Option<bool>,
    /// For deletes: the `hash` you read; the delete is refused if the file changed since.
    pub expected_hash: Option<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// Arguments to create or update an item.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteItemArgs {
    /// Item name: letters, digits, `.`, `_`, `-`.
    pub name: String,
    /// Full file text: optional YAML frontmatter between `---` lines, then Markdown.
    pub content: String,
    /// Domain folder, if any.
    pub domain: Option<String>,
    /// Sets `priority` in the frontmatter: critical, high, medium, low or minimal.
    pub priority: Option<String>,
    /// Sets `targets` in the frontmatter: which outputs receive the item.
    pub targets: Option<Vec<String>>,
    /// Machine-local item under .ai-rulez/local/.
    pub local: Option<bool>,
    /// For updates: the `hash` you read; the update is refused if the file changed since.
    pub expected_hash: Option<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// Arguments to list items.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only items of this domain.
    pub domain: Option<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// Arguments naming a domain or a profile.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NameArgs {
    /// The name.
    pub name: String,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// `add_profile` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileArgs {
    /// Profile name.
    pub name: String,
    /// Domains the profile selects.
    pub domains: Vec<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// Arguments of tools that only need the project.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectArgs {
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// `update_config` arguments: only the given keys change; comments and order survive.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateConfigArgs {
    /// Project name.
    pub name: Option<String>,
    /// Project description.
    pub description: Option<String>,
    /// Preset names.
    pub presets: Option<Vec<String>>,
    /// Maintain the .gitignore block.
    pub gitignore: Option<bool>,
    /// `split` or `inline`.
    pub rules_mode: Option<String>,
    /// One shared AGENTS.md.
    pub agents_md: Option<bool>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// `generate_outputs` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateArgs {
    /// List what would change without writing.
    pub dry_run: Option<bool>,
    /// Report drift without writing.
    pub check: Option<bool>,
    /// Profiles to use (comma-separated).
    pub profile: Option<String>,
    /// Directory to resolve the project from; default: the server's root.
    pub working_directory: Option<String>,
}

/// `init_project` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InitArgs {
    /// Project name (default: the folder name).
    pub name: Option<String>,
    /// Presets to enable (default: claude, cursor, codex).
    pub presets: Option<Vec<String>>,
    /// Directory to create .ai-rulez/ in (inside the server's root); default: the server's root.
    pub working_directory: Option<String>,
}

/// Result of a write or a simple operation.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Operation {
    /// Always true (failures are error results).
    pub success: bool,
    /// What was done, e.g. `create_rule`.
    pub operation: String,
    /// The name operated on.
    pub name: String,
    /// Project-relative path touched.
    pub path: String,
    /// A sentence for the user.
    pub message: String,
}

/// A list of items.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ItemList {
    /// Items, by priority then name.
    pub items: Vec<ItemSummary>,
    /// How many.
    pub count: usize,
}

/// A list of names.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NameList {
    /// Names, sorted.
    pub names: Vec<String>,
    /// Profiles only: profile → domains.
    pub profiles: BTreeMap<String, Vec<String>>,
    /// Profiles only: the default profile.
    pub default: Option<String>,
}

/// The config as read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfigView {
    /// Config file, project-relative.
    pub path: String,
    /// `version`.
    pub version: String,
    /// `name`.
    pub name: String,
    /// `description`.
    pub description: Option<String>,
    /// `presets`.
    pub presets: Vec<String>,
    /// `[profiles]`.
    pub profiles: BTreeMap<String, Vec<String>>,
    /// `default`.
    pub default: Option<String>,
    /// `gitignore`.
    pub gitignore: bool,
    /// `[rules] mode`.
    pub rules_mode: String,
    /// `agents_md`.
    pub agents_md: bool,
    /// Names of the enabled MCP servers.
    pub mcp_servers: Vec<String>,
    /// `sha256:` of the config file.
    pub hash: String,
}

/// One path's status after generate.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PathStatus {
    /// Project-relative path.
    pub path: String,
    /// create, update, unchanged, delete, keep, edited, blocked (write and dry run) or missing, stale, edited, blocked, orphan (check).
    pub status: String,
}

/// `generate_outputs` result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct GenerateReport {
    /// `ok` or `drift` (check mode).
    pub status: String,
    /// Every path's status, sorted by path.
    pub changes: Vec<PathStatus>,
    /// Warnings.
    pub warnings: Vec<String>,
}

/// `validate_config` result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ValidationReport {
    /// Whether no error-severity finding remains.
    pub valid: bool,
    /// Error findings (`file:line: CODE message`).
    pub errors: Vec<String>,
    /// Warning findings (`file:line: CODE message`).
    pub warnings: Vec<String>,
}

/// `lock_status` result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LockReport {
    /// Whether sources and outputs match the lock.
    pub in_sync: bool,
    /// One line per difference.
    pub changes: Vec<String>,
}

/// `get_version` result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VersionInfo {
    /// `ai-rulez`.
    pub name: String,
    /// Crate version.
    pub version: String,
}
