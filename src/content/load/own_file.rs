//! One rule file this process has just written, taken into an already loaded tree exactly as
//! loading the whole tree would have taken it (same item, same position), so the MCP server's
//! cache need not read the project again after its own write.

use crate::content::{Item, Kind, Layer, interpret};
use crate::error::{Error, Result};
use crate::frontmatter;

/// The rule item a file of the project's own root `rules/` folder holds, read from `bytes` as
/// loading the tree reads it: `path` is the project-relative path (`.ai-rulez/rules/<id>.md`),
/// whose file stem is the id. For a file this process has just written, so the cached tree can
/// take it without reading the project again.
///
/// Errors: the path does not end in `.md`; [`Error::Invalid`] as loading reports it.
pub(crate) fn root_rule_from_bytes(path: &str, bytes: &[u8]) -> Result<Item> {
    let name = path.rsplit_once('/').map_or(path, |(_, name)| name);
    let id = name
        .strip_suffix(".md")
        .ok_or_else(|| Error::invalid(path, None, "a rule file's name must end in `.md`"))?;
    let document = frontmatter::parse(path, bytes)?;
    interpret(
        Kind::Rule,
        id.to_owned(),
        Layer::Root,
        path.to_owned(),
        document,
    )
}

/// Where loading the tree would put the root-layer rule file `path` among `items`: after the
/// rules and context written inline in the config (whose source is `config_path`) and after
/// every root-layer rule file whose path sorts before it (a folder is listed in name order and
/// rules are the first kind read).
pub(crate) fn root_rule_position(items: &[Item], config_path: &str, path: &str) -> usize {
    let inline = items
        .iter()
        .take_while(|item| item.layer == Layer::Root && item.source_path == config_path)
        .count();
    inline
        + items[inline..]
            .iter()
            .take_while(|item| {
                item.layer == Layer::Root
                    && item.kind == Kind::Rule
                    && item.source_path.as_str() < path
            })
            .count()
}
