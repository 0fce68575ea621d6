//! `search_rules`: active rules of the whole project matching a topic, best first.

use super::{
    Catalog, DEFAULT_MAX_TOKENS, RuleRef, SentRule, Serialize, Session, estimate_tokens,
    problems_text, sent_rule,
};

/// The reply of `search_rules`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SearchReply {
    /// Project name.
    pub project: String,
    /// The query as used: its first 500 characters.
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
/// `limit`, 1–50). Only the first 500 characters of `query` are read and echoed, as
/// `get_rules` reads a task ([`super::ranked_part`]).
#[must_use]
pub fn search_rules(
    catalog: &Catalog,
    session: &mut Session,
    query: &str,
    limit: usize,
) -> SearchReply {
    let project = &catalog.project;
    // A query of megabytes would otherwise be ranked and echoed whole.
    let query = super::ranked_part(query);
    let query = query.as_str();
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
        .search_index()
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
pub(crate) fn search_text(reply: &SearchReply) -> String {
    if reply.rules.is_empty() && reply.already_sent.is_empty() && reply.cut.is_empty() {
        return format!(
            "No active rule in `{}` matches '{}'.\n{}",
            reply.project,
            crate::lint::screen::escape_unreadable(&reply.query),
            problems_text(&reply.problems)
        );
    }
    let mut text = format!(
        "Rules in `{}` matching '{}', best match first:\n",
        reply.project,
        crate::lint::screen::escape_unreadable(&reply.query)
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
