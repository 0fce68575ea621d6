//! Choosing what a change needs: the rules for some paths and a task (`get_rules`), rules by topic
//! (`search_rules`), and everything that applies to one file or folder (`get_context`, and the
//! CLI `explain`). Applicability comes from the one selector in [`crate::scope`]; ranking from
//! [`crate::search`].

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use globset::{Candidate, GlobSet};
use serde::Serialize;

use crate::content::{Activation, Item, Kind, Priority};
use crate::hash::{Provenance, banner_provenance};
use crate::project::Project;
use crate::search::Index;

/// Characters of the task considered for ranking.
const TASK_CHARS: usize = 500;
/// Default reply budget in estimated tokens: clients such as Claude Code reject tool results over
/// 25,000 tokens, so replies stay well below that unless the caller asks for less.
pub const DEFAULT_MAX_TOKENS: usize = 20_000;
/// A ranked rule is sent in full when its score is at least this share of the best score.
const RELEVANCE_SHARE: f64 = 0.5;
/// At most this many ranked (not always-on) rules are sent in full.
const MAX_RANKED: usize = 8;
/// At most this many cut rules are named; the rest are counted, so a project with thousands of
/// matching rules cannot blow the reply past the client's size cap through the list alone.
const MAX_CUT_NAMED: usize = 100;

/// Estimated tokens of a text (4 bytes per token, rounded up).
#[must_use]
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// What one MCP session remembers: rules already sent (by project root and id).
#[derive(Debug, Default)]
pub struct Session {
    sent: HashSet<(PathBuf, String)>,
}

/// A rule reference (id and title).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RuleRef {
    /// Rule id.
    pub id: String,
    /// Rule title.
    pub title: String,
}

/// A rule sent in full.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SentRule {
    /// Rule id.
    pub id: String,
    /// Rule title.
    pub title: String,
    /// `critical` … `minimal`.
    pub priority: String,
    /// Where it applies: `global` or its globs.
    pub scope: String,
    /// Why it was chosen.
    pub reason: String,
    /// Body text.
    pub body: String,
}

/// The reply of `get_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RulesReply {
    /// Project name.
    pub project: String,
    /// Rules sent in full, in order.
    pub rules: Vec<SentRule>,
    /// Other rules covering the paths, not chosen for the task (ask for them with `include`).
    pub others: Vec<RuleRef>,
    /// How many more such rules exist than `others` names (left out to keep the reply small).
    pub others_more: usize,
    /// How many chosen rules were not repeated because this session already has them.
    pub already_sent: usize,
    /// Paths left out because they are outside the project.
    pub outside_paths: Vec<String>,
    /// Rules cut to stay within `max_tokens` (at most 100 named).
    pub cut: Vec<RuleRef>,
    /// How many more rules were cut than `cut` names.
    pub cut_more: usize,
    /// Ids in `include` that name no rule.
    pub unknown_ids: Vec<String>,
    /// Whether a task was given (without one, every applicable rule is sent).
    pub had_task: bool,
    /// Files that could not be loaded (`file:line: message`); they are left out, the rest is
    /// served.
    pub problems: Vec<String>,
}

/// Arguments of `get_rules`.
#[derive(Debug, Clone, Default)]
pub struct RulesRequest {
    /// Paths of the files to change (absolute, or relative to the project root).
    pub paths: Vec<String>,
    /// One sentence about the change.
    pub task: Option<String>,
    /// Rule ids wanted in full whatever the ranking.
    pub include: Vec<String>,
    /// Send rules again even if this session already has them.
    pub refresh: bool,
    /// Reply budget in estimated tokens.
    pub max_tokens: Option<usize>,
}

/// A loaded project with everything the reading tools need, built once per load so that a call
/// only matches and ranks: the default view's items, the active rules with their compiled glob
/// matchers, and the search index over those rules. Files that failed to load are kept as
/// `problems` and named in every reply, while the rest of the project is served.
#[derive(Debug)]
pub struct Catalog {
    /// The project.
    pub project: Arc<Project>,
    /// Positions in `project.tree.items` of the default view's items, in view order.
    view: Vec<usize>,
    /// Positions in `project.tree.items` of the active rules, in priority order.
    rules: Vec<usize>,
    /// One matcher per entry of `rules`: `None` for a global rule. A rule whose globs do not
    /// compile gets an empty matcher and so applies nowhere, as with [`crate::scope::matcher`].
    matchers: Vec<Option<GlobSet>>,
    /// Scoped rules by the literal folder prefix of their globs (`src/db/` for `src/db/**`; the
    /// empty string when a glob has none, such as `**/*.rs`). A file can only match a glob whose prefix is one
    /// of its ancestor folders, so a call tests a few matchers instead of every rule's.
    by_prefix: HashMap<String, Vec<usize>>,
    /// BM25 index over `rules` (positions are indexes into `rules`).
    index: Index,
    /// Load errors (`file:line: message`): those files are left out of every reply.
    pub problems: Vec<String>,
}

impl Catalog {
    /// Builds the catalog of `project`; `problems` are the load errors of files left out.
    #[must_use]
    pub fn new(project: Arc<Project>, mut problems: Vec<String>) -> Self {
        let mut warnings = Vec::new();
        let view: Vec<usize> = match crate::project::view(&project, None, &mut warnings) {
            Ok(view) => {
                // The view borrows items from the tree; the catalog keeps their positions
                // instead, so it can own the project without borrowing from itself.
                let positions: HashMap<*const Item, usize> = project
                    .tree
                    .items
                    .iter()
                    .enumerate()
                    .map(|(position, item)| (std::ptr::from_ref(item), position))
                    .collect();
                view.items
                    .iter()
                    .filter_map(|item| positions.get(&std::ptr::from_ref(*item)).copied())
                    .collect()
            }
            Err(error) => {
                // A broken view (two items with one id) serves nothing but says why.
                problems.extend(error.to_string().lines().map(str::to_owned));
                Vec::new()
            }
        };
        let rules: Vec<usize> = view
            .iter()
            .copied()
            .filter(|position| project.tree.items[*position].kind == Kind::Rule)
            .collect();
        let matchers = rules
            .iter()
            .map(|position| {
                let item = &project.tree.items[*position];
                (!item.globs.is_empty())
                    .then(|| crate::scope::matcher(&item.globs).unwrap_or_else(GlobSet::empty))
            })
            .collect();
        let mut by_prefix: HashMap<String, Vec<usize>> = HashMap::new();
        for (number, position) in rules.iter().enumerate() {
            let mut prefixes: Vec<String> = project.tree.items[*position]
                .globs
                .iter()
                .map(|glob| glob_prefix(glob))
                .collect();
            prefixes.sort();
            prefixes.dedup();
            for prefix in prefixes {
                by_prefix.entry(prefix).or_default().push(number);
            }
        }
        let index = {
            let items: Vec<&Item> = rules
                .iter()
                .map(|position| &project.tree.items[*position])
                .collect();
            Index::build(&items)
        };
        Self {
            project,
            view,
            rules,
            matchers,
            by_prefix,
            index,
            problems,
        }
    }

    fn rule(&self, number: usize) -> &Item {
        &self.project.tree.items[self.rules[number]]
    }

    fn view_items(&self) -> impl Iterator<Item = &Item> {
        self.view
            .iter()
            .map(|position| &self.project.tree.items[*position])
    }

    /// Rule numbers whose globs may match the file `path`: those filed under one of its ancestor
    /// folders, and those without a literal prefix.
    fn candidates_for_file(&self, path: &str) -> Vec<usize> {
        std::iter::once("")
            .chain(path.match_indices('/').map(|(index, _)| &path[..=index]))
            .filter_map(|folder| self.by_prefix.get(folder))
            .flatten()
            .copied()
            .collect()
    }
}

/// The literal folder part of a glob as [`crate::scope::matcher`] anchors it: up to the last `/`
/// before the first wildcard; empty for a pattern without `/` (it matches at any depth).
fn glob_prefix(glob: &str) -> String {
    let pattern = glob.trim_start_matches("./");
    if !pattern.contains('/') {
        return String::new();
    }
    let pattern = pattern.trim_start_matches('/');
    let literal: &str = pattern
        .find(['*', '?', '[', '{', '\\'])
        .map_or(pattern, |index| &pattern[..index]);
    literal
        .rfind('/')
        .map_or_else(String::new, |index| literal[..=index].to_owned())
}

/// Active rules of the project's default view, in priority order.
#[must_use]
pub fn active_rules(catalog: &Catalog) -> Vec<&Item> {
    (0..catalog.rules.len())
        .map(|number| catalog.rule(number))
        .collect()
}

/// Turns a user path into a project-relative `/` path; `None` when it leaves the project.
#[must_use]
pub fn project_relative(root: &Path, path: &str) -> Option<String> {
    let candidate = Path::new(path);
    let relative = if candidate.is_absolute() {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let absolute = candidate
            .canonicalize()
            .unwrap_or_else(|_| candidate.to_path_buf());
        absolute.strip_prefix(&root).ok()?.to_path_buf()
    } else {
        candidate.to_path_buf()
    };
    let mut parts: Vec<String> = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

/// Whether the project-relative `path` names a folder: it ends in `/` or is a directory on disk.
/// Paths of files that do not exist yet count as files.
#[must_use]
pub fn is_folder(root: &Path, path: &str) -> bool {
    path.is_empty() || path.ends_with('/') || root.join(path).is_dir()
}

/// Why `item` applies to the project-relative `path` (a file or, with `folder`, a folder), if it
/// does.
#[must_use]
pub fn applies_to(item: &Item, path: &str, folder: bool) -> Option<String> {
    if item.globs.is_empty() {
        return Some("applies everywhere".to_owned());
    }
    let matcher = crate::scope::matcher(&item.globs)?;
    applies_with(item, &matcher, &Candidate::new(path), path, folder)
}

/// [`applies_to`] with the item's compiled matcher and the path prepared once.
fn applies_with(
    item: &Item,
    matcher: &GlobSet,
    candidate: &Candidate<'_>,
    path: &str,
    folder: bool,
) -> Option<String> {
    if matcher.is_match_candidate(candidate) {
        let globs: Vec<String> = item.globs.iter().map(|glob| format!("`{glob}`")).collect();
        return Some(format!("{} matches `{path}`", globs.join(", ")));
    }
    // Only a folder is covered by a glob that reaches inside it (or inside which it lies); a
    // file such as `src/a.js` must not match `src/**/*.ts` just because both start with `src/`.
    if !folder {
        return None;
    }
    let folder = format!("{}/", path.trim_end_matches('/'));
    item.globs.iter().find_map(|glob| {
        let fixed: String = glob
            .chars()
            .take_while(|character| !"*?[{".contains(*character))
            .collect();
        (fixed.starts_with(&folder) || (!fixed.is_empty() && folder.starts_with(&fixed))).then(
            || {
                format!(
                    "`{glob}` covers files in `{}`",
                    folder.trim_end_matches('/')
                )
            },
        )
    })
}

fn scope_text(item: &Item) -> String {
    if item.globs.is_empty() {
        "global".to_owned()
    } else {
        item.globs.join(", ")
    }
}

/// Whether a rule is sent whatever the task: `always: true`, an explicit `activation: always`,
/// or `priority: critical`.
#[must_use]
pub fn is_always(item: &Item) -> bool {
    item.always
        || item.priority == Priority::Critical
        || (item.activation == Activation::Always && item.frontmatter.contains_key("activation"))
}

fn sent_rule(item: &Item, reason: &str) -> SentRule {
    SentRule {
        id: item.id.clone(),
        title: item.title.clone(),
        priority: item.priority.name().to_owned(),
        scope: scope_text(item),
        reason: reason.to_owned(),
        body: item.body.trim().to_owned(),
    }
}

/// `get_rules`: the rules a change to `request.paths` needs.
#[must_use]
pub fn get_rules(catalog: &Catalog, session: &mut Session, request: &RulesRequest) -> RulesReply {
    let project = &catalog.project;
    let mut outside = Vec::new();
    let mut paths = Vec::new();
    for path in &request.paths {
        match project_relative(&project.root, path) {
            Some(relative) => {
                let folder = is_folder(&project.root, &relative);
                paths.push((relative, folder));
            }
            None => outside.push(path.clone()),
        }
    }
    let candidates: Vec<(Candidate<'_>, &str, bool)> = paths
        .iter()
        .map(|(path, folder)| (Candidate::new(path.as_str()), path.as_str(), *folder))
        .collect();
    // Only an empty `paths` means "the whole project": when every given path is outside the
    // project, nothing applies (before, the outside paths were dropped and every rule was sent).
    let mut applicable = vec![request.paths.is_empty(); catalog.rules.len()];
    if !candidates.is_empty() {
        for (number, matcher) in catalog.matchers.iter().enumerate() {
            if matcher.is_none() {
                applicable[number] = true;
            }
        }
    }
    for (candidate, path, folder) in &candidates {
        // A folder may be covered by globs inside it, which the prefix table cannot find, so
        // folders test every scoped rule; files test only the rules filed under their folders.
        let numbers: Vec<usize> = if *folder {
            (0..catalog.rules.len()).collect()
        } else {
            catalog.candidates_for_file(path)
        };
        for number in numbers {
            if applicable[number] {
                continue;
            }
            if let Some(matcher) = &catalog.matchers[number] {
                applicable[number] =
                    applies_with(catalog.rule(number), matcher, candidate, path, *folder).is_some();
            }
        }
    }
    let eligible: Vec<usize> = (0..catalog.rules.len())
        .filter(|number| applicable[*number])
        .collect();
    let task: String = request
        .task
        .as_deref()
        .unwrap_or_default()
        .chars()
        .take(TASK_CHARS)
        .collect();
    let had_task = !task.trim().is_empty();
    let mut chosen: Vec<(&Item, &str)> = Vec::new();
    let mut others: Vec<RuleRef> = Vec::new();
    if had_task {
        chosen.extend(
            eligible
                .iter()
                .map(|number| catalog.rule(*number))
                .filter(|item| is_always(item))
                .map(|item| (item, "always sent for these files")),
        );
        // The index covers every active rule; the ranking is narrowed to the eligible ones that
        // are not sent anyway, so a call only ranks and never rebuilds the index.
        let pool: HashSet<usize> = eligible
            .iter()
            .copied()
            .filter(|number| !is_always(catalog.rule(*number)))
            .collect();
        let mut pool_order: Vec<usize> = pool.iter().copied().collect();
        pool_order.sort_unstable();
        let ranking = catalog.index.rank_among(&task, pool_order);
        let best = ranking.first().map_or(0.0, |(_, score)| *score);
        let mut picked = HashSet::new();
        for (number, score) in ranking.iter().take(MAX_RANKED) {
            if *score >= best * RELEVANCE_SHARE {
                chosen.push((catalog.rule(*number), "relevant to the task"));
                picked.insert(*number);
            }
        }
        for number in &eligible {
            if pool.contains(number) && !picked.contains(number) {
                let item = catalog.rule(*number);
                others.push(RuleRef {
                    id: item.id.clone(),
                    title: item.title.clone(),
                });
            }
        }
    } else {
        chosen.extend(
            eligible
                .iter()
                .map(|number| (catalog.rule(*number), "covers these files (no task given)")),
        );
    }
    let mut unknown_ids = Vec::new();
    for id in &request.include {
        if chosen.iter().any(|(item, _)| item.id == *id) {
            continue;
        }
        match (0..catalog.rules.len())
            .map(|number| catalog.rule(number))
            .find(|item| item.id == *id)
        {
            Some(item) => {
                chosen.push((item, "asked for with include"));
                others.retain(|other| other.id != *id);
            }
            None => unknown_ids.push(id.clone()),
        }
    }
    let mut already_sent = 0;
    let mut sent = Vec::new();
    for (item, reason) in chosen {
        let key = (project.root.clone(), item.id.clone());
        if !request.refresh && session.sent.contains(&key) && !request.include.contains(&item.id) {
            already_sent += 1;
            continue;
        }
        sent.push(sent_rule(item, reason));
    }
    let budget = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(100);
    let mut used = 0;
    let mut cut = Vec::new();
    let mut cut_more = 0;
    sent.retain(|rule| {
        let cost = estimate_tokens(&rule.body) + estimate_tokens(&rule.title) + 20;
        if used + cost > budget {
            if cut.len() < MAX_CUT_NAMED {
                cut.push(RuleRef {
                    id: rule.id.clone(),
                    title: rule.title.clone(),
                });
            } else {
                cut_more += 1;
            }
            return false;
        }
        used += cost;
        true
    });
    for rule in &sent {
        session.sent.insert((project.root.clone(), rule.id.clone()));
    }
    let others_budget = budget.saturating_sub(used) * 4;
    let mut others_chars = 0;
    let others_total = others.len();
    others.retain(|other| {
        others_chars += other.id.len() + other.title.len() + 4;
        others_chars <= others_budget
    });
    RulesReply {
        project: project.config.name.clone(),
        rules: sent,
        others_more: others_total - others.len(),
        others,
        already_sent,
        outside_paths: outside,
        cut,
        cut_more,
        unknown_ids,
        had_task,
        problems: catalog.problems.clone(),
    }
}

/// Renders a `get_rules` reply as text for the model.
#[must_use]
pub fn rules_text(reply: &RulesReply) -> String {
    let mut text = String::new();
    if reply.rules.is_empty() {
        text.push_str(&format!(
            "No rules to send for these files in `{}`.\n",
            reply.project
        ));
    } else {
        text.push_str(&format!(
            "Rules for `{}` ({} sent; follow them for this change):\n",
            reply.project,
            reply.rules.len()
        ));
    }
    if !reply.had_task {
        text.push_str("No task was given, so every applicable rule is listed.\n");
    }
    for rule in &reply.rules {
        text.push_str(&format!(
            "\n## {} (`{}`, {}, {}; {})\n\n{}\n",
            rule.title, rule.id, rule.priority, rule.scope, rule.reason, rule.body
        ));
    }
    if !reply.others.is_empty() {
        text.push_str(&format!(
            "\n{} other rule(s) cover these files but were not chosen for your task. If one matters, call get_rules again with its id in `include`, or use search_rules:\n",
            reply.others.len()
        ));
        for other in &reply.others {
            text.push_str(&format!("- {} {}\n", other.id, other.title));
        }
    }
    if reply.others_more > 0 {
        text.push_str(&format!(
            "{} more rule(s) cover these files but are not named here to keep the reply small; narrow the paths or use search_rules.\n",
            reply.others_more
        ));
    }
    if reply.already_sent > 0 {
        text.push_str(&format!(
            "\n{} relevant rule(s) were already sent in this session and are not repeated (pass `refresh: true` to get them again).\n",
            reply.already_sent
        ));
    }
    if !reply.cut.is_empty() {
        let ids: Vec<&str> = reply.cut.iter().map(|rule| rule.id.as_str()).collect();
        text.push_str(&format!(
            "\nCut to stay within the token budget: {}. Ask for them with `include` (a few at a time) or a larger `max_tokens`.\n",
            ids.join(", ")
        ));
    }
    if reply.cut_more > 0 {
        text.push_str(&format!(
            "{} more rule(s) were cut and are not named; give a task or fewer paths so fewer rules apply.\n",
            reply.cut_more
        ));
    }
    if !reply.outside_paths.is_empty() {
        text.push_str(&format!(
            "\n{} path(s) are outside project `{}` and were left out: {}\n",
            reply.outside_paths.len(),
            reply.project,
            reply.outside_paths.join(", ")
        ));
    }
    if !reply.unknown_ids.is_empty() {
        text.push_str(&format!(
            "\nNo rule has these ids: {}\n",
            reply.unknown_ids.join(", ")
        ));
    }
    text.push_str(&problems_text(&reply.problems));
    text
}

/// A note naming the files left out because they could not be loaded (empty when none).
fn problems_text(problems: &[String]) -> String {
    if problems.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\n{} problem(s) in the project's files; these files were left out and everything else was served. Fix them (read_config and validate_config help):\n",
        problems.len()
    );
    for problem in problems {
        text.push_str(&format!("- {problem}\n"));
    }
    text
}

/// The reply of `search_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SearchReply {
    /// Project name.
    pub project: String,
    /// The query as used.
    pub query: String,
    /// Matching rules sent in full, best first.
    pub rules: Vec<SentRule>,
    /// Matching rules this session already has (named, not repeated).
    pub already_sent: Vec<RuleRef>,
    /// Matches cut to stay within the reply budget.
    pub cut: Vec<RuleRef>,
    /// Files that could not be loaded; they are left out of the search.
    pub problems: Vec<String>,
}

/// `search_rules`: active rules of the whole project matching `query`, best first (at most
/// `limit`, 1–50).
#[must_use]
pub fn search_rules(
    catalog: &Catalog,
    session: &mut Session,
    query: &str,
    limit: usize,
) -> SearchReply {
    let project = &catalog.project;
    let mut reply = SearchReply {
        project: project.config.name.clone(),
        query: query.to_owned(),
        rules: Vec::new(),
        already_sent: Vec::new(),
        cut: Vec::new(),
        problems: catalog.problems.clone(),
    };
    let mut used = 0;
    for (number, _) in catalog
        .index
        .rank(query)
        .into_iter()
        .take(limit.clamp(1, 50))
    {
        let item = catalog.rule(number);
        let key = (project.root.clone(), item.id.clone());
        let reference = RuleRef {
            id: item.id.clone(),
            title: item.title.clone(),
        };
        if session.sent.contains(&key) {
            reply.already_sent.push(reference);
            continue;
        }
        let cost = estimate_tokens(&item.body) + 20;
        if used + cost > DEFAULT_MAX_TOKENS {
            reply.cut.push(reference);
            continue;
        }
        used += cost;
        session.sent.insert(key);
        reply.rules.push(sent_rule(item, "matches the query"));
    }
    reply
}

/// Renders a `search_rules` reply as text.
#[must_use]
pub fn search_text(reply: &SearchReply) -> String {
    if reply.rules.is_empty() && reply.already_sent.is_empty() && reply.cut.is_empty() {
        return format!(
            "No active rule in `{}` matches '{}'.\n{}",
            reply.project,
            reply.query,
            problems_text(&reply.problems)
        );
    }
    let mut text = format!(
        "Rules in `{}` matching '{}', best match first:\n",
        reply.project, reply.query
    );
    for rule in &reply.rules {
        text.push_str(&format!(
            "\n## {} (`{}`, {}, {})\n\n{}\n",
            rule.title, rule.id, rule.priority, rule.scope, rule.body
        ));
    }
    if !reply.already_sent.is_empty() {
        let names: Vec<String> = reply
            .already_sent
            .iter()
            .map(|rule| format!("{} {}", rule.id, rule.title))
            .collect();
        text.push_str(&format!(
            "\nAlso matching, already sent to you in this session: {}\n",
            names.join("; ")
        ));
    }
    if !reply.cut.is_empty() {
        let ids: Vec<&str> = reply.cut.iter().map(|rule| rule.id.as_str()).collect();
        text.push_str(&format!("\nMore matches cut to keep the reply small: {}. Ask get_rules for them with `include`.\n", ids.join(", ")));
    }
    text.push_str(&problems_text(&reply.problems));
    text
}

/// One thing that applies to a path, with why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextEntry {
    /// `rule`, `context`, `skill` or `instructions` (a file the repository already has).
    pub kind: String,
    /// Id, or the path of an instruction file.
    pub id: String,
    /// Title or name.
    pub title: String,
    /// Why it applies.
    pub why: String,
    /// Full text for rules and context; the description for skills; empty for instruction files.
    pub text: String,
}

/// The reply of `get_context` / `explain`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ContextReply {
    /// Project name.
    pub project: String,
    /// The path asked about, project-relative.
    pub path: String,
    /// Entries, nearest scope first.
    pub entries: Vec<ContextEntry>,
    /// Ids of entries whose text was left out (emptied) to keep the reply within the default
    /// token budget; the entries themselves are still listed.
    pub cut: Vec<String>,
    /// Files that could not be loaded; they are left out.
    pub problems: Vec<String>,
}

/// `get_context`: everything that applies to the project-relative `path` (file or folder),
/// nearest scope first: scoped rules and context, global ones, skills, then instruction files the
/// repository already has (nearest folder first). With a `task`, rules and context are ordered by
/// relevance within each group.
#[must_use]
pub fn get_context(catalog: &Catalog, path: &str, task: Option<&str>) -> ContextReply {
    let project = &catalog.project;
    let items: Vec<&Item> = catalog.view_items().collect();
    let folder = is_folder(&project.root, path);
    let mut scoped = Vec::new();
    let mut global = Vec::new();
    for item in items
        .iter()
        .copied()
        .filter(|item| matches!(item.kind, Kind::Rule | Kind::Context))
    {
        if let Some(why) = applies_to(item, path, folder) {
            let entry = ContextEntry {
                kind: item.kind.noun().to_owned(),
                id: item.id.clone(),
                title: item.title.clone(),
                why: format!("{} {why}", item.kind.noun()),
                text: item.body.trim().to_owned(),
            };
            if item.globs.is_empty() {
                global.push((item, entry));
            } else {
                scoped.push((item, entry));
            }
        }
    }
    if let Some(task) = task.filter(|task| !task.trim().is_empty()) {
        for group in [&mut scoped, &mut global] {
            let pool: Vec<&Item> = group.iter().map(|(item, _)| *item).collect();
            let ranking = Index::build(&pool).rank(task);
            let order: Vec<usize> = ranking
                .iter()
                .map(|(position, _)| *position)
                .chain(0..pool.len())
                .collect();
            let mut seen = HashSet::new();
            let mut reordered = Vec::new();
            for position in order {
                if seen.insert(position) {
                    reordered.push(group[position].clone());
                }
            }
            *group = reordered;
        }
    }
    let mut entries: Vec<ContextEntry> = scoped
        .into_iter()
        .chain(global)
        .map(|(_, entry)| entry)
        .collect();
    for item in items.iter().filter(|item| item.kind == Kind::Skill) {
        entries.push(ContextEntry {
            kind: "skill".to_owned(),
            id: item.id.clone(),
            title: item.title.clone(),
            why: "skill available in this project".to_owned(),
            text: item.description.clone().unwrap_or_default(),
        });
    }
    entries.extend(instruction_files(&project.root, path));
    // Like get_rules, the reply stays below what clients accept: texts that no longer fit are
    // emptied (the entry and why it applies stay listed) and named in `cut`.
    let mut used = 0;
    let mut cut = Vec::new();
    for entry in &mut entries {
        let cost = estimate_tokens(&entry.text) + estimate_tokens(&entry.why) + 20;
        if used + cost > DEFAULT_MAX_TOKENS {
            if !entry.text.is_empty() {
                entry.text.clear();
                cut.push(entry.id.clone());
            }
            used += estimate_tokens(&entry.why) + 20;
        } else {
            used += cost;
        }
    }
    ContextReply {
        project: project.config.name.clone(),
        path: path.to_owned(),
        entries,
        cut,
        problems: catalog.problems.clone(),
    }
}

/// Hand-written instruction files the repository already has that apply to `path`: AGENTS.md and
/// CLAUDE.md in the path's folder and each parent up to the root (nearest first), then
/// `.cursor/rules/*.mdc` and `.claude/rules/*.md` whose globs match. Files ai-rulez generated are
/// skipped: their content is already listed above.
fn instruction_files(root: &Path, path: &str) -> Vec<ContextEntry> {
    let mut entries = Vec::new();
    let mut folders: Vec<String> = Vec::new();
    let is_dir = root.join(path).is_dir();
    let mut current: Option<&str> = if is_dir {
        Some(path)
    } else {
        path.rsplit_once('/').map(|(folder, _)| folder)
    };
    while let Some(folder) = current {
        if !folder.is_empty() {
            folders.push(folder.to_owned());
        }
        current = folder.rsplit_once('/').map(|(parent, _)| parent);
    }
    folders.push(String::new());
    for folder in folders {
        for name in ["AGENTS.md", "CLAUDE.md"] {
            let relative = if folder.is_empty() {
                name.to_owned()
            } else {
                format!("{folder}/{name}")
            };
            let Ok(bytes) = fs_err::read(root.join(&relative)) else {
                continue;
            };
            if banner_provenance(&bytes) != Provenance::NoBanner {
                continue;
            }
            let place = if folder.is_empty() {
                "the project root".to_owned()
            } else {
                format!("`{folder}/`")
            };
            entries.push(ContextEntry {
                kind: "instructions".to_owned(),
                id: relative.clone(),
                title: name.to_owned(),
                why: format!("{name} in {place}, an enclosing folder"),
                text: String::new(),
            });
        }
    }
    for (folder, extension, key) in [
        (".cursor/rules", "mdc", "globs"),
        (".claude/rules", "md", "paths"),
    ] {
        let Ok(listing) = fs_err::read_dir(root.join(folder)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = listing
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect();
        files.sort();
        for file in files {
            if file.extension().is_none_or(|found| found != extension) {
                continue;
            }
            let Ok(bytes) = fs_err::read(&file) else {
                continue;
            };
            if banner_provenance(&bytes) != Provenance::NoBanner {
                continue;
            }
            let relative = format!(
                "{folder}/{}",
                file.file_name()
                    .map(|name| name.to_string_lossy())
                    .unwrap_or_default()
            );
            let Ok(document) = crate::frontmatter::parse(&relative, &bytes) else {
                continue;
            };
            let globs = document
                .values
                .get(key)
                .and_then(crate::scope::split_globs)
                .unwrap_or_default();
            let applies = if globs.is_empty() {
                document.values.get("alwaysApply") == Some(&serde_json::Value::Bool(true))
                    || key == "paths"
            } else {
                crate::scope::matcher(&globs).is_some_and(|matcher| matcher.is_match(path))
            };
            if applies {
                entries.push(ContextEntry {
                    kind: "instructions".to_owned(),
                    id: relative.clone(),
                    title: relative.clone(),
                    why: if globs.is_empty() {
                        "always applies".to_owned()
                    } else {
                        format!("`{key}: {}` matches", globs.join(","))
                    },
                    text: String::new(),
                });
            }
        }
    }
    entries
}

/// Renders a context reply as text (the same for the model and for `explain`).
#[must_use]
pub fn context_text(reply: &ContextReply) -> String {
    if reply.entries.is_empty() {
        return format!(
            "Nothing in `{}` applies to `{}`.\n{}",
            reply.project,
            reply.path,
            problems_text(&reply.problems)
        );
    }
    let mut text = format!(
        "What applies to `{}` in `{}` (nearest scope first):\n",
        reply.path, reply.project
    );
    for entry in &reply.entries {
        text.push_str(&format!(
            "\n## {} {} (`{}`)\nWhy: {}\n",
            entry.kind, entry.title, entry.id, entry.why
        ));
        if !entry.text.is_empty() {
            text.push('\n');
            text.push_str(&entry.text);
            text.push('\n');
        }
    }
    if !reply.cut.is_empty() {
        text.push_str(&format!(
            "\nThe texts of {} entr(y/ies) were left out to keep the reply small: {}. Read them with get_rules and `include`, or read_rule / read_context.\n",
            reply.cut.len(),
            reply.cut.join(", ")
        ));
    }
    text.push_str(&problems_text(&reply.problems));
    text
}
