//! The `author` toolset: creating, updating and deleting items (one tool per verb and kind, the
//! names authoring's own messages use, such as `use update_rule to change it`) and domains.

use super::super::args::{DeleteItemArgs, NameArgs, Operation, WriteItemArgs};
use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, ToolSpec, Toolset};
use crate::authoring::{self, ItemLocation, ItemRecord};
use crate::content::Kind;

/// Item kinds with the name part their tools use.
const KINDS: [(Kind, &str); 5] = [
    (Kind::Rule, "rule"),
    (Kind::Context, "context"),
    (Kind::Skill, "skill"),
    (Kind::Agent, "agent"),
    (Kind::Command, "command"),
];

/// Why the item tools have no CLI command.
const EDIT_FILES: Pairing = Pairing::NoCommand("people edit the Markdown files directly");

/// The toolset's tools, in listing order: create, update and delete of each item kind, then the
/// domain tools.
pub(super) fn tools() -> Vec<ToolSpec> {
    let mut tools = Vec::new();
    for (kind, singular) in KINDS {
        tools.extend([
            create_item(kind, singular),
            update_item(kind, singular),
            delete_item(kind, singular),
        ]);
    }
    tools.extend([create_domain(), delete_domain()]);
    tools
}

/// Where an item is, from a tool's arguments.
fn location(kind: Kind, name: &str, domain: Option<&String>, local: Option<bool>) -> ItemLocation {
    ItemLocation {
        kind,
        name: name.to_owned(),
        domain: domain.cloned(),
        local: local.unwrap_or(false),
    }
}

fn create_item(kind: Kind, singular: &str) -> ToolSpec {
    ToolSpec {
        name: format!("create_{singular}").into(),
        title: format!("Create a {singular}").into(),
        description: format!("Creates a new {singular} in .ai-rulez/. Fails if it exists (use update_{singular}). The text is screened: hidden characters, HTML comments, prompt-injection phrases, fake role tags, secrets, risky commands and links to hosts no active rule or context mentions are refused with the reason.").into(),
        hints: Hints::ADD,
        toolset: Toolset::Author,
        pairing: EDIT_FILES,
        handler: Handler::new(move |server, args: WriteItemArgs| -> Reply<ItemRecord> {
            let location = location(kind, &args.name, args.domain.as_ref(), args.local);
            let (priority, targets) = (args.priority.as_deref(), args.targets.as_deref());
            server.write(args.working_directory.as_deref(), |project| {
                let record =
                    authoring::create_item(project, &location, &args.content, priority, targets)?;
                Ok(Answer::data(record))
            })
        }),
    }
}

fn update_item(kind: Kind, singular: &str) -> ToolSpec {
    ToolSpec {
        name: format!("update_{singular}").into(),
        title: format!("Update a {singular}").into(),
        description: if kind == Kind::Rule {
            "Replaces an existing rule's file text atomically. An active rule keeps its body and status (its frontmatter may change, and `always: true` may be added): propose a new body with propose_rules and `revises` for a person's review. With expected_hash (from read_item), refuses and returns the current hash if the file changed since you read it.".into()
        } else {
            format!("Replaces an existing {singular}'s file text atomically. With expected_hash (from read_item), refuses and returns the current hash if the file changed since you read it.").into()
        },
        hints: Hints::REPLACE,
        toolset: Toolset::Author,
        pairing: EDIT_FILES,
        handler: Handler::new(move |server, args: WriteItemArgs| -> Reply<ItemRecord> {
            let location = location(kind, &args.name, args.domain.as_ref(), args.local);
            let (priority, targets) = (args.priority.as_deref(), args.targets.as_deref());
            let expected_hash = args.expected_hash.as_deref();
            server.write(args.working_directory.as_deref(), |project| {
                let record = authoring::update_item(
                    project,
                    &location,
                    &args.content,
                    priority,
                    targets,
                    expected_hash,
                )?;
                Ok(Answer::data(record))
            })
        }),
    }
}

fn delete_item(kind: Kind, singular: &str) -> ToolSpec {
    ToolSpec {
        name: format!("delete_{singular}").into(),
        title: format!("Delete a {singular}").into(),
        description: if kind == Kind::Rule {
            "Deletes a pending or rejected rule from .ai-rulez/; an active rule is refused (only a person turns a rule off). Returns the deleted text.".into()
        } else {
            format!("Deletes a {singular} from .ai-rulez/ (a skill's whole folder). Returns the deleted text.").into()
        },
        hints: Hints::REMOVE,
        toolset: Toolset::Author,
        pairing: EDIT_FILES,
        handler: Handler::new(move |server, args: DeleteItemArgs| -> Reply<ItemRecord> {
            let location = location(kind, &args.name, args.domain.as_ref(), args.local);
            let expected_hash = args.expected_hash.as_deref();
            server.write(args.working_directory.as_deref(), |project| {
                let record = authoring::delete_item(project, &location, expected_hash)?;
                Ok(Answer::data(record))
            })
        }),
    }
}

fn create_domain() -> ToolSpec {
    ToolSpec {
        name: "create_domain".into(),
        title: "Create a domain".into(),
        description: "Creates .ai-rulez/domains/<name>/ so items can be added to it.".into(),
        hints: Hints::ADD,
        toolset: Toolset::Author,
        pairing: Pairing::NoCommand("people create the folder directly"),
        handler: Handler::new(|server, args: NameArgs| -> Reply<Operation> {
            server.write(args.working_directory.as_deref(), |project| {
                let path = authoring::create_domain(project, &args.name)?;
                let message = format!("Created domain `{}`.", args.name);
                let done = Operation::done("create_domain", &args.name, &path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}

fn delete_domain() -> ToolSpec {
    ToolSpec {
        name: "delete_domain".into(),
        title: "Delete a domain".into(),
        description: "Deletes an empty domain folder; refuses while it holds items.".into(),
        hints: Hints::REMOVE,
        toolset: Toolset::Author,
        pairing: Pairing::NoCommand("people delete the folder directly"),
        handler: Handler::new(|server, args: NameArgs| -> Reply<Operation> {
            server.write(args.working_directory.as_deref(), |project| {
                let path = authoring::delete_domain(project, &args.name)?;
                let message = format!("Deleted domain `{}`.", args.name);
                let done = Operation::done("delete_domain", &args.name, &path, message);
                Ok(Answer::data(done))
            })
        }),
    }
}
