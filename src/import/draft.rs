//! One item an import is about to create, and how it is written: the frontmatter keys of
//! `.ai-rulez/` (see `content::interpret`) rendered as YAML, activation (always, glob,
//! model-decided, manual) said with our keys whatever the source's spelling was.

use serde_json::Value;

use crate::content::{Activation, Kind};
use crate::frontmatter::yaml_string;

/// An item found in a source tree, not yet given its final id.
#[derive(Debug, Clone)]
pub(crate) struct Draft {
    /// Kind of item (its folder under `.ai-rulez/`).
    pub kind: Kind,
    /// The id wanted (file stem or slug of a heading); made unique when the import is planned.
    pub id: String,
    /// Frontmatter keys in the order they are written.
    pub fields: Vec<(String, Value)>,
    /// Markdown body as found (LF line ends).
    pub body: String,
    /// Skill resources: (path relative to the skill folder, bytes).
    pub resources: Vec<(String, Vec<u8>)>,
    /// Project-relative path of the file it came from (for notes and errors).
    pub origin: String,
}

impl Draft {
    /// A draft of `kind` named `id` from `origin` with no keys yet.
    pub(crate) fn new(kind: Kind, id: &str, origin: &str, body: String) -> Self {
        Self {
            kind,
            id: id.to_owned(),
            fields: Vec::new(),
            body,
            resources: Vec::new(),
            origin: origin.to_owned(),
        }
    }

    /// Adds `key: value` unless the value is null, an empty string or an empty list.
    pub(crate) fn set(&mut self, key: &str, value: Value) {
        let empty = match &value {
            Value::Null => true,
            Value::String(text) => text.trim().is_empty(),
            Value::Array(items) => items.is_empty(),
            _ => false,
        };
        if !empty && !self.fields.iter().any(|(known, _)| known == key) {
            self.fields.push((key.to_owned(), value));
        }
    }

    /// Adds the keys that say when a rule applies: `description`, then `paths` for glob rules,
    /// then `activation: auto|manual` (always and glob need no key). A model-decided rule
    /// without a description gets its title as one, since the assistant judges relevance by it.
    pub(crate) fn set_scope(&mut self, scope: Scope, notes: &mut Vec<String>) {
        let Scope {
            description,
            globs,
            activation,
        } = scope;
        let description = description.filter(|text| !text.trim().is_empty());
        let description = match (activation, description) {
            (Activation::Auto, None) => {
                let title = crate::import::sections::title(&self.body).unwrap_or(self.id.clone());
                notes.push(format!(
                    "{}: model-decided without a description; its title `{title}` is used as the description",
                    self.origin
                ));
                Some(title)
            }
            (_, description) => description,
        };
        if let Some(description) = description {
            self.set("description", Value::String(description));
        }
        match activation {
            Activation::Glob => self.set("paths", string_list(&globs)),
            Activation::Auto => self.set("activation", Value::String("auto".to_owned())),
            Activation::Manual => self.set("activation", Value::String("manual".to_owned())),
            Activation::Always => {}
        }
    }

    /// Marks a rule its source turns on explicitly for every file (Cursor's `alwaysApply: true`,
    /// Windsurf's `trigger: always_on`) with `activation: always`. Without the key the rule is
    /// still always-on in the generated files, but `get_rules` ranks it against the task like
    /// any global rule; the explicit key makes it sent whatever the task, as the source meant.
    pub(crate) fn pin_always(&mut self) {
        self.set("activation", Value::String("always".to_owned()));
    }

    /// The file text: frontmatter (when there are keys, or when the body's first line is `---`)
    /// and a blank line, then the body without leading blank lines, ending in a new line.
    #[must_use]
    pub(crate) fn render(&self) -> String {
        let mut text = String::with_capacity(self.body.len() + 64 * self.fields.len() + 8);
        let body = self.body.trim_start_matches('\n');
        // A body whose first line is `---` (a Markdown rule line) would be read back as the
        // start of frontmatter, so it gets an empty frontmatter block in front of it.
        let opens_like_frontmatter = body == "---" || body.starts_with("---\n");
        if self.fields.is_empty() && opens_like_frontmatter {
            text.push_str("---\n---\n\n");
        }
        if !self.fields.is_empty() {
            text.push_str("---\n");
            for (key, value) in &self.fields {
                render_field(&mut text, key, value);
            }
            text.push_str("---\n\n");
        }
        text.push_str(body);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }
}

/// When a rule applies, as read from a source.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    /// What the rule is about (required by model-decided rules).
    pub description: Option<String>,
    /// File globs of a glob rule.
    pub globs: Vec<String>,
    /// Resolved activation.
    pub activation: Activation,
}

impl Scope {
    /// A rule scoped by `globs` (or always-on when there are none, or when every glob matches
    /// every file, as `**/*` does), with `description`.
    pub(crate) fn from_globs(description: Option<String>, globs: Vec<String>) -> Self {
        let globs = meaningful_globs(globs);
        let activation = if globs.is_empty() {
            Activation::Always
        } else {
            Activation::Glob
        };
        Self {
            description,
            globs,
            activation,
        }
    }
}

/// `globs` without blanks; empty when every glob matches every file (`**`, `**/*`), since a
/// rule for every file is an always-on rule.
pub(crate) fn meaningful_globs(globs: Vec<String>) -> Vec<String> {
    let globs: Vec<String> = globs
        .into_iter()
        .map(|glob| glob.trim().to_owned())
        .filter(|glob| !glob.is_empty())
        .collect();
    if globs
        .iter()
        .all(|glob| matches!(glob.as_str(), "**" | "**/*"))
    {
        Vec::new()
    } else {
        globs
    }
}

/// Globs from a frontmatter value: a list, or a comma-separated string (commas inside braces do
/// not split); nothing for other values.
pub(crate) fn globs_of(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(crate::scope::split_globs)
        .unwrap_or_default()
}

/// A string value of `values[key]`, trimmed; `None` when absent, not a string or blank.
pub(crate) fn text_of(values: &indexmap::IndexMap<String, Value>, key: &str) -> Option<String> {
    match values.get(key) {
        Some(Value::String(text)) if !text.trim().is_empty() => Some(text.trim().to_owned()),
        _ => None,
    }
}

/// A JSON list of the strings.
pub(crate) fn string_list(items: &[String]) -> Value {
    Value::Array(items.iter().cloned().map(Value::String).collect())
}

fn render_field(text: &mut String, key: &str, value: &Value) {
    text.push_str(&yaml_string(key));
    text.push(':');
    match value {
        Value::String(item) => {
            text.push(' ');
            text.push_str(&yaml_string(item));
        }
        Value::Array(items) if items.iter().all(Value::is_string) => {
            for item in items {
                text.push_str("\n  - ");
                text.push_str(&yaml_string(item.as_str().unwrap_or_default()));
            }
        }
        // A map of plain values stays in block style, as such maps are usually written.
        Value::Object(map)
            if map
                .values()
                .all(|item| !item.is_object() && !item.is_array()) =>
        {
            for (name, item) in map {
                text.push_str("\n  ");
                text.push_str(&yaml_string(name));
                text.push_str(": ");
                match item {
                    Value::String(item) => text.push_str(&yaml_string(item)),
                    other => text.push_str(&other.to_string()),
                }
            }
        }
        // JSON is YAML flow syntax: maps, mixed lists, numbers and booleans read back as written.
        other => {
            text.push(' ');
            text.push_str(&other.to_string());
        }
    }
    text.push('\n');
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Draft, Scope, meaningful_globs};
    use crate::content::{Activation, Kind};

    #[test]
    fn a_glob_rule_is_written_with_paths_and_reads_back_with_the_same_meaning() {
        let mut draft = Draft::new(
            Kind::Rule,
            "ts",
            "x.md",
            "# TS\n\nUse strict mode.\n".into(),
        );
        let mut notes = Vec::new();
        draft.set_scope(
            Scope::from_globs(
                Some("TypeScript: style".into()),
                vec!["**/*.ts".into(), "src/**/*.{ts,tsx}".into()],
            ),
            &mut notes,
        );
        draft.set("targets", json!(["claude"]));
        let text = draft.render();
        assert_eq!(
            text,
            "---\ndescription: \"TypeScript: style\"\npaths:\n  - \"**/*.ts\"\n  - src/**/*.{ts,tsx}\ntargets:\n  - claude\n---\n\n# TS\n\nUse strict mode.\n"
        );
        let document = crate::frontmatter::parse("x.md", text.as_bytes()).expect("parses");
        let item = crate::content::interpret(
            Kind::Rule,
            "ts".into(),
            crate::content::Layer::Root,
            "x.md".into(),
            document,
        )
        .expect("valid");
        assert_eq!(item.activation, Activation::Glob);
        assert_eq!(item.globs, ["**/*.ts", "src/**/*.{ts,tsx}"]);
        assert!(notes.is_empty());
    }

    #[test]
    fn a_model_decided_rule_without_description_takes_its_title() {
        let mut draft = Draft::new(Kind::Rule, "style", "a.md", "\n# Code Style\nx\n".into());
        let mut notes = Vec::new();
        draft.set_scope(
            Scope {
                description: None,
                globs: Vec::new(),
                activation: Activation::Auto,
            },
            &mut notes,
        );
        assert_eq!(
            draft.render(),
            "---\ndescription: Code Style\nactivation: auto\n---\n\n# Code Style\nx\n"
        );
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn globs_matching_everything_mean_always() {
        assert!(meaningful_globs(vec!["**/*".into(), " ".into()]).is_empty());
        assert_eq!(meaningful_globs(vec!["*.sol".into()]), ["*.sol"]);
    }
}
