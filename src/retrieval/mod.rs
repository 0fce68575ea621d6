//! Choosing what a change needs: the rules, context files and skills for some paths and a task
//! (`get_rules`), rules by topic (`search_rules`), and everything that applies to one file or
//! folder (`get_context`, and the CLI `explain`). Applicability comes from the one selector in
//! [`crate::scope`]; `get_rules` ranks with [`select`] and [`relevance`], the others with
//! [`crate::search`].

mod context;
mod expansion;
mod mentions;
mod relevance;
mod rules;
mod select;
pub(crate) mod skill_files;
mod skill_screening;
pub(crate) mod skills;
#[cfg(test)]
mod tests;
mod topic;

pub(crate) use context::{ContextReply, context_text};
pub use context::{MemoryText, get_context, get_context_with};
pub(crate) use relevance::stored::FILE_NAME as RELEVANCE_INDEX_FILE;
pub use rules::get_rules;
pub(crate) use rules::rules_text;
pub use select::{CandidateFeatures, candidate_features};
pub use topic::search_rules;
pub(crate) use topic::{SearchReply, search_text};

use camino::Utf8Path;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use globset::{Candidate, GlobSet};
use serde::Serialize;

use crate::content::{Activation, Item, Kind};
use crate::instruction_files::InstructionIndex;
use crate::learning::similarity::RuleLines;
use crate::project::Project;
use crate::search::Index;

/// Characters of a `get_rules` task or a `find_skill` query considered for ranking.
const TASK_CHARS: usize = 500;

/// The first [`TASK_CHARS`] characters of `text`, the part of a task or query that is ranked
/// by: a text of megabytes would otherwise cost seconds of splitting and stemming its words.
pub(crate) fn ranked_part(text: &str) -> String {
    text.chars().take(TASK_CHARS).collect()
}
/// Default reply budget in estimated tokens: clients such as Claude Code reject tool results over
/// 25,000 tokens, so replies stay well below that unless the caller asks for less.
pub(crate) const DEFAULT_MAX_TOKENS: usize = 20_000;
/// At most this many items left out are named (near misses first); the rest are counted. A
/// longer list costs the reader more than it helps: narrower paths or `search_rules` find them.
const MAX_OTHERS_NAMED: usize = 40;
/// At most this many cut rules are named; the rest are counted, so a project with thousands of
/// matching rules cannot blow the reply past the client's size cap through the list alone.
const MAX_CUT_NAMED: usize = 100;

/// One line about `item` for a list of items left out: its description, else its title when it
/// has one of its own, else the first sentence of its body that is not a heading; cut to 80
/// characters.
fn summary(item: &Item) -> String {
    let own_title = (item.title != item.id).then(|| item.title.clone());
    let text = item.description.clone().or(own_title).unwrap_or_else(|| {
        item.body
            .lines()
            .map(str::trim)
            .find(|line| !line.is_empty() && !line.starts_with('#') && !line.starts_with("---"))
            .unwrap_or_default()
            .to_owned()
    });
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = text.find(". ").map_or(text.as_str(), |end| &text[..=end]);
    if sentence.chars().count() <= 80 {
        return sentence.to_owned();
    }
    let mut cut: String = sentence.chars().take(79).collect();
    cut.push('…');
    cut
}

/// The line naming `item` in a reply's list of items left out.
pub(crate) fn left_out_line(item: &Item) -> String {
    format!("- {} {}: {}\n", item.kind.noun(), item.id, summary(item))
}

/// Estimated tokens of a text (4 bytes per token, rounded up).
#[must_use]
pub(crate) fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// What one MCP session remembers: rules already sent (by project root and id).
#[derive(Debug, Default)]
pub struct Session {
    sent: HashSet<(PathBuf, String)>,
    /// Rules already counted as used in this session (see [`Session::first_uses`]).
    counted: HashSet<(PathBuf, String)>,
}

impl Session {
    /// The ids among `ids` not yet counted as used in this session for the project at `root`,
    /// in their order; they are counted from now on, so a repeat is never a new use.
    pub(crate) fn first_uses<'a>(
        &mut self,
        root: &Path,
        ids: impl IntoIterator<Item = &'a str>,
    ) -> Vec<String> {
        ids.into_iter()
            .filter(|id| self.counted.insert((root.to_path_buf(), (*id).to_owned())))
            .map(str::to_owned)
            .collect()
    }
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

/// An item that applies to the paths but was not sent, with what it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LeftOut {
    /// `rule`, `context` or `skill`.
    pub kind: String,
    /// Item id (pass it in `include` to get the item in full).
    pub id: String,
    /// Title, or a skill's name.
    pub title: String,
    /// One line: the description, else the title, else the first sentence of the text (at most
    /// 80 characters); empty for items far from being chosen, which are named only.
    pub summary: String,
}

/// The reply of `get_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RulesReply {
    /// Project name.
    pub project: String,
    /// Rules sent in full, in order.
    pub rules: Vec<SentRule>,
    /// Context files sent in full, in order.
    pub context: Vec<SentRule>,
    /// Skills sent in full (their SKILL.md body), in order.
    pub skills: Vec<SentRule>,
    /// Other rules, context files and skills covering the paths, not chosen for the task (ask
    /// for them with `include`).
    pub others: Vec<LeftOut>,
    /// How many more such items exist than `others` names (left out to keep the reply small).
    pub others_more: usize,
    /// How many chosen items were not repeated because this session already has them.
    pub already_sent: usize,
    /// Paths left out because they are outside the project.
    pub outside_paths: Vec<String>,
    /// Items cut to stay within `max_tokens` (at most 100 named).
    pub cut: Vec<RuleRef>,
    /// How many more items were cut than `cut` names.
    pub cut_more: usize,
    /// Ids in `include` that name no rule, context file or skill.
    pub unknown_ids: Vec<String>,
    /// Skills that cover these files or were asked for but that the security screening
    /// withholds (the same verdicts as `find_skill`), by name: never sent, whatever the task.
    pub withheld_skills: Vec<skills::WithheldSkill>,
    /// Whether a task with words to rank by was given (without one, or with a task of only
    /// stopwords and punctuation, every applicable rule is sent).
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
    /// Ids (or `kind:id`, such as `skill:release`) of rules, context files or skills wanted in
    /// full whatever the ranking.
    pub include: Vec<String>,
    /// Send rules again even if this session already has them.
    pub refresh: bool,
    /// Reply budget in estimated tokens.
    pub max_tokens: Option<usize>,
}

/// A loaded project with everything the reading tools need, built once per load so that a call
/// only matches and ranks: the default view's items, the active rules, context files and skills
/// with their glob matchers, and the search indexes over them. Files that failed to load are kept as `problems` and
/// named in every reply, while the rest of the project is served.
#[derive(Debug)]
pub struct Catalog {
    /// The project.
    pub project: Arc<Project>,
    /// Positions in `project.tree.items` of the default view's items, in view order.
    view: Vec<usize>,
    /// Positions in `project.tree.items` of the active rules, in priority order.
    rules: Vec<usize>,
    /// Positions in `project.tree.items` of everything `get_rules` can send: the active rules
    /// (the same as `rules`, so a rule's number is the same in both), then the context files,
    /// then the skills of the default view.
    knowledge: Vec<usize>,
    /// One entry per entry of `knowledge`: `None` for a global item, else the position in
    /// `glob_sets` of the item's glob list.
    matchers: Vec<Option<usize>>,
    /// Each distinct glob list of the scoped items: the number (in `knowledge`) of an item holding it,
    /// and its matcher, compiled on first use. Compiling is most of the cost of a catalog, and a
    /// call tests only the few rules filed under its paths' folders, so a project of 100,000
    /// rules compiles the handful a call needs instead of all of them. A list that does not
    /// compile gets an empty matcher and so applies nowhere, as with [`crate::scope::matcher`].
    glob_sets: Vec<(usize, OnceLock<GlobSet>)>,
    /// Scoped items (numbers in `knowledge`) by the literal folder prefix of their globs (`src/db/` for `src/db/**`; the
    /// empty string when a glob has none, such as `**/*.rs`). A file can only match a glob whose prefix is one
    /// of its ancestor folders, so a call tests a few matchers instead of every rule's.
    by_prefix: HashMap<String, Vec<usize>>,
    /// Item numbers (in `knowledge`) by kind and id, built on first use (`include` in
    /// `get_rules`); the view holds one item per kind and id.
    entry_by_id: OnceLock<HashMap<(Kind, String), usize>>,
    /// BM25 index over `rules` (positions are indexes into `rules`), for `search_rules` and the
    /// learning loop's look-ups; built on first use, so a server that only answers `get_rules`
    /// (which ranks with `relevance`) never builds it.
    index: OnceLock<Index>,
    /// BM25F index over `knowledge` (positions are indexes into `knowledge`), for `get_rules`;
    /// built on first use, so `explain`, `find_context` and the other tools that do not rank
    /// never pay for it (100,000 rules: about 1.5 s on two cores).
    relevance: OnceLock<Arc<relevance::RelevanceIndex>>,
    /// Whether the relevance index is read from and stored into the machine-local copy (set by
    /// [`Catalog::offer_stored_index`]; only the MCP server's first catalog of a project is).
    uses_stored_index: bool,
    /// The stored copy of the relevance index read while the project loaded (see
    /// [`prefetch_stored_index`]), taken by the first [`Catalog::relevance`] if it indexes
    /// exactly `knowledge`.
    offered_index: std::sync::Mutex<Option<StoredIndex>>,
    /// One entry per entry of `knowledge`: what ranking reads of the item on every call.
    facts: Vec<select::EntryFacts>,
    /// The numbers (in `knowledge`) of the items without globs, ascending.
    global_numbers: Vec<usize>,
    /// The paths the texts of `knowledge` name (positions are indexes into `knowledge`), for
    /// `get_rules`; each item's found on first use.
    mentions: mentions::MentionIndex,
    /// Load errors (`file:line: message`): those files are left out of every reply.
    pub problems: Vec<String>,
    /// One entry per item of `project.tree.items`: the item's comparison form for the learning
    /// tools' duplicate and contradiction checks, made on first use. A check compares a new
    /// sentence with hundreds of rules of its scope; tokenizing each of them on every call was
    /// most of its cost.
    rule_lines: Vec<OnceLock<RuleLines>>,
    /// The instruction files the repository already has outside `.ai-rulez/` (for
    /// `get_context`), built on first use; the catalog's watcher follows only `.ai-rulez/`, so
    /// the index refreshes by age.
    instruction_files: crate::instruction_files::CachedIndex,
    /// The skills `ai-rulez mcp` serves on demand, screened, built on first use.
    skill_shelf: OnceLock<skills::SkillShelf>,
    /// The symlinks the load refused (paths as the tree shows them, sorted): a served skill
    /// whose folder holds one is withheld, since part of it was never loaded or screened.
    refused_symlinks: Vec<String>,
    /// Skills whose `SKILL.md` the load left out, with the error ([`skills::unloadable_skills`]).
    unloadable_skills: Vec<skills::WithheldSkill>,
}

pub(crate) use relevance::stored::StoredIndex;

/// Reads the stored relevance index of the project around `start` (`<config
/// folder>/local/relevance-index`), whatever items it indexes, so that it can be read on another
/// core while the project loads and handed over with [`Catalog::offer_stored_index`]; `None`
/// when there is no project with a config folder, or no usable copy.
pub(crate) fn prefetch_stored_index(start: &std::path::Path) -> Option<StoredIndex> {
    let (root, config_relative, _) = crate::project::discover(start).ok()?;
    let (config_dir, _) = config_relative.rsplit_once('/')?;
    let dir = crate::confined_fs::ProjectDir::open(&root).ok()?;
    let path = crate::local_state::path_in(config_dir, relevance::stored::FILE_NAME);
    relevance::stored::read(&dir, &path)
}

impl Catalog {
    /// Makes this catalog's relevance index come from the machine-local copy: the first
    /// [`Catalog::relevance`] takes `stored` (read ahead with [`prefetch_stored_index`]) if it
    /// indexes exactly what the catalog ranks, and otherwise builds the index and stores a
    /// copy in the background for the next server. Only for a project of at least
    /// [`relevance::stored::LEAST_ITEMS`] ranked items with a config folder; others always
    /// build.
    pub(crate) fn offer_stored_index(&mut self, stored: Option<StoredIndex>) {
        self.uses_stored_index = true;
        *self
            .offered_index
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = stored;
    }

    /// Tells the catalog what the load left out, from its `errors`: the symlinks it refused (a
    /// served skill whose folder holds one is withheld and named) and the skills whose
    /// `SKILL.md` it could not read (named as withheld with the error).
    pub(crate) fn note_load_errors(&mut self, errors: &[crate::error::Error]) {
        self.refused_symlinks = crate::lint::scan::symlinked_paths(errors);
        self.unloadable_skills = skills::unloadable_skills(errors);
    }

    /// Builds the catalog of `project`; `problems` are the load errors of files left out.
    #[must_use]
    pub fn new(project: Arc<Project>, mut problems: Vec<String>) -> Self {
        let project_items = project.tree.items.len();
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
        let knowledge: Vec<usize> = {
            let items = &project.tree.items;
            let mut knowledge = rules.clone();
            for kind in [Kind::Context, Kind::Skill] {
                knowledge.extend(
                    view.iter()
                        .copied()
                        .filter(|position| items[*position].kind == kind)
                        .filter(|position| items[*position].is_active()),
                );
            }
            knowledge
        };
        let mut glob_sets: Vec<(usize, OnceLock<GlobSet>)> = Vec::new();
        let mut matchers: Vec<Option<usize>> = Vec::with_capacity(knowledge.len());
        {
            let mut set_by_globs: HashMap<&[String], usize> = HashMap::new();
            for (number, position) in knowledge.iter().enumerate() {
                let globs = project.tree.items[*position].globs.as_slice();
                if globs.is_empty() {
                    matchers.push(None);
                    continue;
                }
                let set = *set_by_globs.entry(globs).or_insert_with(|| {
                    glob_sets.push((number, OnceLock::new()));
                    glob_sets.len() - 1
                });
                matchers.push(Some(set));
            }
        }
        let mut by_prefix: HashMap<String, Vec<usize>> = HashMap::new();
        for (number, position) in knowledge.iter().enumerate() {
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
        let facts = knowledge
            .iter()
            .map(|position| select::EntryFacts::of(&project.tree.items[*position]))
            .collect();
        let global_numbers = (0..knowledge.len())
            .filter(|number| matchers[*number].is_none())
            .collect();
        Self {
            project,
            view,
            rules,
            facts,
            global_numbers,
            mentions: mentions::MentionIndex::new(knowledge.len()),
            knowledge,
            relevance: OnceLock::new(),
            uses_stored_index: false,
            offered_index: std::sync::Mutex::new(None),
            matchers,
            glob_sets,
            by_prefix,
            entry_by_id: OnceLock::new(),
            index: OnceLock::new(),
            problems,
            rule_lines: std::iter::repeat_with(OnceLock::new)
                .take(project_items)
                .collect(),
            instruction_files: crate::instruction_files::CachedIndex::default(),
            skill_shelf: OnceLock::new(),
            refused_symlinks: Vec::new(),
            unloadable_skills: Vec::new(),
        }
    }

    /// The index of the instruction files the repository already has (see
    /// [`crate::instruction_files`]), built on first use and rebuilt when older than ten
    /// seconds or when something along `along` (a project-relative file or folder) changed.
    #[must_use]
    pub(crate) fn instruction_index(&self, along: &str) -> Arc<InstructionIndex> {
        self.instruction_files.get(
            &self.project.dir,
            &self.project.config_dir_relative,
            Some(along),
        )
    }

    /// The served skills of the default view (screened on first use; see [`skills`]). The
    /// verdicts of the screening are remembered in the machine-local folder
    /// ([`skill_screening`]) when at least [`skill_screening::LEAST_SKILLS`] skills were
    /// screened and any of them was not remembered yet, written in the background.
    #[must_use]
    pub(crate) fn skill_shelf(&self) -> &skills::SkillShelf {
        self.skill_shelf.get_or_init(|| {
            let config_dir = &self.project.config_dir_relative;
            // A project configured by a root `ai-rulez.toml` has no config folder to keep a
            // machine-local file in.
            let path = (!config_dir.is_empty())
                .then(|| crate::local_state::path_in(config_dir, skill_screening::FILE_NAME));
            let remembered = path
                .as_deref()
                .map(|path| skill_screening::read(&self.project.dir, path))
                .unwrap_or_default();
            let (mut built, screening) = skills::SkillShelf::build(
                &self.project,
                &self.view,
                &remembered,
                &self.refused_symlinks,
            );
            built.note_unloadable(&self.unloadable_skills);
            if let Some(path) = path
                && screening.screened > 0
                && screening.verdicts.len() >= skill_screening::LEAST_SKILLS
            {
                let project = self.project.clone();
                let writing = path.clone();
                crate::local_state::write_in_background(&writing, move || {
                    if let Err(error) =
                        skill_screening::write(&project.dir, &path, &screening.verdicts)
                    {
                        eprintln!("ai-rulez: the skill screening was not remembered: {error}");
                    }
                });
            }
            built
        })
    }

    /// This catalog with `items` (root-layer rule files just written by this process, as
    /// [`crate::content::root_rule_from_bytes`] reads them) put into the project's tree where
    /// loading would put them. A rule that is not active is never served, so only the positions
    /// of the items after it move; an active one changes the view, so the catalog is built again
    /// from the tree in memory (with `load_problems`, the load errors it was built with).
    /// `None` when the project is still shared elsewhere (the caller reloads it).
    #[must_use]
    pub(crate) fn with_root_rules(
        mut self,
        items: Vec<Item>,
        load_problems: &[String],
    ) -> Option<Self> {
        let project = Arc::get_mut(&mut self.project)?;
        let mut view_changed = false;
        for item in items {
            view_changed |= item.is_active();
            let position = crate::content::root_rule_position(
                &project.tree.items,
                &project.config_relative,
                &item.source_path,
            );
            project.tree.items.insert(position, item);
            self.rule_lines.insert(position, OnceLock::new());
            for moved in self.view.iter_mut().chain(self.rules.iter_mut()) {
                if *moved >= position {
                    *moved += 1;
                }
            }
        }
        if view_changed {
            return Some(Self::new(self.project, load_problems.to_vec()));
        }
        Some(self)
    }

    /// The BM25F index over everything `get_rules` can send (positions are numbers in
    /// `knowledge`), built on first use.
    ///
    /// When the server asked for it ([`Catalog::offer_stored_index`]), the index comes from
    /// the machine-local copy when that indexes exactly these items, and is otherwise built and
    /// stored in the background.
    pub(crate) fn relevance(&self) -> &relevance::RelevanceIndex {
        self.relevance.get_or_init(|| {
            let items: Vec<&Item> = (0..self.knowledge.len())
                .map(|number| self.entry(number))
                .collect();
            let config_dir = &self.project.config_dir_relative;
            if !self.uses_stored_index
                || items.len() < relevance::stored::LEAST_ITEMS
                || config_dir.is_empty()
            {
                return Arc::new(relevance::RelevanceIndex::build(&items));
            }
            let digest = relevance::stored::digest_of(&items);
            let offered = self
                .offered_index
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take();
            if let Some(index) = offered.and_then(|copy| copy.index_for(&digest, items.len())) {
                return Arc::new(index);
            }
            let index = Arc::new(relevance::RelevanceIndex::build(&items));
            let path = crate::local_state::path_in(config_dir, relevance::stored::FILE_NAME);
            let (stored, project) = (index.clone(), self.project.clone());
            let writing = path.clone();
            crate::local_state::write_in_background(&writing, move || {
                if let Err(error) = relevance::stored::write(&project.dir, &path, &digest, &stored)
                {
                    eprintln!("ai-rulez: the relevance index was not stored: {error}");
                }
            });
            index
        })
    }

    /// How specific to `paths` (project-relative) the paths that the text of the item numbered
    /// `number` in `knowledge` names are, 0 to 1 (see [`mentions`]); 0 for an unknown number.
    pub(crate) fn mention(&self, number: usize, paths: &[&str]) -> f64 {
        if number >= self.knowledge.len() {
            return 0.0;
        }
        self.mentions.covering(number, self.entry(number), paths)
    }

    /// Finds, on every core, the named paths of the items numbered `numbers` in `knowledge` that
    /// [`Catalog::mention`] has not looked at yet (see [`mentions::MentionIndex::find_all`]);
    /// unknown numbers are skipped.
    pub(crate) fn find_mentions(&self, numbers: &[usize]) {
        self.mentions.find_all(numbers, |number| self.entry(number));
    }

    /// The BM25 index over the rules (positions are indexes into `rules`), built on first use.
    pub(crate) fn search_index(&self) -> &Index {
        self.index.get_or_init(|| {
            let items: Vec<&Item> = self
                .rules
                .iter()
                .map(|position| &self.project.tree.items[*position])
                .collect();
            Index::build(&items)
        })
    }

    /// Positions in `project.tree.items` of the active rules of the default view that pass
    /// `keep` and hold at least `least` of `terms` (stemmed search terms) in their title,
    /// triggers, description or body, in priority order. Checking `keep` first and the index
    /// second costs a slice comparison and a few binary searches per rule, so a caller looking
    /// for near-duplicates among 5,000 rules compares only the few that can be similar.
    pub(crate) fn rules_holding(
        &self,
        terms: &[String],
        least: usize,
        keep: impl Fn(&Item) -> bool,
    ) -> Vec<usize> {
        (0..self.rules.len())
            .filter(|number| keep(self.rule(*number)))
            .filter(|number| self.search_index().terms_held(terms, *number) >= least)
            .map(|number| self.rules[number])
            .collect()
    }

    /// The comparison form of the item at `position` in `project.tree.items` (its title and
    /// lines as term sets), made on first use and kept while the catalog lives. `position`
    /// must be a position of the tree (the memo has one entry per item).
    pub(crate) fn rule_lines(&self, position: usize) -> &RuleLines {
        let item = &self.project.tree.items[position];
        self.rule_lines[position].get_or_init(|| RuleLines::of(&item.title, &item.body))
    }

    /// Positions in `project.tree.items` of the default view's active rules, in priority order.
    pub(crate) fn rule_positions(&self) -> &[usize] {
        &self.rules
    }

    fn rule(&self, number: usize) -> &Item {
        &self.project.tree.items[self.rules[number]]
    }

    /// What ranking reads of the item numbered `number` in `knowledge`.
    ///
    /// Panics on a number past `knowledge`, as [`Catalog::entry`] does: numbers come from
    /// this catalog.
    fn facts(&self, number: usize) -> &select::EntryFacts {
        &self.facts[number]
    }

    /// The item numbered `number` in `knowledge` (a rule when below `rules.len()`).
    fn entry(&self, number: usize) -> &Item {
        &self.project.tree.items[self.knowledge[number]]
    }

    /// The number (in `knowledge`) of the item of `kind` with id `id`.
    fn entry_number(&self, kind: Kind, id: &str) -> Option<usize> {
        self.entry_by_id
            .get_or_init(|| {
                let mut by_id = HashMap::with_capacity(self.knowledge.len());
                for number in 0..self.knowledge.len() {
                    let item = self.entry(number);
                    // The first in priority order wins, as a scan would find it.
                    by_id.entry((item.kind, item.id.clone())).or_insert(number);
                }
                by_id
            })
            .get(&(kind, id.to_owned()))
            .copied()
    }

    /// Whether item `number` (in `knowledge`) applies everywhere (it has no globs).
    fn is_global(&self, number: usize) -> bool {
        self.matchers[number].is_none()
    }

    /// The numbers (in `knowledge`) of the items that apply everywhere, ascending.
    fn global_numbers(&self) -> &[usize] {
        &self.global_numbers
    }

    /// The matcher of item `number`'s globs (`None` for a global item), compiled on first use.
    fn matcher(&self, number: usize) -> Option<&GlobSet> {
        let (holder, compiled) = &self.glob_sets[self.matchers[number]?];
        Some(compiled.get_or_init(|| {
            crate::scope::matcher(&self.entry(*holder).globs).unwrap_or_else(GlobSet::empty)
        }))
    }

    /// How many distinct glob lists have been compiled so far (each is compiled at most once).
    #[cfg(test)]
    fn compiled_matchers(&self) -> usize {
        self.glob_sets
            .iter()
            .filter(|(_, compiled)| compiled.get().is_some())
            .count()
    }

    /// The items of the default view, in view order (also read by team-memory navigation).
    pub(crate) fn view_items(&self) -> impl Iterator<Item = &Item> {
        self.view
            .iter()
            .map(|position| &self.project.tree.items[*position])
    }

    /// Item numbers (in `knowledge`) whose globs may match the file `path`: those filed under one of its ancestor
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

/// Turns a user path into a project-relative `/` path; `None` when it leaves the project or
/// holds a control character (a newline or escape in a path would be echoed into the model's
/// text as if it were an instruction, and no item can live there).
#[must_use]
pub(crate) fn project_relative(root: &Path, path: &str) -> Option<String> {
    if path.chars().any(char::is_control) {
        return None;
    }
    let candidate = Utf8Path::new(path);
    if !candidate.is_absolute() {
        return crate::confined_fs::normalise_relative(candidate.as_str());
    }
    // Inside the project a path is read as written, like a relative one: resolving it first
    // would follow a symlink in the project (`/repo/weblink` to `web`) that the relative form
    // of the same path is refused for.
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    for base in [root, canonical_root.as_path()] {
        let inside = candidate
            .as_std_path()
            .strip_prefix(base)
            .ok()
            .and_then(Utf8Path::from_path)
            .and_then(|rest| crate::confined_fs::normalise_relative(rest.as_str()));
        if inside.is_some() {
            return inside;
        }
    }
    // Otherwise the nearest folder along the path that resolves to the project root (a linked
    // parent, `a/../repo`) is where the project starts; what follows it is read as written, so
    // no link inside the project is followed here either, and a file not yet there still counts.
    let written = candidate.as_std_path();
    let start = written.ancestors().find(|ancestor| {
        ancestor
            .canonicalize()
            .is_ok_and(|found| found == canonical_root)
    })?;
    // A path that is not UTF-8 names no item of the project.
    let relative = Utf8Path::from_path(written.strip_prefix(start).ok()?)?;
    crate::confined_fs::normalise_relative(relative.as_str())
}

/// Whether the project-relative `path` names a folder: it ends in `/` or is a directory on disk.
/// Paths of files that do not exist yet count as files.
#[must_use]
pub(crate) fn is_folder(dir: &crate::confined_fs::ProjectDir, path: &str) -> bool {
    path.is_empty()
        || path.ends_with('/')
        || dir.info(path).ok().flatten().map(|info| info.kind)
            == Some(crate::confined_fs::EntryKind::Folder)
}

/// Why `item` applies to the project-relative `path` (a file or, with `folder`, a folder), if it
/// does.
#[must_use]
pub(crate) fn applies_to(item: &Item, path: &str, folder: bool) -> Option<String> {
    if item.globs.is_empty() {
        // An item without globs is not tied to files, but a rule the assistant picks by its
        // description, or one loaded only by name, is not sent everywhere either.
        let why = match item.activation {
            Activation::Auto => {
                "not scoped to files; assistants load it when the task matches its description (activation: auto)"
            }
            Activation::Manual => {
                "not scoped to files; loaded only when asked for by name (activation: manual)"
            }
            Activation::Always | Activation::Glob => "applies everywhere",
        };
        return Some(why.to_owned());
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
        // Quote only the patterns that match (the matcher holds one glob per pattern, in
        // order), so a long pattern list does not hide which one applied.
        let globs: Vec<String> = matcher
            .matches_candidate(candidate)
            .into_iter()
            .filter_map(|index| item.globs.get(index))
            .map(|glob| format!("`{glob}`"))
            .collect();
        let verb = if globs.len() == 1 { "matches" } else { "match" };
        return Some(format!("{} {verb} `{path}`", globs.join(", ")));
    }
    // Only a folder is covered by a glob that reaches inside it (or inside which it lies); a
    // file such as `src/a.js` must not match `src/**/*.ts` just because both start with `src/`.
    if !folder {
        return None;
    }
    let folder = format!("{}/", path.trim_end_matches('/'));
    item.globs.iter().find_map(|glob| {
        // Folder by folder, a glob's folders must be able to lead into this one; one led by a
        // wildcard or a brace group (`**/api/*.rs`, `{src,lib}/**`) may, one naming other
        // folders (`src/{a,b}/x` for `src/api`) may not.
        let inside = folder.trim_end_matches('/');
        crate::scope::may_match_below(glob, inside).then(|| {
            if inside.is_empty() {
                format!("`{glob}` covers files in the project")
            } else {
                format!("`{glob}` covers files in `{inside}`")
            }
        })
    })
}

fn scope_text(item: &Item) -> String {
    if item.globs.is_empty() {
        "global".to_owned()
    } else {
        item.globs.join(", ")
    }
}

/// Whether an item is sent whatever the task: `always: true` or an explicit `activation:
/// always`. A `priority: critical` item is not: its priority is strong evidence, weighed with
/// the rest (before, critical rules were always sent, and on the labelled set of
/// `bench/selection/` that alone cost a sixth of the eligible tokens for rules most changes did
/// not need).
#[must_use]
pub(crate) fn is_pinned(item: &Item) -> bool {
    item.always
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

/// A note naming the files left out because they could not be loaded (empty when none).
fn problems_text(problems: &[String]) -> String {
    if problems.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "\n{} problem(s) in the project's files; these files were left out and everything else was served. Fix them; `ai-rulez validate` checks the whole project:\n",
        problems.len()
    );
    for problem in problems {
        text.push_str(&format!("- {problem}\n"));
    }
    text
}
