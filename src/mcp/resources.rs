//! MCP resources: `ai-rulez://config` (the config file), `ai-rulez://catalog` (every item as
//! JSON), and the template `ai-rulez://{kind}/{name}` (one item's file; domain items as
//! `ai-rulez://{kind}/{domain}/{name}`).

use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, Resource, ResourceContents, ResourceTemplate,
};
use serde_json::json;

use crate::content::Layer;
use crate::project::Project;

/// The fixed resources.
#[must_use]
pub(crate) fn list() -> ListResourcesResult {
    let config =
        Resource::new("ai-rulez://config", "config").with_description("The project's config.toml");
    let catalog = Resource::new("ai-rulez://catalog", "catalog")
        .with_description("Every rule, context, skill, agent and command as JSON");
    ListResourcesResult::with_all_items(vec![config, catalog])
}

/// The item template.
#[must_use]
pub(crate) fn templates() -> ListResourceTemplatesResult {
    let template = ResourceTemplate::new("ai-rulez://{kind}/{name}", "item")
        .with_description("One item's file; kind is rule, context, skill, agent or command");
    ListResourceTemplatesResult::with_all_items(vec![template])
}

/// Reads a resource.
///
/// Errors: a message for an unknown URI or a missing item.
pub(crate) fn read(project: &Project, uri: &str) -> Result<Vec<ResourceContents>, String> {
    let Some(rest) = uri.strip_prefix("ai-rulez://") else {
        return Err(format!(
            "unknown resource `{uri}`; URIs start with ai-rulez://"
        ));
    };
    if rest == "config" {
        let text = project
            .text_of(&project.config_relative)
            .ok_or_else(|| format!("{} cannot be read", project.config_relative))?;
        // Credentials written into include URLs never leave through a reply.
        let text = crate::redact::mask_url_credentials(&text).into_owned();
        return Ok(vec![ResourceContents::text(text, uri)]);
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
        return Ok(vec![ResourceContents::text(
            json!({ "items": items }).to_string(),
            uri,
        )]);
    }
    let parts: Vec<&str> = rest.split('/').collect();
    let (kind, domain, name) = match parts.as_slice() {
        [kind, name] => (*kind, None, *name),
        [kind, domain, name] => (*kind, Some(*domain), *name),
        _ => return Err(format!("unknown resource `{uri}`")),
    };
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
        .ok_or_else(|| format!("no {kind} named `{name}`"))?;
    let text = project
        .text_of(&item.source_path)
        .ok_or_else(|| format!("{} cannot be read", item.source_path))?;
    Ok(vec![ResourceContents::text(text, uri)])
}
