//! Which project files each assistant reads by default, and from that which of the enabled
//! presets' files carry each rule and context item, so that every assistant reads each item
//! exactly once (case B40). Several assistants read files other presets write: Cursor, VS Code
//! Copilot, Windsurf, Devin, Cline, Kiro and Antigravity read the root `AGENTS.md`; VS Code also
//! reads `CLAUDE.md` and `.claude/`; Devin reads the legacy `.windsurf/rules`; Antigravity reads
//! `GEMINI.md`. The `reads` list of each spec in `templates/presets/` holds these facts with their
//! sources (harness audit of 2026-11-30, findings X1 to X4); this module only applies them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{PresetSpec, RootContent, RootSpec, fallback::Fallback, render::targets_match};
use crate::config::{Config, RulesMode};
use crate::content::{Activation, Item, Kind};

/// The decision for every rule and context item of one render: which "homes" (a root file such
/// as `AGENTS.md`, or a preset's folder such as `.cursor/rules`) carry it.
#[derive(Debug, Default)]
pub(crate) struct Placements {
    /// Item source path → the homes that carry the item. Only looked up by path (never walked
    /// in order), so a hash map (with the quick `foldhash`): a project of 100,000 rules looks
    /// up every item per preset, and comparing long shared path prefixes down a tree cost more
    /// than hashing.
    kept: HashMap<String, BTreeSet<String>, foldhash::fast::RandomState>,
    /// Item source path → the homes some preset would use that leave the item out (a hash map
    /// for the same reason).
    dropped: HashMap<String, BTreeSet<String>, foldhash::fast::RandomState>,
    /// (preset name, name of the preset that writes the file read instead) → `(item id, that
    /// file or folder)`, in item order, for items a preset leaves out of its own files.
    pub left_out: BTreeMap<(String, String), Vec<(String, String)>>,
    /// Home → the first enabled preset (config order) that writes it.
    owners: BTreeMap<String, String>,
}

impl Placements {
    /// Whether the file or folder `home` (see [`home`]) carries `item`. Only homes [`place`]
    /// decided to leave out say no, so anything this model does not describe is written as
    /// before rather than lost.
    #[must_use]
    pub(crate) fn carries(&self, item: &Item, home: &str) -> bool {
        self.dropped
            .get(&item.source_path)
            .is_none_or(|homes| !homes.contains(home))
    }
}

/// Decides, for each rule and context item in `items` (view order), which homes carry it, given
/// the enabled `presets` (config order) and the `root_writers` of each root path.
///
/// The rule, item by item: (1) a home is kept when some enabled assistant reads no other home
/// of the item (Codex, which reads only `AGENTS.md`, or Claude Code its `.claude/rules`); (2) an
/// assistant that still reads no kept home keeps its own, native (and therefore scoped) one;
/// (3) every other home is dropped, so an assistant that reads a kept home gets the item from
/// there only. When two kept homes are both read by one assistant (Codex and Claude Code both
/// enabled, read together by VS Code Copilot), the item reaches that assistant twice; the caller
/// says so through [`unavoidable_duplicates`].
#[must_use]
pub(crate) fn place(
    config: &Config,
    items: &[&Item],
    presets: &[PresetSpec],
    root_writers: &BTreeMap<String, Vec<String>>,
) -> Placements {
    let mut placements = Placements::default();
    for item in items
        .iter()
        .filter(|item| matches!(item.kind, Kind::Rule | Kind::Context))
    {
        let homes: Vec<Option<String>> = presets
            .iter()
            .map(|preset| home(config, preset, item, root_writers))
            .collect();
        for (preset, own) in presets.iter().zip(&homes) {
            if let Some(own) = own {
                placements
                    .owners
                    .entry(own.clone())
                    .or_insert_with(|| preset.name.clone());
            }
        }
        let reads: Vec<Vec<&str>> = presets
            .iter()
            .zip(&homes)
            .map(|(preset, own)| {
                let mut read: Vec<&str> = homes
                    .iter()
                    .flatten()
                    .map(String::as_str)
                    .filter(|candidate| preset_reads(config, preset, candidate))
                    .collect();
                if let Some(own) = own {
                    read.push(own.as_str());
                }
                read.sort_unstable();
                read.dedup();
                read
            })
            .collect();
        let mut kept: BTreeSet<String> = reads
            .iter()
            .filter(|read| read.len() == 1)
            .map(|read| read[0].to_owned())
            .collect();
        for (read, own) in reads.iter().zip(&homes) {
            if let Some(own) = own
                && !read.iter().any(|candidate| kept.contains(*candidate))
            {
                kept.insert(own.clone());
            }
        }
        for ((preset, own), read) in presets.iter().zip(&homes).zip(&reads) {
            if let Some(own) = own
                && !kept.contains(own)
                && let Some(instead) = read.iter().find(|candidate| kept.contains(**candidate))
                && let Some(owner) = presets
                    .iter()
                    .zip(&homes)
                    .find(|(_, home)| home.as_deref() == Some(*instead))
                    .map(|(owner, _)| owner.name.clone())
            {
                placements
                    .left_out
                    .entry((preset.name.clone(), owner))
                    .or_default()
                    .push((item.id.clone(), (*instead).to_owned()));
            }
        }
        // With `agents_md = true` an importing root writes every rule into AGENTS.md; that copy
        // is a candidate too, left out unless kept.
        let imported = presets.iter().any(|preset| {
            config.agents_md
                && preset
                    .root
                    .as_ref()
                    .is_some_and(|root| root.import_agents_md)
        });
        let agents_md = imported.then(|| "AGENTS.md".to_owned());
        let dropped: BTreeSet<String> = homes
            .iter()
            .flatten()
            .chain(agents_md.as_ref())
            .filter(|home| !kept.contains(*home))
            .cloned()
            .collect();
        placements.dropped.insert(item.source_path.clone(), dropped);
        placements.kept.insert(item.source_path.clone(), kept);
    }
    placements
}

/// Where `preset` puts `item` by itself: its root file (or `AGENTS.md` when the root file only
/// imports it), its rules folder, or the skills or workflows folder a rules folder falls back to.
/// `None` when the preset writes no such file for the item (its `targets` exclude it, or it is
/// neither a rule nor context).
#[must_use]
pub(crate) fn home(
    config: &Config,
    preset: &PresetSpec,
    item: &Item,
    root_writers: &BTreeMap<String, Vec<String>>,
) -> Option<String> {
    let own = std::slice::from_ref(&preset.name);
    let root_home = |root: &RootSpec| {
        if config.agents_md && root.import_agents_md {
            "AGENTS.md".to_owned()
        } else {
            root.path.clone()
        }
    };
    // `targets` are matched as the renderer matches them: against the file that holds the
    // item's text (AGENTS.md for an importing root) and the presets writing that file.
    let root = preset.root.as_ref().filter(|root| {
        let path = root_home(root);
        let writers = root_writers.get(&path).map_or(own, Vec::as_slice);
        targets_match(item, &path, writers)
    });
    match item.kind {
        Kind::Context => match &preset.rules {
            Some(rules) if rules.context => {
                let path = format!("{}/context-{}{}", rules.dir, item.id, rules.extension);
                targets_match(item, &path, own).then(|| rules.dir.clone())
            }
            _ => root.map(root_home),
        },
        Kind::Rule => {
            let Some(rules) = &preset.rules else {
                return root.map(root_home);
            };
            let path = format!("{}/{}{}", rules.dir, item.id, rules.extension);
            let in_folder = targets_match(item, &path, own);
            let inline_default = root.is_some_and(|root| root.content == RootContent::Context)
                && config.rules_mode == RulesMode::Inline
                && item.activation == Activation::Always;
            if let Some(root) = root
                && (inline_default || !in_folder)
            {
                return Some(root_home(root));
            }
            if !in_folder {
                return None;
            }
            if rules
                .activations
                .iter()
                .any(|name| name == item.activation.name())
            {
                return Some(rules.dir.clone());
            }
            let fallback = match item.activation {
                Activation::Auto => rules.auto_as,
                Activation::Manual => rules.manual_as,
                Activation::Always | Activation::Glob => None,
            };
            Some(match fallback {
                Some(Fallback::Skill) => preset
                    .skills
                    .as_ref()
                    .map_or_else(|| rules.dir.clone(), |skills| skills.dir.clone()),
                Some(Fallback::Workflow) => rules
                    .workflows_dir
                    .clone()
                    .unwrap_or_else(|| rules.dir.clone()),
                None => rules.dir.clone(),
            })
        }
        _ => None,
    }
}

/// Whether the assistant of `preset` reads `home` (a file or folder, project-relative): one of
/// its spec's `reads` entries is `home` or a folder above it; with `agents_md = true` a root file
/// that imports `AGENTS.md` makes it read `AGENTS.md` too.
#[must_use]
pub(crate) fn preset_reads(config: &Config, preset: &PresetSpec, home: &str) -> bool {
    let imports = config.agents_md
        && preset
            .root
            .as_ref()
            .is_some_and(|root| root.import_agents_md);
    (imports && home == "AGENTS.md") || reads_by_default(preset, home)
}

/// Whether one of the `reads` entries of `preset`'s spec is `path` (project-relative) or a
/// folder above it: the files its assistant reads whatever the config says.
#[must_use]
pub(crate) fn reads_by_default(preset: &PresetSpec, path: &str) -> bool {
    preset.reads.iter().any(|read| is_at_or_below(path, read))
}

/// Whether the project-relative `path` is `entry` or lies in the folder `entry`, as a `reads`
/// entry names files.
#[must_use]
pub(crate) fn is_at_or_below(path: &str, entry: &str) -> bool {
    path == entry
        || path
            .strip_prefix(entry)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The notes naming items that still reach one assistant twice after [`place`]: for each
/// enabled preset (config order), the items two kept homes it reads both carry. Each note
/// belongs to the preset writing the first of those homes, so it is said whenever the files
/// carrying the items change, like every other render note.
#[must_use]
pub(crate) fn unavoidable_duplicates(
    config: &Config,
    items: &[&Item],
    presets: &[PresetSpec],
    placements: &Placements,
) -> Vec<crate::plan::RenderNote> {
    let mut notes = Vec::new();
    for preset in presets {
        let mut doubled: Vec<String> = Vec::new();
        let mut where_read: BTreeSet<String> = BTreeSet::new();
        // How often the doubled items are read (fewest, most): the union of homes can be
        // larger than either when different items are doubled in different pairs of files.
        let mut fewest_reads = usize::MAX;
        let mut most_reads = 0;
        for item in items {
            let Some(kept) = placements.kept.get(&item.source_path) else {
                continue;
            };
            let read: Vec<&String> = kept
                .iter()
                .filter(|home| preset_reads(config, preset, home))
                .collect();
            if read.len() > 1 {
                fewest_reads = fewest_reads.min(read.len());
                most_reads = most_reads.max(read.len());
                doubled.push(item.id.clone());
                where_read.extend(read.into_iter().cloned());
            }
        }
        let Some(owner) = where_read
            .first()
            .and_then(|home| placements.owners.get(home))
        else {
            continue;
        };
        notes.push(crate::plan::RenderNote {
            preset: owner.clone(),
            message: format!(
                "{}: {} reads {} item{} {}, in {}, because each of those files is the only one another enabled assistant reads; set `agents_md = true` (Claude Code then reads AGENTS.md through CLAUDE.md) or drop one of those presets: {}",
                preset.name,
                preset.label,
                doubled.len(),
                if doubled.len() == 1 { "" } else { "s" },
                match (fewest_reads, most_reads) {
                    (2, 2) => "twice".to_owned(),
                    (fewest, most) if fewest == most => format!("{most} times"),
                    (fewest, most) => format!("{fewest} to {most} times"),
                },
                where_read.into_iter().collect::<Vec<_>>().join(" and "),
                doubled.join(", ")
            ),
        });
    }
    notes
}

/// Items named in the note of [`left_out_note`]; the rest are counted, since with thousands of
/// items the note would be one line of 100 KB.
const NAMED: usize = 20;

/// The note `generate` gives for the items `preset_name` leaves out of its own files because
/// its assistant reads them in a file `owner` writes, naming up to [`NAMED`] items with that file
/// (`left_out` as in [`Placements::left_out`]). The note belongs to `owner`, so it is said
/// when the files that now carry the items change, even when `preset_name` writes nothing.
#[must_use]
pub(crate) fn left_out_note(
    presets: &[PresetSpec],
    (preset_name, owner): (&str, &str),
    left_out: &[(String, String)],
) -> crate::plan::RenderNote {
    let label = presets
        .iter()
        .find(|preset| preset.name == preset_name)
        .map_or(preset_name, |preset| preset.label.as_str());
    let listed = crate::message_list::named_then_counted(
        left_out
            .iter()
            .map(|(id, instead)| format!("{id} (in {instead})")),
        NAMED,
    );
    crate::plan::RenderNote {
        preset: owner.to_owned(),
        message: format!(
            "{preset_name}: {} item{} left out of {label}'s own files because {label} already reads {} in files the {owner} preset writes: {}",
            left_out.len(),
            if left_out.len() == 1 { " is" } else { "s are" },
            if left_out.len() == 1 { "it" } else { "them" },
            listed.join(", ")
        ),
    }
}

/// For each enabled preset whose assistant also discovers another enabled preset's skills
/// folder (its spec's `skills.reads`, e.g. Gemini CLI and Codex's `.agents/skills`): preset name
/// → (that folder, the preset that writes it). The owner must read no other preset's folder
/// itself, so two presets never both leave their skills to each other.
///
/// Input: the enabled presets, in config order. Output: one entry per preset that leaves its
/// skills to another; presets without skills or `skills.reads` never appear.
#[must_use]
pub(crate) fn shared_skill_folders(presets: &[PresetSpec]) -> BTreeMap<String, (String, String)> {
    let reads_other = |preset: &PresetSpec| -> Option<(String, String)> {
        let skills = preset.skills.as_ref()?;
        presets
            .iter()
            .filter(|other| other.name != preset.name)
            .find_map(|other| {
                let dir = &other.skills.as_ref()?.dir;
                skills
                    .reads
                    .contains(dir)
                    .then(|| (dir.clone(), other.name.clone()))
            })
    };
    presets
        .iter()
        .filter_map(|preset| {
            let (dir, owner) = reads_other(preset)?;
            let owner_spec = presets.iter().find(|spec| spec.name == owner)?;
            reads_other(owner_spec)
                .is_none()
                .then(|| (preset.name.clone(), (dir, owner)))
        })
        .collect()
}
