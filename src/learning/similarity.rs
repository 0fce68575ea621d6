//! Whether a new rule says what an existing one already says (a near-duplicate) or the opposite
//! (a likely contradiction). Both compare the content words of the new sentence with each line
//! of an existing rule (and its title), as sets of stemmed terms from the search tokenizer with
//! the polarity words (never, always, avoid, prefer, ...) set aside, so "Never use unwrap" and
//! "Always use unwrap" share all their content and differ only in polarity.
//!
//! Thresholds, measured on the rule corpus in `/work/shared/corpus/ai-rulez` (490 distinct rule
//! lines with three or more content terms, about 120,000 pairs): every pair with a Jaccard
//! similarity of 0.8 or more was the same instruction copied or reworded (0.83 to 0.96), and the
//! most similar pair of different instructions scored 0.75, so a duplicate needs
//! [`DUPLICATE_JACCARD`] = 0.8. Among pairs of opposite polarity the highest score was 0.54 (two
//! lines of one changelog rule), and none reached 0.6, so a contradiction needs
//! [`CONTRADICTION_JACCARD`] = 0.6 with opposite polarity.

use crate::search;

/// Least Jaccard similarity of content terms for a near-duplicate (same polarity).
pub(crate) const DUPLICATE_JACCARD: f64 = 0.8;

/// Least Jaccard similarity of content terms for a likely contradiction (opposite polarity).
pub(crate) const CONTRADICTION_JACCARD: f64 = 0.6;

/// Words that say which way a rule points rather than what it is about, as the tokenizer
/// returns them (it stems `always` to `alway` and `prefer` to `pref`, drops `no`, `not` and
/// `use` as stopwords, and splits `don't` into `don` and `t`).
const POLARITY_WORDS: [&str; 14] = [
    "alway", "never", "avoid", "pref", "must", "should", "don", "dont", "t", "do", "does", "doesn",
    "stop", "ever",
];

/// Which way a sentence points: forbidding (`never`, `don't`, `avoid`, `do not`, `must not`,
/// `no longer`), requiring (`always`, `use`, `prefer`, `must`, `should`, `do`), or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Polarity {
    /// Forbids something.
    Negative,
    /// Asks for something.
    Positive,
    /// Says neither (a statement of fact).
    Neutral,
}

impl Polarity {
    /// The polarity of `text`: negative when any forbidding word occurs, else positive when any
    /// requiring word occurs, else neutral.
    pub(crate) fn of(text: &str) -> Self {
        let lowered = text.to_lowercase().replace(['\u{2019}', '`'], "'");
        let words: Vec<&str> = lowered
            .split(|character: char| !(character.is_alphanumeric() || character == '\''))
            .filter(|word| !word.is_empty())
            .collect();
        let negative = words.iter().enumerate().any(|(index, word)| {
            matches!(
                *word,
                "never" | "don't" | "dont" | "avoid" | "doesn't" | "mustn't" | "shouldn't"
            ) || (*word == "not"
                && index > 0
                && matches!(words[index - 1], "do" | "does" | "must" | "should"))
                || (*word == "longer" && index > 0 && words[index - 1] == "no")
        });
        if negative {
            return Self::Negative;
        }
        let positive = words.iter().any(|word| {
            matches!(
                *word,
                "always" | "use" | "prefer" | "must" | "should" | "do" | "keep" | "require"
            )
        });
        if positive {
            Self::Positive
        } else {
            Self::Neutral
        }
    }

    /// Whether two polarities point opposite ways (a neutral sentence opposes nothing).
    pub(crate) fn opposes(self, other: Self) -> bool {
        matches!(
            (self, other),
            (Self::Negative, Self::Positive) | (Self::Positive, Self::Negative)
        )
    }
}

/// One sentence reduced for comparison: its sorted, de-duplicated content terms and polarity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Statement {
    /// Stemmed content terms, sorted, without duplicates or polarity words.
    pub terms: Vec<String>,
    /// Which way it points.
    pub polarity: Polarity,
}

impl Statement {
    /// Reduces `text` (one sentence or line).
    pub(crate) fn of(text: &str) -> Self {
        Self {
            terms: content_terms(text),
            polarity: Polarity::of(text),
        }
    }

    /// Jaccard similarity of the content terms (shared / all), 0 when either has none.
    pub(crate) fn similarity(&self, other: &Self) -> f64 {
        jaccard(&self.terms, &other.terms)
    }
}

/// The stemmed content terms of `text`, sorted, without duplicates or polarity words.
fn content_terms(text: &str) -> Vec<String> {
    let mut terms: Vec<String> = search::terms(text)
        .into_iter()
        .filter(|term| !POLARITY_WORDS.contains(&term.as_str()))
        .collect();
    terms.sort_unstable();
    terms.dedup();
    terms
}

/// The fewest of `count` terms a text must hold to reach [`CONTRADICTION_JACCARD`] (the lower
/// threshold) with a statement of `count` terms: a Jaccard similarity of 0.6 needs at least
/// 0.6 × `count` shared terms. Computed exactly in integers as the ceiling of 6 × `count` / 10.
pub(crate) fn least_shared(count: usize) -> usize {
    (6 * count).div_ceil(10)
}

/// Jaccard similarity of two sorted, de-duplicated term lists; 0 when either is empty.
fn jaccard(left_terms: &[String], right_terms: &[String]) -> f64 {
    if left_terms.is_empty() || right_terms.is_empty() {
        return 0.0;
    }
    let (mut left, mut right, mut shared) = (0, 0, 0usize);
    while left < left_terms.len() && right < right_terms.len() {
        match left_terms[left].cmp(&right_terms[right]) {
            std::cmp::Ordering::Less => left += 1,
            std::cmp::Ordering::Greater => right += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                left += 1;
                right += 1;
            }
        }
    }
    let all = left_terms.len() + right_terms.len() - shared;
    ratio(shared, all)
}

/// `part / whole` for counts far below 2^32.
fn ratio(part: usize, whole: usize) -> f64 {
    let as_float = |count: usize| f64::from(u32::try_from(count).unwrap_or(u32::MAX));
    as_float(part) / as_float(whole.max(1))
}

/// How a new statement relates to an existing rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Relation {
    /// Says the same (similarity, at least [`DUPLICATE_JACCARD`]).
    Duplicate(f64),
    /// Says the opposite (similarity, at least [`CONTRADICTION_JACCARD`]).
    Contradiction(f64),
}

/// A rule reduced for comparison: the statement of its title, of each non-empty body line
/// (list markers and heading marks stripped), and, for a body of at most three lines, of the
/// body as a whole (a short rule written over several lines). Lines without content terms are
/// left out. Built once per rule and kept with the catalog, so a check against thousands of
/// rules compares sorted term lists instead of tokenizing text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuleLines {
    lines: Vec<Statement>,
}

impl RuleLines {
    /// The comparison form of the rule with `title` and `body`.
    pub(crate) fn of(title: &str, body: &str) -> Self {
        let lines = std::iter::once(title)
            .chain(body.lines())
            .chain((body.lines().count() <= 3).then_some(body))
            .map(|line| {
                line.trim()
                    .trim_start_matches(['-', '*', '+', '#', '>'])
                    .trim()
            })
            .filter(|line| !line.is_empty())
            .map(Statement::of)
            .filter(|statement| !statement.terms.is_empty())
            .collect();
        Self { lines }
    }
}

/// The strongest relation of `statement` to a rule in its comparison form: each line is
/// compared, and the best duplicate wins over the best contradiction. `None` when neither
/// threshold is reached.
pub(crate) fn relation_to(statement: &Statement, rule: &RuleLines) -> Option<Relation> {
    let mut duplicate: f64 = 0.0;
    let mut contradiction: f64 = 0.0;
    for line in &rule.lines {
        let similarity = jaccard(&statement.terms, &line.terms);
        if similarity < CONTRADICTION_JACCARD {
            continue;
        }
        if statement.polarity.opposes(line.polarity) {
            contradiction = contradiction.max(similarity);
        } else {
            duplicate = duplicate.max(similarity);
        }
    }
    if duplicate >= DUPLICATE_JACCARD {
        Some(Relation::Duplicate(duplicate))
    } else if contradiction >= CONTRADICTION_JACCARD {
        Some(Relation::Contradiction(contradiction))
    } else {
        None
    }
}

/// The strongest relation of `statement` to the rule with `title` and `body` (see
/// [`relation_to`]), for a rule compared once; checks against many rules keep their
/// [`RuleLines`] instead.
#[cfg(test)]
pub(crate) fn relation(statement: &Statement, title: &str, body: &str) -> Option<Relation> {
    relation_to(statement, &RuleLines::of(title, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_shared_count_is_the_ceiling_of_the_lower_threshold() {
        for count in 0..=40_u32 {
            let least = u32::try_from(least_shared(count as usize)).expect("small");
            let needed = f64::from(count) * CONTRADICTION_JACCARD;
            // `least` shared terms can reach the threshold and one fewer cannot.
            assert!(f64::from(least) >= needed - 1e-9, "{count}");
            assert!(
                least == 0 || f64::from(least - 1) < needed - 1e-9,
                "{count}"
            );
        }
    }

    #[test]
    fn polarity_reads_forbidding_and_requiring_words() {
        assert_eq!(Polarity::of("Never unwrap input."), Polarity::Negative);
        assert_eq!(Polarity::of("Do not unwrap input."), Polarity::Negative);
        assert_eq!(Polarity::of("Don’t unwrap input."), Polarity::Negative);
        assert_eq!(Polarity::of("Always unwrap input."), Polarity::Positive);
        assert_eq!(Polarity::of("Use tabs."), Polarity::Positive);
        assert_eq!(Polarity::of("Tabs are wide."), Polarity::Neutral);
    }

    #[test]
    fn rewording_is_a_duplicate_and_reversal_a_contradiction() {
        let new = Statement::of("Always use the query builder for migrations.");
        let same = relation(&new, "Database", "- Use the query builder for migrations.");
        assert_eq!(same, Some(Relation::Duplicate(1.0)));
        // One extra content word of four is still 0.75, below the duplicate threshold.
        let wider = relation(
            &new,
            "Database",
            "Use the query builder for every migration.",
        );
        assert_eq!(wider, None);
        let reversed = relation(
            &new,
            "Database",
            "Never use the query builder for migrations.",
        );
        assert_eq!(reversed, Some(Relation::Contradiction(1.0)));
        let other = relation(&new, "Style", "Keep functions short.");
        assert_eq!(other, None);
    }
}
