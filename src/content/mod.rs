//! The items a project keeps under `.ai-rulez/`: rules, context, skills, agents and commands,
//! their frontmatter interpreted into typed fields, and the order they are rendered in.

pub(crate) mod keys;
mod learned;
mod load;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, InvalidKind, Result};
use crate::frontmatter::Document;
use crate::markdown;

pub(crate) use learned::{Source, Status, is_iso_date};
pub(crate) use load::snapshot::{FILE_NAME as PARSED_ITEMS_FILE, PendingSnapshot};
pub(crate) use load::{
    LoadedTree, MAX_FILE_BYTES, ParseCache, load_tree_cached, root_rule_from_bytes,
    root_rule_position,
};

/// The kind of an item; each has its own folder under `.ai-rulez/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// `rules/*.md`: must-follow rules.
    Rule,
    /// `context/*.md`: reference material.
    Context,
    /// `skills/<id>/SKILL.md` plus resources.
    Skill,
    /// `agents/*.md`: subagents.
    Agent,
    /// `commands/*.md`: slash commands.
    Command,
}

impl Kind {
    /// All kinds in render order.
    pub const ALL: [Kind; 5] = [
        Kind::Rule,
        Kind::Context,
        Kind::Skill,
        Kind::Agent,
        Kind::Command,
    ];

    /// Folder name under `.ai-rulez/` (and under each domain).
    #[must_use]
    pub fn folder(self) -> &'static str {
        match self {
            Kind::Rule => "rules",
            Kind::Context => "context",
            Kind::Skill => "skills",
            Kind::Agent => "agents",
            Kind::Command => "commands",
        }
    }

    /// Singular lower-case name used in messages.
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Rule => "rule",
            Kind::Context => "context",
            Kind::Skill => "skill",
            Kind::Agent => "agent",
            Kind::Command => "command",
        }
    }
}

/// Render priority; items are ordered by priority, then id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Priority {
    /// `critical`
    Critical,
    /// `high`
    High,
    /// `medium` (the default)
    Medium,
    /// `low`
    Low,
    /// `minimal`
    Minimal,
}

impl Priority {
    fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "critical" => Some(Self::Critical),
            "high" => Some(Self::High),
            "medium" | "normal" => Some(Self::Medium),
            "low" => Some(Self::Low),
            "minimal" => Some(Self::Minimal),
            _ => None,
        }
    }

    /// Lower-case name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Critical => "critical",
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
            Self::Minimal => "minimal",
        }
    }
}

/// When an assistant should load a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Activation {
    /// Always loaded.
    Always,
    /// Loaded when a file matching the item's globs is involved.
    Glob,
    /// Loaded when the model judges the description relevant.
    Auto,
    /// Loaded only when asked for by name.
    Manual,
}

impl Activation {
    /// Lower-case name as written in frontmatter.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Always => "always",
            Self::Glob => "glob",
            Self::Auto => "auto",
            Self::Manual => "manual",
        }
    }

    /// The activation of an assistant's native rule that neither globs nor an always flag
    /// scope: model-decided when it has a `description`, else manual. This is Cursor's "Apply
    /// Intelligently" and "Manual" (<https://docs.cursor.com/context/rules>), and VS Code's
    /// `.instructions.md` with a description and no `applyTo`, or with neither (see
    /// `reference/harness-audit.md`, VSC-I). `import` and the index of instruction files
    /// (`find_context`) read such rules alike through this one rule.
    #[must_use]
    pub fn of_unscoped_rule(description: Option<&str>) -> Self {
        if description.is_some_and(|text| !text.trim().is_empty()) {
            Self::Auto
        } else {
            Self::Manual
        }
    }
}

/// Where an item comes from; earlier layers win when two layers define the same id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Layer {
    /// `.ai-rulez/<kind>/` or inline in the config.
    Root,
    /// `.ai-rulez/domains/<name>/<kind>/`.
    Domain(String),
    /// A local `[[includes]]` source.
    Include(String),
    /// `.ai-rulez/local/`: machine-local, never generated into shared files.
    Local,
}

impl Layer {
    /// Precedence rank: lower wins.
    #[must_use]
    pub fn rank(&self) -> u8 {
        match self {
            Layer::Local => 0,
            Layer::Root => 1,
            Layer::Domain(_) => 2,
            Layer::Include(_) => 3,
        }
    }
}

/// A file shipped with a skill (`references/`, `scripts/`, `assets/`), copied verbatim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// Path relative to the skill folder, `/`-separated.
    pub relative_path: String,
    /// Exact bytes.
    pub bytes: Vec<u8>,
    /// Whether any executable bit is set on the source.
    pub executable: bool,
}

/// One loaded item with its frontmatter interpreted. Serialised only into the machine-local
/// snapshot of parsed items (see `load::snapshot`), which another build never reads.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Item {
    /// Kind of item.
    pub kind: Kind,
    /// Id: the file stem, or the skill folder name.
    pub id: String,
    /// Origin layer.
    pub layer: Layer,
    /// Project-relative path of the source file, `/`-separated.
    pub source_path: String,
    /// Priority (default medium).
    pub priority: Priority,
    /// Whether `priority` was written in the frontmatter.
    pub priority_explicit: bool,
    /// `description`, if any.
    pub description: Option<String>,
    /// `targets`: which outputs receive the item (empty = all).
    pub targets: Vec<String>,
    /// Globs from `paths`/`globs` (as written, braces intact).
    pub globs: Vec<String>,
    /// Resolved activation.
    pub activation: Activation,
    /// All frontmatter keys in file order.
    pub frontmatter: IndexMap<String, Value>,
    /// Frontmatter YAML text as written (LF), when the file has frontmatter.
    pub yaml: Option<String>,
    /// Body text (LF line ends).
    pub body: String,
    /// Skill resources, sorted by path. Read from disk on every load, so never kept in the
    /// snapshot of parsed items.
    #[serde(skip)]
    pub resources: Vec<Resource>,
    /// `title`, or the body's leading `# Heading`, or the id.
    pub title: String,
    /// `triggers`: words or phrases a task contains when the item matters.
    pub triggers: Vec<String>,
    /// `always: true`: sent in full on every MCP `get_rules` call for its scope.
    pub always: bool,
    /// `status`: only active items are generated and served; pending and rejected ones are
    /// kept for review.
    pub status: Status,
    /// `source`: how the rule came to be, when written.
    pub source: Option<Source>,
    /// `evidence`: short text saying why the rule exists (a correction, a review comment).
    pub evidence: Option<String>,
    /// `refs`: paths, URLs or commit ids the rule came from, as written.
    pub refs: Vec<String>,
    /// `created`: the day the rule was saved, `YYYY-MM-DD`.
    pub created: Option<String>,
    /// `revises`: for a pending revision, the id of the active rule it would replace.
    pub revises: Option<String>,
    /// `delivery` as written (skills only matter); `None` when absent, so the domain's or the
    /// config's setting applies (see [`crate::delivery::of_skill`]).
    pub delivery: Option<crate::delivery::Delivery>,
}

impl Item {
    /// Whether the item is active: generated into outputs and served by the MCP reading tools.
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.status == Status::Active
    }
}

/// Keys that only ai-rulez reads; they are never copied into an assistant's frontmatter.
pub(crate) const AI_RULEZ_ONLY_KEYS: [&str; 20] = [
    "title",
    "priority",
    "targets",
    "activation",
    "trigger",
    "alwaysApply",
    "paths",
    "globs",
    "delivery",
    "triggers",
    "keywords",
    "status",
    "always",
    "scope",
    "source",
    "evidence",
    "refs",
    "created",
    "revises",
    "reason",
];

/// Interprets a parsed document into an [`Item`].
///
/// Errors: [`Error::Invalid`] naming the file and the key's line for an unknown priority or
/// activation, `glob` without paths, `auto` without a description, `always` with paths, or a
/// value of the wrong type.
pub(crate) fn interpret(
    kind: Kind,
    id: String,
    layer: Layer,
    source_path: String,
    document: Document,
) -> Result<Item> {
    let yaml = document.yaml.as_deref().unwrap_or_default();
    let error = |key: &str, message: String| {
        Error::invalid_as(
            InvalidKind::FrontmatterValue,
            &source_path,
            key_line(yaml, key),
            message,
        )
    };
    let values = &document.values;
    let string = |key: &str| -> Result<Option<String>> {
        match values.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(Value::Number(number)) => Ok(Some(number.to_string())),
            Some(_) => Err(error(key, format!("`{key}` must be a string"))),
        }
    };
    let (priority, priority_explicit) = match string("priority")? {
        None => (Priority::Medium, false),
        Some(text) => match Priority::parse(&text) {
            Some(priority) => (priority, true),
            None => {
                return Err(error(
                    "priority",
                    format!(
                        "unknown priority `{text}`; use critical, high, medium, low or minimal"
                    ),
                ));
            }
        },
    };
    let targets = match values.get("targets") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => crate::scope::split_globs(value)
            .ok_or_else(|| error("targets", "`targets` must be a list of strings".to_owned()))?,
    };
    let globs_key = if values.contains_key("paths") {
        "paths"
    } else {
        "globs"
    };
    let mut globs = match values.get(globs_key) {
        None => Vec::new(),
        Some(value) => crate::scope::split_globs(value).ok_or_else(|| {
            error(
                globs_key,
                format!("`{globs_key}` must be a list of globs or a comma-separated string"),
            )
        })?,
    };
    if let Some(scope) = string("scope")? {
        if !globs.is_empty() {
            return Err(error(
                "scope",
                format!("`scope` and `{globs_key}` both say where the item applies; keep one"),
            ));
        }
        globs = crate::scope::scope_globs(&scope).ok_or_else(|| {
            error(
                "scope",
                format!("unknown scope `{scope}`; use global, section:<folder> or glob:<patterns>"),
            )
        })?;
    }
    let triggers = match values.get("triggers") {
        None | Some(Value::Null) => Vec::new(),
        Some(value) => crate::scope::split_globs(value).ok_or_else(|| {
            error(
                "triggers",
                "`triggers` must be a list of words or a comma-separated string".to_owned(),
            )
        })?,
    };
    // Limits and glob syntax are checked here, where every item passes (loading, and MCP
    // writes through `check`), so nothing later compiles an unchecked pattern.
    crate::scope::check_targets("targets", &targets)
        .map_err(|message| error("targets", message))?;
    let globs_source = if values.contains_key("scope") && !values.contains_key(globs_key) {
        "scope"
    } else {
        globs_key
    };
    crate::scope::check_globs(globs_source, &globs)
        .map_err(|message| error(globs_source, message))?;
    crate::scope::check_words("triggers", &triggers)
        .map_err(|message| error("triggers", message))?;
    let always = match values.get("always") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(flag)) => *flag,
        Some(_) => return Err(error("always", "`always` must be true or false".to_owned())),
    };
    let status = match string("status")? {
        None => Status::Active,
        Some(text) => Status::parse(&text).ok_or_else(|| {
            error(
                "status",
                format!("unknown status `{text}`; use active, pending or rejected"),
            )
        })?,
    };
    let source = match string("source")? {
        None => None,
        Some(text) => Some(Source::parse(&text).ok_or_else(|| {
            error(
                "source",
                format!(
                    "unknown source `{text}`; use feedback, review, discovered, proposed or manual"
                ),
            )
        })?),
    };
    let refs = match values.get("refs") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(entries)) => entries
            .iter()
            .map(|entry| match entry {
                Value::String(text) => Ok(text.clone()),
                _ => Err(error(
                    "refs",
                    "`refs` must be a list of strings (paths, URLs or commit ids)".to_owned(),
                )),
            })
            .collect::<Result<Vec<String>>>()?,
        Some(_) => {
            return Err(error(
                "refs",
                "`refs` must be a list of strings (paths, URLs or commit ids)".to_owned(),
            ));
        }
    };
    let created = string("created")?;
    if let Some(text) = &created
        && !is_iso_date(text)
    {
        return Err(error(
            "created",
            format!("`created` is `{text}`; write the day as YYYY-MM-DD, e.g. 2025-01-31"),
        ));
    }
    let evidence = string("evidence")?;
    let revises = string("revises")?;
    let title = match string("title")? {
        Some(title) if !title.trim().is_empty() => title.trim().to_owned(),
        _ => leading_heading(&document.body).unwrap_or_else(|| id.clone()),
    };
    let description = string("description")?;
    let delivery = match string("delivery")? {
        None => None,
        Some(text) => Some(
            crate::delivery::Delivery::parse(&text)
                .ok_or_else(|| error("delivery", crate::delivery::unknown_message(&text)))?,
        ),
    };
    let activation = resolve_activation(values, &globs, description.is_some(), &error)?;
    Ok(Item {
        kind,
        id,
        layer,
        source_path,
        priority,
        priority_explicit,
        description,
        targets,
        globs,
        activation,
        frontmatter: document.values,
        yaml: document.yaml,
        body: document.body,
        resources: Vec::new(),
        title,
        triggers,
        always,
        status,
        source,
        evidence,
        refs,
        created,
        revises,
        delivery,
    })
}

/// Checks that `document` is a valid item of `kind` (the same rules as loading).
///
/// Errors: the same located errors as loading (unknown priority or activation, incoherent keys).
pub fn check(kind: Kind, id: &str, source_path: &str, document: Document) -> Result<()> {
    interpret(
        kind,
        id.to_owned(),
        Layer::Root,
        source_path.to_owned(),
        document,
    )
    .map(|_| ())
}

/// The text of the body's leading `# Heading` (see [`markdown::leading_title`]), if it has text.
fn leading_heading(body: &str) -> Option<String> {
    let heading = markdown::leading_title(body)?;
    let title = markdown::heading_text(body, &heading);
    (!title.is_empty()).then(|| title.to_owned())
}

fn resolve_activation(
    values: &IndexMap<String, Value>,
    globs: &[String],
    has_description: bool,
    error: &dyn Fn(&str, String) -> Error,
) -> Result<Activation> {
    if let Some(value) = values.get("activation") {
        let Value::String(text) = value else {
            return Err(error(
                "activation",
                "`activation` must be always, glob, auto or manual".to_owned(),
            ));
        };
        let activation = match text.as_str() {
            "always" => Activation::Always,
            "glob" => Activation::Glob,
            "auto" => Activation::Auto,
            "manual" => Activation::Manual,
            other => {
                return Err(error(
                    "activation",
                    format!("unknown activation `{other}`; use always, glob, auto or manual"),
                ));
            }
        };
        return match activation {
            Activation::Glob if globs.is_empty() => Err(error(
                "activation",
                "`activation: glob` needs `paths` (or `globs`) naming the files it applies to"
                    .to_owned(),
            )),
            Activation::Auto if !has_description => Err(error(
                "activation",
                "`activation: auto` needs a `description` the assistant can judge relevance by"
                    .to_owned(),
            )),
            Activation::Always if !globs.is_empty() => Err(error(
                "activation",
                "`activation: always` conflicts with `paths`; remove one of them".to_owned(),
            )),
            _ => Ok(activation),
        };
    }
    if let Some(Value::String(trigger)) = values.get("trigger") {
        return Ok(match trigger.as_str() {
            "model_decision" if has_description => Activation::Auto,
            "manual" => Activation::Manual,
            "always_on" => Activation::Always,
            _ if !globs.is_empty() => Activation::Glob,
            _ => Activation::Always,
        });
    }
    if let Some(value) = values.get("alwaysApply") {
        return Ok(match value {
            Value::Bool(true) => Activation::Always,
            _ if !globs.is_empty() => Activation::Glob,
            _ if has_description => Activation::Auto,
            _ => Activation::Manual,
        });
    }
    Ok(if globs.is_empty() {
        Activation::Always
    } else {
        Activation::Glob
    })
}

/// 1-based file line of a top-level `key:` in frontmatter `yaml` (line 1 is the opening fence).
#[must_use]
pub(crate) fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|index| index + 2)
}

/// Turns a display name into an id: lower-case letters, digits and single dashes.
#[must_use]
pub(crate) fn slug(name: &str) -> String {
    // Letters outside ASCII take their ASCII spelling first (`Über Ümlaut` is `uber-umlaut`,
    // not `ber-mlaut`); characters without one become separators.
    let ascii = deunicode::deunicode_with_tofu(name, "-");
    let mut id = String::new();
    for character in ascii.chars() {
        if character.is_ascii_alphanumeric() {
            id.push(character.to_ascii_lowercase());
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
    }
    id.trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_slug_spells_letters_outside_ascii_in_ascii() {
        assert_eq!(super::slug("Über Ümlaut"), "uber-umlaut");
        assert_eq!(super::slug("Crème brûlée rules"), "creme-brulee-rules");
        assert_eq!(super::slug("../../etc/evil"), "etc-evil");
        assert_eq!(super::slug("日本"), "ri-ben");
        assert_eq!(super::slug("🎉 party"), "tada-party");
    }
}
