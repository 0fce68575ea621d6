//! The `skills` toolset: the project's skills served on demand, so a skill costs tokens only in
//! the session that needs it. Find one for a task, load its SKILL.md, list and read its other
//! files. Every skill is screened before any of its files is served (see
//! `retrieval::skills`).

use super::super::registry::{Answer, Handler, Hints, Pairing, Reply, ToolSpec, Toolset};
use super::super::skill_args::{FindSkillArgs, LoadSkillArgs, ReadSkillFileArgs, SkillNameArgs};
use crate::retrieval::skill_files::{self, LoadedSkill, SkillFileWindow, SkillResources};
use crate::retrieval::skills::{self, FoundSkills};

/// The toolset's tools, in listing order.
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        find_skill(),
        load_skill(),
        list_skill_resources(),
        read_skill_file(),
    ]
}

/// Why the skill tools have no CLI command.
const NO_COMMAND: &str = "for agents; people read the skill folders under .ai-rulez/";

fn find_skill() -> ToolSpec {
    ToolSpec {
        name: "find_skill".into(),
        title: "Find a skill".into(),
        description: "Finds the project's skills for a task, best match first (name, description). Call it before a task a team workflow or checklist may cover, then load_skill.".into(),
        hints: Hints::READ,
        toolset: Toolset::Skills,
        pairing: Pairing::NoCommand(NO_COMMAND),
        handler: Handler::new(|server, args: FindSkillArgs| -> Reply<FoundSkills> {
            super::refuse_hidden_characters_in_words("query", &args.query)?;
            let limit = args.limit.map_or(5, |limit| limit as usize);
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let found = catalog.skill_shelf().find(&args.query, limit);
                Ok(Answer::text(skills::found_text(&found), found))
            })
        }),
    }
}

fn load_skill() -> ToolSpec {
    ToolSpec {
        name: "load_skill".into(),
        title: "Load a skill".into(),
        description: "Returns a skill's SKILL.md (cut at budget_bytes and marked when given) and its other files with sizes and sha256 digests.".into(),
        hints: Hints::READ,
        toolset: Toolset::Skills,
        pairing: Pairing::NoCommand(NO_COMMAND),
        handler: Handler::new(|server, args: LoadSkillArgs| -> Reply<LoadedSkill> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let budget = args.budget_bytes.map(|budget| budget as usize);
                let loaded = skill_files::load(catalog.skill_shelf(), &args.name, budget)?;
                Ok(Answer::text(skill_files::loaded_text(&loaded), loaded))
            })
        }),
    }
}

fn list_skill_resources() -> ToolSpec {
    ToolSpec {
        name: "list_skill_resources".into(),
        title: "List a skill's files".into(),
        description: "Lists every file of a skill (SKILL.md, references, scripts, assets) with its skill:// URI, size, sha256 digest and media type.".into(),
        hints: Hints::READ,
        toolset: Toolset::Skills,
        pairing: Pairing::NoCommand(NO_COMMAND),
        handler: Handler::new(|server, args: SkillNameArgs| -> Reply<SkillResources> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                Ok(Answer::data(skill_files::list_resources(
                    catalog.skill_shelf(),
                    &args.name,
                )?))
            })
        }),
    }
}

fn read_skill_file() -> ToolSpec {
    ToolSpec {
        name: "read_skill_file".into(),
        title: "Read a skill file".into(),
        description: "Returns a byte window of one skill file (text, or base64 when not UTF-8) with the whole file's size and sha256; follow next_offset for the rest.".into(),
        hints: Hints::READ,
        toolset: Toolset::Skills,
        pairing: Pairing::NoCommand(NO_COMMAND),
        handler: Handler::new(|server, args: ReadSkillFileArgs| -> Reply<SkillFileWindow> {
            server.read(args.working_directory.as_deref(), None, |catalog, _| {
                let offset = args.offset.map_or(0, |offset| offset as usize);
                let length = args.length.map(|length| length as usize);
                Ok(Answer::data(skill_files::read_window(
                    catalog.skill_shelf(),
                    &args.uri,
                    offset,
                    length,
                )?))
            })
        }),
    }
}
