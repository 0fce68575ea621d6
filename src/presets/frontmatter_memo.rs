//! The frontmatter of each rule file, rendered once per distinct input. A preset's frontmatter
//! template reads only a few facts of a rule (its activation, globs, sometimes its description
//! or id), and in a large project thousands of rules share the same facts, so a run of 100,000
//! rules renders each distinct case once instead of once per rule. Which facts a template reads
//! is asked of the template itself, so a template that starts reading the id is keyed by the id.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use minijinja::{Environment, context};

use crate::content::{Activation, Item};
use crate::scope::expand_braces;

/// The facts a rule's frontmatter template is given (see `templates/frontmatter/`).
const FACTS: [&str; 6] = [
    "id",
    "activation",
    "globs",
    "expanded",
    "description",
    "exclude_agent",
];

/// Rendered frontmatter by template and the facts it reads; shared by the threads rendering
/// one run's rule files.
pub(super) struct FrontmatterMemo {
    /// Per template name: which facts it reads, or `None` when it reads something else (it is
    /// then rendered for every rule, and the render reports the unknown name).
    reads: HashMap<String, Option<HashSet<String>>>,
    /// Hashed with `foldhash`: every rule of a run looks up its key here.
    rendered: Mutex<HashMap<Key, String, foldhash::fast::RandomState>>,
}

/// One distinct input of a template: the facts it does not read are left out.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    template: String,
    activation: &'static str,
    id: Option<String>,
    /// `globs` and `expanded` both come from the globs.
    globs: Option<Vec<String>>,
    description: Option<String>,
    exclude_agent: Option<String>,
}

impl FrontmatterMemo {
    /// A memo for the templates `names` of `environment` (names it does not hold are rendered
    /// every time, and fail there).
    pub(super) fn new<'n>(
        environment: &Environment<'_>,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Self {
        let reads = names
            .into_iter()
            .filter_map(|name| {
                let template = environment.get_template(name).ok()?;
                let used = template.undeclared_variables(false);
                let known = used.iter().all(|fact| FACTS.contains(&fact.as_str()));
                Some((name.to_owned(), known.then_some(used)))
            })
            .collect();
        Self {
            reads,
            rendered: Mutex::new(HashMap::default()),
        }
    }

    /// The YAML the template `name` renders for `item` written with `activation` and `globs`
    /// (in output form, see [`crate::scope::output_globs`]).
    ///
    /// Errors: the template is missing or fails (a defect of the embedded templates).
    pub(super) fn render(
        &self,
        environment: &Environment<'_>,
        name: &str,
        item: &Item,
        activation: Activation,
        globs: &[String],
    ) -> Result<String, minijinja::Error> {
        let Some(Some(reads)) = self.reads.get(name) else {
            return render_template(environment, name, item, activation, globs);
        };
        let key = Key {
            template: name.to_owned(),
            activation: activation.name(),
            id: reads.contains("id").then(|| item.id.clone()),
            globs: (reads.contains("globs") || reads.contains("expanded")).then(|| globs.to_vec()),
            description: reads
                .contains("description")
                .then(|| item.description.clone().unwrap_or_default()),
            exclude_agent: reads.contains("exclude_agent").then(|| exclude_agent(item)),
        };
        if let Some(yaml) = self.lock().get(&key) {
            return Ok(yaml.clone());
        }
        let yaml = render_template(environment, name, item, activation, globs)?;
        self.lock().insert(key, yaml.clone());
        Ok(yaml)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, String, foldhash::fast::RandomState>> {
        // A panic while holding the lock leaves a map of finished entries: still valid.
        self.rendered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The template `name` rendered with every fact of `item`, `activation` and `globs`.
fn render_template(
    environment: &Environment<'_>,
    name: &str,
    item: &Item,
    activation: Activation,
    globs: &[String],
) -> Result<String, minijinja::Error> {
    let expanded: Vec<String> = globs.iter().flat_map(|glob| expand_braces(glob)).collect();
    // Formats that keep globs in one comma-separated string split at every comma; a comma left
    // after brace expansion is a literal one (`[,]`, a folder named `a,b`), so there it is
    // written as `?`, which matches it (and any other one character) instead of cutting the
    // glob in two.
    let comma_separable: Vec<String> = expanded.iter().map(|glob| comma_free(glob)).collect();
    environment.get_template(name)?.render(context! {
        id => &item.id,
        activation => activation.name(),
        globs => globs.to_vec(),
        expanded => expanded,
        comma_separable => comma_separable,
        description => item.description.clone().unwrap_or_default(),
        exclude_agent => exclude_agent(item),
    })
}

/// `glob` with each literal comma matched without writing one: a bare comma, or a class that
/// may match a comma (`[,]`, `[a,b]`), becomes `?`; a negated class loses its comma
/// (`[!a,]` becomes `[!a]`, or `?` when nothing is left). Each change matches more, never
/// less, so the rule still reaches every file it did.
fn comma_free(glob: &str) -> String {
    if !glob.contains(',') {
        return glob.to_owned();
    }
    let mut out = String::with_capacity(glob.len());
    let mut index = 0;
    while let Some(offset) = glob[index..].find(['[', ',', '\\']) {
        let start = index + offset;
        out.push_str(&glob[index..start]);
        if glob[start..].starts_with("\\,") {
            // An escaped comma: `?` alone, since `\?` would be a literal question mark.
            out.push('?');
            index = start + 2;
            continue;
        }
        if glob[start..].starts_with('\\') {
            // Another escape is kept with the character it escapes.
            let escaped = glob[start + 1..].chars().next().map_or(0, char::len_utf8);
            out.push_str(&glob[start..start + 1 + escaped]);
            index = start + 1 + escaped;
            continue;
        }
        if glob[start..].starts_with(',') {
            out.push('?');
            index = start + 1;
            continue;
        }
        let Some(end) = crate::scope::class_end(glob, start) else {
            out.push_str(&glob[start..]);
            return out;
        };
        let class = &glob[start..=end];
        index = end + 1;
        if !class.contains(',') {
            out.push_str(class);
            continue;
        }
        let negated = class[1..].starts_with(['!', '^']);
        let members: String = class[2..class.len() - 1]
            .chars()
            .filter(|c| *c != ',')
            .collect();
        if negated && !members.is_empty() {
            out.push_str(&class[..2]);
            out.push_str(&members);
            out.push(']');
        } else {
            out.push('?');
        }
    }
    out.push_str(&glob[index..]);
    out
}

/// The rule's `excludeAgent` frontmatter (GitHub Copilot: `code-review` or `cloud-agent` keep
/// an instructions file away from that agent), or an empty string when it has none.
fn exclude_agent(item: &Item) -> String {
    item.frontmatter
        .get("excludeAgent")
        .and_then(|value| value.as_str())
        .unwrap_or_default()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::comma_free;

    #[test]
    fn a_literal_comma_is_matched_without_writing_one() {
        for (glob, written) in [
            ("src/**/*.ts", "src/**/*.ts"),
            ("lib/[,]y", "lib/?y"),
            ("app/[{]a,b[}]/**/*.ts", "app/[{]a?b[}]/**/*.ts"),
            ("a/[x,y]z", "a/?z"),
            ("a/[!x,]z", "a/[!x]z"),
            ("a/[!,]z", "a/?z"),
            ("a/[],]z", "a/?z"),
            ("a/[,", "a/[,"),
            ("a\\,b.ts", "a?b.ts"),
            ("a\\*b,c", "a\\*b?c"),
        ] {
            assert_eq!(comma_free(glob), written, "{glob}");
            let matcher = crate::scope::matcher(&[written.to_owned()]);
            let before = crate::scope::matcher(&[glob.to_owned()]);
            // Whatever the glob matched, the comma-free one matches too.
            for path in [
                "lib/,y",
                "app/{a,b}/src/x.ts",
                "a/,z",
                "a/xz",
                "a/]z",
                "a,b.ts",
                "a*b,c",
            ] {
                if before.as_ref().is_some_and(|set| set.is_match(path)) {
                    assert!(
                        matcher.as_ref().is_some_and(|set| set.is_match(path)),
                        "{glob} matched {path}, {written} does not"
                    );
                }
            }
        }
    }
}
