//! `get_rules`: the rules, context files and skills a change to some paths needs, ranked as one
//! candidate set against its task, within one token budget, without repeating what the session
//! already has.

use std::collections::HashSet;

use super::relevance::Query;
use super::select::{self, Eligible};
use super::{
    Catalog, DEFAULT_MAX_TOKENS, Item, Kind, LeftOut, MAX_CUT_NAMED, MAX_OTHERS_NAMED, RuleRef,
    RulesReply, RulesRequest, SentRule, Session, is_folder, problems_text, project_relative,
    sent_rule, summary,
};

/// The request's paths made project-relative, each with whether it names a folder (it ends in
/// `/` or is a folder on disk), and the paths outside the project.
pub(crate) fn resolve_paths(
    catalog: &Catalog,
    requested: &[String],
) -> (Vec<(String, bool)>, Vec<String>) {
    let project = &catalog.project;
    let mut outside = Vec::new();
    let mut paths = Vec::new();
    for path in requested {
        match project_relative(&project.root, path) {
            Some(relative) => {
                // Normalising drops a trailing `/`, which is how a caller names a folder that
                // does not exist yet.
                let folder = path.ends_with('/') || is_folder(&project.dir, &relative);
                paths.push((relative, folder));
            }
            None => outside.push(path.clone()),
        }
    }
    (paths, outside)
}

/// The first 500 characters of the request's task (empty without one).
pub(crate) fn task_text(request: &RulesRequest) -> String {
    super::ranked_part(request.task.as_deref().unwrap_or_default())
}

/// The session key of an item: a rule's id (shared with `search_rules`), or `kind:id`.
fn session_key(item: &Item) -> String {
    if item.kind == Kind::Rule {
        item.id.clone()
    } else {
        format!("{}:{}", item.kind.noun(), item.id)
    }
}

/// The item an `include` entry names: `kind:id`, or a bare id (a rule first, then a context
/// file, then a skill).
fn included_number(catalog: &Catalog, wanted: &str) -> Option<usize> {
    if let Some((noun, id)) = wanted.split_once(':') {
        let kind = [Kind::Rule, Kind::Context, Kind::Skill]
            .into_iter()
            .find(|kind| kind.noun() == noun);
        if let Some(kind) = kind {
            return catalog.entry_number(kind, id);
        }
    }
    [Kind::Rule, Kind::Context, Kind::Skill]
        .into_iter()
        .find_map(|kind| catalog.entry_number(kind, wanted))
}

/// `get_rules`: what a change to `request.paths` needs.
#[must_use]
pub fn get_rules(catalog: &Catalog, session: &mut Session, request: &RulesRequest) -> RulesReply {
    let project = &catalog.project;
    let (paths, outside) = resolve_paths(catalog, &request.paths);
    // Only an empty `paths` means "the whole project": when every given path is outside the
    // project, nothing applies.
    let mut eligible = select::eligible(catalog, &paths, request.paths.is_empty());
    // A skill the screening withholds is never sent, as `find_skill` and `load_skill` never
    // serve it; the shelf is looked at only when a skill could be sent, so a call over rules
    // alone never waits for the skills' screening.
    let could_send_skill = eligible
        .iter()
        .any(|entry| catalog.entry(entry.number).kind == Kind::Skill)
        || !request.include.is_empty();
    let withheld: &[super::skills::WithheldSkill] = if could_send_skill {
        &catalog.skill_shelf().withheld
    } else {
        &[]
    };
    let withheld_skill = |number: usize| {
        let item = catalog.entry(number);
        (item.kind == Kind::Skill)
            .then(|| withheld.iter().find(|skill| skill.name == item.id))
            .flatten()
    };
    let mut withheld_skills: Vec<super::skills::WithheldSkill> = Vec::new();
    eligible.retain(|entry| match withheld_skill(entry.number) {
        Some(skill) => {
            withheld_skills.push(skill.clone());
            false
        }
        None => true,
    });
    let task = task_text(request);
    let query = Query::with_related(&task);
    // A task of only stopwords, punctuation or symbols has no words to rank by: it is no task,
    // so every rule that applies is sent instead of the ranking leaving out rules written for
    // these files for want of evidence.
    let had_task = query.has_words();
    // (number in `knowledge`, reason), in the order they are sent.
    let mut chosen: Vec<(usize, String)> = Vec::new();
    // Items left out, each with whether it came close enough to be listed with a summary.
    let mut left_out: Vec<(&Eligible, bool)> = Vec::new();
    if had_task {
        let features = select::features(catalog, &eligible, &query, &paths);
        let mut ranked: Vec<(f64, &Eligible, &select::CandidateFeatures)> = Vec::new();
        for (entry, found) in eligible.iter().zip(&features) {
            let strength = select::strength(found);
            if found.always {
                chosen.push((entry.number, "always sent for these files".to_owned()));
            } else if found.exact {
                chosen.push((
                    entry.number,
                    format!("written for this file: {}", entry.why),
                ));
            } else if found.chosen {
                ranked.push((strength, entry, found));
            } else {
                let bar = select::threshold(catalog.entry(entry.number).kind);
                left_out.push((entry, strength >= bar - select::NEAR_MISS));
            }
        }
        ranked.sort_by(|left, right| {
            right
                .0
                .total_cmp(&left.0)
                .then(left.1.number.cmp(&right.1.number))
        });
        for (_, entry, found) in ranked {
            chosen.push((entry.number, select::reason(catalog, entry, found, &query)));
        }
    } else {
        for entry in &eligible {
            // A rule read only when asked for by name is never pushed: it is listed, for
            // `include`.
            let manual =
                catalog.entry(entry.number).activation == crate::content::Activation::Manual;
            if entry.number < catalog.rules.len() && !manual {
                chosen.push((
                    entry.number,
                    "covers these files (no task given)".to_owned(),
                ));
            } else {
                left_out.push((entry, true));
            }
        }
    }
    let mut unknown_ids = Vec::new();
    let mut chosen_numbers: HashSet<usize> = chosen.iter().map(|(number, _)| *number).collect();
    let mut asked_for: HashSet<usize> = HashSet::new();
    for wanted in &request.include {
        match included_number(catalog, wanted) {
            Some(number) if withheld_skill(number).is_some() => {
                if let Some(skill) = withheld_skill(number)
                    && !withheld_skills.contains(skill)
                {
                    withheld_skills.push(skill.clone());
                }
            }
            Some(number) => {
                asked_for.insert(number);
                if chosen_numbers.insert(number) {
                    chosen.push((number, "asked for with include".to_owned()));
                }
            }
            None => unknown_ids.push(wanted.clone()),
        }
    }
    left_out.retain(|(entry, _)| !chosen_numbers.contains(&entry.number));
    let mut already_sent = 0;
    let budget = request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS).max(100);
    let mut used = 0;
    let mut cut = Vec::new();
    let mut cut_more = 0;
    let mut reply = RulesReply {
        project: project.config.name.clone(),
        rules: Vec::new(),
        context: Vec::new(),
        skills: Vec::new(),
        others: Vec::new(),
        others_more: 0,
        already_sent: 0,
        outside_paths: outside,
        cut: Vec::new(),
        cut_more: 0,
        unknown_ids,
        withheld_skills,
        had_task,
        problems: catalog.problems.clone(),
    };
    for (number, reason) in chosen {
        let item = catalog.entry(number);
        let key = (project.root.clone(), session_key(item));
        if !request.refresh && session.sent.contains(&key) && !asked_for.contains(&number) {
            already_sent += 1;
            continue;
        }
        let cost = select::item_tokens(item);
        if used + cost > budget {
            if cut.len() < MAX_CUT_NAMED {
                cut.push(RuleRef {
                    id: item.id.clone(),
                    title: item.title.clone(),
                });
            } else {
                cut_more += 1;
            }
            continue;
        }
        used += cost;
        session.sent.insert(key);
        let sent: SentRule = sent_rule(item, &reason);
        match item.kind {
            Kind::Context => reply.context.push(sent),
            Kind::Skill => reply.skills.push(sent),
            _ => reply.rules.push(sent),
        }
    }
    // The list of items left out shares what is left of the budget (4 bytes a token).
    let others_budget = budget.saturating_sub(used) * 4;
    let mut others_chars = 0;
    // Near misses first, so the list names the likeliest ones when it is cut.
    left_out.sort_by_key(|(entry, near)| (!*near, entry.number));
    for (entry, near) in &left_out {
        if reply.others.len() == MAX_OTHERS_NAMED || others_chars > others_budget {
            reply.others_more += 1;
            continue;
        }
        let item = catalog.entry(entry.number);
        let other = LeftOut {
            kind: item.kind.noun().to_owned(),
            id: item.id.clone(),
            title: item.title.clone(),
            summary: if *near { summary(item) } else { String::new() },
        };
        others_chars += other.id.len() + other.title.len() + other.summary.len() + 12;
        if others_chars > others_budget {
            reply.others_more += 1;
        } else {
            reply.others.push(other);
        }
    }
    reply.already_sent = already_sent;
    reply.cut = cut;
    reply.cut_more = cut_more;
    reply
}

/// The start of a sent item's heading: its title and, when the id differs, the id in backticks,
/// then the opening parenthesis of the facts that follow: for the rule `invoice-rounding`
/// titled "Invoice rounding" that is the title, the id in backticks and a comma; for a rule
/// whose title is its id, the id and the parenthesis alone.
fn heading_name(title: &str, id: &str) -> String {
    if title == id {
        format!("{title} (")
    } else {
        format!("{title} (`{id}`, ")
    }
}

/// The ids of `left_out` grouped by kind, each kind in the order it first appears and its ids
/// in their order: `rule style, naming; skill write-migration`.
fn ids_by_kind(left_out: &[&LeftOut]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for other in left_out {
        match groups.iter_mut().find(|(kind, _)| *kind == other.kind) {
            Some((_, ids)) => ids.push(&other.id),
            None => groups.push((&other.kind, vec![&other.id])),
        }
    }
    groups
        .iter()
        .map(|(kind, ids)| format!("{kind} {}", ids.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Renders a `get_rules` reply as text for the model.
#[must_use]
pub(crate) fn rules_text(reply: &RulesReply) -> String {
    let mut text = String::new();
    let sent = reply.rules.len() + reply.context.len() + reply.skills.len();
    if sent == 0 {
        text.push_str(&format!(
            "No rules to send for these files in `{}`.\n",
            reply.project
        ));
    } else {
        text.push_str(&format!(
            "Rules for `{}` ({sent} sent; follow them for this change):\n",
            reply.project,
        ));
    }
    if !reply.had_task {
        text.push_str(
            "No task words were given (none, or only stopwords and punctuation), so every applicable rule is listed.\n",
        );
    }
    // Every heading and line below is read on each call, so they say what they must in few
    // words: an id equal to the title is not repeated, and the ids left out are grouped by kind.
    for rule in &reply.rules {
        text.push_str(&format!(
            "\n## {}{}, {}; {})\n\n{}\n",
            heading_name(&rule.title, &rule.id),
            rule.priority,
            rule.scope,
            rule.reason,
            rule.body
        ));
    }
    for (noun, items) in [("Context", &reply.context), ("Skill", &reply.skills)] {
        for item in items {
            text.push_str(&format!(
                "\n## {noun}: {}{}; {})\n\n{}\n",
                heading_name(&item.title, &item.id),
                item.scope,
                item.reason,
                item.body
            ));
        }
    }
    if !reply.others.is_empty() {
        text.push_str(&format!(
            "\nAlso covering these files, not sent ({}; to read one, call get_rules with it in `include` as `kind:id`):\n",
            reply.others.len()
        ));
        for other in reply
            .others
            .iter()
            .filter(|other| !other.summary.is_empty())
        {
            text.push_str(&format!(
                "- {} {}: {}\n",
                other.kind, other.id, other.summary
            ));
        }
        let bare: Vec<&LeftOut> = reply
            .others
            .iter()
            .filter(|other| other.summary.is_empty())
            .collect();
        if !bare.is_empty() {
            text.push_str(&format!("- less likely: {}\n", ids_by_kind(&bare)));
        }
    }
    if reply.others_more > 0 {
        text.push_str(&format!(
            "{} more item(s) cover these files but are not named here to keep the reply small; narrow the paths or use search_rules.\n",
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
            reply
                .outside_paths
                .iter()
                .map(|path| path.escape_debug().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if !reply.unknown_ids.is_empty() {
        text.push_str(&format!(
            "\nNo rule has these ids: {}\n",
            reply.unknown_ids.join(", ")
        ));
    }
    for skill in &reply.withheld_skills {
        text.push_str(&format!(
            "\nWithheld by the security screening, not sent: skill {} ({}); a person must review its files (`ai-rulez scan` names the findings)\n",
            skill.name,
            skill.reasons.join("; ")
        ));
    }
    text.push_str(&problems_text(&reply.problems));
    text
}
