//! The `read` toolset: what an agent needs for every change. The rules for the files it is about
//! to edit, a topic search, everything that applies to a path, and any item's file.

use super::super::args::{
    GetContextArgs, GetRulesArgs, ListItemsArgs, ProjectArgs, ReadItemArgs, SearchRulesArgs,
};
use super::super::page::{self, ItemList};
use super::super::registry::{
    Answer, Handler, Hints, Pairing, Reply, ToolError, ToolSpec, Toolset,
};
use crate::authoring::{self, ItemLocation, ItemRecord};
use crate::learning;
use crate::retrieval::{self, ContextReply, RulesReply, RulesRequest, SearchReply};
use crate::settings::{self, NameList};

/// The toolset's tools, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        get_rules(),
        search_rules(),
        get_context(),
        read_item(),
        list_items(),
        list_domains(),
    ]
}

fn get_rules() -> ToolSpec {
    ToolSpec {
        name: "get_rules".into(),
        title: "Rules for a change".into(),
        description: "Call before creating or editing files: returns the rules, context files and skills these paths need for this task. Items marked always are sent in full; the others that cover the paths are ranked together against the task and the paths, and each one sent says why. Items already sent in this session are not repeated. The ones left out are named by id so you can ask for them with `include`.".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::NoCommand(
            "for agents during a change; people read the generated files or use `explain`",
        ),
        handler: Handler::new(|server, args: GetRulesArgs| -> Reply<RulesReply> {
            for path in &args.paths {
                super::refuse_unservable_characters("path", path)?;
            }
            if let Some(task) = &args.task {
                super::refuse_hidden_characters_in_words("task", task)?;
            }
            let hint = args.paths.first().map(String::as_str);
            server.read(args.working_directory.as_deref(), hint, |catalog, session| {
                let project = &catalog.project;
                for path in &args.paths {
                    // A path outside the project is named in the reply, as before.
                    if let Some(relative) = retrieval::project_relative(&project.root, path) {
                        super::refuse_backslash_separators("path", path, &relative, &project.dir)?;
                    }
                }
                let request = RulesRequest {
                    paths: args.paths.clone(),
                    task: args.task.clone(),
                    include: args.include.clone().unwrap_or_default(),
                    refresh: args.refresh.unwrap_or(false),
                    max_tokens: args.max_tokens.map(|tokens| tokens as usize),
                };
                let reply = retrieval::get_rules(catalog, session, &request);
                let first = session.first_uses(
                    &project.root,
                    reply.rules.iter().map(|rule| rule.id.as_str()),
                );
                // Usage counts are bookkeeping: a busy lock or a foreign usage file costs the
                // count, never the answer.
                if !server.is_read_only()
                    && let Err(error) = learning::usage::record_sent(project, &first)
                {
                    eprintln!("ai-rulez: rule usage not recorded: {error}");
                }
                Ok(Answer::text(retrieval::rules_text(&reply), reply))
            })
        }),
    }
}

fn search_rules() -> ToolSpec {
    ToolSpec {
        name: "search_rules".into(),
        title: "Search rules".into(),
        description: "Finds active rules of the whole project by topic (e.g. \"error handling\"), best match first. Use it when get_rules is not enough or before a decision a rule may cover.".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::NoCommand(
            "for agents; people search the .ai-rulez/ Markdown with their editor",
        ),
        handler: Handler::new(|server, args: SearchRulesArgs| -> Reply<SearchReply> {
            if args.query.trim().is_empty() {
                return Err(ToolError(
                    "query is empty; give the topic in a few words, such as \"error handling\" (list_items lists every rule)".to_owned(),
                ));
            }
            super::refuse_hidden_characters_in_words("query", &args.query)?;
            let limit = args.limit.map_or(10, |limit| limit as usize);
            server.read(args.working_directory.as_deref(), None, |catalog, session| {
                let reply = retrieval::search_rules(catalog, session, &args.query, limit);
                Ok(Answer::text(retrieval::search_text(&reply), reply))
            })
        }),
    }
}

fn get_context() -> ToolSpec {
    ToolSpec {
        name: "get_context".into(),
        title: "Everything that applies to a path".into(),
        description: "Lists what applies to one file or folder, nearest scope first, each with why: rules, context, the team's memories of the folder and its parents (first line and id; verbose for full text), skills, and instruction files the repository already has (AGENTS.md, CLAUDE.md, .cursor/rules, .claude/rules); then learnings read from files there that are unchanged since (verify before relying on them).".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::Command("explain"),
        handler: Handler::new(|server, args: GetContextArgs| -> Reply<ContextReply> {
            super::refuse_unservable_characters("path", &args.path)?;
            let hint = Some(args.path.as_str());
            server.read(args.working_directory.as_deref(), hint, |catalog, _| {
                let project = &catalog.project;
                let Some(relative) = retrieval::project_relative(&project.root, &args.path)
                else {
                    return Err(ToolError(format!(
                        "`{}` is outside project `{}`",
                        args.path.escape_debug(),
                        project.config.name
                    )));
                };
                super::refuse_backslash_separators("path", &args.path, &relative, &project.dir)?;
                let memory_text = if args.verbose.unwrap_or(false) {
                    retrieval::MemoryText::Full
                } else {
                    retrieval::MemoryText::Preview
                };
                let mut reply =
                    retrieval::get_context_with(catalog, &relative, args.task.as_deref(), memory_text);
                reply.learnings = crate::memory::learnings::fresh_for_path(project, &relative);
                Ok(Answer::text(retrieval::context_text(&reply), reply))
            })
        }),
    }
}

fn read_item() -> ToolSpec {
    ToolSpec {
        name: "read_item".into(),
        title: "Read an item".into(),
        description: "Returns a rule's, context's, skill's, agent's or command's full file text and its hash (pass the hash as expected_hash to update_<kind> or delete_<kind>). A served skill the security screening withholds is refused with its findings.".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::NoCommand("people open the Markdown file"),
        handler: Handler::new(|server, args: ReadItemArgs| -> Reply<ItemRecord> {
            let location = ItemLocation {
                kind: args.kind.into(),
                name: args.name,
                domain: args.domain,
                local: args.local.unwrap_or(false),
            };
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                crate::mcp::resources::refuse_withheld_skill(
                    catalog.skill_shelf(),
                    location.kind.noun(),
                    &location.name,
                )
                .map_err(ToolError)?;
                Ok(Answer::data(authoring::read_item(
                    &catalog.project,
                    &location,
                )?))
            })
        }),
    }
}

fn list_items() -> ToolSpec {
    ToolSpec {
        name: "list_items".into(),
        title: "List items".into(),
        description: "Lists the project's items of one kind (all domains, or one) with priority, title and description.".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::NoCommand("people list the .ai-rulez/ folders"),
        handler: Handler::new(|server, args: ListItemsArgs| -> Reply<ItemList> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let domain = args.domain.as_deref();
                let items = authoring::list_items(&catalog.project, args.kind.into(), domain);
                let (items, page) = page::cut(items, args.offset, args.limit);
                Ok(Answer::data(ItemList { items, page }))
            })
        }),
    }
}

fn list_domains() -> ToolSpec {
    ToolSpec {
        name: "list_domains".into(),
        title: "List domains".into(),
        description: "Lists the domain folders of the project.".into(),
        hints: Hints::READ,
        toolset: Toolset::Read,
        pairing: Pairing::NoCommand("people list .ai-rulez/domains/"),
        handler: Handler::new(|server, args: ProjectArgs| -> Reply<NameList> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(settings::domains(&catalog.project)))
            })
        }),
    }
}
