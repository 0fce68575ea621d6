//! `scan`: the screening function run over a whole project — every source item (also those
//! that fail to load), every skill file, and every MCP server entry of the config.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::screen::{ScreenKind, limits, mcp_server_text, screen, screen_secrets};
use super::{Finding, Report};
use crate::content::{Item, Layer};
use crate::error::{Error, Result};
use crate::project::{self, Project};

/// Texts of the files a run looked at, by project-relative path; `None` marks files whose
/// inline comments must not silence findings (sources pulled in through `[[includes]]`).
pub(crate) type Texts = HashMap<String, Option<Arc<str>>>;

/// The screening run over each text: [`screen`] (everything) or [`screen_secrets`] (AR001 only).
type Screening = fn(&str, ScreenKind) -> Vec<Finding>;

/// Scans the project around `start`.
///
/// Output: the report, with `[lint] ignore` and inline suppressions applied. Errors: no project,
/// or a config that cannot be read (items that fail to load are still scanned as raw text).
pub fn scan(start: &Path, warnings: &mut Vec<String>) -> Result<Report> {
    let (project, errors) = project::load_lenient(start, warnings)?;
    Ok(scan_project(&project, &errors))
}

/// Scans an already loaded project; `load_errors` are the item errors of lenient loading,
/// whose files are scanned from disk.
#[must_use]
pub(crate) fn scan_project(project: &Project, load_errors: &[Error]) -> Report {
    let mut report = Report::default();
    let mut texts: Texts = HashMap::new();
    for item in &project.tree.items {
        scan_item(project, item, screen, &mut report, &mut texts);
    }
    for path in symlinked_paths(load_errors) {
        report.findings.push(Finding::new(
            "AR035",
            &path,
            None,
            "",
            SYMLINK_NOT_SCANNED.to_owned(),
        ));
    }
    for path in failed_paths(load_errors) {
        // The config is screened key by key below (include URLs, MCP servers, name): an
        // include that fails to load must not get its whole text screened a second time.
        if texts.contains_key(&path) || path == project.config_relative {
            continue;
        }
        let Ok(Some((bytes, _))) = project.dir.read(&path, 8 * 1024 * 1024) else {
            continue;
        };
        scan_bytes(
            &path,
            &bytes,
            kind_of_path(&path),
            screen,
            &mut report,
            &mut texts,
            true,
        );
    }
    scan_mcp_servers(project, &mut report, &mut texts);
    finish(project, report, &texts)
}

/// Screens one item (its file and, for a skill, every resource) exactly as `scan` does,
/// suppressions and `[lint] ignore` applied. `ai-rulez mcp` runs it on a skill before serving
/// any of its files. Output: findings sorted by file and line, paths project-relative.
#[must_use]
pub(crate) fn scan_one_item(project: &Project, item: &Item) -> Vec<Finding> {
    let mut report = Report::default();
    let mut texts: Texts = HashMap::new();
    scan_item(project, item, screen, &mut report, &mut texts);
    finish(project, report, &texts).findings
}

/// The code of a literal secret (an API key, token, private key or password written out).
const SECRET_CODE: &str = "AR001";

/// Literal secrets (AR001) in the items `generate` copies into outputs: every active item but
/// machine-local ones, with its skill files. The one screening function ([`screen`]) finds
/// them, and `[lint] ignore` or an `ai-rulez-ignore AR001` marker on (or above) the line
/// silences a false positive, exactly as for `scan`. Output: findings sorted by file and line,
/// with project-relative paths and masked secrets in the messages.
#[must_use]
pub(crate) fn literal_secrets(project: &Project) -> Vec<Finding> {
    let items: Vec<&Item> = project
        .tree
        .items
        .iter()
        .filter(|item| item.is_active() && item.layer != Layer::Local)
        .collect();
    // Every `generate` screens every item, so the items are screened on the cores (a project
    // of 100,000 rules spends a noticeable part of a no-op run here) and gathered in order.
    // Only the texts of files with a finding are kept: suppression looks up no other.
    let screened = crate::parallel::map_in_order(&items, |item| {
        let mut part = Report::default();
        let mut texts: Texts = HashMap::new();
        scan_item(project, item, screen_secrets, &mut part, &mut texts);
        part.findings.retain(|finding| finding.code == SECRET_CODE);
        if part.findings.is_empty() {
            texts.clear();
        }
        (part.findings, texts)
    });
    let mut report = Report::default();
    let mut texts: Texts = HashMap::new();
    for (findings, part) in screened {
        report.findings.extend(findings);
        texts.extend(part);
    }
    finish(project, report, &texts).findings
}

/// Literal secrets (AR001) in source files given as (project-relative path, bytes), for checks
/// that read files without loading the project (`lock --check`, also against the git index).
/// The screening kind comes from the path; `ignored_codes` is the config's `[lint] ignore`.
/// Output: as [`literal_secrets`].
#[must_use]
pub(crate) fn literal_secrets_in_files(
    files: &[(String, Vec<u8>)],
    ignored_codes: &[String],
) -> Vec<Finding> {
    let mut report = Report::default();
    let mut texts: Texts = HashMap::new();
    for (path, bytes) in files {
        scan_bytes(
            path,
            bytes,
            kind_of_path(path),
            screen_secrets,
            &mut report,
            &mut texts,
            true,
        );
    }
    report
        .findings
        .retain(|finding| finding.code == SECRET_CODE);
    report.suppress(ignored_codes, &mut |file: &str| {
        texts.get(file).cloned().flatten()
    });
    report.sort();
    report.findings
}

/// Applies `[lint] ignore` and inline suppressions, then sorts.
pub(crate) fn finish(project: &Project, mut report: Report, texts: &Texts) -> Report {
    let mut cache: HashMap<String, Option<Arc<str>>> = HashMap::new();
    report.suppress(&project.config.lint_ignore, &mut |file: &str| {
        if let Some(known) = texts.get(file) {
            return known.clone();
        }
        cache
            .entry(file.to_owned())
            .or_insert_with(|| project.text_of(file).map(Arc::from))
            .clone()
    });
    report.sort();
    report
}

/// The item's file text as written (frontmatter fences included), so lines match the file.
pub(crate) fn item_text(item: &Item) -> String {
    match &item.yaml {
        Some(yaml) => format!("---\n{yaml}---\n{}", item.body),
        None => item.body.clone(),
    }
}

/// 1-based line of [`item_text`] (and of the item's file) where the body starts: 1 without
/// frontmatter, else the line after the closing `---`.
pub(crate) fn body_first_line(item: &Item) -> usize {
    item.yaml
        .as_ref()
        .map_or(1, |yaml| yaml.lines().count() + 3)
}

/// Line of the config file where an inline item's body starts (1 when not found).
pub(crate) fn inline_first_line(project: &Project, item: &Item) -> usize {
    let Some(config) = project.text_of(&project.config_relative) else {
        return 1;
    };
    let Some(first) = item.body.lines().find(|line| !line.trim().is_empty()) else {
        return 1;
    };
    config
        .lines()
        .position(|line| line.contains(first.trim()))
        .map_or(1, |index| index + 1)
}

fn scan_item(
    project: &Project,
    item: &Item,
    screening: Screening,
    report: &mut Report,
    texts: &mut Texts,
) {
    let trusted = !matches!(item.layer, Layer::Include(_));
    let inline = item.source_path == project.config_relative;
    let text = item_text(item);
    let first_line = if inline {
        inline_first_line(project, item)
    } else {
        1
    };
    report.findings.extend(
        screening(&text, ScreenKind::of(item.kind))
            .into_iter()
            .map(|finding| finding.relocate(&item.source_path, first_line)),
    );
    if !inline {
        texts.insert(item.source_path.clone(), trusted.then(|| Arc::from(text)));
    }
    let folder = item
        .source_path
        .rsplit_once('/')
        .map_or("", |(folder, _)| folder);
    for resource in &item.resources {
        let path = format!("{folder}/{}", resource.relative_path);
        scan_bytes(
            &path,
            &resource.bytes,
            ScreenKind::SkillFile,
            screening,
            report,
            texts,
            trusted,
        );
    }
}

/// Screens one file's bytes, or reports it as unscannable (binary, not UTF-8, or over the
/// size limit of its kind).
fn scan_bytes(
    path: &str,
    bytes: &[u8],
    kind: ScreenKind,
    screening: Screening,
    report: &mut Report,
    texts: &mut Texts,
    trusted: bool,
) {
    let text = std::str::from_utf8(bytes)
        .ok()
        .filter(|text| !text.contains('\0'));
    let reason = match text {
        _ if bytes.len() > limits::SKILL_FILE_MAX_BYTES => Some(format!(
            "{} bytes, over the {}-byte scanning limit",
            bytes.len(),
            limits::SKILL_FILE_MAX_BYTES
        )),
        None => Some("binary or not UTF-8".to_owned()),
        Some(_) => None,
    };
    if let Some(reason) = reason {
        report.findings.push(Finding::new(
            "AR034",
            path,
            None,
            "",
            format!("not scanned ({reason}); review it by hand"),
        ));
        return;
    }
    let Some(text) = text else {
        return;
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    report.findings.extend(
        screening(text, kind)
            .into_iter()
            .map(|finding| finding.relocate(path, 1)),
    );
    texts.insert(path.to_owned(), trusted.then(|| Arc::from(text)));
}

fn scan_mcp_servers(project: &Project, report: &mut Report, texts: &mut Texts) {
    let config_text = project
        .text_of(&project.config_relative)
        .unwrap_or_default();
    // The project's name and description are rendered into every root file, so they are
    // screened like any rule text.
    let fields = [
        ("name", Some(project.config.name.as_str())),
        ("description", project.config.description.as_deref()),
    ];
    for (key, value) in fields {
        let Some(value) = value else {
            continue;
        };
        let line = config_text
            .lines()
            .position(|text| text.trim_start().starts_with(key) && text.contains(['=', ':']))
            .map(|index| index + 1);
        for finding in screen(value, ScreenKind::Rule) {
            let mut finding = finding.relocate(&project.config_relative, 1);
            finding.line = line;
            finding.message = format!("config `{key}`: {}", finding.message);
            report.findings.push(finding);
        }
    }
    for server in &project.config.mcp_servers {
        let line = server_line(&config_text, &server.name);
        for finding in screen(&mcp_server_text(server), ScreenKind::McpServer) {
            let mut finding = finding.relocate(&project.config_relative, 1);
            finding.line = line;
            finding.message = format!("MCP server `{}`: {}", server.name, finding.message);
            report.findings.push(finding);
        }
    }
    scan_include_urls(project, &config_text, report);
    texts.insert(
        project.config_relative.clone(),
        Some(Arc::from(config_text)),
    );
}

/// A credential written into an `[[includes]]` URL (`https://user:token@host/…`) is a literal
/// secret in a tracked file whatever its length, so each is an AR001 finding on the line of its
/// `source`, with the URL masked.
fn scan_include_urls(project: &Project, config_text: &str, report: &mut Report) {
    let config = &project.config;
    for include in config.includes.iter().chain(&config.git_includes) {
        if !crate::redact::has_url_credentials(&include.source) {
            continue;
        }
        let line = config_text
            .lines()
            .position(|text| text.contains(include.source.as_str()))
            .map(|index| index + 1);
        let flagged = line
            .and_then(|line| config_text.lines().nth(line - 1))
            .unwrap_or_default();
        report.findings.push(Finding::new(
            "AR001",
            &project.config_relative,
            line,
            flagged,
            format!(
                "include `{}`: credentials in the URL `{}`; remove them and let git supply them (a credential helper or an SSH key), and rotate the token",
                include.name,
                crate::redact::mask_url_credentials(&include.source)
            ),
        ));
    }
}

/// Line of `name = "<name>"` (TOML) or `name: <name>` (YAML) in the config.
pub(crate) fn server_line(config: &str, name: &str) -> Option<usize> {
    // Searching starts at the servers' section so the project's own `name` never matches.
    let start = config
        .lines()
        .position(|line| line.contains("mcp_servers"))?;
    config
        .lines()
        .skip(start)
        .position(|line| {
            let line = line.trim().trim_start_matches("- ");
            let Some(rest) = line.strip_prefix("name") else {
                return false;
            };
            let value = rest.trim_start().trim_start_matches(['=', ':']).trim();
            value.trim_matches(['"', '\'']) == name
        })
        .map(|index| start + index + 1)
}

fn failed_paths(errors: &[Error]) -> Vec<String> {
    let mut paths = Vec::new();
    for error in errors {
        match error {
            Error::Invalid { path, .. } => paths.push(path.clone()),
            Error::Many(inner) => paths.extend(failed_paths(inner)),
            _ => {}
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

/// Paths that failed to load because they are (or pass through) a symlink.
/// The message of finding AR035, a symlink in the tree.
pub(crate) const SYMLINK_NOT_SCANNED: &str =
    "is a symlink, so it was neither loaded nor scanned; replace it with the real file or folder";

/// The paths (as the tree shows them) of the symlinks among the load `errors`, sorted, without
/// duplicates.
pub(crate) fn symlinked_paths(errors: &[Error]) -> Vec<String> {
    let mut paths = Vec::new();
    for error in errors {
        match error {
            Error::Invalid {
                kind: crate::error::InvalidKind::Symlink,
                path,
                ..
            } => paths.push(path.clone()),
            Error::Many(inner) => paths.extend(symlinked_paths(inner)),
            _ => {}
        }
    }
    paths.sort();
    paths.dedup();
    paths
}

fn kind_of_path(path: &str) -> ScreenKind {
    let segments: Vec<&str> = path.split('/').collect();
    let folder = segments
        .iter()
        .rev()
        .skip(1)
        .find(|segment| {
            matches!(
                **segment,
                "rules" | "context" | "skills" | "agents" | "commands"
            )
        })
        .copied();
    match folder {
        Some("context") => ScreenKind::Context,
        Some("skills") if path.ends_with("/SKILL.md") => ScreenKind::Skill,
        Some("skills") => ScreenKind::SkillFile,
        Some("agents") => ScreenKind::Agent,
        Some("commands") => ScreenKind::Command,
        _ => ScreenKind::Rule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_kinds_and_servers_to_lines() {
        assert_eq!(kind_of_path(".ai-rulez/context/a.md"), ScreenKind::Context);
        assert_eq!(
            kind_of_path(".ai-rulez/skills/x/SKILL.md"),
            ScreenKind::Skill
        );
        assert_eq!(
            kind_of_path(".ai-rulez/skills/x/scripts/a.sh"),
            ScreenKind::SkillFile
        );
        assert_eq!(
            kind_of_path(".ai-rulez/domains/d/agents/a.md"),
            ScreenKind::Agent
        );
        assert_eq!(kind_of_path(".ai-rulez/rules/a.md"), ScreenKind::Rule);
        let config = "name = \"gh\"\n[[mcp_servers]]\nname = \"gh\"\ncommand = \"npx\"\n";
        assert_eq!(server_line(config, "gh"), Some(3));
        assert_eq!(server_line("mcp_servers:\n  - name: gh\n", "gh"), Some(2));
        assert_eq!(server_line(config, "none"), None);
    }
}
