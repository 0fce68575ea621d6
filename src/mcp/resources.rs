//! MCP resources: `ai-rulez://config` (the config file), `ai-rulez://catalog` (every item as
//! JSON), the template `ai-rulez://{kind}/{name}` (one item's file; domain items as
//! `ai-rulez://{kind}/{domain}/{name}`), and every file of a served skill as
//! `skill://<name>/<path>` (the MCP Skills extension's URIs), with its size and sha256 digest
//! under `_meta`. Each carries the media type of its file, so a client can render Markdown as
//! Markdown and hand TOML to a TOML reader.

use base64::Engine as _;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, MetaObject, Resource, ResourceContents,
    ResourceTemplate, SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::json;

use crate::content::Layer;
use crate::project::Project;
use crate::retrieval::skills::{SKILL_MD, SKILL_SCHEME, SkillShelf};

/// `_meta` key of a skill file's digest, in the MCP Skills extension's reverse-domain prefix.
pub(crate) const DIGEST_META: &str = "io.modelcontextprotocol.skills/digest";

/// The fixed resources, then every file of each served skill of `shelf` (when the project
/// loads), skill by skill, SKILL.md first.
#[must_use]
pub(crate) fn list(shelf: Option<&SkillShelf>) -> ListResourcesResult {
    let config = Resource::new("ai-rulez://config", "config")
        .with_description("The project's config.toml")
        .with_mime_type(TOML);
    let catalog = Resource::new("ai-rulez://catalog", "catalog")
        .with_description("Every rule, context, skill, agent and command as JSON")
        .with_mime_type(JSON);
    let mut resources = vec![config, catalog];
    for skill in shelf.map_or(&[][..], |shelf| shelf.skills.as_slice()) {
        for file in &skill.files {
            let (name, description) = if file.path == SKILL_MD {
                (skill.name.clone(), skill.description.clone())
            } else {
                (
                    format!("{}/{}", skill.name, file.path),
                    format!("A file of skill {}", skill.name),
                )
            };
            resources.push(
                Resource::new(skill.uri(&file.path), name)
                    .with_description(description)
                    .with_mime_type(file.media_type)
                    .with_size(file.bytes.len() as u64)
                    .with_meta(digest_meta(&file.digest)),
            );
        }
    }
    ListResourcesResult::with_all_items(resources)
}

fn digest_meta(digest: &str) -> MetaObject {
    let mut meta = serde_json::Map::new();
    meta.insert(DIGEST_META.to_owned(), json!(digest));
    MetaObject(meta)
}

/// The item template.
#[must_use]
pub(crate) fn templates() -> ListResourceTemplatesResult {
    let template = ResourceTemplate::new("ai-rulez://{kind}/{name}", "item")
        .with_description("One item's file; kind is rule, context, skill, agent or command")
        .with_mime_type(MARKDOWN);
    let context = ResourceTemplate::new("context://{scope}/{path}", "instruction file")
        .with_description("An instruction file the repository already has (nested AGENTS.md, CLAUDE.md, .claude/rules, .cursor/rules, .github/instructions), by the URI find_context gives; scope is its folder, `.` for the root")
        .with_mime_type(MARKDOWN);
    let skill = ResourceTemplate::new(format!("{SKILL_SCHEME}{{name}}/{{path}}"), "skill file")
        .with_description(
            "A file of a served skill; path is SKILL.md or one listed by list_skill_resources",
        );
    ListResourceTemplatesResult::with_all_items(vec![template, skill, context])
}

/// Reads a `context://` resource: the whole current text of the instruction file the index
/// knows by that URI (the URI only selects an index entry; it is never opened as a path).
///
/// Errors: as [`crate::instruction_files::load_context`].
pub(crate) fn read_context(
    index: &crate::instruction_files::InstructionIndex,
    dir: &crate::confined_fs::ProjectDir,
    uri: &str,
) -> Result<Vec<ResourceContents>, String> {
    let budget = usize::try_from(crate::instruction_files::MAX_FILE_BYTES).unwrap_or(usize::MAX);
    let loaded = crate::instruction_files::load_context(index, dir, Some(uri), None, budget)?;
    let media_type = media_type_of(&loaded.path);
    Ok(vec![
        ResourceContents::text(loaded.text, uri).with_mime_type(media_type),
    ])
}

/// The MCP Skills extension's entry of `skill`: the URI of its SKILL.md, the served
/// SKILL.md's frontmatter as a JSON object, and every file with its sha256 digest and size.
#[must_use]
pub(crate) fn skill_entry(skill: &crate::retrieval::skills::ServedSkill) -> rmcp::model::Skill {
    let mut frontmatter = SkillFrontmatter::new(skill.name.clone(), skill.description.clone());
    for (key, value) in &skill.frontmatter {
        if key != "name" && key != "description" {
            frontmatter = frontmatter.with_field(key.clone(), value.clone());
        }
    }
    let files = skill
        .files
        .iter()
        .map(|file| {
            SkillResource::new(
                skill.uri(&file.path),
                file.digest.clone(),
                file.bytes.len() as u64,
            )
        })
        .collect();
    rmcp::model::Skill::new(
        skill.uri(SKILL_MD),
        frontmatter,
        SkillResources::Files(files),
    )
}

/// `skills/get`: the entry of the skill whose SKILL.md is at `uri`.
///
/// Errors: a URI that is not a served skill's SKILL.md, or a withheld skill (named with why).
pub(crate) fn get_skill(shelf: &SkillShelf, uri: &str) -> Result<rmcp::model::Skill, String> {
    let (skill, file) = crate::retrieval::skill_files::file_of_uri(shelf, uri)?;
    if file.path != SKILL_MD {
        return Err(format!(
            "`{uri}` is not a skill's SKILL.md; skills/get takes skill://<name>/SKILL.md"
        ));
    }
    Ok(skill_entry(skill))
}

/// Reads `skill://<name>/<path>` from `shelf`: text for a UTF-8 file, else base64, with its
/// media type and digest.
///
/// Errors: as [`crate::retrieval::skill_files::file_of_uri`].
pub(crate) fn read_skill(shelf: &SkillShelf, uri: &str) -> Result<Vec<ResourceContents>, String> {
    let (skill, file) = crate::retrieval::skill_files::file_of_uri(shelf, uri)?;
    let uri = skill.uri(&file.path);
    let contents = match std::str::from_utf8(&file.bytes) {
        Ok(text) => ResourceContents::text(text, uri),
        Err(_) => ResourceContents::blob(
            base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            uri,
        ),
    };
    Ok(vec![
        contents
            .with_mime_type(file.media_type)
            .with_meta(digest_meta(&file.digest)),
    ])
}

/// `Err` naming the findings when `kind`/`name` is a skill `shelf` withholds (screening found an
/// error in it): its text must not reach an agent through the item tools or resources either,
/// or withholding it from `load_skill` would mean nothing.
///
/// Errors: the message, with the reasons and the way out.
pub(crate) fn refuse_withheld_skill(
    shelf: &SkillShelf,
    kind: &str,
    name: &str,
) -> Result<(), String> {
    if kind != "skill" {
        return Ok(());
    }
    match shelf.withheld.iter().find(|skill| skill.name == name) {
        Some(withheld) => Err(format!(
            "skill `{}` is withheld: {}; a person must review its files (`ai-rulez scan` names the findings), or replace it with update_skill",
            name.escape_debug(),
            withheld.reasons.join("; ")
        )),
        None => Ok(()),
    }
}

/// Reads a resource; an item resource of a skill `shelf` withholds is refused (see
/// [`refuse_withheld_skill`]).
///
/// Errors: a message for an unknown URI, a missing item or a withheld skill.
pub(crate) fn read(
    project: &Project,
    shelf: &SkillShelf,
    uri: &str,
) -> Result<Vec<ResourceContents>, String> {
    let Some(rest) = uri.strip_prefix("ai-rulez://") else {
        return Err(format!(
            "unknown resource `{uri}`; URIs start with ai-rulez:// or skill://"
        ));
    };
    if rest == "config" {
        let text = project
            .text_of(&project.config_relative)
            .ok_or_else(|| format!("{} cannot be read", project.config_relative))?;
        // Credentials written into include URLs never leave through a reply.
        let text = crate::redact::mask_url_credentials(&text).into_owned();
        let media_type = media_type_of(&project.config_relative);
        return Ok(vec![
            ResourceContents::text(text, uri).with_mime_type(media_type),
        ]);
    }
    if rest == "catalog" {
        let items: Vec<serde_json::Value> = project
            .tree
            .items
            .iter()
            .map(|item| {
                json!({
                    "kind": item.kind.noun(),
                    "name": item.id,
                    "domain": match &item.layer { Layer::Domain(domain) => domain.clone(), _ => String::new() },
                    "title": item.title,
                    "priority": item.priority.name(),
                    "path": item.source_path,
                    "pending": !item.is_active(),
                })
            })
            .collect();
        return Ok(vec![
            ResourceContents::text(json!({ "items": items }).to_string(), uri).with_mime_type(JSON),
        ]);
    }
    let shown = uri.escape_debug();
    let parts: Vec<&str> = rest.split('/').collect();
    let (kind, domain, name) = match parts.as_slice() {
        [kind, name] => (*kind, None, *name),
        [kind, domain, name] => (*kind, Some(*domain), *name),
        _ => {
            return Err(format!(
                "unknown resource `{shown}`; use ai-rulez://<kind>/<name> or ai-rulez://<kind>/<domain>/<name>"
            ));
        }
    };
    // Each segment is checked before any look-up, so the error names the segment at fault
    // instead of saying the item does not exist.
    if !crate::content::Kind::ALL
        .iter()
        .any(|known| known.noun() == kind)
    {
        let nouns: Vec<&str> = crate::content::Kind::ALL
            .iter()
            .map(|known| known.noun())
            .collect();
        let (last, others) = nouns.split_last().unwrap_or((&"rule", &[]));
        return Err(format!(
            "`{shown}`: unknown kind `{}`; use {} or {last}",
            kind.escape_debug(),
            others.join(", ")
        ));
    }
    if parts
        .iter()
        .any(|part| part.is_empty() || *part == "." || *part == "..")
    {
        return Err(format!(
            "`{shown}` is refused: empty, `.` and `..` segments name no item"
        ));
    }
    if let Some(domain) = domain
        && !project
            .tree
            .items
            .iter()
            .any(|item| matches!(&item.layer, Layer::Domain(found) if found == domain))
    {
        return Err(format!(
            "`{shown}`: no domain `{}`; the middle segment is a domain (ai-rulez://{kind}/<domain>/<name>)",
            domain.escape_debug()
        ));
    }
    let item = project
        .tree
        .items
        .iter()
        .find(|item| {
            item.kind.noun() == kind
                && item.id == name
                && match (&item.layer, domain) {
                    (Layer::Domain(found), Some(wanted)) => found == wanted,
                    (Layer::Root, None) => true,
                    _ => false,
                }
        })
        .ok_or_else(|| format!("no {kind} named `{}`", name.escape_debug()))?;
    refuse_withheld_skill(shelf, kind, name)?;
    let text = project
        .text_of(&item.source_path)
        .ok_or_else(|| format!("{} cannot be read", item.source_path))?;
    let media_type = media_type_of(&item.source_path);
    Ok(vec![
        ResourceContents::text(text, uri).with_mime_type(media_type),
    ])
}

/// Markdown, as registered in RFC 7763.
const MARKDOWN: &str = "text/markdown";
/// TOML, as registered with IANA in 2024.
const TOML: &str = "application/toml";
/// JSON (RFC 8259).
const JSON: &str = "application/json";

/// The media type of a served file, from its extension (`path` is project-relative, `/`
/// separated): Markdown, TOML or JSON, else `text/plain` (every file served is text).
fn media_type_of(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, extension)| extension.to_ascii_lowercase());
    match extension.as_deref() {
        Some("md" | "markdown") => MARKDOWN,
        Some("toml") => TOML,
        Some("json") => JSON,
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_follow_the_extension() {
        assert_eq!(media_type_of(".ai-rulez/rules/a.md"), MARKDOWN);
        assert_eq!(media_type_of(".ai-rulez/skills/x/SKILL.MD"), MARKDOWN);
        assert_eq!(media_type_of(".ai-rulez/config.toml"), TOML);
        assert_eq!(media_type_of("ai-rulez.toml"), TOML);
        assert_eq!(media_type_of("data/catalog.json"), JSON);
        assert_eq!(media_type_of("notes.txt"), "text/plain");
        assert_eq!(media_type_of("Makefile"), "text/plain");
    }
}
