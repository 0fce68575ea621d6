//! Related words for a task: a task that says "popup" needs the rule that says "dialog", one that
//! says "too many requests" the rule about 429 answers. The groups of related words are data,
//! `related_terms.txt` beside this file (written by hand for ai-rulez; its header says how), read
//! once per process. `get_rules` adds the related terms of a task to its query with a lower
//! weight than the task's own words.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::relevance::for_each_term;

/// The groups of related words and phrases, one group a line (see the file's header).
const RELATED_TERMS: &str = include_str!("related_terms.txt");

/// One entry of a group as index terms: a single word is its stem (or a whole identifier); a
/// phrase is its adjacent word pairs, the way [`for_each_term`] indexes a text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// The term, and the entry as written in the table (for a reply's reasons).
    Word(String, String),
    /// The pairs, and the entry as written.
    Phrase(Vec<String>, String),
}

/// The groups, and for each single term the groups holding it as a word entry, for finding the
/// groups a task touches without testing every entry.
#[derive(Debug, Default)]
struct Groups {
    groups: Vec<Vec<Entry>>,
    /// Per term (a stem or a word pair): the groups with an entry that holds it (a word entry,
    /// or a phrase entry's first pair).
    by_term: HashMap<String, Vec<usize>>,
}

/// The index terms of one entry: its single terms when it is one word, else its pairs.
fn entry_of(text: &str) -> Option<Entry> {
    let mut words = Vec::new();
    let mut pairs = Vec::new();
    for_each_term(text, |term, pair, _| {
        if pair {
            pairs.push(term.to_owned());
        } else {
            words.push(term.to_owned());
        }
    });
    let written = text.trim().to_owned();
    if pairs.is_empty() {
        // One word, or one identifier whose whole form and parts are all terms: its first term
        // (the whole identifier, or the word's stem) names it.
        return words
            .into_iter()
            .next()
            .map(|term| Entry::Word(term, written));
    }
    Some(Entry::Phrase(pairs, written))
}

/// Reads `text` in the format of `related_terms.txt`: `#` comments and blank lines skipped, one
/// group a line, entries separated by commas.
fn parse(text: &str) -> Groups {
    let mut parsed = Groups::default();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let entries: Vec<Entry> = line.split(',').filter_map(entry_of).collect();
        if entries.len() < 2 {
            continue;
        }
        let number = parsed.groups.len();
        for entry in &entries {
            let key = match entry {
                Entry::Word(term, _) => term,
                Entry::Phrase(pairs, _) => &pairs[0],
            };
            let holders = parsed.by_term.entry(key.clone()).or_default();
            if holders.last() != Some(&number) {
                holders.push(number);
            }
        }
        parsed.groups.push(entries);
    }
    parsed
}

fn groups() -> &'static Groups {
    static GROUPS: OnceLock<Groups> = OnceLock::new();
    GROUPS.get_or_init(|| parse(RELATED_TERMS))
}

/// The terms related to a task whose terms (stems, whole identifiers and adjacent pairs, as
/// [`for_each_term`] makes them) are `own`: the word stems and phrase pairs of every group
/// that has an entry wholly in `own`, less the terms of `own` itself, each with its entry as
/// the table writes it; sorted by term, no repeats.
#[must_use]
pub(crate) fn related_terms(own: &HashSet<&str>) -> Vec<(String, String)> {
    related_terms_in(groups(), own)
}

fn related_terms_in(groups: &Groups, own: &HashSet<&str>) -> Vec<(String, String)> {
    let mut touched: Vec<usize> = own
        .iter()
        .filter_map(|term| groups.by_term.get(*term))
        .flatten()
        .copied()
        .filter(|number| {
            groups.groups[*number].iter().any(|entry| match entry {
                Entry::Word(term, _) => own.contains(term.as_str()),
                Entry::Phrase(pairs, _) => pairs.iter().all(|pair| own.contains(pair.as_str())),
            })
        })
        .collect();
    touched.sort_unstable();
    touched.dedup();
    let mut related: Vec<(String, String)> = Vec::new();
    for number in touched {
        for entry in &groups.groups[number] {
            match entry {
                Entry::Word(term, written) => related.push((term.clone(), written.clone())),
                Entry::Phrase(pairs, written) => {
                    related.extend(pairs.iter().map(|pair| (pair.clone(), written.clone())));
                }
            }
        }
    }
    related.retain(|(term, _)| !own.contains(term.as_str()));
    // The first entry of a term wins, so a stem shared by two entries shows one of them.
    related.sort_by(|left, right| left.0.cmp(&right.0));
    related.dedup_by(|right, left| left.0 == right.0);
    related
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own_terms(task: &str) -> Vec<String> {
        let mut found = Vec::new();
        for_each_term(task, |term, _, _| found.push(term.to_owned()));
        found
    }

    fn related(groups: &Groups, task: &str) -> Vec<String> {
        let own = own_terms(task);
        related_terms_in(groups, &own.iter().map(String::as_str).collect())
            .into_iter()
            .map(|(term, _)| term)
            .collect()
    }

    #[test]
    fn a_word_of_a_group_brings_the_other_words_and_the_pairs_of_its_phrases() {
        let groups = parse("# comment\n\npopup, dialog, modal window\nlonely\n");
        assert_eq!(groups.groups.len(), 1);
        assert_eq!(
            related(&groups, "close the popup"),
            ["dialog", "modal window"]
        );
        assert_eq!(
            related(&groups, "close the dialog"),
            ["modal window", "popup"]
        );
        let own = own_terms("close the popup");
        let written = related_terms_in(&groups, &own.iter().map(String::as_str).collect());
        assert_eq!(
            written,
            [
                ("dialog".to_owned(), "dialog".to_owned()),
                ("modal window".to_owned(), "modal window".to_owned())
            ]
        );
    }

    #[test]
    fn a_phrase_counts_only_when_all_its_words_are_adjacent_in_the_task() {
        let groups = parse("429, rate limit, too many requests\n");
        assert_eq!(
            related(&groups, "retry when the server says too many requests"),
            ["429", "rate limit"]
        );
        assert_eq!(
            related(&groups, "too slow: many requests time out"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn the_shipped_table_parses_and_relates_the_words_it_was_written_for() {
        let table = groups();
        assert!(table.groups.len() > 100, "{} groups", table.groups.len());
        let popup = related(table, "close the confirmation popup when Escape is pressed");
        assert!(popup.contains(&"dialog".to_owned()), "{popup:?}");
        assert!(popup.contains(&"modal".to_owned()), "{popup:?}");
        let throttled = related(
            table,
            "retry requests when the server answers too many requests",
        );
        assert!(throttled.contains(&"429".to_owned()), "{throttled:?}");
        assert!(
            throttled.contains(&"rate limit".to_owned()),
            "{throttled:?}"
        );
    }
}
