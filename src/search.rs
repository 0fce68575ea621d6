//! Ranking items against a task or a query: BM25 over an item's title, triggers, description and
//! body, with field weights (title 3, triggers 2.5, description 1.5, body 1). Hand-written because
//! the corpus is small (thousands of items) and the scoring must be deterministic.

use std::collections::HashMap;

use crate::content::Item;

const K1: f64 = 1.2;
const B: f64 = 0.75;
const TITLE_WEIGHT: f64 = 3.0;
const TRIGGER_WEIGHT: f64 = 2.5;
const DESCRIPTION_WEIGHT: f64 = 1.5;
const BODY_WEIGHT: f64 = 1.0;

/// Whether `word` (lower case) is too common to tell items apart. A `match` compiles to a
/// comparison by length first, so the check costs little for every word of every item.
fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "by"
            | "for"
            | "from"
            | "how"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
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
            | "then"
            | "there"
            | "these"
            | "this"
            | "to"
            | "use"
            | "was"
            | "we"
            | "when"
            | "with"
            | "you"
            | "your"
            | "all"
    )
}

/// An index over a fixed list of items (positions refer to that list). Terms are numbered once
/// in `vocabulary`; each document keeps its weighted term frequencies sorted by term number, so
/// building costs one map lookup per word and no allocation per known term.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Term number by term text.
    vocabulary: HashMap<String, usize>,
    /// Per document: (term number, weighted frequency), sorted by term number.
    documents: Vec<Vec<(usize, f64)>>,
    lengths: Vec<f64>,
    /// Number of documents holding each term, by term number.
    document_frequency: Vec<usize>,
    average_length: f64,
}

/// Splits text into lower-case terms, drops stopwords, and strips common English suffixes so
/// "paginate", "paginated" and "pagination" meet.
#[must_use]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for_each_term(text, &mut String::new(), |term| found.push(term.to_owned()));
    found
}

/// Calls `visit` with each term of `text` in order (see [`terms`]); `buffer` is scratch space
/// reused across words and calls, so ASCII words cost no allocation.
fn for_each_term(text: &str, buffer: &mut String, mut visit: impl FnMut(&str)) {
    for word in text.split(|character: char| !character.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        buffer.clear();
        if word.is_ascii() {
            buffer.push_str(word);
            buffer.make_ascii_lowercase();
        } else {
            // Full Unicode lower-casing is context-sensitive (a final sigma), so it is left to
            // the standard library.
            buffer.push_str(&word.to_lowercase());
        }
        if is_stopword(buffer) {
            continue;
        }
        visit(stem(buffer));
    }
}

fn stem(word: &str) -> &str {
    for suffix in [
        "ations", "ation", "ings", "ing", "ers", "ed", "es", "er", "s",
    ] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.chars().count() >= 4
        {
            return root;
        }
    }
    word
}

impl Index {
    /// Indexes `items` (their order defines the positions returned by [`Index::rank`]).
    #[must_use]
    pub(crate) fn build(items: &[&Item]) -> Self {
        let mut index = Index::default();
        let mut buffer = String::new();
        // (term number, weight) of every word of one document, in text order.
        let mut occurrences: Vec<(usize, f64)> = Vec::new();
        for item in items {
            occurrences.clear();
            let mut length = 0.0;
            let triggers = item.triggers.join(" ");
            let fields: [(&str, f64); 4] = [
                (&item.title, TITLE_WEIGHT),
                (&triggers, TRIGGER_WEIGHT),
                (
                    item.description.as_deref().unwrap_or_default(),
                    DESCRIPTION_WEIGHT,
                ),
                (&item.body, BODY_WEIGHT),
            ];
            for (text, weight) in fields {
                for_each_term(text, &mut buffer, |term| {
                    let number = index.term_number(term);
                    occurrences.push((number, weight));
                    length += weight;
                });
            }
            // A stable sort keeps each term's weights in text order, so the sums below add in
            // the same order (and give the same floating-point values) as a running total would.
            occurrences.sort_by_key(|(number, _)| *number);
            let mut frequencies: Vec<(usize, f64)> = Vec::new();
            for (number, weight) in occurrences.iter().copied() {
                match frequencies.last_mut() {
                    Some((last, sum)) if *last == number => *sum += weight,
                    _ => {
                        frequencies.push((number, weight));
                        index.document_frequency[number] += 1;
                    }
                }
            }
            frequencies.shrink_to_fit();
            index.documents.push(frequencies);
            index.lengths.push(length);
        }
        let total: f64 = index.lengths.iter().sum();
        index.average_length = if index.lengths.is_empty() {
            1.0
        } else {
            total / count_as_float(index.lengths.len())
        };
        index
    }

    /// The number of `term`, numbering it when it is new.
    fn term_number(&mut self, term: &str) -> usize {
        if let Some(number) = self.vocabulary.get(term) {
            return *number;
        }
        let number = self.document_frequency.len();
        self.vocabulary.insert(term.to_owned(), number);
        self.document_frequency.push(0);
        number
    }

    /// How many of `terms` (already stemmed, as [`terms`] returns them) the item at `position`
    /// holds in any field; 0 for an unknown position.
    #[must_use]
    pub(crate) fn terms_held(&self, terms: &[String], position: usize) -> usize {
        let Some(document) = self.documents.get(position) else {
            return 0;
        };
        terms
            .iter()
            .filter_map(|term| self.vocabulary.get(term.as_str()))
            .filter(|number| {
                document
                    .binary_search_by_key(*number, |(held, _)| *held)
                    .is_ok()
            })
            .count()
    }

    /// Scores every item against `query`; returns (position, score) for scores above zero, best
    /// first, ties broken by position.
    #[must_use]
    pub(crate) fn rank(&self, query: &str) -> Vec<(usize, f64)> {
        self.rank_among(query, 0..self.documents.len())
    }

    /// Like [`Index::rank`], but scores only the items at `positions` (term statistics still
    /// come from every item), so a caller that already knows which items apply pays only for
    /// those.
    #[must_use]
    pub(crate) fn rank_among(
        &self,
        query: &str,
        positions: impl IntoIterator<Item = usize>,
    ) -> Vec<(usize, f64)> {
        let mut query_terms = terms(query);
        query_terms.sort();
        query_terms.dedup();
        // Terms no item holds score nothing; the rest keep the sorted order, so each score adds
        // its terms in the same order.
        let query_terms: Vec<usize> = query_terms
            .iter()
            .filter_map(|term| self.vocabulary.get(term.as_str()).copied())
            .collect();
        let count = count_as_float(self.documents.len());
        let mut scores = Vec::new();
        for position in positions {
            let Some(document) = self.documents.get(position) else {
                continue;
            };
            let mut score = 0.0;
            for term in &query_terms {
                let Ok(found) = document.binary_search_by_key(term, |(number, _)| *number) else {
                    continue;
                };
                let frequency = document[found].1;
                let containing = count_as_float(self.document_frequency[*term]);
                let idf = ((count - containing + 0.5) / (containing + 0.5) + 1.0).ln();
                let normalised =
                    1.0 - B + B * self.lengths[position] / self.average_length.max(1.0);
                score += idf * frequency * (K1 + 1.0) / (frequency + K1 * normalised);
            }
            if score > 0.0 {
                scores.push((position, score));
            }
        }
        scores.sort_by(|left, right| right.1.total_cmp(&left.1).then(left.0.cmp(&right.0)));
        scores
    }
}

/// Counts here are far below 2^32, so the conversion is exact.
fn count_as_float(count: usize) -> f64 {
    f64::from(u32::try_from(count).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_stemmed_and_stopwords_dropped() {
        assert_eq!(
            terms("Paginate the list endpoints"),
            ["paginate", "list", "endpoint"]
        );
        assert_eq!(terms("pagination"), ["pagin"]);
    }

    #[test]
    fn non_ascii_words_are_lower_cased_with_unicode_rules() {
        // A capital sigma at the end of a word becomes a final sigma.
        assert_eq!(
            terms("ΚΑΝΟΝΑΣ Straße ÉCOLE"),
            ["κανονας", "straße", "école"]
        );
    }
}
