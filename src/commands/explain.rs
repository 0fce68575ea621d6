//! `ai-rulez explain PATH`: the same answer as the MCP `get_context` tool, for a person.

use super::{Global, is_json, out, print_json, print_warnings};
use crate::cli::ExplainArgs;

/// Prints what applies to the path; returns 0.
///
/// Errors: no project, a path outside the project, or load errors.
pub(crate) fn run(global: &Global, args: &ExplainArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    // A relative path is relative to where the command runs (as in a shell), not to the root.
    let absolute = if std::path::Path::new(&args.path).is_absolute() {
        std::path::PathBuf::from(&args.path)
    } else {
        fs_err::canonicalize(&global.start)?.join(&args.path)
    };
    let absolute = camino::Utf8PathBuf::from_path_buf(absolute)
        .map_err(|path| anyhow::anyhow!("`{}` is not a UTF-8 path", path.display()))?;
    let Some(relative) = crate::retrieval::project_relative(&project.root, absolute.as_str())
    else {
        anyhow::bail!(
            "`{}` is outside project `{}` ({})",
            args.path,
            project.config.name,
            project.root.display()
        );
    };
    let catalog = crate::retrieval::Catalog::new(std::sync::Arc::new(project), Vec::new());
    let mut reply = crate::retrieval::get_context(&catalog, &relative, args.task.as_deref());
    reply.learnings = crate::memory::learnings::fresh_for_path(&catalog.project, &relative);
    if is_json(args.format) {
        print_json(&serde_json::to_value(&reply)?);
    } else {
        out(crate::retrieval::context_text(&reply).trim_end());
    }
    Ok(0)
}
