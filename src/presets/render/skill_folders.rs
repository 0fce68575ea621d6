//! Skill folders: each skill as `<dir>/<id>/SKILL.md` plus its resources, unless the preset's
//! assistant already reads the skill in another enabled preset's folder
//! ([`super::reads::shared_skill_folders`]).

use super::{Renderer, ensure_newline, targets_match};
use crate::content::{Item, Kind};
use crate::error::Result;
use crate::plan::{Content, Markdown, Output, Plan};
use crate::presets::{PresetSpec, SkillsSpec, fields};

impl Renderer<'_> {
    /// Writes the preset's skill folders in item order, leaving out (with one note naming them)
    /// the skills its assistant reads in another preset's folder.
    ///
    /// Errors: two presets producing different content for one shared path.
    pub(super) fn skill_folders(
        &self,
        preset: &PresetSpec,
        skills: &SkillsSpec,
        plan: &mut Plan,
    ) -> Result<()> {
        let shared = self.shared_skills.get(&preset.name);
        let mut read_there = Vec::new();
        for item in self.items(Kind::Skill) {
            match shared {
                Some((dir, owner))
                    if targets_match(
                        item,
                        &format!("{dir}/{}/SKILL.md", item.id),
                        std::slice::from_ref(owner),
                    ) =>
                {
                    read_there.push(item.id.as_str());
                }
                _ => skill(preset, skills, item, plan)?,
            }
        }
        if let (Some((dir, owner)), false) = (shared, read_there.is_empty()) {
            plan.notes.push(crate::plan::RenderNote {
                preset: preset.name.clone(),
                message: format!(
                    "{}: skills are left out of {} because {} reads them in {dir}, which the {owner} preset writes: {}",
                    preset.name,
                    skills.dir,
                    preset.label,
                    read_there.join(", ")
                ),
            });
        }
        Ok(())
    }
}

/// One skill folder: `SKILL.md` with the spec's frontmatter keys, then every resource as is.
fn skill(preset: &PresetSpec, skills: &SkillsSpec, item: &Item, plan: &mut Plan) -> Result<()> {
    let folder = format!("{}/{}", skills.dir, item.id);
    let path = format!("{folder}/SKILL.md");
    if !targets_match(item, &path, std::slice::from_ref(&preset.name)) {
        return Ok(());
    }
    let yaml = fields::item_frontmatter(item, &skills.keys, true);
    let markdown = Markdown::build(
        Some(&yaml),
        &ensure_newline(&item.body),
        &item.source_path,
        false,
    );
    plan.add(Output {
        path,
        content: Content::Markdown(markdown),
        writers: vec![preset.name.clone()],
    })?;
    for resource in &item.resources {
        plan.add(Output {
            path: format!("{folder}/{}", resource.relative_path),
            content: Content::Verbatim {
                bytes: resource.bytes.clone(),
                executable: resource.executable,
            },
            writers: vec![preset.name.clone()],
        })?;
    }
    Ok(())
}
