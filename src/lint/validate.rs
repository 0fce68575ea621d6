//! `validate`: is the tree correct, and will it behave as intended in each assistant? Checks the
//! config, every item's frontmatter and body, links and imports, skill resources, rule globs
//! against the git index, and the rendered outputs of every enabled preset.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use globset::GlobSet;

use super::scan::{Texts, finish, inline_first_line, item_text};
use super::{Finding, Report};
use crate::content::{self, AI_RULEZ_ONLY_KEYS, Item, Kind, Layer};
use crate::error::{Error, Result};
use crate::plan::Content;
use crate::presets::{self, render};
use crate::project::{self, Project};

/// Claude Code lists at most this many characters of a skill's description.
const CLAUDE_SKILL_LISTING_CHARS: usize = 1_536;
/// Longest Agent Skills name.
const SKILL_NAME_MAX_CHARS: usize = 64;
/// Word-set similarity at or above which two descriptions are near-duplicates.
const NEAR_DUPLICATE_JACCARD: f64 = 0.9;

/// Keys any item may carry: the ones ai-rulez reads and common metadata.
const COMMON_KEYS: [&str; 13] = [
    "name",
    "description",
    "title",
    "tags",
    "version",
    "author",
    "license",
    "metadata",
    "category",
    "id",
    "owner",
    "domain",
    "superseded_by",
];
/// Extra keys of rules and context (assistant-native spellings are accepted as input).
const RULE_KEYS: [&str; 6] = [
    "applyTo",
    "fileMatchPattern",
    "inclusion",
    "excludeAgent",
    "when",
    "type",
];
/// Extra keys of skills (Agent Skills specification and Claude Code).
const SKILL_KEYS: [&str; 12] = [
    "allowed-tools",
    "compatibility",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "effort",
    "paths",
];
/// Extra keys of subagents (Claude Code, `OpenCode`, Copilot).
const AGENT_KEYS: [&str; 22] = [
    "tools",
    "model",
    "color",
    "permissionMode",
    "skills",
    "hooks",
    "disallowedTools",
    "mcpServers",
    "memory",
    "mode",
    "temperature",
    "permission",
    "maxTurns",
    "effort",
    "isolation",
    "background",
    "extends",
    "initialPrompt",
    "omitClaudeMd",
    "hidden",
    "top_p",
    "permission_mode",
];
/// Extra keys of slash commands.
const COMMAND_KEYS: [&str; 7] = [
    "argument-hint",
    "allowed-tools",
    "model",
    "disable-model-invocation",
    "agent",
    "subtask",
    "user-invocable",
];

/// Validates the project around `start`.
///
/// Output: the report, with `[lint] ignore` and inline suppressions applied. A config that
/// cannot be read is reported as a finding (AR311, or AR602 for MCP entries). Errors: no project
/// found, or an I/O failure reading the config.
pub fn validate(start: &Path, warnings: &mut Vec<String>) -> Result<Report> {
    let mut load_warnings = Vec::new();
    let loaded = project::load_lenient(start, &mut load_warnings);
    let (project, errors) = match loaded {
        Ok(loaded) => loaded,
        Err(Error::Invalid {
            path,
            line,
            message,
        }) => {
            let code = if message.contains("mcp_servers") {
                "AR602"
            } else {
                "AR311"
            };
            let config = project::discover(start)
                .ok()
                .and_then(|(root, relative, _)| fs_err::read_to_string(root.join(relative)).ok())
                .unwrap_or_default();
            let line = line.or_else(|| key_path_line(&config, &message));
            let text = line_text(&config, line);
            let mut report = Report {
                findings: vec![Finding::new(code, &path, line, text, message)],
            };
            report.sort();
            return Ok(report);
        }
        Err(error) => return Err(error),
    };
    let config_text =
        fs_err::read_to_string(project.root.join(&project.config_relative)).unwrap_or_default();
    let mut checker = Checker {
        project: &project,
        config_text: &config_text,
        report: Report::default(),
        texts: HashMap::new(),
    };
    checker.config_warnings(load_warnings, warnings);
    checker.load_errors(&errors);
    checker.presets_and_profiles();
    for item in &project.tree.items {
        checker.item(item);
    }
    checker.descriptions();
    checker.globs();
    checker.rendered_outputs(warnings);
    checker.repository_traps();
    let Checker { report, texts, .. } = checker;
    Ok(finish(&project, report, &texts))
}

struct Checker<'a> {
    project: &'a Project,
    config_text: &'a str,
    report: Report,
    texts: Texts,
}

fn line_text(text: &str, line: Option<usize>) -> &str {
    line.and_then(|line| text.lines().nth(line.checked_sub(1)?))
        .unwrap_or_default()
}

/// Best-effort line of a key path quoted in a message (`` `a.b` `` or `` `mcp_servers[1]` ``).
fn key_path_line(config: &str, message: &str) -> Option<usize> {
    let quoted = message.split('`').nth(1)?;
    if let Some(index) = quoted
        .strip_prefix("mcp_servers[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|digits| digits.parse::<usize>().ok())
    {
        return config
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim() == "[[mcp_servers]]")
            .nth(index)
            .map(|(number, _)| number + 1);
    }
    let last = quoted.rsplit('.').next()?;
    let last = last.split('[').next()?;
    config
        .lines()
        .position(|line| {
            let line = line.trim_start();
            line.strip_prefix(last).is_some_and(|rest| {
                let rest = rest.trim_start();
                rest.starts_with('=') || rest.starts_with(':')
            }) || line.trim_end() == format!("[{last}]")
        })
        .map(|index| index + 1)
}

impl Checker<'_> {
    fn push(
        &mut self,
        code: &'static str,
        file: &str,
        line: Option<usize>,
        line_text: &str,
        message: String,
    ) {
        self.report
            .findings
            .push(Finding::new(code, file, line, line_text, message));
    }

    fn config_finding(&mut self, code: &'static str, line: Option<usize>, message: String) {
        let text = line_text(self.config_text, line).to_owned();
        let file = self.project.config_relative.clone();
        self.push(code, &file, line, &text, message);
    }

    /// Config warnings become findings; other load warnings stay warnings.
    fn config_warnings(&mut self, load_warnings: Vec<String>, warnings: &mut Vec<String>) {
        let prefix = format!("{}: ", self.project.config_relative);
        for warning in load_warnings {
            let Some(message) = warning.strip_prefix(&prefix) else {
                warnings.push(warning);
                continue;
            };
            let line = key_path_line(self.config_text, message);
            let code = if message.starts_with("unknown config key") {
                "AR310"
            } else {
                "AR314"
            };
            self.config_finding(code, line, message.to_owned());
        }
    }

    fn load_errors(&mut self, errors: &[Error]) {
        for error in errors {
            match error {
                Error::Many(inner) => self.load_errors(inner),
                Error::Invalid {
                    path,
                    line,
                    message,
                } => {
                    let code = classify_load_error(message);
                    let text =
                        fs_err::read_to_string(self.project.root.join(path)).unwrap_or_default();
                    let flagged = line_text(&text, *line).to_owned();
                    self.push(code, path, *line, &flagged, message.clone());
                }
                other => self.push("AR306", "", None, "", other.to_string()),
            }
        }
    }

    fn presets_and_profiles(&mut self) {
        let known: Vec<String> = presets::builtin_specs()
            .map(|specs| specs.into_iter().map(|spec| spec.name).collect())
            .unwrap_or_default();
        let presets_line = key_path_line(self.config_text, "`presets`");
        for name in &self.project.config.presets {
            if !known.contains(name) {
                self.config_finding(
                    "AR312",
                    presets_line,
                    format!(
                        "unknown preset `{name}`; it is skipped, so that assistant gets no files (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
        let mut unknown_domains = Vec::new();
        for (profile, domains) in &self.project.config.profiles {
            for domain in domains {
                if !self.project.tree.domains.contains(domain) {
                    unknown_domains.push((profile.clone(), domain.clone()));
                }
            }
        }
        for (profile, domain) in unknown_domains {
            let line = key_path_line(self.config_text, &format!("`profiles.{profile}`"));
            self.config_finding(
                "AR313",
                line,
                format!("profile `{profile}` names domain `{domain}`, which has no folder under domains/"),
            );
        }
    }

    fn item(&mut self, item: &Item) {
        let inline = item.source_path == self.project.config_relative;
        let text = item_text(item);
        let body_line = item
            .yaml
            .as_ref()
            .map_or(1, |yaml| yaml.lines().count() + 3);
        let first_line = if inline {
            inline_first_line(self.project, item)
        } else {
            1
        };
        let file = item.source_path.clone();
        self.unknown_keys(item);
        if item.body.trim().is_empty() {
            let line = if inline {
                first_line
            } else {
                body_line.min(text.lines().count().max(1))
            };
            self.push(
                "AR805",
                &file,
                Some(line),
                "",
                format!(
                    "{} `{}` has an empty body; write its content or delete it",
                    item.kind.noun(),
                    item.id
                ),
            );
        }
        if item.kind == Kind::Skill {
            self.skill_name(item);
        }
        if !inline {
            self.links(item, &text);
            self.texts.insert(
                file,
                (!matches!(item.layer, Layer::Include(_))).then(|| std::sync::Arc::from(text)),
            );
        }
    }

    fn unknown_keys(&mut self, item: &Item) {
        let extra: &[&str] = match item.kind {
            Kind::Rule | Kind::Context => &RULE_KEYS,
            Kind::Skill => &SKILL_KEYS,
            Kind::Agent => &AGENT_KEYS,
            Kind::Command => &COMMAND_KEYS,
        };
        let yaml = item.yaml.as_deref().unwrap_or_default();
        for key in item.frontmatter.keys() {
            let key = key.as_str();
            let preset_model = item.kind == Kind::Agent && key.ends_with("_model");
            if preset_model
                || AI_RULEZ_ONLY_KEYS.contains(&key)
                || COMMON_KEYS.contains(&key)
                || extra.contains(&key)
            {
                continue;
            }
            let line = content::key_line(yaml, key);
            let flagged = line_text(&item_text(item), line).to_owned();
            let hint = suggestion(key, extra)
                .map(|known| format!("; did you mean `{known}`?"))
                .unwrap_or_default();
            self.push(
                "AR303",
                &item.source_path,
                line,
                &flagged,
                format!(
                    "unknown {} frontmatter key `{key}`; assistants ignore it{hint}",
                    item.kind.noun()
                ),
            );
        }
    }

    fn skill_name(&mut self, item: &Item) {
        let written = item
            .frontmatter
            .get("name")
            .and_then(|value| value.as_str());
        let name = written.unwrap_or(&item.id);
        let mut problems = Vec::new();
        if name.is_empty() || name.chars().count() > SKILL_NAME_MAX_CHARS {
            problems.push(format!("must be 1 to {SKILL_NAME_MAX_CHARS} characters"));
        }
        if !name.chars().all(|character| {
            character.is_ascii_lowercase() || character.is_ascii_digit() || character == '-'
        }) {
            problems.push("may hold only lower-case letters, digits and hyphens".to_owned());
        }
        if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
            problems.push("may not start or end with a hyphen or hold two in a row".to_owned());
        }
        if written.is_some() && name != item.id {
            problems.push(format!("must equal the folder name `{}`", item.id));
        }
        if problems.is_empty() {
            return;
        }
        let yaml = item.yaml.as_deref().unwrap_or_default();
        let line = if written.is_some() {
            content::key_line(yaml, "name")
        } else {
            Some(1)
        };
        let flagged = line_text(&item_text(item), line).to_owned();
        self.push(
            "AR804",
            &item.source_path,
            line,
            &flagged,
            format!("skill name `{name}` {}", problems.join("; ")),
        );
    }

    /// AR201 links, AR210 `@` imports and AR402 skill resources, outside code.
    fn links(&mut self, item: &Item, text: &str) {
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

    fn descriptions(&mut self) {
        let mut by_kind: BTreeMap<Kind, Vec<(&Item, String)>> = BTreeMap::new();
        for item in &self.project.tree.items {
            if matches!(item.layer, Layer::Local) {
                continue;
            }
            if let Some(description) = &item.description {
                let normalised = description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase();
                if !normalised.is_empty() {
                    by_kind
                        .entry(item.kind)
                        .or_default()
                        .push((item, normalised));
                }
            }
        }
        let mut findings = Vec::new();
        for items in by_kind.values() {
            let mut first_by_text: HashMap<&str, &Item> = HashMap::new();
            for (item, text) in items {
                if let Some(first) = first_by_text.get(text.as_str()) {
                    findings.push((
                        "AR701",
                        *item,
                        format!(
                            "{} `{}` has the same description as {}; describe what sets each apart",
                            item.kind.noun(),
                            item.id,
                            first.source_path
                        ),
                    ));
                } else {
                    first_by_text.insert(text, item);
                }
            }
            // Near-duplicates: word sets compared only between descriptions whose sizes could
            // reach the threshold, so the pass stays fast on thousands of items.
            let mut sets: Vec<(&Item, &str, Vec<&str>)> = items
                .iter()
                .map(|(item, text)| {
                    let mut words: Vec<&str> = text
                        .split(|character: char| !character.is_alphanumeric())
                        .filter(|word| !word.is_empty())
                        .collect();
                    words.sort_unstable();
                    words.dedup();
                    (*item, text.as_str(), words)
                })
                .collect();
            sets.sort_by_key(|(_, _, words)| words.len());
            for (index, (item, text, words)) in sets.iter().enumerate() {
                for (other, other_text, other_words) in &sets[index + 1..] {
                    #[expect(clippy::cast_precision_loss, reason = "word counts are small")]
                    let too_far =
                        (words.len() as f64) < (other_words.len() as f64) * NEAR_DUPLICATE_JACCARD;
                    if too_far {
                        break;
                    }
                    if text == other_text || words.len() < 4 {
                        continue;
                    }
                    let similarity = jaccard(words, other_words);
                    if similarity >= NEAR_DUPLICATE_JACCARD {
                        let (later, earlier) = if other.source_path > item.source_path {
                            (*other, *item)
                        } else {
                            (*item, *other)
                        };
                        findings.push(("AR702", later, format!(
                            "{} `{}` has nearly the same description as {} ({:.0}% of words shared)",
                            later.kind.noun(), later.id, earlier.source_path, similarity * 100.0
                        )));
                    }
                }
            }
        }
        for (code, item, message) in findings {
            let line = content::key_line(item.yaml.as_deref().unwrap_or_default(), "description");
            let flagged = line_text(&item_text(item), line).to_owned();
            self.push(code, &item.source_path, line, &flagged, message);
        }
    }

    /// AR101: one pass over the git index with one matcher holding every glob.
    fn globs(&mut self) {
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

    /// AR964 on what `generate` would write for every enabled preset.
    fn rendered_outputs(&mut self, warnings: &mut Vec<String>) {
        let mut ignored = Vec::new();
        let Ok(view) = project::view(self.project, None, &mut ignored) else {
            return;
        };
        let Ok(specs) = presets::select(&self.project.config.presets, &mut ignored) else {
            return;
        };
        // Only presets with a size limit are rendered: rendering is most of the cost of
        // `validate`, and the other presets' outputs have nothing to check here.
        let claude = specs.iter().any(|spec| spec.name == "claude");
        let specs: Vec<presets::PresetSpec> = specs
            .into_iter()
            .filter(|spec| {
                spec.root
                    .as_ref()
                    .is_some_and(|root| root.max_bytes.is_some())
                    || spec
                        .rules
                        .as_ref()
                        .is_some_and(|rules| rules.max_chars.is_some() || rules.max_bytes.is_some())
            })
            .collect();
        let placeholder = |_: &str| Some(String::new());
        let plan = match render::render(self.project, &view, &specs, &placeholder) {
            Ok(plan) => plan,
            Err(error) => {
                warnings.push(format!("rendered outputs not checked: {error}"));
                return;
            }
        };
        for spec in &specs {
            if let Some(root) = &spec.root
                && let Some(limit) = root.max_bytes
                && let Some(output) = plan.outputs.get(&root.path)
                && let Content::Markdown(markdown) = &output.content
                && markdown.bytes.len() > limit
            {
                self.push(
                    "AR964",
                    &root.path,
                    None,
                    "",
                    format!(
                        "{} would be {} bytes; {} reads only the first {limit}, the rest is silently dropped; move detail into skills or path-scoped rules",
                        root.path, markdown.bytes.len(), spec.label
                    ),
                );
            }
            if let Some(rules) = &spec.rules {
                let prefix = format!("{}/", rules.dir.trim_end_matches('/'));
                for (path, output) in plan.outputs.range(prefix.clone()..) {
                    if !path.starts_with(&prefix) {
                        break;
                    }
                    let Content::Markdown(markdown) = &output.content else {
                        continue;
                    };
                    let text = String::from_utf8_lossy(&markdown.bytes);
                    let over_chars = rules
                        .max_chars
                        .filter(|limit| text.chars().count() > *limit);
                    let over_bytes = rules
                        .max_bytes
                        .filter(|limit| markdown.bytes.len() > *limit);
                    let message = match (over_chars, over_bytes) {
                        (Some(limit), _) => format!(
                            "{path} would be {} characters; {} reads only {limit} per rule file; split the rule",
                            text.chars().count(),
                            spec.label
                        ),
                        (None, Some(limit)) => format!(
                            "{path} would be {} bytes; {} reads only {limit} per rule file; split the rule",
                            markdown.bytes.len(),
                            spec.label
                        ),
                        (None, None) => continue,
                    };
                    self.push("AR964", path, None, "", message);
                }
            }
        }
        if claude {
            for item in &view.items {
                if item.kind != Kind::Skill {
                    continue;
                }
                let length = item
                    .description
                    .as_deref()
                    .map_or(0, |text| text.chars().count());
                if length > CLAUDE_SKILL_LISTING_CHARS {
                    let line =
                        content::key_line(item.yaml.as_deref().unwrap_or_default(), "description");
                    let flagged = line_text(&item_text(item), line).to_owned();
                    self.push(
                        "AR964",
                        &item.source_path,
                        line,
                        &flagged,
                        format!(
                            "skill description is {length} characters; Claude Code lists only the first {CLAUDE_SKILL_LISTING_CHARS}, so put the trigger words first and shorten it"
                        ),
                    );
                }
            }
        }
    }

    /// Files assistants silently ignore: `.md` in `.cursor/rules/`, `.github/instructions/`
    /// files without the `.instructions.md` suffix, Kiro steering frontmatter not at byte 0.
    fn repository_traps(&mut self) {
        let root = self.project.root.clone();
        for path in files_under(&root, ".cursor/rules") {
            if has_suffix(&path, ".md") {
                self.push("AR9C1", &path, None, "", "Cursor reads only `.mdc` files in .cursor/rules/; rename it to .mdc or move it into .ai-rulez/rules/".to_owned());
            }
        }
        for path in files_under(&root, ".github/instructions") {
            if !has_suffix(&path, ".instructions.md") {
                self.push("AR9C4", &path, None, "", "Copilot reads only files ending in `.instructions.md` in .github/instructions/; rename it".to_owned());
            }
        }
        for path in files_under(&root, ".kiro/steering") {
            if !has_suffix(&path, ".md") {
                continue;
            }
            let Ok(bytes) = fs_err::read(root.join(&path)) else {
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

/// Load errors are told apart by their message: the loader's wording is the contract.
fn classify_load_error(message: &str) -> &'static str {
    const MALFORMED: [&str; 7] = [
        "invalid YAML",
        "not valid UTF-8",
        "never closed",
        "frontmatter must be",
        "symlink",
        "content files are limited",
        "invalid TOML",
    ];
    if message.contains("defined twice in the same layer") {
        "AR704"
    } else if MALFORMED.iter().any(|marker| message.contains(marker)) {
        "AR306"
    } else {
        "AR304"
    }
}

fn suggestion<'k>(key: &str, extra: &[&'k str]) -> Option<&'k str> {
    let lowered = key.to_ascii_lowercase().replace(['_', '-'], "");
    extra
        .iter()
        .copied()
        .chain(COMMON_KEYS)
        .chain(AI_RULEZ_ONLY_KEYS)
        .find(|known| known.to_ascii_lowercase().replace(['_', '-'], "") == lowered)
}

#[expect(clippy::cast_precision_loss, reason = "word counts are small")]
fn jaccard(left: &[&str], right: &[&str]) -> f64 {
    let (mut i, mut j, mut shared) = (0, 0, 0usize);
    while i < left.len() && j < right.len() {
        match left[i].cmp(right[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = left.len() + right.len() - shared;
    if union == 0 {
        0.0
    } else {
        shared as f64 / union as f64
    }
}

/// Project-relative paths in the git index, or `None` outside a repository.
fn tracked_paths(project_root: &Path) -> Option<Vec<String>> {
    let repository = gix::discover(project_root).ok()?;
    let workdir = fs_err::canonicalize(repository.workdir()?).ok()?;
    let root = fs_err::canonicalize(project_root).ok()?;
    let prefix = root
        .strip_prefix(&workdir)
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .unwrap_or_default();
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    };
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

fn files_under(root: &Path, folder: &str) -> Vec<String> {
    let base = root.join(folder);
    if !base.is_dir() {
        return Vec::new();
    }
    walkdir::WalkDir::new(&base)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| {
            entry
                .path()
                .strip_prefix(root)
                .ok()
                .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        })
        .collect()
}

/// Removes `inline code` spans so their text is not read as links or imports.
fn strip_inline_code(line: &str) -> String {
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
fn markdown_link_targets(line: &str) -> Vec<String> {
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

fn is_external(target: &str) -> bool {
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
fn at_imports(line: &str) -> Vec<String> {
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
fn resource_mentions(line: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_errors_are_classified() {
        assert_eq!(classify_load_error("invalid YAML frontmatter: x"), "AR306");
        assert_eq!(
            classify_load_error("rule `a` is defined twice in the same layer: x and y"),
            "AR704"
        );
        assert_eq!(
            classify_load_error("`activation: glob` needs `paths`"),
            "AR304"
        );
    }

    #[test]
    fn link_and_import_extraction() {
        assert_eq!(
            markdown_link_targets("see [a](docs/a.md#x) and ![i](<img b.png>)"),
            ["docs/a.md#x", "img"]
        );
        assert_eq!(
            at_imports("import @docs/guide.md and @types/node, mail a@b.io, @v1.2"),
            ["docs/guide.md"]
        );
        assert_eq!(at_imports("@README.md"), ["README.md"]);
        assert_eq!(strip_inline_code("a `[x](y)` b"), "a  b");
        assert_eq!(
            resource_mentions("Run scripts/check.sh, read references/api.md; see assets/"),
            ["references/api.md", "scripts/check.sh"]
        );
        assert!(is_external("https://x.io"));
        assert!(is_external("mailto:a@b"));
        assert!(!is_external("docs/a.md"));
    }

    #[test]
    fn jaccard_of_word_sets() {
        assert!((jaccard(&["a", "b", "c"], &["a", "b", "d"]) - 0.5).abs() < 1e-9);
        assert!((jaccard(&["a"], &["a"]) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn key_paths_find_their_lines() {
        let config = "name = \"x\"\n[header]\nbuiltins = []\n[[mcp_servers]]\nname = \"a\"\n[[mcp_servers]]\nname = \"b\"\n";
        assert_eq!(
            key_path_line(config, "unknown config key `header.builtins`"),
            Some(3)
        );
        assert_eq!(key_path_line(config, "`mcp_servers[1]`: server"), Some(6));
    }
}
