//! Argument and result types of the MCP tools. Their JSON schemas (schemars, made portable by
//! [`super::schema`]) are the tools' input and output schemas, and their field doc comments are
//! the descriptions a model reads, so they stay short. `deny_unknown_fields` makes every input
//! schema `additionalProperties: false`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::content::Kind;

/// `get_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetRulesArgs {
    /// Paths of the files you will create or edit (absolute, or relative to the project root).
    pub(crate) paths: Vec<String>,
    /// One sentence about the change, such as "add pagination to the orders endpoint" (first 500 characters used). Without it every applicable rule is sent.
    pub(crate) task: Option<String>,
    /// Ids from a previous reply's list that you want in full (`kind:id`, such as `skill:release`, when a rule shares the id).
    pub(crate) include: Option<Vec<String>>,
    /// Send rules again even if already sent in this session (after your context was reset).
    pub(crate) refresh: Option<bool>,
    /// Cap on the reply size in estimated tokens (default 20000).
    #[schemars(range(min = 100, max = 1_000_000))]
    pub(crate) max_tokens: Option<u32>,
    /// Folder to find the project from (relative to where the server started); default: there.
    pub(crate) working_directory: Option<String>,
}

/// `search_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchRulesArgs {
    /// The topic, in a few words.
    pub(crate) query: String,
    /// Most rules to return (default 10).
    #[schemars(range(min = 1, max = 50))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `get_context` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GetContextArgs {
    /// A file or folder (absolute, or relative to the project root).
    pub(crate) path: String,
    /// Optional sentence about the task, used to order entries by relevance.
    pub(crate) task: Option<String>,
    /// Team memories in full instead of their first line (default false).
    pub(crate) verbose: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `find_context` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FindContextArgs {
    /// A file (absolute, or relative to the project root): the instruction files of the folders
    /// enclosing it, nearest first, and the rules whose globs match it. Not with scope.
    pub(crate) path: Option<String>,
    /// A scope folder, relative to the project root or absolute inside it (`.` for the root):
    /// every instruction file, rule and agent of that folder. Not with path.
    pub(crate) scope: Option<String>,
    /// With scope: also the scopes below it (default false).
    pub(crate) recursive: Option<bool>,
    /// Words about the task: results are ranked by them; without path, files matching none are
    /// left out (with path, every file that applies to it is kept).
    pub(crate) task: Option<String>,
    /// Only this kind.
    pub(crate) kind: Option<ContextFileKind>,
    /// Most results (default 10).
    #[schemars(range(min = 1, max = 50))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// The kind of an instruction file, as `find_context` takes it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ContextFileKind {
    // Variants carry no doc comments: with them the schema would become a `oneOf` of constants
    // instead of one string `enum`.
    Instruction,
    Rule,
    Agent,
}

impl From<ContextFileKind> for crate::instruction_files::FileKind {
    fn from(kind: ContextFileKind) -> Self {
        match kind {
            ContextFileKind::Instruction => Self::Instruction,
            ContextFileKind::Rule => Self::Rule,
            ContextFileKind::Agent => Self::Agent,
        }
    }
}

/// `load_context` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LoadContextArgs {
    /// The file's `context://` URI, as `find_context` gives it. Or give scope and name.
    pub(crate) uri: Option<String>,
    /// The file's scope folder (`.` for the root), with name.
    pub(crate) scope: Option<String>,
    /// The file's name in its scope (`AGENTS.md`, a rule's name, or its path within the scope).
    pub(crate) name: Option<String>,
    /// Most bytes of text returned (default 65536); a longer file is cut at a line end.
    #[schemars(range(min = 256, max = 1_048_576))]
    pub(crate) budget_bytes: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// The kind of an item, as tools name it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ItemKind {
    // Variants carry no doc comments: with them the schema would become a `oneOf` of constants
    // instead of one string `enum`.
    Rule,
    Context,
    Skill,
    Agent,
    Command,
}

impl From<ItemKind> for Kind {
    fn from(kind: ItemKind) -> Self {
        match kind {
            ItemKind::Rule => Kind::Rule,
            ItemKind::Context => Kind::Context,
            ItemKind::Skill => Kind::Skill,
            ItemKind::Agent => Kind::Agent,
            ItemKind::Command => Kind::Command,
        }
    }
}

/// `read_item` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadItemArgs {
    /// Item kind.
    pub(crate) kind: ItemKind,
    /// Item name: the file name without `.md`, or the skill's folder.
    pub(crate) name: String,
    /// Its domain folder under .ai-rulez/domains/, if any.
    pub(crate) domain: Option<String>,
    /// A machine-local item under .ai-rulez/local/.
    pub(crate) local: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `list_items` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListItemsArgs {
    /// Item kind.
    pub(crate) kind: ItemKind,
    /// Only items of this domain.
    pub(crate) domain: Option<String>,
    /// Skip this many entries (the `page.next_offset` of the previous reply); default 0.
    #[schemars(range(min = 0, max = 2_147_483_647))]
    pub(crate) offset: Option<u32>,
    /// Most entries in this reply (default 100).
    #[schemars(range(min = 1, max = 1000))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Arguments naming one item to delete.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeleteItemArgs {
    /// Item name: letters, digits, `.`, `_`, `-` (the file name without `.md`, or the skill folder).
    pub(crate) name: String,
    /// Domain folder under .ai-rulez/domains/, if the item belongs to one.
    pub(crate) domain: Option<String>,
    /// Machine-local item under .ai-rulez/local/ (never generated into shared files).
    pub(crate) local: Option<bool>,
    /// The `hash` you read; the delete is refused if the file changed since.
    pub(crate) expected_hash: Option<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Arguments to create or update an item.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WriteItemArgs {
    /// Item name: letters, digits, `.`, `_`, `-`.
    pub(crate) name: String,
    /// Full file text: optional YAML frontmatter between `---` lines, then Markdown.
    pub(crate) content: String,
    /// Domain folder, if any.
    pub(crate) domain: Option<String>,
    /// Sets `priority` in the frontmatter.
    #[schemars(extend("enum" = ["critical", "high", "medium", "low", "minimal"]))]
    pub(crate) priority: Option<String>,
    /// Sets `targets` in the frontmatter: which outputs receive the item.
    pub(crate) targets: Option<Vec<String>>,
    /// Machine-local item under .ai-rulez/local/.
    pub(crate) local: Option<bool>,
    /// For updates: the `hash` you read; the update is refused if the file changed since.
    pub(crate) expected_hash: Option<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Arguments naming a domain or a profile.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NameArgs {
    /// The name.
    pub(crate) name: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `add_profile` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProfileArgs {
    /// Profile name.
    pub(crate) name: String,
    /// Domains the profile selects.
    pub(crate) domains: Vec<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Arguments of tools that only need the project.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProjectArgs {
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `update_config` arguments: only the given keys change; comments and order survive.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct UpdateConfigArgs {
    /// Project name.
    pub(crate) name: Option<String>,
    /// Project description.
    pub(crate) description: Option<String>,
    /// Preset names.
    pub(crate) presets: Option<Vec<String>>,
    /// Maintain the .gitignore block.
    pub(crate) gitignore: Option<bool>,
    /// `[rules] mode`: one file per rule, or the rules inlined into each assistant's main file.
    #[schemars(extend("enum" = ["split", "inline"]))]
    pub(crate) rules_mode: Option<String>,
    /// One shared AGENTS.md.
    pub(crate) agents_md: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `generate_outputs` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct GenerateArgs {
    /// List what would change without writing.
    pub(crate) dry_run: Option<bool>,
    /// Report drift without writing.
    pub(crate) check: Option<bool>,
    /// Profiles to use (comma-separated).
    pub(crate) profile: Option<String>,
    /// Skip this many entries (the `page.next_offset` of the previous reply); default 0.
    #[schemars(range(min = 0, max = 2_147_483_647))]
    pub(crate) offset: Option<u32>,
    /// Most entries in this reply (default 100).
    #[schemars(range(min = 1, max = 1000))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `validate_config` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ValidateArgs {
    /// Skip this many entries (the `page.next_offset` of the previous reply); default 0.
    #[schemars(range(min = 0, max = 2_147_483_647))]
    pub(crate) offset: Option<u32>,
    /// Most entries in this reply (default 100).
    #[schemars(range(min = 1, max = 1000))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `init_project` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct InitArgs {
    /// Project name (default: the folder name).
    pub(crate) name: Option<String>,
    /// Presets to enable (default: claude, cursor, codex).
    pub(crate) presets: Option<Vec<String>>,
    /// Folder to create .ai-rulez/ in (relative to where the server started); default: there.
    pub(crate) working_directory: Option<String>,
    /// Create a project inside an existing one on purpose (default: refused).
    pub(crate) nested: Option<bool>,
}

/// `enable_toolset` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnableToolsetArgs {
    /// The toolset to add to this session.
    #[schemars(schema_with = "toolset_name_schema")]
    pub(crate) toolset: String,
}

/// One string out of the choosable toolset names, read from the registry so that a new toolset
/// appears here by itself.
fn toolset_name_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "string",
        "enum": super::registry::Toolset::choosable_names(),
    })
}

/// Result of a write or a simple operation.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct Operation {
    /// Always true (failures are error results).
    pub(crate) success: bool,
    /// What was done: the tool, e.g. `create_domain`.
    #[serde(rename = "operation")]
    pub(crate) tool: String,
    /// The name operated on.
    pub(crate) name: String,
    /// Project-relative path touched.
    pub(crate) path: String,
    /// A sentence for the user.
    pub(crate) message: String,
}

impl Operation {
    /// A successful call of `tool` on `name` that touched `path`, with a sentence for the user.
    pub(crate) fn done(tool: &str, name: &str, path: &str, message: String) -> Self {
        Self {
            success: true,
            tool: tool.to_owned(),
            name: name.to_owned(),
            path: path.to_owned(),
            message,
        }
    }
}

/// `enable_toolset` result.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct ToolsetsServed {
    /// Every toolset this session now serves.
    pub(crate) toolsets: Vec<String>,
    /// Tools this call added to the list (empty when the toolset was already served).
    pub(crate) added: Vec<String>,
}

/// `record_feedback` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordFeedbackArgs {
    /// One short, general, imperative sentence, e.g. "Use the repository layer for database access; never query from route handlers."
    pub(crate) rule: String,
    /// Files the correction concerned; the first one's folder is the default scope.
    pub(crate) paths: Option<Vec<String>>,
    /// `global`, `section:<folder>` or `glob:<patterns>`; default: from `paths`, else global.
    pub(crate) scope: Option<String>,
    /// The user's correction in a few words.
    pub(crate) evidence: Option<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// One entry of `propose_rules`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposalArgs {
    /// 3-6 words, at most 60 characters.
    pub(crate) title: String,
    /// The rule: short, imperative, self-contained.
    pub(crate) body: String,
    /// Up to 12 words or phrases (40 characters each) a task contains when the rule matters.
    pub(crate) triggers: Option<Vec<String>>,
    /// True only if the rule must be followed on essentially every edit in its scope.
    pub(crate) always: Option<bool>,
    /// `global` (default), `section:<folder>` or `glob:<patterns>`: the narrowest that fits.
    pub(crate) scope: Option<String>,
    /// A few words on why.
    pub(crate) evidence: Option<String>,
    /// Links, paths or commit ids it came from.
    pub(crate) refs: Option<Vec<String>>,
    /// Id of an active rule whose text this entry would replace after a person's review.
    pub(crate) revises: Option<String>,
}

/// `propose_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProposeRulesArgs {
    /// The rules to save (at most 40 are read).
    pub(crate) rules: Vec<ProposalArgs>,
    /// Links of review comments you decided not to turn into rules, so they are not offered again.
    pub(crate) dismiss: Option<Vec<String>>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `organize_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OrganizeRulesArgs {
    /// Also list rules that already have a title and triggers, to redo them.
    pub(crate) all: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// One entry of `tag_rules`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TagArgs {
    /// Rule id.
    pub(crate) id: String,
    /// 3-6 words.
    pub(crate) title: Option<String>,
    /// Up to 12 words or phrases (40 characters each) a task contains when the rule matters; replaces the old ones.
    pub(crate) triggers: Option<Vec<String>>,
    /// true pins the rule (sent on every call in its scope); only a person unpins.
    pub(crate) always: Option<bool>,
}

/// `tag_rules` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TagRulesArgs {
    /// The tags to save (at most 40 are read).
    pub(crate) tags: Vec<TagArgs>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `learn_from_reviews` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LearnFromReviewsArgs {
    /// `gh` (default: the project repository's review comments through the user's GitHub CLI login) or `file`.
    pub(crate) source: Option<ReviewSourceArg>,
    /// With source `file`: a JSON file of review comments inside the project, as `gh api repos/OWNER/REPO/pulls/comments` prints it.
    pub(crate) file: Option<String>,
    /// Leave out comments older than this many days (default 90).
    #[schemars(range(min = 1, max = 3650))]
    pub(crate) since_days: Option<u32>,
    /// Least number of similar comments for a candidate (default 1: every actionable comment).
    #[schemars(range(min = 1, max = 1000))]
    pub(crate) min_repeats: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Where `learn_from_reviews` reads comments from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReviewSourceArg {
    // Variants carry no doc comments, so the schema stays one string `enum`: `gh` runs the
    // GitHub CLI, `file` reads the `file` argument.
    Gh,
    File,
}
/// `discover_conventions` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DiscoverConventionsArgs {
    /// Folders or files to scan (absolute, or relative to the project root); default: the whole project.
    pub(crate) paths: Option<Vec<String>>,
    /// Share of observations one option must hold to be reported (above 0.5, at most 1; default 0.9).
    pub(crate) min_ratio: Option<f64>,
    /// Number of files that must show an aspect (default 5).
    #[schemars(range(min = 1, max = 2_147_483_647))]
    pub(crate) min_files: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

// The memory toolset: learnings, the refresh queue and the activity log.

/// `record_learning` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordLearningArgs {
    /// What you learned from the files, in a sentence or two (a fact about this code, not a rule).
    pub(crate) claim: String,
    /// The files the claim rests on (project-relative or absolute; at most 50). Their git blob ids are recorded now.
    pub(crate) files_read: Vec<String>,
    /// Id of a learning this one replaces; it is retired.
    pub(crate) replaces: Option<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `review_learnings` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReviewLearningsArgs {
    /// Only learnings read from files at or below this file or folder; default: all.
    pub(crate) path: Option<String>,
    /// Most learnings listed, stale ones first (default 100); counts cover all.
    #[schemars(range(min = 1, max = 5000))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `retire_learning` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RetireLearningArgs {
    /// The learning's id.
    pub(crate) id: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Why an item needs a refresh.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RefreshReasonArg {
    // Variants carry no doc comments, so the schema stays one string `enum`.
    Stale,
    Contradictory,
    Duplicate,
    TooNarrow,
    Unclear,
}

impl RefreshReasonArg {
    /// The reason as request files write it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Stale => "stale",
            Self::Contradictory => "contradictory",
            Self::Duplicate => "duplicate",
            Self::TooNarrow => "too_narrow",
            Self::Unclear => "unclear",
        }
    }
}

/// `request_refresh` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RequestRefreshArgs {
    /// Id of the learning, rule, other item or memory to refresh.
    pub(crate) item_id: String,
    /// Why it needs a refresh.
    pub(crate) reason: RefreshReasonArg,
    /// What you noticed, for whoever resolves the request.
    pub(crate) note: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `list_refresh_requests` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ListRefreshRequestsArgs {
    /// Also list resolved requests (default: open ones only).
    pub(crate) all: Option<bool>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// How a refresh request was resolved.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RefreshOutcomeArg {
    // Variants carry no doc comments, so the schema stays one string `enum`.
    Applied,
    Rejected,
}

/// `resolve_refresh` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResolveRefreshArgs {
    /// The request's id.
    pub(crate) id: String,
    /// Applied (the item was refreshed) or rejected (it stays as it is).
    pub(crate) outcome: RefreshOutcomeArg,
    /// One line saying what was done or why not.
    pub(crate) note: Option<String>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// Refresh requests as listed.
#[derive(Debug, Serialize, JsonSchema)]
pub(crate) struct RefreshRequestList {
    /// Requests, sorted by id.
    pub(crate) requests: Vec<crate::memory::refresh::RefreshRequest>,
    /// Request files that could not be read.
    pub(crate) problems: Vec<String>,
}

/// `log_activity` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct LogActivityArgs {
    /// One word: edited, reviewed, refactored, investigated, ...
    pub(crate) action: String,
    /// Files or folders it touched (project-relative or absolute; at most 50).
    pub(crate) paths: Vec<String>,
    /// One line saying what and why.
    pub(crate) summary: String,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}

/// `recent_activity` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecentActivityArgs {
    /// Only entries touching this file or folder (or below it); default: all.
    pub(crate) path: Option<String>,
    /// Most entries (default 20), newest first.
    #[schemars(range(min = 1, max = 200))]
    pub(crate) limit: Option<u32>,
    /// Folder to find the project from; default: where the server started.
    pub(crate) working_directory: Option<String>,
}
