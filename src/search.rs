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

/// Words too common to tell items apart.
const STOPWORDS: [&str; 40] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "how", "if", "in", "into",
    "is", "it", "its", "no", "not", "of", "on", "or", "our", "so", "that", "the", "their", "then",
    "there", "these", "this", "to", "use", "was", "we", "when", "with", "you", "your", "all",
];

/// An index over a fixed list of items (positions refer to that list).
#[derive(Debug, Default)]
pub struct Index {
    documents: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    document_frequency: HashMap<String, usize>,
    average_length: f64,
}

/// Splits text into lower-case terms, drops stopwords, and strips common English suffixes so
/// "paginate", "paginated" and "pagination" meet.
#[must_use]
pub fn terms(text: &str) -> Vec<String> {
    text.split(|character: char| !character.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .filter(|word| !STOPWORDS.contains(&word.as_str()))
        .map(|word| stem(&word))
        .collect()
}

fn stem(word: &str) -> String {
    for suffix in [
        "ations", "ation", "ings", "ing", "ers", "ed", "es", "er", "s",
    ] {
        if let Some(root) = word.strip_suffix(suffix)
            && root.chars().count() >= 4
        {
            return root.to_owned();
        }
    }
    word.to_owned()
}

impl Index {
    /// Indexes `items` (their order defines the positions returned by [`Index::rank`]).
    #[must_use]
    pub fn build(items: &[&Item]) -> Self {
        let mut index = Index::default();
        for item in items {
            let mut frequencies: HashMap<String, f64> = HashMap::new();
            let mut length = 0.0;
            let fields: [(&str, f64); 4] = [
                (&item.title, TITLE_WEIGHT),
                (&item.triggers.join(" "), TRIGGER_WEIGHT),
                (
                    item.description.as_deref().unwrap_or_default(),
                    DESCRIPTION_WEIGHT,
                ),
                (&item.body, BODY_WEIGHT),
            ];
            for (text, weight) in fields {
                for term in terms(text) {
                    *frequencies.entry(term).or_insert(0.0) += weight;
                    length += weight;
                }
            }
            for term in frequencies.keys() {
                *index.document_frequency.entry(term.clone()).or_insert(0) += 1;
            }
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

    /// Scores every item against `query`; returns (position, score) for scores above zero, best
    /// first, ties broken by position.
    #[must_use]
    pub fn rank(&self, query: &str) -> Vec<(usize, f64)> {
        self.rank_among(query, 0..self.documents.len())
    }

    /// Like [`Index::rank`], but scores only the items at `positions` (term statistics still
    /// come from every item), so a caller that already knows which items apply pays only for
    /// those.
    #[must_use]
    pub fn rank_among(
        &self,
        query: &str,
        positions: impl IntoIterator<Item = usize>,
    ) -> Vec<(usize, f64)> {
        let mut query_terms = terms(query);
        query_terms.sort();
        query_terms.dedup();
        let count = count_as_float(self.documents.len());
        let mut scores = Vec::new();
        for position in positions {
            let Some(document) = self.documents.get(position) else {
                continue;
            };
            let mut score = 0.0;
            for term in &query_terms {
                let Some(frequency) = document.get(term) else {
                    continue;
                };
                let containing =
                    count_as_float(self.document_frequency.get(term).copied().unwrap_or(0));
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
}
