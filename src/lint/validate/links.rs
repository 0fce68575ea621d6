//! Link and import checks: relative Markdown links, `@path` imports and skill resource
//! mentions that point at nothing, read outside code fences and inline code.

use std::collections::BTreeSet;

use super::Checker;
use crate::content::{Item, Kind};

impl Checker<'_> {
    /// AR201 links, AR210 `@` imports and AR402 skill resources, outside code.
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
        let mut in_fence = false;
        for (index, raw_line) in text.lines().enumerate() {
            let trimmed = raw_line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
                continue;
            }
            if in_fence {
                continue;
            }
            let line = strip_inline_code(raw_line);
            let number = index + 1;
            for target in markdown_link_targets(&line) {
                let path = target.split(['#', '?']).next().unwrap_or_default();
                if path.is_empty() || is_external(path) {
                    continue;
                }
                let path = percent_decode_spaces(path);
                if item.kind == Kind::Skill && is_resource_path(&path) {
                    self.resource(item, &resources, &path, number, raw_line);
                    continue;
                }
                if !self.resolves(&folder, &path) {
                    self.push(
                        "AR201",
                        &item.source_path,
                        Some(number),
                        raw_line,
                        format!("link target `{path}` does not exist (relative to {folder}/ or the project root)"),
                    );
                }
            }
            for import in at_imports(&line) {
                if !self.resolves(&folder, &import) {
                    self.push(
                        "AR210",
                        &item.source_path,
                        Some(number),
                        raw_line,
                        format!("import `@{import}` does not exist (relative to {folder}/ or the project root)"),
                    );
                }
            }
            if item.kind == Kind::Skill {
                for path in resource_mentions(&line) {
                    self.resource(item, &resources, &path, number, raw_line);
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

    fn resolves(&self, folder: &str, path: &str) -> bool {
        let root = &self.project.root;
        let relative = path.trim_start_matches("./");
        if path.starts_with('/') {
            return root.join(path.trim_start_matches('/')).exists();
        }
        root.join(folder).join(relative).exists() || root.join(relative).exists()
    }
}

/// Removes `inline code` spans so their text is not read as links or imports.
pub(super) fn strip_inline_code(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for character in line.chars() {
        if character == '`' {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            out.push(character);
        }
    }
    out
}

/// Targets of `[text](target)` and `![alt](target)` links on one line.
pub(super) fn markdown_link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(index) = rest.find("](") {
        let after = &rest[index + 2..];
        let Some(end) = after.find(')') else {
            break;
        };
        let target = after[..end].trim();
        let target = target.split_whitespace().next().unwrap_or_default();
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty() {
            targets.push(target.to_owned());
        }
        rest = &after[end..];
    }
    targets
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
