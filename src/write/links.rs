//! Symlinks at output paths. Many repositories keep `AGENTS.md -> CLAUDE.md` (or the reverse) so
//! several assistants read one file. When such a link points at another file this run writes,
//! the link is left as it is and only its target is written: nothing is ever written through a
//! link, and the link itself is not ours to replace. Every other symlink at an output path is
//! still refused by the confined file layer.

use crate::confined_fs::ProjectDir;
use crate::error::Result;
use crate::plan::{Content, Plan};

/// A symlink at an output path that is kept, with what to tell the user about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct KeptLink {
    /// A warning when the link's own output differs from its target's, so the assistants
    /// reading the link get the target's text instead of theirs; `None` when they match.
    pub warning: Option<String>,
}

/// Whether the symlink at `path` (an output of `plan`) can be kept: it must point, inside the
/// project, at another Markdown output of `plan`. Returns `None` when `path` is not such a link
/// (the caller then reports the confined layer's refusal).
///
/// The two outputs count as the same content when their bytes are equal, or when the output at
/// `path` only imports the target (`@CLAUDE.md` under a title, what `agents_md = true` writes):
/// reading the target directly is what that import asks for.
///
/// Errors: a folder on the way to `path` is a symlink, or other I/O errors.
pub(super) fn kept_link(dir: &ProjectDir, plan: &Plan, path: &str) -> Result<Option<KeptLink>> {
    let Some(target) = dir.link_target(path)? else {
        return Ok(None);
    };
    let (Some(own), Some(linked)) = (plan.outputs.get(path), plan.outputs.get(&target)) else {
        return Ok(None);
    };
    let (Content::Markdown(own), Content::Markdown(linked)) = (&own.content, &linked.content)
    else {
        return Ok(None);
    };
    let same = own.bytes == linked.bytes || only_imports(&own.bytes[own.banner_end..], &target);
    let warning = (!same).then(|| {
        format!(
            "{path}: a symlink to {target}, which ai-rulez writes with different text; the link is kept and \
             {path}'s own text is not written, so assistants reading {path} get {target}'s; to give each its own \
             file, delete the link and run `ai-rulez generate` again"
        )
    });
    Ok(Some(KeptLink { warning }))
}

/// Whether a generated Markdown body holds nothing but headings and one `@<target>` import line.
fn only_imports(body: &[u8], target: &str) -> bool {
    let text = String::from_utf8_lossy(body);
    let import = format!("@{target}");
    let mut imports = 0;
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
        if line == import {
            imports += 1;
        } else if !line.starts_with('#') {
            return false;
        }
    }
    imports == 1
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_import_of_the_target_under_a_title_is_the_same_content() {
        assert!(super::only_imports(
            b"# Project\n\n@AGENTS.md\n",
            "AGENTS.md"
        ));
        assert!(!super::only_imports(
            b"# Project\n\n@AGENTS.md\nMore.\n",
            "AGENTS.md"
        ));
        assert!(!super::only_imports(b"# Project\n", "AGENTS.md"));
    }
}
