//! Skills whose delivery is `served` stay out of the skill trees of presets whose assistant can
//! call MCP tools; those trees get one small stub skill instead ([`STUB_NAME`]) that tells the
//! agent to call `find_skill` and `load_skill`. A skills folder that an assistant without MCP
//! also reads keeps every skill as a file, and `generate` names those presets in a warning.
//!
//! "Can call MCP tools" means ai-rulez writes the preset's MCP settings file (`[mcp]` in
//! `templates/presets/<name>.toml`): only then can the project's `[[mcp_servers]]` entry for
//! `ai-rulez mcp` reach the assistant. docs/presets.md ("Served skills") lists each preset.

use std::collections::{BTreeMap, BTreeSet};

use super::PresetSpec;
use crate::content::{Item, Kind};
use crate::delivery::{self, Delivery};
use crate::mcp_config::{DocumentShape, McpServer};
use crate::plan::{Content, Markdown, Output};
use crate::project::{Project, View};

/// Folder name (and `name`) of the generated stub skill. An authored skill of that id replaces
/// the stub.
pub(crate) const STUB_NAME: &str = "ai-rulez-skills";

/// Which skills each preset leaves out and which presets get the stub, for one render.
#[derive(Debug, Default)]
pub(crate) struct ServedSkills {
    /// Ids of the skills whose delivery is `served`, sorted.
    served: BTreeSet<String>,
    /// Presets whose skills folder holds no copy of a served skill (and gets the stub).
    omitting: BTreeSet<String>,
    /// Whether the stub is written (no authored skill takes its name).
    stub: bool,
}

impl ServedSkills {
    /// Decides for `view` and `presets`; warnings for `generate` are pushed to `warnings`:
    /// the presets that keep served skills as files, and a project with served skills but no
    /// `[[mcp_servers]]` entry running `ai-rulez mcp` (then every preset keeps them as files).
    pub(crate) fn decide(
        project: &Project,
        view: &View<'_>,
        presets: &[PresetSpec],
        warnings: &mut Vec<String>,
    ) -> Self {
        let skills: Vec<&Item> = view
            .items
            .iter()
            .copied()
            .filter(|item| item.kind == Kind::Skill)
            .collect();
        let served: BTreeSet<String> = skills
            .iter()
            .filter(|item| delivery::of_skill(item, &project.config) == Delivery::Served)
            .map(|item| item.id.clone())
            .collect();
        if served.is_empty() {
            return Self::default();
        }
        let names: Vec<&str> = served.iter().map(String::as_str).collect();
        // Nothing in the project proves that any assistant can reach the server, so leaving the
        // skills out of the folders would take them away from every assistant: they stay files.
        let Some(ai_rulez_entry) = ai_rulez_server(project) else {
            warnings.push(format!(
                "served skills ({}) are written as files for every preset: no `[[mcp_servers]]` entry runs `ai-rulez mcp`, so no assistant could load them; add these four lines to the config to serve them:\n  [[mcp_servers]]\n  name = \"ai-rulez\"\n  command = \"ai-rulez\"\n  args = [\"mcp\"]",
                names.join(", ")
            ));
            return Self {
                served,
                omitting: BTreeSet::new(),
                stub: false,
            };
        };
        // Presets sharing a skills folder share its content: one without MCP keeps copies there
        // for all of them.
        let mut by_folder: BTreeMap<&str, Vec<&PresetSpec>> = BTreeMap::new();
        for preset in presets {
            if let Some(skills) = &preset.skills {
                by_folder
                    .entry(skills.dir.as_str())
                    .or_default()
                    .push(preset);
            }
        }
        let mut omitting = BTreeSet::new();
        let mut without_mcp: Vec<String> = Vec::new();
        let mut left_out: Vec<String> = Vec::new();
        let mut sharing: Vec<String> = Vec::new();
        for (folder, writers) in &by_folder {
            let blind: Vec<(&str, Reach)> = writers
                .iter()
                .map(|preset| (preset.name.as_str(), reach(preset, ai_rulez_entry)))
                .filter(|(_, reach)| *reach != Reach::Carried)
                .collect();
            if blind.is_empty() {
                omitting.extend(writers.iter().map(|preset| preset.name.clone()));
                continue;
            }
            for (name, reach) in &blind {
                match reach {
                    Reach::NoSettings => without_mcp.push((*name).to_owned()),
                    Reach::LeftOut => left_out.push((*name).to_owned()),
                    Reach::Carried => {}
                }
            }
            sharing.extend(
                writers
                    .iter()
                    .filter(|preset| !blind.iter().any(|(name, _)| *name == preset.name))
                    .map(|preset| format!("{} (shares {folder})", preset.name)),
            );
        }
        if !without_mcp.is_empty() {
            without_mcp.sort();
            let mut message = format!(
                "served skills ({}) are written as files for {}: ai-rulez writes no MCP settings for {}, so {} cannot call find_skill; use `delivery: both` for skills that should stay files, or disable the preset",
                names.join(", "),
                without_mcp.join(", "),
                if without_mcp.len() == 1 { "it" } else { "them" },
                if without_mcp.len() == 1 { "it" } else { "they" },
            );
            if !sharing.is_empty() && left_out.is_empty() {
                message.push_str(&format!("; {} get the files too", sharing.join(", ")));
            }
            warnings.push(message);
        }
        if !left_out.is_empty() {
            left_out.sort();
            let mut message = format!(
                "served skills ({}) are written as files for {}: the `{}` MCP server entry is left out of {} MCP settings (see the warning about it), so {} cannot call find_skill; rename the entry or change its transport so every preset can carry it",
                names.join(", "),
                left_out.join(", "),
                ai_rulez_entry.name,
                if left_out.len() == 1 { "its" } else { "their" },
                if left_out.len() == 1 { "it" } else { "they" },
            );
            if !sharing.is_empty() {
                message.push_str(&format!("; {} get the files too", sharing.join(", ")));
            }
            warnings.push(message);
        }
        let stub = !skills.iter().any(|item| item.id == STUB_NAME);
        if !stub && !omitting.is_empty() {
            warnings.push(format!(
                "served skills ({}) are left out of the skill folders of {}, whose `{STUB_NAME}` skill would tell the assistant to find them with find_skill, but an authored skill `{STUB_NAME}` takes its place, so the assistant is not told; rename that skill (or say the same in it)",
                names.join(", "),
                omitting.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
        Self {
            served,
            omitting,
            stub,
        }
    }

    /// Whether `preset` leaves `skill` out of its skills folder.
    pub(crate) fn omits(&self, preset: &PresetSpec, skill: &Item) -> bool {
        self.omitting.contains(&preset.name) && self.served.contains(&skill.id)
    }

    /// The stub skill for `preset`'s skills folder `dir`, when it leaves served skills out.
    pub(crate) fn stub_for(&self, preset: &PresetSpec, dir: &str) -> Option<Output> {
        if !self.stub || !self.omitting.contains(&preset.name) {
            return None;
        }
        let yaml = format!("name: {STUB_NAME}\ndescription: {STUB_DESCRIPTION}\n");
        let body = format!(
            "# Project skills on demand\n\n{} not written here: the `ai-rulez` MCP server serves them, so they cost nothing until one is needed. Before a task that a team workflow, checklist or convention may cover:\n\n1. Call `find_skill` with a few words about the task as `query` (if your tools do not list it, call `enable_toolset` with `{{\"toolset\": \"skills\"}}` first). It answers the best matches, each with its name and description.\n2. Call `load_skill` with the chosen `name` and follow the instructions it returns.\n3. When those instructions name a file of the skill (`references/`, `scripts/`, `assets/`), call `list_skill_resources` and read the file with `read_skill_file`.\n",
            match self.served.len() {
                1 => "One of this project's skills is".to_owned(),
                count => format!("{count} of this project's skills are"),
            }
        );
        let path = format!("{dir}/{STUB_NAME}/SKILL.md");
        Some(Output {
            content: Content::Markdown(Markdown::build(Some(&yaml), &body, ".ai-rulez/", false)),
            path,
            writers: vec![preset.name.clone()],
        })
    }
}

/// The stub's `description`, written for the assistant's skill selection.
const STUB_DESCRIPTION: &str = "Finds and loads this project's skills that are served over MCP instead of written as files. Use before a task that a project workflow, checklist or convention may cover.";

/// Whether a preset's assistant can reach the `ai-rulez mcp` server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// ai-rulez writes no MCP settings for the preset.
    NoSettings,
    /// Its MCP settings leave the server's entry out: a name the assistant never starts (Codex)
    /// or a transport its settings cannot express.
    LeftOut,
    /// The entry is in its settings.
    Carried,
}

/// How `preset` reaches `server`, the entry that runs `ai-rulez mcp`.
fn reach(preset: &PresetSpec, server: &McpServer) -> Reach {
    let Some(spec) = &preset.mcp else {
        return Reach::NoSettings;
    };
    let Ok(shape) = spec.shape.parse::<DocumentShape>() else {
        return Reach::NoSettings;
    };
    let name_ok = shape != DocumentShape::CodexConfigToml
        || crate::mcp_config::is_portable_server_name(&server.name);
    if name_ok && shape.supports(server.transport) {
        Reach::Carried
    } else {
        Reach::LeftOut
    }
}

/// The first `[[mcp_servers]]` entry that starts `ai-rulez mcp` (directly, or through a
/// runner such as `npx ai-rulez mcp`).
fn ai_rulez_server(project: &Project) -> Option<&McpServer> {
    project.config.mcp_servers.iter().find(|server| {
        let program_is_ours = |word: &str| {
            let file = word.rsplit(['/', '\\']).next().unwrap_or(word);
            file == "ai-rulez" || file.starts_with("ai-rulez@") || file == "ai-rulez.exe"
        };
        let command_is_ours = server.command.as_deref().is_some_and(program_is_ours);
        let arg_is_ours = server.args.iter().any(|arg| program_is_ours(arg));
        (command_is_ours || arg_is_ours) && server.args.iter().any(|arg| arg == "mcp")
    })
}
