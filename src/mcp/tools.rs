//! The MCP tool table: names, titles, descriptions, hints and schemas, the dispatch from a tool
//! call to one library function, and the parity table pairing tools with CLI commands.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Server;
use super::args::{
    ConfigView, GenerateArgs, GenerateReport, GetContextArgs, GetRulesArgs, InitArgs, ItemArgs,
    ItemList, ListArgs, LockReport, NameArgs, NameList, Operation, PathStatus, ProfileArgs,
    ProjectArgs, SearchRulesArgs, UpdateConfigArgs, ValidationReport, VersionInfo, WriteItemArgs,
};
use crate::authoring::{self, ItemLocation, ItemRecord};
use crate::content::Kind;
use crate::retrieval::{self, ContextReply, RulesReply, RulesRequest, SearchReply};
use crate::write::Mode;

/// Item kinds with their singular and plural tool-name parts.
pub const KINDS: [(Kind, &str, &str); 5] = [
    (Kind::Rule, "rule", "rules"),
    (Kind::Context, "context", "context"),
    (Kind::Skill, "skill", "skills"),
    (Kind::Agent, "agent", "agents"),
    (Kind::Command, "command", "commands"),
];

/// Behaviour hints of a tool.
#[derive(Clone, Copy)]
struct Hints {
    read_only: bool,
    destructive: bool,
    idempotent: bool,
}

const READ: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
};
const ADD: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
};
const REPLACE: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: true,
};
const REMOVE: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
};

fn schema_object<T: JsonSchema>() -> Arc<JsonObject> {
    let schema = schemars::schema_for!(T);
    match serde_json::to_value(schema) {
        Ok(Value::Object(object)) => Arc::new(object),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tool<I: JsonSchema, O: JsonSchema>(
    name: String,
    title: String,
    description: String,
    hints: Hints,
) -> Tool {
    let mut annotations = ToolAnnotations::with_title(title.clone());
    annotations.read_only_hint = Some(hints.read_only);
    annotations.destructive_hint = Some(hints.destructive);
    annotations.idempotent_hint = Some(hints.idempotent);
    annotations.open_world_hint = Some(false);
    let mut tool = Tool::new_with_raw(name, Some(description.into()), schema_object::<I>());
    tool = tool
        .with_title(title)
        .with_annotations(annotations)
        .with_raw_output_schema(schema_object::<O>());
    tool
}

/// Every tool the server offers, in listing order.
#[must_use]
pub fn all_tools() -> Vec<Tool> {
    let mut tools = vec![
        tool::<GetRulesArgs, RulesReply>(
            "get_rules".into(),
            "Rules for a change".into(),
            "Call before creating or editing files: returns the project rules these paths need for this task. Rules marked always are sent in full, the others are ranked against the task; rules already sent in this session are not repeated. Other rules that cover the paths are named by id so you can ask for them with `include`.".into(),
            READ,
        ),
        tool::<SearchRulesArgs, SearchReply>(
            "search_rules".into(),
            "Search rules".into(),
            "Finds active rules of the whole project by topic (e.g. \"error handling\", \"database access\"), best match first. Use it when get_rules is not enough or before a decision a rule may cover.".into(),
            READ,
        ),
        tool::<GetContextArgs, ContextReply>(
            "get_context".into(),
            "Everything that applies to a path".into(),
            "Lists what applies to one file or folder, nearest scope first, each with why: scoped and global rules, context, skills, and instruction files the repository already has (AGENTS.md, CLAUDE.md, .cursor/rules, .claude/rules).".into(),
            READ,
        ),
    ];
    for (_, singular, plural) in KINDS {
        tools.push(tool::<WriteItemArgs, ItemRecord>(
            format!("create_{singular}"),
            format!("Create a {singular}"),
            format!("Creates a new {singular} in .ai-rulez/. Fails if it exists (use update_{singular}). The text is screened: hidden characters, HTML comments, prompt-injection phrases, fake role tags, secrets and risky commands are refused with the reason."),
            ADD,
        ));
        tools.push(tool::<ItemArgs, ItemRecord>(
            format!("read_{singular}"),
            format!("Read a {singular}"),
            format!("Returns a {singular}'s full file text and its hash (pass the hash as expected_hash to update_{singular})."),
            READ,
        ));
        tools.push(tool::<WriteItemArgs, ItemRecord>(
            format!("update_{singular}"),
            format!("Update a {singular}"),
            format!("Replaces an existing {singular}'s file text atomically. With expected_hash, refuses (and returns the current hash) if the file changed since you read it."),
            REPLACE,
        ));
        tools.push(tool::<ItemArgs, ItemRecord>(
            format!("delete_{singular}"),
            format!("Delete a {singular}"),
            format!("Deletes a {singular} from .ai-rulez/ (a skill's whole folder). Returns the deleted text."),
            REMOVE,
        ));
        tools.push(tool::<ListArgs, ItemList>(
            format!("list_{plural}"),
            format!("List {plural}"),
            format!("Lists the project's {plural} (all domains, or one) with priority, title and description."),
            READ,
        ));
    }
    tools.extend([
        tool::<NameArgs, Operation>("create_domain".into(), "Create a domain".into(), "Creates .ai-rulez/domains/<name>/ so items can be added to it.".into(), ADD),
        tool::<NameArgs, Operation>("delete_domain".into(), "Delete a domain".into(), "Deletes an empty domain folder; refuses while it holds items.".into(), REMOVE),
        tool::<ProjectArgs, NameList>("list_domains".into(), "List domains".into(), "Lists the domain folders of the project.".into(), READ),
        tool::<ProfileArgs, Operation>("add_profile".into(), "Add a profile".into(), "Sets [profiles] <name> = [domains] in config.toml (comments survive).".into(), REPLACE),
        tool::<NameArgs, Operation>("remove_profile".into(), "Remove a profile".into(), "Removes a profile from config.toml.".into(), REMOVE),
        tool::<ProjectArgs, NameList>("list_profiles".into(), "List profiles".into(), "Lists profiles, their domains and the default.".into(), READ),
        tool::<NameArgs, Operation>("set_default_profile".into(), "Set the default profile".into(), "Sets `default` in config.toml.".into(), REPLACE),
        tool::<ProjectArgs, ConfigView>("read_config".into(), "Read the config".into(), "Returns the project settings from config.toml.".into(), READ),
        tool::<UpdateConfigArgs, Operation>("update_config".into(), "Update the config".into(), "Changes the given config.toml keys; comments and key order survive, and the result must still load.".into(), REPLACE),
        tool::<GenerateArgs, GenerateReport>("generate_outputs".into(), "Generate assistant files".into(), "Runs ai-rulez generate (or --dry-run, or --check) for the project and returns each path's status.".into(), REPLACE),
        tool::<ProjectArgs, ValidationReport>("validate_config".into(), "Validate the project".into(), "Runs the same checks as `ai-rulez validate` and lists error and warning findings (`file:line: CODE message`).".into(), READ),
        tool::<ProjectArgs, LockReport>("lock_status".into(), "Lock status".into(), "Compares ai-rulez.lock with the sources and generated files (like `ai-rulez lock --check`).".into(), READ),
        tool::<InitArgs, Operation>("init_project".into(), "Create a project".into(), "Creates .ai-rulez/ with a working config and one example of each item kind; never overwrites.".into(), ADD),
        tool::<ProjectArgs, VersionInfo>("get_version".into(), "Version".into(), "Returns the ai-rulez version.".into(), READ),
    ]);
    tools
}

/// Pairing of MCP tools and CLI commands: (tool, command, reason when one side is missing).
pub const PARITY: [(&str, &str, &str); 23] = [
    (
        "get_rules",
        "",
        "for agents during a change; people read the generated files or use `explain`",
    ),
    (
        "search_rules",
        "",
        "for agents; people search the .ai-rulez/ Markdown with their editor",
    ),
    ("get_context", "explain", ""),
    (
        "create_/read_/update_/delete_/list_ <kind>",
        "",
        "people edit the Markdown files directly",
    ),
    ("create_domain", "", "people create the folder directly"),
    ("delete_domain", "", "people delete the folder directly"),
    ("list_domains", "", "people list .ai-rulez/domains/"),
    ("add_profile", "", "people edit config.toml"),
    ("remove_profile", "", "people edit config.toml"),
    ("list_profiles", "", "people read config.toml"),
    ("set_default_profile", "", "people edit config.toml"),
    ("read_config", "", "people read config.toml"),
    ("update_config", "", "people edit config.toml"),
    ("generate_outputs", "generate", ""),
    ("validate_config", "validate", ""),
    ("lock_status", "lock --check", ""),
    ("init_project", "init", ""),
    ("get_version", "--version", ""),
    (
        "",
        "clean",
        "removing generated files is a person's decision, not an agent's",
    ),
    (
        "",
        "lock",
        "pinning a reviewed state is a person's decision",
    ),
    (
        "",
        "hook",
        "installing git hooks changes the person's repository setup",
    ),
    ("", "mcp", "starts this server"),
    (
        "",
        "scan",
        "a CI and review gate; agents get the same screening on every write",
    ),
];

/// Renders the parity table as a Markdown table (the README embeds it).
#[must_use]
pub fn parity_markdown() -> String {
    let mut text = String::from("| MCP tool | CLI command | why one-sided |\n|---|---|---|\n");
    for (tool, command, reason) in PARITY {
        let cell = |value: &str| {
            if value.is_empty() {
                "—".to_owned()
            } else {
                format!("`{value}`")
            }
        };
        text.push_str(&format!(
            "| {} | {} | {} |\n",
            cell(tool),
            cell(command),
            reason
        ));
    }
    text
}

fn parse<T: DeserializeOwned>(arguments: Option<&JsonObject>) -> Result<T, String> {
    let value = Value::Object(arguments.cloned().unwrap_or_default());
    serde_json::from_value(value)
        .map_err(|error| format!("Invalid arguments: {error}. Check the tool's input schema."))
}

/// A reading tool's result: `text` for the model, `data` as structured content.
fn text_result<T: Serialize>(text: String, data: &T) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = serde_json::to_value(data).ok();
    result
}

/// An authoring tool's result: the same JSON as text and as structured content.
fn json_result<T: Serialize>(data: &T) -> CallToolResult {
    CallToolResult::structured(serde_json::to_value(data).unwrap_or(Value::Null))
}

fn operation(operation: &str, name: &str, path: &str, message: String) -> CallToolResult {
    json_result(&Operation {
        success: true,
        operation: operation.to_owned(),
        name: name.to_owned(),
        path: path.to_owned(),
        message,
    })
}

/// Runs one tool call; `Err` is a message for an error result.
pub(super) fn call(
    server: &Server,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<CallToolResult, String> {
    match name {
        "get_rules" => {
            let args: GetRulesArgs = parse(arguments)?;
            let start = server.start_for(
                args.working_directory.as_deref(),
                args.paths.first().map(String::as_str),
            )?;
            server.with_project(&start, |catalog, session| {
                let request = RulesRequest {
                    paths: args.paths.clone(),
                    task: args.task.clone(),
                    include: args.include.clone().unwrap_or_default(),
                    refresh: args.refresh.unwrap_or(false),
                    max_tokens: args.max_tokens.map(|tokens| tokens as usize),
                };
                let reply = retrieval::get_rules(catalog, session, &request);
                Ok(text_result(retrieval::rules_text(&reply), &reply))
            })
        }
        "search_rules" => {
            let args: SearchRulesArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project(&start, |catalog, session| {
                let reply = retrieval::search_rules(
                    catalog,
                    session,
                    &args.query,
                    args.limit.map_or(10, |limit| limit as usize),
                );
                Ok(text_result(retrieval::search_text(&reply), &reply))
            })
        }
        "get_context" => {
            let args: GetContextArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), Some(&args.path))?;
            server.with_project(&start, |catalog, _| {
                let project = &catalog.project;
                let Some(relative) = retrieval::project_relative(&project.root, &args.path) else {
                    return Err(format!(
                        "`{}` is outside project `{}`",
                        args.path, project.config.name
                    ));
                };
                let reply = retrieval::get_context(catalog, &relative, args.task.as_deref());
                Ok(text_result(retrieval::context_text(&reply), &reply))
            })
        }
        "list_domains" | "list_profiles" => {
            let args: ProjectArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project(&start, |catalog, _| {
                let project = &catalog.project;
                let profiles: BTreeMap<String, Vec<String>> = project
                    .config
                    .profiles
                    .iter()
                    .map(|(name, domains)| (name.clone(), domains.clone()))
                    .collect();
                let list = if name == "list_domains" {
                    NameList {
                        names: project.tree.domains.clone(),
                        profiles: BTreeMap::new(),
                        default: None,
                    }
                } else {
                    NameList {
                        names: profiles.keys().cloned().collect(),
                        profiles,
                        default: project.config.default_profile.clone(),
                    }
                };
                Ok(json_result(&list))
            })
        }
        "create_domain" | "delete_domain" | "remove_profile" | "set_default_profile" => {
            let args: NameArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project_mut(&start, |project| {
                let (path, message) = match name {
                    "create_domain" => (
                        authoring::create_domain(project, &args.name)?,
                        format!("Created domain `{}`.", args.name),
                    ),
                    "delete_domain" => (
                        authoring::delete_domain(project, &args.name)?,
                        format!("Deleted domain `{}`.", args.name),
                    ),
                    "remove_profile" => {
                        authoring::remove_profile(project, &args.name)?;
                        (
                            project.config_relative.clone(),
                            format!("Removed profile `{}`.", args.name),
                        )
                    }
                    _ => {
                        authoring::set_default_profile(project, &args.name)?;
                        (
                            project.config_relative.clone(),
                            format!("Default profile is now `{}`.", args.name),
                        )
                    }
                };
                Ok(operation(name, &args.name, &path, message))
            })
        }
        "add_profile" => {
            let args: ProfileArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project_mut(&start, |project| {
                authoring::set_profile(project, &args.name, &args.domains)?;
                Ok(operation(
                    name,
                    &args.name,
                    &project.config_relative,
                    format!(
                        "Profile `{}` selects {}.",
                        args.name,
                        args.domains.join(", ")
                    ),
                ))
            })
        }
        "read_config" => {
            let args: ProjectArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project(&start, |catalog, _| {
                let project = &catalog.project;
                let config = &project.config;
                let bytes = fs_err::read(project.root.join(&project.config_relative))
                    .map_err(|error| error.to_string())?;
                Ok(json_result(&ConfigView {
                    path: project.config_relative.clone(),
                    version: config.version.clone(),
                    name: config.name.clone(),
                    description: config.description.clone(),
                    presets: config.presets.clone(),
                    profiles: config
                        .profiles
                        .iter()
                        .map(|(name, domains)| (name.clone(), domains.clone()))
                        .collect(),
                    default: config.default_profile.clone(),
                    gitignore: config.gitignore,
                    rules_mode: if config.rules_mode == crate::config::RulesMode::Inline {
                        "inline"
                    } else {
                        "split"
                    }
                    .to_owned(),
                    agents_md: config.agents_md,
                    mcp_servers: config
                        .mcp_servers
                        .iter()
                        .map(|server| server.name.clone())
                        .collect(),
                    hash: crate::hash::sha256_tagged(&bytes),
                }))
            })
        }
        "update_config" => {
            let args: UpdateConfigArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project_mut(&start, |project| {
                if let Some(mode) = &args.rules_mode
                    && mode != "split"
                    && mode != "inline"
                {
                    return Err(crate::error::Error::Usage(format!(
                        "rules_mode must be `split` or `inline`, not `{mode}`"
                    )));
                }
                // The config parser accepts any preset name and only generate would fail later,
                // so unknown presets are refused here, with the known ones, as init does.
                if let Some(presets) = &args.presets {
                    let known: Vec<String> = crate::presets::builtin_specs()?
                        .into_iter()
                        .map(|spec| spec.name)
                        .collect();
                    if let Some(unknown) = presets.iter().find(|preset| !known.contains(preset)) {
                        return Err(crate::error::Error::Usage(format!(
                            "unknown preset `{unknown}`; known presets: {}",
                            known.join(", ")
                        )));
                    }
                }
                if let Some(value) = &args.name {
                    authoring::check_project_text("name", value)?;
                }
                if let Some(value) = &args.description {
                    authoring::check_project_text("description", value)?;
                }
                let mut changed = Vec::new();
                authoring::edit_config(project, |document| {
                    if let Some(value) = &args.name {
                        document.insert("name", toml_edit::value(value.as_str()));
                        changed.push("name");
                    }
                    if let Some(value) = &args.description {
                        document.insert("description", toml_edit::value(value.as_str()));
                        changed.push("description");
                    }
                    if let Some(value) = &args.presets {
                        let array: toml_edit::Array = value.iter().map(String::as_str).collect();
                        document.insert("presets", toml_edit::value(array));
                        changed.push("presets");
                    }
                    if let Some(value) = args.gitignore {
                        document.insert("gitignore", toml_edit::value(value));
                        changed.push("gitignore");
                    }
                    if let Some(value) = args.agents_md {
                        document.insert("agents_md", toml_edit::value(value));
                        changed.push("agents_md");
                    }
                    if let Some(value) = &args.rules_mode {
                        let rules = document.entry("rules").or_insert_with(toml_edit::table);
                        if let Some(table) = rules.as_table_like_mut() {
                            table.insert("mode", toml_edit::value(value.as_str()));
                        }
                        changed.push("rules.mode");
                    }
                    Ok(())
                })?;
                Ok(operation(
                    name,
                    &project.config.name,
                    &project.config_relative,
                    format!("Updated {}.", changed.join(", ")),
                ))
            })
        }
        "generate_outputs" => {
            let args: GenerateArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            let mode = if args.check.unwrap_or(false) {
                Mode::Check
            } else if args.dry_run.unwrap_or(false) {
                Mode::DryRun
            } else {
                Mode::Write
            };
            let mut warnings = Vec::new();
            let outcome = crate::generate::generate(
                &start,
                args.profile.as_deref(),
                mode,
                false,
                &mut warnings,
            )
            .map_err(|error| error.to_string())?;
            warnings.extend(outcome.report.warnings.iter().cloned());
            let drift = mode == Mode::Check && outcome.report.has_drift();
            let changes = outcome
                .report
                .changes
                .iter()
                .map(|change| PathStatus {
                    path: change.path.clone(),
                    status: if mode == Mode::Check {
                        change.status.check_word().unwrap_or("unchanged")
                    } else {
                        change.status.action_word()
                    }
                    .to_owned(),
                })
                .collect();
            Ok(json_result(&GenerateReport {
                status: if drift { "drift" } else { "ok" }.to_owned(),
                changes,
                warnings,
            }))
        }
        "validate_config" => {
            let args: ProjectArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            // The same checks as `ai-rulez validate`, so the tool and the command agree.
            let mut warnings = Vec::new();
            let report = crate::lint::validate::validate(&start, &mut warnings)
                .map_err(|error| error.to_string())?;
            let lines = |severity: crate::lint::Severity| -> Vec<String> {
                report
                    .findings
                    .iter()
                    .filter(|finding| finding.severity == severity)
                    .map(crate::lint::Finding::text_line)
                    .collect()
            };
            let errors = lines(crate::lint::Severity::Error);
            Ok(json_result(&ValidationReport {
                valid: errors.is_empty(),
                errors,
                warnings: lines(crate::lint::Severity::Warning),
            }))
        }
        "lock_status" => {
            let args: ProjectArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            let changes =
                crate::lock::pin::check_lock(&start, crate::lock::pin::Against::WorkTree, false)
                    .map_err(|error| error.to_string())?;
            Ok(json_result(&LockReport {
                in_sync: changes.is_empty(),
                changes: changes.iter().map(crate::lock::Change::line).collect(),
            }))
        }
        "init_project" => {
            let args: InitArgs = parse(arguments)?;
            if let Some(name) = &args.name {
                authoring::check_project_text("name", name).map_err(|error| error.to_string())?;
            }
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            let presets = args.presets.unwrap_or_else(|| {
                vec!["claude".to_owned(), "cursor".to_owned(), "codex".to_owned()]
            });
            let folder = crate::init::init_project(&start, args.name.as_deref(), &presets)
                .map_err(|error| error.to_string())?;
            // Reported relative to where the server started (as `working_directory` is given),
            // else to the root.
            let path = folder
                .strip_prefix(&server.start)
                .or_else(|_| folder.strip_prefix(&server.root))
                .map_or_else(
                    |_| ".ai-rulez".to_owned(),
                    |path| path.to_string_lossy().into_owned(),
                );
            Ok(operation(
                name,
                args.name.as_deref().unwrap_or(""),
                &path,
                "Created .ai-rulez/ with examples; run generate_outputs next.".to_owned(),
            ))
        }
        "get_version" => {
            let _: ProjectArgs = parse(arguments)?;
            Ok(json_result(&VersionInfo {
                name: env!("CARGO_PKG_NAME").to_owned(),
                version: env!("CARGO_PKG_VERSION").to_owned(),
            }))
        }
        other => item_call(server, other, arguments),
    }
}

fn item_call(
    server: &Server,
    name: &str,
    arguments: Option<&JsonObject>,
) -> Result<CallToolResult, String> {
    let Some((kind, verb)) = KINDS.iter().find_map(|(kind, singular, plural)| {
        ["create", "read", "update", "delete"]
            .into_iter()
            .find(|verb| name == format!("{verb}_{singular}"))
            .map(|verb| (*kind, verb))
            .or_else(|| (name == format!("list_{plural}")).then_some((*kind, "list")))
    }) else {
        return Err(format!(
            "Unknown tool `{name}`; call tools/list for the available tools."
        ));
    };
    match verb {
        "list" => {
            let args: ListArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            server.with_project(&start, |catalog, _| {
                let project = &catalog.project;
                let items = authoring::list_items(project, kind, args.domain.as_deref());
                Ok(json_result(&ItemList {
                    count: items.len(),
                    items,
                }))
            })
        }
        "read" | "delete" => {
            let args: ItemArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            let location = ItemLocation {
                kind,
                name: args.name.clone(),
                domain: args.domain.clone(),
                local: args.local.unwrap_or(false),
            };
            if verb == "read" {
                server.with_project(&start, |catalog, _| {
                    let project = &catalog.project;
                    Ok(json_result(
                        &authoring::read_item(project, &location)
                            .map_err(|error| error.to_string())?,
                    ))
                })
            } else {
                server.with_project_mut(&start, |project| {
                    Ok(json_result(&authoring::delete_item(
                        project,
                        &location,
                        args.expected_hash.as_deref(),
                    )?))
                })
            }
        }
        _ => {
            let args: WriteItemArgs = parse(arguments)?;
            let start = server.start_for(args.working_directory.as_deref(), None)?;
            let location = ItemLocation {
                kind,
                name: args.name.clone(),
                domain: args.domain.clone(),
                local: args.local.unwrap_or(false),
            };
            server.with_project_mut(&start, |project| {
                let record = if verb == "create" {
                    authoring::create_item(
                        project,
                        &location,
                        &args.content,
                        args.priority.as_deref(),
                        args.targets.as_deref(),
                    )?
                } else {
                    authoring::update_item(
                        project,
                        &location,
                        &args.content,
                        args.priority.as_deref(),
                        args.targets.as_deref(),
                        args.expected_hash.as_deref(),
                    )?
                };
                Ok(json_result(&record))
            })
        }
    }
}
