//! `get_rules`: the rules a change to some paths needs, ranked against its task, within a
//! token budget, without repeating what the session already has.

use std::collections::HashSet;

use super::{
    Candidate, Catalog, DEFAULT_MAX_TOKENS, Item, MAX_CUT_NAMED, MAX_RANKED, RELEVANCE_SHARE,
    RuleRef, RulesReply, RulesRequest, Session, TASK_CHARS, applies_with, estimate_tokens,
    is_always, is_folder, problems_text, project_relative, sent_rule,
};

/// `get_rules`: the rules a change to `request.paths` needs.
#[must_use]
pub fn get_rules(catalog: &Catalog, session: &mut Session, request: &RulesRequest) -> RulesReply {
    let project = &catalog.project;
    let mut outside = Vec::new();
    let mut paths = Vec::new();
    for path in &request.paths {
        match project_relative(&project.root, path) {
            Some(relative) => {
                let folder = is_folder(&project.dir, &relative);
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
        for (number, applies) in applicable.iter_mut().enumerate() {
            if catalog.is_global(number) {
                *applies = true;
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
            if let Some(matcher) = catalog.matcher(number) {
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
    let mut chosen_ids: HashSet<&str> = chosen.iter().map(|(item, _)| item.id.as_str()).collect();
    let mut included: HashSet<&str> = HashSet::new();
    for id in &request.include {
        if chosen_ids.contains(id.as_str()) {
            continue;
        }
        match catalog.rule_number(id) {
            Some(number) => {
                let item = catalog.rule(number);
                chosen.push((item, "asked for with include"));
                chosen_ids.insert(&item.id);
                included.insert(&item.id);
            }
            None => unknown_ids.push(id.clone()),
        }
    }
    if !included.is_empty() {
        others.retain(|other| !included.contains(other.id.as_str()));
    }
    let asked_for: HashSet<&str> = request.include.iter().map(String::as_str).collect();
    let mut already_sent = 0;
    let mut sent = Vec::new();
    for (item, reason) in chosen {
        let key = (project.root.clone(), item.id.clone());
        if !request.refresh && session.sent.contains(&key) && !asked_for.contains(item.id.as_str())
        {
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
pub(crate) fn rules_text(reply: &RulesReply) -> String {
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
