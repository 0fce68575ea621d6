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
    environment.get_template(name)?.render(context! {
        id => &item.id,
        activation => activation.name(),
        globs => globs.to_vec(),
        expanded => expanded,
        description => item.description.clone().unwrap_or_default(),
        exclude_agent => exclude_agent(item),
    })
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
