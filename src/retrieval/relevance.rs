//! How well a task's words match a rule, context file or skill: a BM25F index over each item's
//! title (a skill's name), triggers, description and body, with identifiers split on case and
//! `_`, English stemming (Snowball, the `rust-stemmers` crate) and adjacent word pairs indexed
//! as terms of their own, so a phrase the task shares with an item counts more than its words
//! apart. `get_rules` uses it to rank one candidate set of every kind.

use std::collections::HashMap;
use std::sync::OnceLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::content::{Item, Kind};

mod numbering;
mod parts;
mod postings;
pub(crate) mod stored;

const K1: f64 = 1.2;
const B: f64 = 0.75;
/// Field weights: a word in the title says more about the item than one in its body.
const TITLE_WEIGHT: f64 = 3.0;
const TRIGGER_WEIGHT: f64 = 2.5;
const DESCRIPTION_WEIGHT: f64 = 2.0;
const BODY_WEIGHT: f64 = 1.0;

/// Words too common in tasks and rules to tell items apart (lower case, before stemming).
fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "all"
            | "an"
            | "and"
            | "any"
            | "are"
            | "as"
            | "at"
            | "be"
            | "by"
            | "can"
            | "do"
            | "does"
            | "each"
            | "for"
            | "from"
            | "has"
            | "have"
            | "how"
            | "i"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
            | "me"
            | "my"
            | "no"
            | "not"
            | "of"
            | "on"
            | "or"
            | "our"
            | "so"
            | "that"
            | "the"
            | "their"
            | "them"
            | "then"
            | "there"
            | "these"
            | "this"
            | "to"
            | "use"
            | "was"
            | "we"
            | "what"
            | "when"
            | "which"
            | "will"
            | "with"
            | "you"
            | "your"
    )
}

fn stemmer() -> &'static Stemmer {
    static STEMMER: OnceLock<Stemmer> = OnceLock::new();
    STEMMER.get_or_init(|| Stemmer::create(Algorithm::English))
}

/// The hasher of the maps keyed by terms and words: they are looked up for every word of every
/// item, and `foldhash` is several times quicker than the standard hasher on short keys. The
/// maps are never walked in order, so only speed changes.
type TermHasher = foldhash::fast::RandomState;

/// Most distinct words whose stems one thread remembers; past it the memory starts again.
const MAX_REMEMBERED_STEMS: usize = 100_000;

/// The English stem of `word` (lower case), into `stem`. A project's items repeat a few thousand words, and
/// stemming was the costliest step of indexing them, so each thread remembers the stems it made.
fn stem_into(word: &str, stem: &mut String) {
    thread_local! {
        static STEMS: std::cell::RefCell<HashMap<String, String, TermHasher>> =
            std::cell::RefCell::new(HashMap::default());
    }
    STEMS.with(|stems| {
        let mut stems = stems.borrow_mut();
        stem.clear();
        if let Some(known) = stems.get(word) {
            stem.push_str(known);
            return;
        }
        let made = stemmer().stem(word).into_owned();
        if stems.len() >= MAX_REMEMBERED_STEMS {
            stems.clear();
        }
        stem.push_str(&made);
        stems.insert(word.to_owned(), made);
    });
}

/// The words of one identifier-like token (`resolve_type_path`, `toLocaleString`, `HTTP2Client`),
/// pushed onto `parts`: split on `_` and on a lower-case letter or digit followed by an
/// upper-case one.
fn identifier_parts<'t>(token: &'t str, parts: &mut Vec<&'t str>) {
    for piece in token.split('_').filter(|piece| !piece.is_empty()) {
        let mut start = 0;
        let mut previous: Option<char> = None;
        for (index, character) in piece.char_indices() {
            if let Some(before) = previous
                && character.is_uppercase()
                && (before.is_lowercase() || before.is_ascii_digit())
            {
                parts.push(&piece[start..index]);
                start = index;
            }
            previous = Some(character);
        }
        parts.push(&piece[start..]);
    }
}

/// `part` in lower case, into `word` (the same text `str::to_lowercase` gives, without a new
/// allocation for the usual ASCII word).
fn lower_into(part: &str, word: &mut String) {
    word.clear();
    if part.is_ascii() {
        word.push_str(part);
        word.make_ascii_lowercase();
    } else {
        word.push_str(&part.to_lowercase());
    }
}

/// One piece of a text's words, in text order (see [`for_each_piece`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum Piece<'t> {
    /// An identifier made of several words (`resolve_type_path`), as written, before its words.
    Identifier(&'t str),
    /// One word as written (a part of an identifier, or a plain word).
    Word(&'t str),
}

/// Calls `visit` with the pieces of `text` in order: text splits into tokens of letters, digits
/// and `_`; a token of several words (see [`identifier_parts`]) gives itself, then its words.
pub(super) fn for_each_piece<'t>(text: &'t str, mut visit: impl FnMut(Piece<'t>)) {
    let mut parts: Vec<&str> = Vec::new();
    for token in text.split(|character: char| !(character.is_alphanumeric() || character == '_')) {
        parts.clear();
        identifier_parts(token, &mut parts);
        if parts.len() > 1 {
            visit(Piece::Identifier(token));
        }
        for part in &parts {
            visit(Piece::Word(part));
        }
    }
}

/// Calls `visit` with each term of `text` in order: the stems of its words (stopwords dropped)
/// and, for an identifier made of several words, the whole identifier in lower case as well,
/// with `false`; and with adjacent stems (across a dropped stopword too) joined by a space,
/// with `true`. The third argument is the word as written, in lower case (for a pair, the second
/// word).
pub(super) fn for_each_term(text: &str, mut visit: impl FnMut(&str, bool, &str)) {
    // The buffers are reused from word to word: indexing a large project visits millions of
    // words, and a fresh string for each word, stem and pair was most of the cost.
    let mut previous: Option<String> = None;
    let mut joined = String::new();
    let mut word = String::new();
    let mut stem = String::new();
    for_each_piece(text, |piece| {
        let part = match piece {
            Piece::Identifier(token) => {
                let whole = token.to_lowercase();
                visit(&whole, false, &whole);
                return;
            }
            Piece::Word(part) => part,
        };
        lower_into(part, &mut word);
        if is_stopword(&word) {
            return;
        }
        stem_into(&word, &mut stem);
        visit(&stem, false, &word);
        if let Some(before) = &previous {
            joined.clear();
            joined.push_str(before);
            joined.push(' ');
            joined.push_str(&stem);
            visit(&joined, true, &word);
        }
        match &mut previous {
            Some(before) => {
                before.clear();
                before.push_str(&stem);
            }
            None => previous = Some(stem.clone()),
        }
    });
}

/// How much a term related to the task's words (see [`super::expansion`]) counts against one of
/// the task's own words: chosen on the labelled cases of `bench/selection/` (0.3, 0.5 and 0.7
/// were tried; 0.5 had the best recall on the tuning and the held-out projects alike).
pub(crate) const RELATED_WEIGHT: f64 = 0.5;

/// The distinct terms and word pairs of a task, sorted, each with its weight: 1 for the task's
/// own terms, [`RELATED_WEIGHT`] for related ones.
#[derive(Debug, Clone, Default)]
pub(crate) struct Query {
    terms: Vec<(String, f64)>,
    /// How many of the task's own terms are single words (not pairs, not related terms).
    words: usize,
    /// The first word of the task each single-word term came from, in task order, for the
    /// reasons of a reply (people read `migration`, not the stem `migrat`).
    written: Vec<(String, String)>,
    /// The related terms, each with its entry as the table writes it, sorted by term.
    related: Vec<(String, String)>,
}

impl Query {
    /// The query of `task`: its own terms only.
    #[must_use]
    pub(crate) fn of(task: &str) -> Self {
        let mut terms = Vec::new();
        let mut written: Vec<(String, String)> = Vec::new();
        for_each_term(task, |term, pair, word| {
            terms.push(term.to_owned());
            if !pair && !written.iter().any(|(known, _)| known == term) {
                written.push((term.to_owned(), word.to_owned()));
            }
        });
        terms.sort();
        terms.dedup();
        let words = terms.iter().filter(|term| !term.contains(' ')).count();
        Self {
            terms: terms.into_iter().map(|term| (term, 1.0)).collect(),
            words,
            written,
            related: Vec::new(),
        }
    }

    /// Whether the task has any term of its own to rank by (a task of only stopwords,
    /// punctuation or symbols has none).
    #[must_use]
    pub(crate) fn has_words(&self) -> bool {
        // Word pairs and related terms come only from the task's own words.
        self.words > 0
    }

    /// The query of `task` with the terms related to its words (see [`super::expansion`]) at
    /// [`RELATED_WEIGHT`].
    #[must_use]
    pub(crate) fn with_related(task: &str) -> Self {
        let mut query = Self::of(task);
        let related = {
            let own: std::collections::HashSet<&str> =
                query.terms.iter().map(|(term, _)| term.as_str()).collect();
            super::expansion::related_terms(&own)
        };
        query.terms.extend(
            related
                .iter()
                .map(|(term, _)| (term.clone(), RELATED_WEIGHT)),
        );
        query.terms.sort_by(|left, right| left.0.cmp(&right.0));
        query.related = related;
        query
    }
}

/// Where in an item a matched term was found, for the reply's reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Title,
    Triggers,
    Description,
    Body,
}

/// How one item matches a query.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Match {
    /// BM25F score (0 when nothing matches).
    pub(crate) score: f64,
    /// The part of `score` from the title, triggers and description.
    pub(crate) head: f64,
    /// The share of the task's words (not pairs) the item holds, 0 to 1.
    pub(crate) coverage: f64,
    /// Whether every word of one of the item's triggers is in the task.
    pub(crate) trigger: bool,
    /// Whether a title or trigger word of the item is in the task.
    pub(crate) named: bool,
}

/// An index over a fixed list of items; positions refer to that list. Serialised only into the
/// machine-local copy ([`stored`]), which another build never reads.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct RelevanceIndex {
    vocabulary: HashMap<String, u32, TermHasher>,
    /// Per term number: the items holding it (see [`postings::Postings`]).
    postings: postings::Postings,
    /// Per term number: whether it is a word pair (so its length is the number of terms).
    pairs: Vec<bool>,
    /// Per item: each trigger as its sorted term numbers.
    triggers: Vec<Vec<Vec<u32>>>,
    lengths: Vec<f64>,
    average_length: f64,
}

/// A query's terms the index knows, ready to score items with ([`RelevanceIndex::known`]).
pub(crate) struct KnownTerms {
    /// Term numbers, ascending.
    numbers: Vec<u32>,
    /// Per term, in the same order: the query's weight, that weight times the term's inverse
    /// document frequency, and whether the term is a word pair.
    weights: Vec<(f64, f64, bool)>,
    /// How many words (not pairs) the task has of its own.
    words: usize,
}

fn field_bit(field: Field) -> u8 {
    match field {
        Field::Title => 1,
        Field::Triggers => 2,
        Field::Description => 4,
        Field::Body => 8,
    }
}

impl RelevanceIndex {
    /// Indexes `items` one after another; their order defines the positions
    /// [`RelevanceIndex::score`] takes. [`RelevanceIndex::build`] runs this on parts of a long
    /// list at once and joins the parts into the same index.
    #[must_use]
    fn build_in_order(items: &[&Item]) -> Self {
        let mut index = Self::default();
        let mut numbering = numbering::Numbering::default();
        let mut occurrences: Vec<(u32, f64, u8)> = Vec::new();
        let mut documents: Vec<Vec<(u32, postings::Entry)>> = Vec::with_capacity(items.len());
        for item in items {
            occurrences.clear();
            let mut length = 0.0;
            // A skill is known by its name more than by the heading of its body.
            let title = if item.kind == Kind::Skill {
                format!("{} {}", item.id.replace('-', " "), item.title)
            } else {
                item.title.clone()
            };
            let triggers = item.triggers.join(" ; ");
            let fields = [
                (title.as_str(), TITLE_WEIGHT, Field::Title),
                (triggers.as_str(), TRIGGER_WEIGHT, Field::Triggers),
                (
                    item.description.as_deref().unwrap_or_default(),
                    DESCRIPTION_WEIGHT,
                    Field::Description,
                ),
                (item.body.as_str(), BODY_WEIGHT, Field::Body),
            ];
            for (text, weight, field) in fields {
                index.for_each_term_number(&mut numbering, text, |number| {
                    occurrences.push((number, weight, field_bit(field)));
                    length += weight;
                });
            }
            occurrences.sort_by_key(|(number, _, _)| *number);
            let mut frequencies: Vec<(u32, postings::Entry)> =
                Vec::with_capacity(occurrences.len());
            for (number, weight, bit) in occurrences.iter().copied() {
                let head = if bit == field_bit(Field::Body) {
                    0.0
                } else {
                    weight
                };
                match frequencies.last_mut() {
                    Some((last, (sum, head_sum, bits))) if *last == number => {
                        *sum += weight;
                        *head_sum += head;
                        *bits |= bit;
                    }
                    _ => {
                        frequencies.push((number, (weight, head, bit)));
                    }
                }
            }
            documents.push(frequencies);
            index.lengths.push(length);
            let triggers = item
                .triggers
                .iter()
                .map(|trigger| {
                    let mut numbers = Vec::new();
                    for_each_term(trigger, |term, pair, _| {
                        if !pair && let Some(number) = index.vocabulary.get(term) {
                            numbers.push(*number);
                        }
                    });
                    numbers.sort_unstable();
                    numbers.dedup();
                    numbers
                })
                .filter(|numbers| !numbers.is_empty())
                .collect();
            index.triggers.push(triggers);
        }
        index.postings = postings::Postings::of(&documents, index.pairs.len());
        let total: f64 = index.lengths.iter().sum();
        index.average_length = if index.lengths.is_empty() {
            1.0
        } else {
            total / count_as_float(index.lengths.len())
        };
        index
    }

    /// How many items hold term `number`: the length of its posting list.
    fn document_frequency(&self, number: u32) -> usize {
        self.postings.list(number).0.len()
    }

    fn term_number(&mut self, term: &str) -> u32 {
        if let Some(number) = self.vocabulary.get(term) {
            return *number;
        }
        let number = u32::try_from(self.pairs.len()).unwrap_or(u32::MAX);
        self.vocabulary.insert(term.to_owned(), number);
        self.pairs.push(term.contains(' '));
        number
    }

    /// The query's terms known to the index with their inverse document frequencies, and how
    /// many words (not pairs) the task has of its own; the input of [`RelevanceIndex::score`].
    #[must_use]
    pub(crate) fn known(&self, query: &Query) -> KnownTerms {
        let mut found: Vec<(u32, f64)> = query
            .terms
            .iter()
            .filter_map(|(term, weight)| self.vocabulary.get(term).map(|number| (*number, *weight)))
            .collect();
        found.sort_unstable_by_key(|(number, _)| *number);
        let count = count_as_float(self.lengths.len());
        let weights = found
            .iter()
            .map(|(number, weight)| {
                let containing = count_as_float(self.document_frequency(*number));
                let idf = ((count - containing + 0.5) / (containing + 0.5) + 1.0).ln();
                (*weight, weight * idf, self.pairs[*number as usize])
            })
            .collect();
        KnownTerms {
            numbers: found.iter().map(|(number, _)| *number).collect(),
            weights,
            words: query.words,
        }
    }

    /// How the item at `position` matches the query terms `known` (from
    /// [`RelevanceIndex::known`] of this index); the default (no match) for an unknown position.
    #[must_use]
    pub(crate) fn score(&self, known: &KnownTerms, position: usize) -> Match {
        self.score_many(known, &[position])
            .pop()
            .unwrap_or_default()
    }

    /// How each of the items at `positions` matches the query terms `known` (from
    /// [`RelevanceIndex::known`] of this index), in the order of `positions`; the default (no
    /// match) for an unknown position. Ascending positions are scored in one walk over the
    /// query terms' posting lists; others one by one, with the same result.
    #[must_use]
    pub(crate) fn score_many(&self, known: &KnownTerms, positions: &[usize]) -> Vec<Match> {
        if !positions.windows(2).all(|pair| pair[0] < pair[1]) {
            return positions
                .iter()
                .map(|position| self.score(known, *position))
                .collect();
        }
        let count = self.lengths.len();
        let wanted: Vec<u32> = positions
            .iter()
            .map(|position| u32::try_from(*position).unwrap_or(u32::MAX))
            .collect();
        let average = self.average_length.max(1.0);
        let normalised: Vec<f64> = positions
            .iter()
            .map(|position| {
                self.lengths
                    .get(*position)
                    .map_or(1.0, |length| 1.0 - B + B * length / average)
            })
            .collect();
        let mut results = vec![Match::default(); positions.len()];
        let mut held_words = vec![0.0; positions.len()];
        // Terms are taken in ascending number, so each item's sums add the same parts in the
        // same order as scoring it alone would.
        for (number, (weight, weighted_idf, pair)) in known.numbers.iter().zip(&known.weights) {
            self.postings
                .for_each_held(*number, &wanted, |slot, (frequency, head, bits)| {
                    let part =
                        weighted_idf * frequency * (K1 + 1.0) / (frequency + K1 * normalised[slot]);
                    let result = &mut results[slot];
                    result.score += part;
                    result.head += part * head / frequency;
                    if !pair {
                        held_words[slot] += weight;
                    }
                    if bits & (field_bit(Field::Title) | field_bit(Field::Triggers)) != 0 {
                        result.named = true;
                    }
                });
        }
        for ((result, position), held) in results.iter_mut().zip(positions).zip(held_words) {
            if *position >= count {
                continue;
            }
            if known.words > 0 {
                // Related terms can hold more than the task's own words; coverage stays a share.
                result.coverage = (held / count_as_float(known.words)).min(1.0);
            }
            result.trigger = self.triggers[*position].iter().any(|trigger| {
                trigger
                    .iter()
                    .all(|term| known.numbers.binary_search(term).is_ok())
            });
        }
        results
    }

    /// The task's words (as written) that the item at `position` holds, with the first field
    /// (title, triggers, description, body) each is in, in task order; at most `limit`.
    #[must_use]
    pub(crate) fn matched_words(
        &self,
        query: &Query,
        position: usize,
        limit: usize,
    ) -> Vec<(String, Field)> {
        if position >= self.lengths.len() {
            return Vec::new();
        }
        let mut words = Vec::new();
        for (term, written) in &query.written {
            if words.len() == limit {
                break;
            }
            let Some(number) = self.vocabulary.get(term) else {
                continue;
            };
            let Some((_, _, bits)) = self.postings.find(*number, position) else {
                continue;
            };
            let field = [
                Field::Title,
                Field::Triggers,
                Field::Description,
                Field::Body,
            ]
            .into_iter()
            .find(|field| bits & field_bit(*field) != 0)
            .unwrap_or(Field::Body);
            words.push((written.clone(), field));
        }
        words
    }
}

impl RelevanceIndex {
    /// The related words (see [`Query::with_related`]) that the item at `position` holds, as
    /// the table writes them, in the query's order, without repeats; at most `limit`.
    #[must_use]
    pub(crate) fn matched_related(
        &self,
        query: &Query,
        position: usize,
        limit: usize,
    ) -> Vec<String> {
        if position >= self.lengths.len() {
            return Vec::new();
        }
        let mut words: Vec<String> = Vec::new();
        for (term, written) in &query.related {
            if words.len() == limit {
                break;
            }
            let held = self
                .vocabulary
                .get(term)
                .is_some_and(|number| self.postings.find(*number, position).is_some());
            if held && !words.contains(written) {
                words.push(written.clone());
            }
        }
        words
    }
}

/// Counts here are far below 2^32, so the conversion is exact.
pub(crate) fn count_as_float(count: usize) -> f64 {
    f64::from(u32::try_from(count).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rule whose body is `body`, as loading reads `.ai-rulez/rules/test.md`.
    fn item(body: &str) -> Item {
        crate::content::root_rule_from_bytes(".ai-rulez/rules/test.md", body.as_bytes())
            .expect("a rule")
    }

    fn terms(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for_each_term(text, |term, pair, _| {
            if !pair {
                found.push(term.to_owned());
            }
        });
        found
    }

    #[test]
    fn identifiers_are_split_on_case_and_underscores_and_kept_whole() {
        assert_eq!(
            terms("resolve_type_path toLocaleString"),
            [
                "resolve_type_path",
                "resolv",
                "type",
                "path",
                "tolocalestring",
                "local",
                "string"
            ]
        );
    }

    #[test]
    fn words_are_stemmed_so_forms_of_one_word_meet() {
        assert_eq!(
            terms("migrations migrate migrated"),
            ["migrat", "migrat", "migrat"]
        );
    }

    #[test]
    fn a_related_word_counts_half_as_much_as_the_task_word_it_stands_for() {
        let query = Query::with_related("close the popup");
        let weight = |wanted: &str| {
            query
                .terms
                .iter()
                .find(|(term, _)| term == wanted)
                .map(|(_, weight)| *weight)
        };
        assert_eq!(weight("popup"), Some(1.0));
        assert_eq!(weight("dialog"), Some(RELATED_WEIGHT));
        assert_eq!(weight("modal"), Some(RELATED_WEIGHT));
        // Two items alike but for the word: the one saying what the task says scores twice the
        // one saying a related word, and both cover the task's words by that share.
        let said = item("Close the popup on Escape.");
        let related = item("Close the dialog on Escape.");
        let index = RelevanceIndex::build(&[&said, &related]);
        let known = index.known(&query);
        let own = index.score(&known, 0);
        let other = index.score(&known, 1);
        let popup_part = own.score - other.score;
        assert!(popup_part > 0.0, "{own:?} {other:?}");
        assert!((own.coverage - 1.0).abs() < 1e-9, "{own:?}");
        assert!((other.coverage - 0.75).abs() < 1e-9, "{other:?}");
    }

    #[test]
    fn scoring_many_items_at_once_gives_what_scoring_each_alone_gives() {
        let texts = [
            "---\ntriggers: [retry]\n---\n# Retry the client\n\nRetry the database client.\n",
            "# Logging\n\nLog each retry with the request id.\n",
            "# Pages\n\nPaginate list endpoints.\n",
            "---\ndescription: Database retries\n---\nRetry a database timeout twice.\n",
        ];
        let items: Vec<Item> = texts.iter().map(|text| item(text)).collect();
        let index = RelevanceIndex::build(&items.iter().collect::<Vec<_>>());
        let known = index.known(&Query::with_related(
            "retry the database client on a timeout",
        ));
        let alone: Vec<Match> = (0..5)
            .map(|position| index.score(&known, position))
            .collect();
        assert!(alone[0].trigger && alone[0].named && alone[0].score > alone[1].score);
        assert_eq!(alone[2], Match::default());
        assert_eq!(alone[4], Match::default(), "an unknown position");
        assert_eq!(index.score_many(&known, &[0, 1, 2, 3, 4]), alone);
        assert_eq!(
            index.score_many(&known, &[1, 3]),
            [alone[1].clone(), alone[3].clone()]
        );
        // Positions out of order are scored one by one, in the order given.
        assert_eq!(
            index.score_many(&known, &[3, 0, 3]),
            [alone[3].clone(), alone[0].clone(), alone[3].clone()]
        );
        assert_eq!(index.score_many(&known, &[]), []);
    }

    #[test]
    fn a_query_holds_its_word_pairs() {
        let query = Query::of("add a feature flag");
        let terms: Vec<&str> = query.terms.iter().map(|(term, _)| term.as_str()).collect();
        assert_eq!(
            terms,
            ["add", "add featur", "featur", "featur flag", "flag"]
        );
    }
}
