//! The skills `ai-rulez mcp` serves on demand: which skills of the default view are served,
//! each one screened (the same screening as `scan`) before any of its files is served, their
//! files with sha256 digests and media types, and `find_skill`, which ranks them with the same
//! BM25F relevance index `get_rules` uses.
//!
//! A skill is served when its delivery ([`crate::delivery::of_skill`]) is `served` or `both`;
//! a project that serves none that way serves every skill of the view, so the tools are useful
//! before anyone sets `delivery`. Skill files are the bytes loaded through the confined project
//! directory; nothing here opens a path.

use serde::Serialize;
use serde_json::{Map, Value};

use super::relevance::{Query, RelevanceIndex};
use super::skill_screening::{self, Verdicts};
use crate::content::{Item, Layer};
use crate::delivery::{self, Delivery};
use crate::lint::Severity;
use crate::project::Project;

/// URI scheme of skill files (`skill://<name>/<path>`), as the MCP Skills extension names them.
pub(crate) const SKILL_SCHEME: &str = "skill://";

/// The entry file of every skill.
pub(crate) const SKILL_MD: &str = "SKILL.md";

/// One served file of a skill.
#[derive(Debug)]
pub(crate) struct SkillFile {
    /// Path inside the skill folder, `/`-separated (`SKILL.md`, `references/forms.md`).
    pub(crate) path: String,
    /// The bytes served.
    pub(crate) bytes: Vec<u8>,
    /// `sha256:` and the 64 lower-case hex digits of `bytes`.
    pub(crate) digest: String,
    /// Media type from the extension (see [`media_type`]).
    pub(crate) media_type: &'static str,
    /// Whether the source file has an execute bit.
    pub(crate) executable: bool,
}

/// One served skill.
#[derive(Debug)]
pub(crate) struct ServedSkill {
    /// The skill's name: its folder name, which the frontmatter `name` (if any) equals.
    pub(crate) name: String,
    /// Frontmatter `description`, else the skill's title.
    pub(crate) description: String,
    /// The domain it comes from, if any.
    pub(crate) domain: Option<String>,
    /// Its resolved delivery.
    pub(crate) delivery: Delivery,
    /// Project-relative path of its SKILL.md source.
    pub(crate) source_path: String,
    /// The served SKILL.md's frontmatter as a JSON object (what `skills/list` reports).
    pub(crate) frontmatter: Map<String, Value>,
    /// `SKILL.md` first, then the resources sorted by path.
    pub(crate) files: Vec<SkillFile>,
}

impl ServedSkill {
    /// The URI of the file at `path` of this skill.
    #[must_use]
    pub(crate) fn uri(&self, path: &str) -> String {
        format!("{SKILL_SCHEME}{}/{path}", self.name)
    }
}

/// A skill that is not served, and why: each reason names a code or rule, the file and line.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema, PartialEq, Eq)]
pub struct WithheldSkill {
    /// The skill's folder name.
    pub name: String,
    /// Why it is withheld (`AR005 at .ai-rulez/skills/x/SKILL.md:4: ...`), in file and line order.
    pub reasons: Vec<String>,
}

/// The served skills of one catalog, built on first use.
#[derive(Debug, Default)]
pub(crate) struct SkillShelf {
    /// Served skills, sorted by name.
    pub(crate) skills: Vec<ServedSkill>,
    /// Skills that failed screening (any skill) or naming (a shelved one), sorted by name.
    pub(crate) withheld: Vec<WithheldSkill>,
    /// Relevance index over `skills` (positions are indexes into `skills`).
    index: RelevanceIndex,
}

/// What building a shelf found of the screening: every candidate skill's verdict by key (see
/// [`skill_screening`]), and how many of them were screened rather than remembered.
#[derive(Debug, Default)]
pub(crate) struct Screening {
    pub(crate) verdicts: Verdicts,
    pub(crate) screened: usize,
}

impl SkillShelf {
    /// The shelf of `project` from the skills at `positions` of `project.tree.items` (the
    /// default view's skills), with what it found of the screening. Screens every candidate
    /// skill whose verdict `remembered` does not hold (by [`skill_screening::key_of`]).
    /// `refused_symlinks` are the symlinks the load refused (paths as the tree shows them): a
    /// skill whose folder holds one is withheld with finding AR035, as `ai-rulez scan` reports
    /// it, since what the symlink points at was neither loaded nor screened.
    #[must_use]
    pub(crate) fn build(
        project: &Project,
        positions: &[usize],
        remembered: &Verdicts,
        refused_symlinks: &[String],
    ) -> (Self, Screening) {
        let skills: Vec<&Item> = positions
            .iter()
            .map(|position| &project.tree.items[*position])
            .filter(|item| item.is_active() && item.kind == crate::content::Kind::Skill)
            .collect();
        let deliveries: Vec<Delivery> = skills
            .iter()
            .map(|item| delivery::of_skill(item, &project.config))
            .collect();
        let any_served = deliveries.iter().any(|delivery| delivery.is_served());
        // Every skill is screened, not only the shelved ones: `get_rules` can send a static
        // skill of a project that also serves some, and must never send one that fails.
        let candidates: Vec<(&Item, Delivery)> = skills.into_iter().zip(deliveries).collect();
        // Screening is most of the cost, and each skill's is independent.
        let outcomes = crate::parallel::map_in_order(&candidates, |(item, delivery)| {
            let key = skill_screening::key_of(project, item, &crate::lint::scan::item_text(item));
            let (errors, screened) = match remembered.get(&key) {
                Some(errors) => (errors.clone(), false),
                None => (screening_errors(project, item), true),
            };
            // The refused symlinks are a fact of the tree, not of the screened text, so they are
            // not part of the remembered verdict.
            let mut reasons = symlink_reasons(item, refused_symlinks);
            reasons.extend(errors.iter().cloned());
            // A skill is shelved when the project serves none (every skill is then offered by
            // `find_skill`) or it is served itself; a static skill of a project that serves
            // others is only withheld when its screening fails, not for an unusable name.
            let shelved = !any_served || delivery.is_served();
            let outcome = if shelved {
                Some(serve(item, *delivery, reasons))
            } else if reasons.is_empty() {
                None
            } else {
                Some(Err(reasons))
            };
            (key, errors, screened, outcome)
        });
        let mut screening = Screening::default();
        let mut served: Vec<(ServedSkill, &Item)> = Vec::new();
        let mut withheld = Vec::new();
        for ((item, _), (key, errors, screened, outcome)) in candidates.iter().zip(outcomes) {
            screening.verdicts.insert(key, errors);
            screening.screened += usize::from(screened);
            match outcome {
                None => {}
                Some(Ok(skill)) => served.push((skill, item)),
                Some(Err(reasons)) => withheld.push(WithheldSkill {
                    name: item.id.clone(),
                    reasons,
                }),
            }
        }
        served.sort_by(|left, right| left.0.name.cmp(&right.0.name));
        withheld.sort_by(|left, right| left.name.cmp(&right.name));
        let items: Vec<&Item> = served.iter().map(|(_, item)| *item).collect();
        let index = RelevanceIndex::build(&items);
        let shelf = Self {
            skills: served.into_iter().map(|(skill, _)| skill).collect(),
            withheld,
            index,
        };
        (shelf, screening)
    }

    /// Adds `unloadable` (see [`unloadable_skills`]) to the withheld skills, so `find_skill`
    /// and `load_skill` say why such a skill is missing instead of that none exists. A skill
    /// already on the shelf or withheld keeps its entry.
    pub(crate) fn note_unloadable(&mut self, unloadable: &[WithheldSkill]) {
        for skill in unloadable {
            let known = self.skills.iter().any(|served| served.name == skill.name)
                || self
                    .withheld
                    .iter()
                    .any(|withheld| withheld.name == skill.name);
            if !known {
                self.withheld.push(skill.clone());
            }
        }
        self.withheld
            .sort_by(|left, right| left.name.cmp(&right.name));
    }

    /// The served skill called `name`.
    ///
    /// Errors: a message naming the withheld skill and its reasons, or saying no such skill is
    /// served (with the closest served name, if one is close).
    pub(crate) fn get(&self, name: &str) -> Result<&ServedSkill, String> {
        if let Ok(found) = self
            .skills
            .binary_search_by(|skill| skill.name.as_str().cmp(name))
        {
            return Ok(&self.skills[found]);
        }
        if let Some(withheld) = self.withheld.iter().find(|skill| skill.name == name) {
            return Err(format!(
                "skill `{name}` is withheld: {}; fix the file and call again",
                withheld.reasons.join("; ")
            ));
        }
        let shown: String =
            crate::suggest::did_you_mean(name, self.skills.iter().map(|skill| skill.name.as_str()));
        // The name is escaped: a control character in it would reach the model's text.
        Err(format!(
            "no served skill is called `{}` (find_skill finds them){shown}",
            name.escape_debug()
        ))
    }

    /// `find_skill`: the served skills matching `query`, best first (score descending, then
    /// name), at most `limit`. A blank query lists every skill by name. Only the first 500
    /// characters of `query` are read, as `get_rules` reads a task ([`super::ranked_part`]).
    #[must_use]
    pub(crate) fn find(&self, query: &str, limit: usize) -> FoundSkills {
        let query = super::ranked_part(query);
        let query = query.as_str();
        let mut matches: Vec<(usize, f64)> = if query.trim().is_empty() {
            (0..self.skills.len())
                .map(|position| (position, 0.0))
                .collect()
        } else {
            let parsed = Query::of(query);
            let known = self.index.known(&parsed);
            let positions: Vec<usize> = (0..self.skills.len()).collect();
            self.index
                .score_many(&known, &positions)
                .into_iter()
                .enumerate()
                .filter(|(_, found)| found.score > 0.0)
                .map(|(position, found)| (position, found.score))
                .collect()
        };
        let total = matches.len();
        matches.sort_by(|left, right| {
            right
                .1
                .total_cmp(&left.1)
                .then_with(|| self.skills[left.0].name.cmp(&self.skills[right.0].name))
        });
        matches.truncate(limit);
        let skills = matches
            .into_iter()
            .map(|(position, score)| {
                let skill = &self.skills[position];
                FoundSkill {
                    name: skill.name.clone(),
                    description: skill.description.clone(),
                    domain: skill.domain.clone(),
                    uri: skill.uri(SKILL_MD),
                    score: (score * 1000.0).round() / 1000.0,
                }
            })
            .collect();
        FoundSkills {
            skills,
            matched: total,
            served: self.skills.len(),
            withheld: self.withheld.clone(),
        }
    }
}

/// One `find_skill` match.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct FoundSkill {
    /// Name to pass to `load_skill`.
    pub name: String,
    /// What the skill is for.
    pub description: String,
    /// Domain it comes from, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// URI of its SKILL.md (`skill://<name>/SKILL.md`).
    pub uri: String,
    /// Relevance to the query (BM25F, three decimals; 0 for a blank query).
    pub score: f64,
}

/// The `find_skill` reply.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct FoundSkills {
    /// Matches, best first.
    pub skills: Vec<FoundSkill>,
    /// How many skills matched before `limit` applied.
    pub matched: usize,
    /// How many skills are served in all.
    pub served: usize,
    /// Skills not served because screening found an error or their name is unusable.
    pub withheld: Vec<WithheldSkill>,
}

/// The words of the `find_skill` text block.
#[must_use]
pub(crate) fn found_text(found: &FoundSkills) -> String {
    let mut text = if found.skills.is_empty() {
        format!(
            "No served skill matches ({} served). Try other words, or an empty query to list them all.\n",
            found.served
        )
    } else {
        format!(
            "{} of {} matching skills ({} served); load one with load_skill:\n",
            found.skills.len(),
            found.matched,
            found.served
        )
    };
    for skill in &found.skills {
        text.push_str(&format!("- {}: {}\n", skill.name, skill.description));
    }
    for skill in &found.withheld {
        text.push_str(&format!(
            "Withheld: {} ({})\n",
            skill.name,
            skill.reasons.join("; ")
        ));
    }
    text
}

/// Most bytes of all files of one skill the MCP Skills extension guarantees a client accepts.
const MAX_SKILL_BYTES: usize = 16 * 1024 * 1024;
/// Most files of one skill the extension guarantees a client accepts.
const MAX_SKILL_FILES: usize = 512;

/// The error findings of the screening of `item` (the same screening as `scan`, suppressions
/// and `[lint] ignore` applied), each as a reason naming its code, file and line.
/// The AR035 reasons of the refused symlinks inside `item`'s skill folder, in path order.
fn symlink_reasons(item: &Item, refused_symlinks: &[String]) -> Vec<String> {
    let Some((folder, _)) = item.source_path.rsplit_once('/') else {
        return Vec::new();
    };
    refused_symlinks
        .iter()
        .filter(|path| {
            path.strip_prefix(folder)
                .is_some_and(|below| below.starts_with('/'))
        })
        .map(|path| {
            format!(
                "AR035 at {path}: {}",
                crate::lint::scan::SYMLINK_NOT_SCANNED
            )
        })
        .collect()
}

fn screening_errors(project: &Project, item: &Item) -> Vec<String> {
    crate::lint::scan::scan_one_item(project, item)
        .into_iter()
        .filter(|finding| finding.severity == Severity::Error)
        .map(|finding| match finding.line {
            Some(line) => format!(
                "{} at {}:{line}: {}",
                finding.code, finding.file, finding.message
            ),
            None => format!("{} at {}: {}", finding.code, finding.file, finding.message),
        })
        .collect()
}

/// The served form of `item`, or why it cannot be served: `screening_errors` (the error
/// findings of its screening), a name the Agent Skills format does not allow, a frontmatter
/// `name` other than the folder name, or more files or bytes than the MCP Skills extension's
/// per-skill limits.
fn serve(
    item: &Item,
    delivery: Delivery,
    screening_errors: Vec<String>,
) -> Result<ServedSkill, Vec<String>> {
    let mut reasons = screening_errors;
    if !is_skill_name(&item.id) {
        reasons.push(format!(
            "{}: the folder name `{}` is not a skill name (1 to 64 lower-case letters, digits and single hyphens, as the Agent Skills format requires); rename the folder",
            item.source_path, item.id
        ));
    }
    if let Some(Value::String(name)) = item.frontmatter.get("name")
        && name != &item.id
    {
        reasons.push(format!(
            "{}: frontmatter `name: {name}` differs from the folder name `{}`; make them equal",
            item.source_path, item.id
        ));
    }
    let skill_md = skill_md_text(item);
    let frontmatter = match crate::frontmatter::parse(&item.source_path, skill_md.as_bytes()) {
        Ok(document) => document.values.into_iter().collect::<Map<String, Value>>(),
        Err(error) => {
            reasons.push(error.to_string());
            Map::new()
        }
    };
    let mut files = vec![file(SKILL_MD, skill_md.into_bytes(), false)];
    files.extend(item.resources.iter().map(|resource| {
        file(
            &resource.relative_path,
            resource.bytes.clone(),
            resource.executable,
        )
    }));
    let total: usize = files.iter().map(|file| file.bytes.len()).sum();
    if files.len() > MAX_SKILL_FILES || total > MAX_SKILL_BYTES {
        reasons.push(format!(
            "{}: {} files and {total} bytes, over the MCP Skills extension's limits of {MAX_SKILL_FILES} files and {MAX_SKILL_BYTES} bytes per skill; split the skill",
            item.source_path,
            files.len()
        ));
    }
    if !reasons.is_empty() {
        return Err(reasons);
    }
    Ok(ServedSkill {
        name: item.id.clone(),
        description: item
            .description
            .clone()
            .unwrap_or_else(|| item.title.clone()),
        domain: match &item.layer {
            Layer::Domain(domain) => Some(domain.clone()),
            _ => None,
        },
        delivery,
        source_path: item.source_path.clone(),
        frontmatter,
        files,
    })
}

fn file(path: &str, bytes: Vec<u8>, executable: bool) -> SkillFile {
    let mut media_type = media_type(path);
    if media_type == OCTET_STREAM
        && std::str::from_utf8(&bytes).is_ok_and(|text| !text.contains('\0'))
    {
        media_type = "text/plain";
    }
    SkillFile {
        path: path.to_owned(),
        digest: crate::hash::sha256_tagged(&bytes),
        media_type,
        bytes,
        executable,
    }
}

/// The media type of bytes of unknown kind (RFC 2046).
const OCTET_STREAM: &str = "application/octet-stream";

/// The SKILL.md a served skill is read as: the authored frontmatter without ai-rulez's own
/// keys (as the Claude preset writes it), `name` first when absent, `description` (the title)
/// when absent, then the body.
fn skill_md_text(item: &Item) -> String {
    let mut yaml = crate::presets::fields::item_frontmatter(item, &["*".to_owned()], true);
    if item.description.is_none() {
        yaml.push_str(&format!(
            "description: {}\n",
            crate::frontmatter::yaml_string(&item.title)
        ));
    }
    let mut body = item.body.clone();
    if !body.is_empty() && !body.ends_with('\n') {
        body.push('\n');
    }
    format!("---\n{yaml}---\n{body}")
}

/// Whether `name` is a skill name by the Agent Skills format: 1 to 64 characters of lower-case
/// ASCII letters, digits and hyphens, not starting or ending with a hyphen, no two in a row.
/// Such a name is also one safe `skill://` path segment.
#[must_use]
pub(crate) fn is_skill_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The media type of a skill file from its extension (case-insensitive), as registered with
/// IANA; `application/octet-stream` for an unknown extension (a served file of unknown
/// extension whose bytes are UTF-8 text is served as `text/plain`).
#[must_use]
pub(crate) fn media_type(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let extension = name
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("txt" | "text") => "text/plain",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        Some("yaml" | "yml") => "application/yaml",
        Some("csv") => "text/csv",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("xml") => "application/xml",
        Some("js" | "mjs" | "cjs") => "text/javascript",
        Some("ts") => "text/x-typescript",
        Some("py") => "text/x-python",
        Some("sh" | "bash") => "application/x-sh",
        Some("rb") => "text/x-ruby",
        Some("go") => "text/x-go",
        Some("rs") => "text/x-rust",
        Some("sql") => "application/sql",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("gif") => "image/gif",
        Some("svg") => "image/svg+xml",
        Some("webp") => "image/webp",
        Some("pdf") => "application/pdf",
        Some("zip") => "application/zip",
        Some("gz" | "tgz") => "application/gzip",
        _ => OCTET_STREAM,
    }
}

/// The skills whose `SKILL.md` the load left out, from the load `errors` (an invalid file at
/// `<config>/skills/<name>/SKILL.md` or a domain's `skills/<name>/SKILL.md`), each with its
/// located error as the reason, sorted by name.
pub(crate) fn unloadable_skills(errors: &[crate::error::Error]) -> Vec<WithheldSkill> {
    let mut found = Vec::new();
    for error in errors {
        match error {
            crate::error::Error::Invalid { path, .. } => {
                let folder = path.strip_suffix("/SKILL.md");
                let Some((parent, name)) = folder.and_then(|folder| folder.rsplit_once('/')) else {
                    continue;
                };
                if parent == "skills" || parent.ends_with("/skills") {
                    found.push(WithheldSkill {
                        name: name.to_owned(),
                        reasons: vec![format!("{error}; the skill was not loaded")],
                    });
                }
            }
            crate::error::Error::Many(inner) => found.extend(unloadable_skills(inner)),
            _ => {}
        }
    }
    found.sort_by(|left, right| left.name.cmp(&right.name));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skill_names_follow_the_agent_skills_format() {
        for good in ["pdf", "db-migrations", "a1-b2", &"x".repeat(64)] {
            assert!(is_skill_name(good), "{good}");
        }
        for bad in [
            "",
            "-a",
            "a-",
            "a--b",
            "A",
            "a_b",
            "..",
            "a/b",
            "a.b",
            &"x".repeat(65),
        ] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn media_types_follow_the_extension() {
        assert_eq!(media_type("SKILL.md"), "text/markdown");
        assert_eq!(media_type("scripts/run.SH"), "application/x-sh");
        assert_eq!(media_type("assets/logo.png"), "image/png");
        assert_eq!(media_type("references/schema.yml"), "application/yaml");
        assert_eq!(media_type("Makefile"), "application/octet-stream");
    }
}
