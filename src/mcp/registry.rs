//! The tool registry: every MCP tool is one [`ToolSpec`] declared in the module of its toolset
//! (`src/mcp/toolsets/`). `tools/list`, `tools/call` dispatch, the parity table in the README and
//! the tests all read this one list, so a tool cannot be listed without a handler, dispatched
//! without a schema, or left out of the parity table.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Server, bounds, schema};

/// A group of tools a client chooses with `--toolsets` or `[mcp] toolsets`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Toolset {
    /// Always served: the tool that enables further toolsets.
    Core,
    /// Reading the rules for a change, searching them, and reading items.
    Read,
    /// Finding and loading the project's skills on demand.
    Skills,
    /// Creating, updating and deleting items and domains.
    Author,
    /// Config, profiles, init, generate, lock status, validation, version.
    Admin,
    /// Saving corrections and proposals as rules for review, tagging rules.
    Learn,
    /// Team memory for a path: memories, learnings, refresh requests, activity, navigation.
    Memory,
    /// The instruction files the repository already has: finding and reading them.
    Context,
}

/// Every toolset: what it is called and what it is for, in listing order. A new toolset is an
/// enum variant, one row here, and one module under `toolsets/`.
pub const TOOLSETS: [(Toolset, &str, &str); 8] = [
    (
        Toolset::Core,
        "core",
        "always served; enables further toolsets during a session",
    ),
    (
        Toolset::Read,
        "read",
        "rules for a change, rule search, context for a path, items, domains",
    ),
    (
        Toolset::Skills,
        "skills",
        "find and load the project's skills on demand",
    ),
    (
        Toolset::Author,
        "author",
        "create, update and delete items and domains",
    ),
    (
        Toolset::Admin,
        "admin",
        "config, profiles, init, generate, validate, lock status, version",
    ),
    (
        Toolset::Learn,
        "learn",
        "save corrections and proposals as rules for review, tag rules",
    ),
    (
        Toolset::Memory,
        "memory",
        "team memory for a path: memories, learnings checked against the code, refresh requests, activity, navigation",
    ),
    (
        Toolset::Context,
        "context",
        "instruction files the repository already has (nested AGENTS.md, CLAUDE.md, .claude/rules, .cursor/rules, .github/instructions): find and read them",
    ),
];

/// The toolsets served when neither `--toolsets` nor `[mcp] toolsets` chooses: what an agent
/// needs for every change (at most 20 tools and 12 KB of `tools/list`, tests check both).
pub(crate) const DEFAULT_TOOLSETS: [Toolset; 1] = [Toolset::Read];

impl Toolset {
    /// The toolset's name as written in `--toolsets` and config.toml.
    #[must_use]
    pub fn name(self) -> &'static str {
        TOOLSETS
            .iter()
            .find(|(toolset, _, _)| *toolset == self)
            .map_or("", |(_, name, _)| name)
    }

    /// The toolset called `name`; `core` is always served and cannot be chosen.
    ///
    /// Errors: a message naming the valid toolsets.
    pub fn from_name(name: &str) -> Result<Self, String> {
        TOOLSETS
            .iter()
            .find(|(toolset, known, _)| *known == name && *toolset != Self::Core)
            .map(|(toolset, _, _)| *toolset)
            .ok_or_else(|| {
                format!(
                    "unknown toolset `{name}`; valid toolsets: {}",
                    Self::choosable_names().join(", ")
                )
            })
    }

    /// Names of the toolsets a client may choose, in listing order.
    #[must_use]
    pub fn choosable_names() -> Vec<&'static str> {
        TOOLSETS
            .iter()
            .filter(|(toolset, _, _)| *toolset != Self::Core)
            .map(|(_, name, _)| *name)
            .collect()
    }
}

/// What a tool does to its environment, as MCP tool annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hints {
    /// Changes nothing outside the session.
    pub read_only: bool,
    /// May replace or remove what is there (meaningful when not read-only).
    pub destructive: bool,
    /// Calling again with the same arguments changes nothing more.
    pub idempotent: bool,
    /// Reaches beyond the project (network, other systems); no tool of ours does.
    pub open_world: bool,
}

impl Hints {
    /// Reads only.
    pub const READ: Self = Self {
        read_only: true,
        destructive: false,
        idempotent: true,
        open_world: false,
    };
    /// Adds something new; a second call fails or adds again.
    pub const ADD: Self = Self {
        read_only: false,
        destructive: false,
        idempotent: false,
        open_world: false,
    };
    /// Replaces what is there; the same call again changes nothing more.
    pub const REPLACE: Self = Self {
        read_only: false,
        destructive: true,
        idempotent: true,
        open_world: false,
    };
    /// Removes something; a second call fails.
    pub const REMOVE: Self = Self {
        read_only: false,
        destructive: true,
        idempotent: false,
        open_world: false,
    };
}

/// How a tool pairs with the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// The CLI command (with flags) that does the same.
    Command(&'static str),
    /// No CLI command does this; the reason.
    NoCommand(&'static str),
}

/// CLI commands without an MCP tool, with the reason (every other command is named by a tool's
/// [`Pairing::Command`]).
pub const CLI_ONLY: [(&str, &str); 7] = [
    (
        "clean",
        "removing generated files is a person's decision, not an agent's",
    ),
    ("lock", "pinning a reviewed state is a person's decision"),
    (
        "hook",
        "installing git hooks changes the person's repository setup",
    ),
    ("mcp", "starts this server"),
    (
        "completions",
        "shell completion scripts are for people typing commands",
    ),
    (
        "scan",
        "a CI and review gate; agents get the same screening on every write",
    ),
    (
        "import",
        "switching a project over from another tool is a person's one-time decision; agents add items with the authoring tools",
    ),
];

/// One tool, declared once: everything `tools/list`, dispatch and the parity table need.
pub struct ToolSpec {
    /// Tool name (`get_rules`).
    pub name: Cow<'static, str>,
    /// Short human title.
    pub title: Cow<'static, str>,
    /// What the tool does and when to call it, for the model.
    pub description: Cow<'static, str>,
    /// Behaviour hints.
    pub hints: Hints,
    /// The toolset that serves it.
    pub toolset: Toolset,
    /// Its CLI command, or why there is none.
    pub pairing: Pairing,
    /// Typed input, typed output, and the call into the library.
    pub(crate) handler: Handler,
}

/// What a tool answers: `data` as structured content, and `text` for the model (the same JSON
/// unless the tool words it).
pub(crate) struct Answer<T> {
    text: Option<String>,
    data: T,
}

impl<T: Serialize> Answer<T> {
    /// An answer whose text block is `data` as JSON.
    pub(crate) fn data(data: T) -> Self {
        Self { text: None, data }
    }

    /// An answer with a worded text block.
    pub(crate) fn text(text: String, data: T) -> Self {
        Self {
            text: Some(text),
            data,
        }
    }

    fn into_result(self) -> CallToolResult {
        let value = serde_json::to_value(&self.data).unwrap_or(Value::Null);
        let text = self.text.unwrap_or_else(|| value.to_string());
        let mut result = CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)]);
        result.structured_content = Some(value);
        result
    }
}

/// Why a tool call failed: the message of its error result.
#[derive(Debug)]
pub(crate) struct ToolError(pub(crate) String);

impl From<crate::error::Error> for ToolError {
    fn from(error: crate::error::Error) -> Self {
        Self(error.to_string())
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self(message)
    }
}

/// What a handler returns: an answer, or why it failed.
pub(crate) type Reply<T> = Result<Answer<T>, ToolError>;

type Run = dyn Fn(&Server, JsonObject) -> Result<CallToolResult, ToolError> + Send + Sync;

/// A tool's typed handler with the schemas of its argument and answer types.
pub(crate) struct Handler {
    input_schema: fn() -> JsonObject,
    output_schema: fn() -> JsonObject,
    run: Box<Run>,
}

impl Handler {
    /// Wraps `run`, taking the input schema from `I` and the output schema from `O`.
    pub(crate) fn new<I, O>(run: impl Fn(&Server, I) -> Reply<O> + Send + Sync + 'static) -> Self
    where
        I: DeserializeOwned + JsonSchema,
        O: Serialize + JsonSchema,
    {
        // The bounds are read once, from the schema `tools/list` serves.
        let bounds = bounds::of_schema(&schema::input::<I>());
        Self {
            input_schema: schema::input::<I>,
            output_schema: schema::output::<O>,
            run: Box::new(move |server, arguments| {
                bounds::check(&bounds, &arguments)
                    .map_err(|problem| ToolError(format!("Invalid arguments: {problem}.")))?;
                let arguments: I =
                    serde_json::from_value(Value::Object(arguments)).map_err(|error| {
                        ToolError(format!(
                            "Invalid arguments: {error}. Check the tool's input schema."
                        ))
                    })?;
                run(server, arguments).map(Answer::into_result)
            }),
        }
    }
}

impl ToolSpec {
    /// The `tools/list` entry.
    #[must_use]
    pub fn to_tool(&self) -> Tool {
        let mut annotations = ToolAnnotations::default();
        annotations.read_only_hint = Some(self.hints.read_only);
        annotations.destructive_hint = Some(self.hints.destructive);
        annotations.idempotent_hint = Some(self.hints.idempotent);
        annotations.open_world_hint = Some(self.hints.open_world);
        Tool::new_with_raw(
            self.name.clone(),
            Some(self.description.clone()),
            Arc::new((self.handler.input_schema)()),
        )
        .with_title(self.title.clone())
        .with_annotations(annotations)
        .with_raw_output_schema(Arc::new((self.handler.output_schema)()))
    }

    /// Runs the tool with `arguments`; `Err` is the message of an error result.
    pub(crate) fn call(
        &self,
        server: &Server,
        arguments: JsonObject,
    ) -> Result<CallToolResult, ToolError> {
        (self.handler.run)(server, arguments)
    }
}

/// Renders the toolsets and the parity of tools and CLI commands as Markdown (the README embeds
/// it; a test compares). Consecutive tools of one toolset with the same pairing share a row.
#[must_use]
pub fn parity_markdown(specs: &[ToolSpec]) -> String {
    let mut text = String::from("| toolset | tools | default | what for |\n|---|---|---|---|\n");
    for (toolset, name, summary) in TOOLSETS {
        let names: Vec<String> = specs
            .iter()
            .filter(|spec| spec.toolset == toolset)
            .map(|spec| format!("`{}`", spec.name))
            .collect();
        let default = if toolset == Toolset::Core || DEFAULT_TOOLSETS.contains(&toolset) {
            "yes"
        } else {
            "no"
        };
        text.push_str(&format!(
            "| `{name}` | {} | {default} | {summary} |\n",
            names.join(", ")
        ));
    }
    text.push_str("\n| MCP tool | toolset | CLI command | why one-sided |\n|---|---|---|---|\n");
    let mut rows: Vec<(Vec<&str>, Toolset, Pairing)> = Vec::new();
    for spec in specs {
        match rows.last_mut() {
            Some((names, toolset, pairing))
                if *toolset == spec.toolset && *pairing == spec.pairing =>
            {
                names.push(&spec.name);
            }
            _ => rows.push((vec![&spec.name], spec.toolset, spec.pairing)),
        }
    }
    for (names, toolset, pairing) in rows {
        let names: Vec<String> = names.iter().map(|name| format!("`{name}`")).collect();
        let (command, reason) = match pairing {
            Pairing::Command(command) => (format!("`{command}`"), ""),
            Pairing::NoCommand(reason) => ("—".to_owned(), reason),
        };
        text.push_str(&format!(
            "| {} | `{}` | {command} | {reason} |\n",
            names.join(", "),
            toolset.name()
        ));
    }
    for (command, reason) in CLI_ONLY {
        text.push_str(&format!("| — | — | `{command}` | {reason} |\n"));
    }
    text
}
