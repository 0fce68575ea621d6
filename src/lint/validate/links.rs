//! Link and import checks: relative Markdown links and reference definitions, `@path` imports
//! and skill resource mentions that point at nothing, read outside code (as
//! [`crate::markdown`] finds it).

use std::collections::BTreeSet;

use super::Checker;
use crate::content::{Item, Kind};
use crate::lint::scan::body_first_line;
use crate::markdown;

impl Checker<'_> {
    /// AR201 links, AR210 `@` imports and AR402 skill resources, outside code. `text` is the
    /// item's file text (frontmatter included), from which flagged lines are quoted.
    pub(super) fn links(&mut self, item: &Item, text: &str) {
        let folder = item
            .source_path
            .rsplit_once('/')
            .map_or("", |(folder, _)| folder)
            .to_owned();
        let resources: BTreeSet<&str> = item
            .resources
            .iter()
            .map(|resource| resource.relative_path.as_str())
            .collect();
        let file_lines: Vec<&str> = text.lines().collect();
        let quoted = |line: usize| file_lines.get(line - 1).copied().unwrap_or_default();
        let first_line = body_first_line(item);
        let outline = markdown::outline(&item.body, first_line);
        for link in &outline.links {
            let path = link
                .destination
                .split(['#', '?'])
                .next()
                .unwrap_or_default();
            if path.is_empty() || is_external(path) {
                continue;
            }
            let path = percent_decode_spaces(path);
            if item.kind == Kind::Skill && is_resource_path(&path) {
                self.resource(item, &resources, &path, link.line, quoted(link.line));
                continue;
            }
            if !self.resolves(&folder, &path) {
                self.push(
                    "AR201",
                    &item.source_path,
                    Some(link.line),
                    quoted(link.line),
                    format!("link target `{path}` does not exist (relative to {folder}/ or the project root)"),
                );
            }
        }
        let prose = markdown::mask_code(&item.body, &outline);
        for (index, line) in prose.lines().enumerate() {
            let number = first_line + index;
            for import in at_imports(line) {
                if !self.resolves(&folder, &import) {
                    self.push(
                        "AR210",
                        &item.source_path,
                        Some(number),
                        quoted(number),
                        format!("import `@{import}` does not exist (relative to {folder}/ or the project root)"),
                    );
                }
            }
            if item.kind == Kind::Skill {
                for path in resource_mentions(line) {
                    self.resource(item, &resources, &path, number, quoted(number));
                }
            }
        }
    }

    fn resource(
        &mut self,
        item: &Item,
        resources: &BTreeSet<&str>,
        path: &str,
        line: usize,
        raw_line: &str,
    ) {
        let path = path.trim_start_matches("./");
        let exists = resources.contains(path)
            || resources
                .iter()
                .any(|resource| resource.starts_with(&format!("{}/", path.trim_end_matches('/'))));
        if !exists {
            self.push(
                "AR402",
                &item.source_path,
                Some(line),
                raw_line,
                format!(
                    "skill `{}` references `{path}`, which the skill folder does not contain",
                    item.id
                ),
            );
        }
    }

    /// Whether a link target names something in the project, relative to the item's folder or
    /// to the root (`/`-anchored: the root only). Targets are resolved lexically and looked up
    /// through the confined file layer; one that leaves the project, or passes a symlink, is not
    /// judged (nothing outside is looked at) and counts as resolving.
    fn resolves(&self, folder: &str, path: &str) -> bool {
        let exists = |joined: &str| match crate::confined_fs::normalise_relative(joined) {
            None => true,
            Some(relative) if relative.is_empty() => true,
            Some(relative) => !matches!(self.project.dir.info(&relative), Ok(None)),
        };
        if let Some(anchored) = path.strip_prefix('/') {
            return exists(anchored);
        }
        exists(&format!("{folder}/{path}")) || exists(path)
    }
}

pub(super) fn is_external(target: &str) -> bool {
    let scheme = target.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || "+.-".contains(character))
    });
    scheme
        || target.starts_with("//")
        || target.starts_with('#')
        || target.contains("{{")
        || target.starts_with('$')
}

fn percent_decode_spaces(path: &str) -> String {
    path.replace("%20", " ")
}

fn is_resource_path(path: &str) -> bool {
    let path = path.trim_start_matches("./");
    ["references/", "scripts/", "assets/"]
        .iter()
        .any(|folder| path.starts_with(folder))
}

/// `@path` imports: an `@` at a word start whose last segment has a file extension.
pub(super) fn at_imports(line: &str) -> Vec<String> {
    let mut imports = Vec::new();
    let bytes = line.as_bytes();
    for (index, _) in line.match_indices('@') {
        if index > 0 && !bytes[index - 1].is_ascii_whitespace() && bytes[index - 1] != b'(' {
            continue;
        }
        let word: String = line[index + 1..]
            .chars()
            .take_while(|character| character.is_alphanumeric() || "/._-".contains(*character))
            .collect();
        let word = word.trim_end_matches('.');
        if word.is_empty() || word.starts_with('~') {
            continue;
        }
        let last = word.rsplit('/').next().unwrap_or_default();
        let has_extension = last.rsplit_once('.').is_some_and(|(stem, extension)| {
            !stem.is_empty()
                && (1..=8).contains(&extension.len())
                && extension
                    .chars()
                    .all(|character| character.is_ascii_alphanumeric())
                && !extension
                    .chars()
                    .all(|character| character.is_ascii_digit())
        });
        if has_extension {
            imports.push(word.to_owned());
        }
    }
    imports
}

/// Paths under `references/`, `scripts/` or `assets/` mentioned in prose (outside links).
pub(super) fn resource_mentions(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    for folder in ["references/", "scripts/", "assets/"] {
        for (index, _) in line.match_indices(folder) {
            let before = line[..index].chars().next_back();
            if before
                .is_some_and(|character| character.is_alphanumeric() || "/._-".contains(character))
            {
                continue;
            }
            let path: String = line[index..]
                .chars()
                .take_while(|character| character.is_alphanumeric() || "/._-".contains(*character))
                .collect();
            let path = path.trim_end_matches(['.', '/']);
            let last = path.rsplit('/').next().unwrap_or_default();
            // Only file-like mentions: a bare folder name is not a reference to check.
            if path.len() > folder.len()
                && last.contains('.')
                && !line.contains(&format!("]({path}"))
            {
                found.push(path.to_owned());
            }
        }
    }
    found
}
