//! Building the relevance index of a long list of items on several threads: each thread indexes
//! one contiguous part of the list, and the parts are joined in order into exactly the index
//! that indexing the whole list in one go builds (the same term numbers, frequencies and sums),
//! so ranking cannot tell the difference. The first MCP call of a large project builds this
//! index before it can answer (100,000 rules: most of that call's time).

use super::RelevanceIndex;
use crate::content::Item;

/// Fewest items worth a part of their own: a part costs a thread and a join that walks its
/// vocabulary and renumbers its posting lists. With 1,024, the index of 500 served skills was
/// built on one core during a first `find_skill` (10 ms; 7 ms in two parts on two cores, as
/// measured with `bench/first-reply.sh`'s project).
const LEAST_ITEMS_PER_PART: usize = 128;

/// Most parts; more would contend for the allocator on the small machines this runs on.
const MOST_PARTS: usize = 4;

impl RelevanceIndex {
    /// Indexes `items`; their order defines the positions [`RelevanceIndex::score`] takes.
    /// The result is the index [`RelevanceIndex::build_in_order`] makes of `items`.
    #[must_use]
    pub(crate) fn build(items: &[&Item]) -> Self {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        let parts = cores
            .min(MOST_PARTS)
            .min(items.len() / LEAST_ITEMS_PER_PART)
            .max(1);
        Self::build_in_parts(items, parts)
    }

    /// [`RelevanceIndex::build`] on `parts` threads (at least one).
    fn build_in_parts(items: &[&Item], parts: usize) -> Self {
        if parts <= 1 || items.len() < 2 {
            return Self::build_in_order(items);
        }
        let mut chunks = items.chunks(items.len().div_ceil(parts));
        let first = chunks.next().unwrap_or_default();
        std::thread::scope(|scope| {
            let later: Vec<_> = chunks
                .map(|chunk| scope.spawn(move || Self::build_in_order(chunk)))
                .collect();
            let mut index = Self::build_in_order(first);
            for part in later {
                match part.join() {
                    Ok(part) => index.append(part),
                    Err(payload) => std::panic::resume_unwind(payload),
                }
            }
            index.average_length = average(&index.lengths);
            index
        })
    }

    /// Appends the index of the items that follow this index's items. A term `later` met first
    /// gets the next free number here, in the order `later` numbered them: the order in which
    /// indexing all the items in one go would have met the new terms. Posting lists and triggers
    /// are renumbered (triggers sorted again by number); frequencies are kept as they are (each
    /// was summed in the order of the item's own words either way).
    fn append(&mut self, later: Self) {
        let Self {
            vocabulary,
            postings,
            pairs: _,
            triggers,
            lengths,
            average_length: _,
        } = later;
        let mut terms: Vec<(String, u32)> = vocabulary.into_iter().collect();
        terms.sort_unstable_by_key(|(_, number)| *number);
        let mut renumbered = vec![0_u32; terms.len()];
        for (term, number) in terms {
            renumbered[number as usize] = self.term_number(&term);
        }
        self.postings
            .append(&postings, &renumbered, self.lengths.len(), self.pairs.len());
        for mut item_triggers in triggers {
            for trigger in &mut item_triggers {
                for number in trigger.iter_mut() {
                    *number = renumbered[*number as usize];
                }
                trigger.sort_unstable();
            }
            self.triggers.push(item_triggers);
        }
        self.lengths.extend(lengths);
    }
}

/// The mean of `lengths` summed in order, as [`RelevanceIndex::build_in_order`] takes it (1 for
/// no items).
fn average(lengths: &[f64]) -> f64 {
    if lengths.is_empty() {
        return 1.0;
    }
    let total: f64 = lengths.iter().sum();
    total / super::count_as_float(lengths.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rules whose words, identifiers, pairs and triggers overlap across the parts and also
    /// differ between them, so joining has terms to share and terms to add.
    fn rules(count: usize) -> Vec<Item> {
        const WORDS: [&str; 12] = [
            "cache",
            "retry",
            "database",
            "migrations",
            "logging",
            "handleError",
            "pagination",
            "auth_token",
            "validation",
            "queue",
            "Zürich",
            "ΣΟΦΟΣ",
        ];
        (0..count)
            .map(|number| {
                let word = |offset: usize| WORDS[(number * 7 + offset * 5) % WORDS.len()];
                let text = format!(
                    "---\ntriggers: [{}, {} {}]\ndescription: {} and {}\n---\n# Rule {number} {}\n\nThe {} of the {} word{} is {}.\n",
                    word(1),
                    word(2),
                    word(3),
                    word(4),
                    word(5),
                    word(6),
                    word(7),
                    word(8),
                    number % 97,
                    word(9),
                );
                crate::content::root_rule_from_bytes(
                    &format!(".ai-rulez/rules/r{number}.md"),
                    text.as_bytes(),
                )
                .expect("a rule")
            })
            .collect()
    }

    #[test]
    fn an_index_built_in_parts_is_the_index_built_in_one_go() {
        let rules = rules(2_500);
        let items: Vec<&Item> = rules.iter().collect();
        let whole = RelevanceIndex::build_in_order(&items);
        for parts in [2, 3, 4] {
            let joined = RelevanceIndex::build_in_parts(&items, parts);
            assert_eq!(joined.vocabulary, whole.vocabulary, "{parts} parts");
            assert_eq!(joined.postings, whole.postings, "{parts} parts");
            assert_eq!(joined.pairs, whole.pairs, "{parts} parts");
            assert_eq!(joined.triggers, whole.triggers, "{parts} parts");
            assert_eq!(joined.lengths, whole.lengths, "{parts} parts");
            let frequencies = |index: &RelevanceIndex| -> Vec<usize> {
                (0..u32::try_from(index.pairs.len()).expect("few terms"))
                    .map(|number| index.document_frequency(number))
                    .collect()
            };
            assert_eq!(frequencies(&joined), frequencies(&whole), "{parts} parts");
            assert_eq!(
                joined.average_length.to_bits(),
                whole.average_length.to_bits(),
                "{parts} parts"
            );
        }
        assert!(whole.vocabulary.len() > 100, "{}", whole.vocabulary.len());
        assert!(
            whole
                .triggers
                .iter()
                .flatten()
                .any(|trigger| trigger.len() > 1)
        );
    }
}
