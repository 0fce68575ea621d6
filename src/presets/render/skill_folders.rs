//! Skill folders: each skill as `<dir>/<id>/SKILL.md` plus its resources, unless the preset's
//! assistant already reads the skill in another enabled preset's folder
//! ([`super::reads::shared_skill_folders`]).

use super::{Renderer, targets_match};
use crate::content::Kind;
use crate::error::Result;
use crate::plan::Plan;
use crate::presets::{PresetSpec, SkillsSpec};

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
            // A skill served over MCP is left out of the folders of presets that can call it.
            if self.served.omits(preset, item) {
                continue;
            }
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
                _ => Self::skill(preset, skills, item, plan)?,
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
