//! Repository checks: rule globs against the git index, and files in assistant folders that
//! the assistant silently ignores.

use std::path::Path;

use globset::GlobSet;

use super::{Checker, line_text};
use crate::confined_fs::{EntryKind, ProjectDir};
use crate::content::{self, Item};
use crate::lint::scan::item_text;

impl Checker<'_> {
    /// AR101: one pass over the git index with one matcher holding every glob.
    pub(super) fn globs(&mut self) {
        let mut patterns: Vec<(&Item, String)> = Vec::new();
        for item in &self.project.tree.items {
            for glob in &item.globs {
                patterns.push((item, glob.clone()));
            }
        }
        if patterns.is_empty() {
            return;
        }
        let Some(paths) = tracked_paths(&self.project.root) else {
            return;
        };
        let globs: Vec<String> = patterns.iter().map(|(_, glob)| glob.clone()).collect();
        let mut matched = vec![false; globs.len()];
        let mut invalid = vec![false; globs.len()];
        let combined: Option<GlobSet> = crate::scope::matcher(&globs);
        if let Some(combined) = combined {
            for path in &paths {
                for index in combined.matches(path) {
                    matched[index] = true;
                }
            }
        } else {
            for (index, glob) in globs.iter().enumerate() {
                match crate::scope::matcher(std::slice::from_ref(glob)) {
                    Some(single) => matched[index] = paths.iter().any(|path| single.is_match(path)),
                    None => invalid[index] = true,
                }
            }
        }
        for (index, (item, glob)) in patterns.iter().enumerate() {
            if matched[index] {
                continue;
            }
            let yaml = item.yaml.as_deref().unwrap_or_default();
            let line = content::key_line(yaml, "paths")
                .or_else(|| content::key_line(yaml, "globs"))
                .map(|line| {
                    // Prefer the line holding the pattern itself (list items sit below the key).
                    item_text(item)
                        .lines()
                        .enumerate()
                        .skip(line - 1)
                        .find(|(_, text)| text.contains(glob.as_str()))
                        .map_or(line, |(number, _)| number + 1)
                });
            let flagged = line_text(&item_text(item), line).to_owned();
            let message = if invalid[index] {
                format!(
                    "glob `{glob}` is not a valid pattern, so the {} never applies",
                    item.kind.noun()
                )
            } else {
                format!(
                    "glob `{glob}` matches no tracked file, so the {} never applies",
                    item.kind.noun()
                )
            };
            self.push("AR101", &item.source_path, line, &flagged, message);
        }
    }

    /// Files assistants silently ignore: `.md` in `.cursor/rules/`, `.github/instructions/`
    /// files without the `.instructions.md` suffix, Kiro steering frontmatter not at byte 0.
    pub(super) fn repository_traps(&mut self) {
        let dir = &self.project.dir;
        for path in files_under(dir, ".cursor/rules") {
            if has_suffix(&path, ".md") {
                self.push("AR9C1", &path, None, "", "Cursor reads only `.mdc` files in .cursor/rules/; rename it to .mdc or move it into .ai-rulez/rules/".to_owned());
            }
        }
        for path in files_under(dir, ".github/instructions") {
            if !has_suffix(&path, ".instructions.md") {
                self.push("AR9C4", &path, None, "", "Copilot reads only files ending in `.instructions.md` in .github/instructions/; rename it".to_owned());
            }
        }
        for path in files_under(dir, ".kiro/steering") {
            if !has_suffix(&path, ".md") {
                continue;
            }
            let Some(bytes) = self.project.text_of(&path).map(String::into_bytes) else {
                continue;
            };
            if bytes.starts_with(b"---") {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let late = text
                .lines()
                .take(12)
                .enumerate()
                .find(|(_, line)| line.trim_start_matches('\u{feff}').trim_end() == "---");
            if let Some((index, _)) = late {
                let next = text.lines().nth(index + 1).unwrap_or_default();
                let looks_like_key = next.split_once(':').is_some_and(|(key, _)| {
                    !key.is_empty()
                        && key.chars().all(|character| {
                            character.is_ascii_alphanumeric()
                                || character == '_'
                                || character == '-'
                        })
                });
                if looks_like_key {
                    self.push("AR9C6", &path, Some(index + 1), "---", "frontmatter does not start at byte 0, so Kiro reads it as text and ignores its `inclusion`; remove what comes before the first `---`".to_owned());
                }
            }
        }
    }
}

/// Case-insensitive suffix test (file systems on macOS and Windows ignore case).
fn has_suffix(text: &str, suffix: &str) -> bool {
    text.len() >= suffix.len()
        && text.as_bytes()[text.len() - suffix.len()..].eq_ignore_ascii_case(suffix.as_bytes())
}

/// Project-relative paths in the git index, or `None` outside a repository.
fn tracked_paths(project_root: &Path) -> Option<Vec<String>> {
    let repository = gix::discover(project_root).ok()?;
    let prefix = crate::git::index_prefix(&repository, project_root)?;
    let index = repository.index_or_empty().ok()?;
    Some(
        index
            .entries()
            .iter()
            .filter_map(|entry| {
                let path = entry.path(&index).to_string();
                path.strip_prefix(&prefix).map(str::to_owned)
            })
            .collect(),
    )
}

/// Regular files below `folder` (depth first, in name order), project-relative; symlinks are
/// not followed.
fn files_under(dir: &ProjectDir, folder: &str) -> Vec<String> {
    let mut files = Vec::new();
    collect_files(dir, folder, &mut files, 0);
    files
}

fn collect_files(dir: &ProjectDir, folder: &str, files: &mut Vec<String>, depth: usize) {
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return;
    }
    let Ok(Some(entries)) = dir.list(folder) else {
        return;
    };
    for entry in entries {
        let path = format!("{folder}/{}", entry.name);
        match entry.kind {
            EntryKind::Folder => collect_files(dir, &path, files, depth + 1),
            EntryKind::File => files.push(path),
            EntryKind::Symlink | EntryKind::Other => {}
        }
    }
}
