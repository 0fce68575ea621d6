//! The relevance index's terms as posting lists: for each term, the items holding it in
//! ascending position, with the term's weighted frequency in each. A `get_rules` call scores
//! hundreds of candidates against a handful of query terms; walking those few terms' lists in
//! one pass reads a few contiguous runs of memory, where searching each candidate's own term
//! list read hundreds of separate allocations (that search was 43 % of a call's time).

/// What one item holds of one term: the weighted frequency, the part of it from the title,
/// triggers and description, and the fields holding the term as a bit set.
pub(super) type Entry = (f64, f64, u8);

/// Every term's posting list in one contiguous arena.
#[derive(Debug, Default, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(super) struct Postings {
    /// Per term number: where its list begins in `positions` and `entries`; one more value at
    /// the end, the total number of entries.
    pub(super) starts: Vec<usize>,
    /// Item positions, ascending within each term's list.
    pub(super) positions: Vec<u32>,
    /// Per position, in the same order: what the item holds of the term.
    pub(super) entries: Vec<Entry>,
}

impl Postings {
    /// The posting lists of `documents` (per item position: its terms as (term number, entry),
    /// ascending by term number, each once) over a vocabulary of `terms` terms. A term number
    /// at or past `terms` is not possible: the numbers come from that vocabulary.
    pub(super) fn of(documents: &[Vec<(u32, Entry)>], terms: usize) -> Self {
        let mut starts = vec![0_usize; terms + 1];
        for document in documents {
            for (number, _) in document {
                starts[*number as usize + 1] += 1;
            }
        }
        for number in 0..terms {
            starts[number + 1] += starts[number];
        }
        let total = starts[terms];
        let mut next = starts.clone();
        let mut positions = vec![0_u32; total];
        let mut entries = vec![(0.0, 0.0, 0_u8); total];
        for (position, document) in documents.iter().enumerate() {
            let position = u32::try_from(position).unwrap_or(u32::MAX);
            for (number, entry) in document {
                let slot = &mut next[*number as usize];
                positions[*slot] = position;
                entries[*slot] = *entry;
                *slot += 1;
            }
        }
        Self {
            starts,
            positions,
            entries,
        }
    }

    /// The list of term `number`: item positions (ascending) and their entries; empty for a
    /// number this index does not have.
    pub(super) fn list(&self, number: u32) -> (&[u32], &[Entry]) {
        let number = number as usize;
        let (Some(start), Some(end)) = (self.starts.get(number), self.starts.get(number + 1))
        else {
            return (&[], &[]);
        };
        (&self.positions[*start..*end], &self.entries[*start..*end])
    }

    /// What the item at `position` holds of term `number`, if it holds it.
    pub(super) fn find(&self, number: u32, position: usize) -> Option<Entry> {
        let (positions, entries) = self.list(number);
        let position = u32::try_from(position).ok()?;
        positions
            .binary_search(&position)
            .ok()
            .map(|place| entries[place])
    }

    /// Appends `later`, the lists of the items that follow this index's `count` items, whose
    /// term numbers become `renumbered[number]` here. The result has `terms` terms (every
    /// renumbered number is below it); a term keeps its earlier items first, so each list stays
    /// ascending.
    pub(super) fn append(&mut self, later: &Self, renumbered: &[u32], count: usize, terms: usize) {
        let offset = u32::try_from(count).unwrap_or(u32::MAX);
        let mut from_later: Vec<Option<u32>> = vec![None; terms];
        for (number, here) in renumbered.iter().enumerate() {
            from_later[*here as usize] = u32::try_from(number).ok();
        }
        let total = self.positions.len() + later.positions.len();
        let mut joined = Self {
            starts: Vec::with_capacity(terms + 1),
            positions: Vec::with_capacity(total),
            entries: Vec::with_capacity(total),
        };
        for (here, later_number) in from_later.iter().enumerate() {
            joined.starts.push(joined.positions.len());
            let (positions, entries) = self.list(u32::try_from(here).unwrap_or(u32::MAX));
            joined.positions.extend_from_slice(positions);
            joined.entries.extend_from_slice(entries);
            if let Some(number) = later_number {
                let (positions, entries) = later.list(*number);
                joined
                    .positions
                    .extend(positions.iter().map(|position| position + offset));
                joined.entries.extend_from_slice(entries);
            }
        }
        joined.starts.push(joined.positions.len());
        *self = joined;
    }

    /// Whether these lists, decoded from a copy, fit `terms` terms and `count` items: one start
    /// per term and one more, never decreasing, ending at the number of entries; one entry per
    /// position; positions below `count`, strictly ascending within each list; finite
    /// frequencies above 0, with a head part from 0 to the frequency.
    pub(super) fn is_consistent(&self, terms: usize, count: usize) -> bool {
        self.entries.iter().all(|(frequency, head, _)| {
            frequency.is_finite() && *frequency > 0.0 && (0.0..=*frequency).contains(head)
        }) && self.starts.len() == terms + 1
            && self.starts.first() == Some(&0)
            && self.starts.windows(2).all(|pair| pair[0] <= pair[1])
            && self.starts.last() == Some(&self.positions.len())
            && self.entries.len() == self.positions.len()
            && self.starts.windows(2).all(|pair| {
                let list = &self.positions[pair[0]..pair[1]];
                list.windows(2).all(|two| two[0] < two[1])
                    && list.last().is_none_or(|last| (*last as usize) < count)
            })
    }

    /// Calls `visit(slot, entry)` for each of `positions` (ascending) that the list of term
    /// `number` holds, `slot` being its index in `positions`, in ascending order. The two
    /// sorted lists are walked together by galloping over the longer one, so a few candidates
    /// cost a few searches in a long list, and a rare term a few searches among many
    /// candidates. (A plain step-by-step merge measured slower even on lists of alike length:
    /// its branches cannot be predicted.)
    pub(super) fn for_each_held(
        &self,
        number: u32,
        positions: &[u32],
        mut visit: impl FnMut(usize, Entry),
    ) {
        let (list, entries) = self.list(number);
        if list.len() >= positions.len() {
            for (slot, place) in matches_by_galloping(positions, list) {
                visit(slot, entries[place]);
            }
        } else {
            for (place, slot) in matches_by_galloping(list, positions) {
                visit(slot, entries[place]);
            }
        }
    }
}

/// The pairs (index in `short`, index in `long`) of the values both ascending lists hold, in
/// ascending order: for each value of `short`, a gallop over `long` from the last place found
/// to a bound past it, then a search up to that bound.
fn matches_by_galloping<'lists>(
    short: &'lists [u32],
    long: &'lists [u32],
) -> impl Iterator<Item = (usize, usize)> + 'lists {
    let mut from = 0;
    short.iter().enumerate().filter_map(move |(index, value)| {
        let rest = long.get(from..).unwrap_or_default();
        let mut bound = 1;
        while bound < rest.len() && rest[bound] < *value {
            bound *= 2;
        }
        let window = &rest[..rest.len().min(bound + 1)];
        from += window.partition_point(|held| held < value);
        if long.get(from) == Some(value) {
            from += 1;
            Some((index, from - 1))
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The galloping walk finds exactly the candidates a term's list holds, in order,
        /// whatever the lengths of the two lists.
        #[test]
        fn the_walk_finds_exactly_the_held_candidates(
            held in proptest::collection::btree_set(0_u32..400, 0..200),
            candidates in proptest::collection::btree_set(0_u32..450, 0..120),
        ) {
            let documents: Vec<Vec<(u32, Entry)>> = (0..400)
                .map(|position| {
                    if held.contains(&position) {
                        vec![(0, (f64::from(position) + 1.0, 0.0, 1))]
                    } else {
                        Vec::new()
                    }
                })
                .collect();
            let postings = Postings::of(&documents, 1);
            prop_assert!(postings.is_consistent(1, 400));
            let candidates: Vec<u32> = candidates.into_iter().collect();
            let mut found = Vec::new();
            postings.for_each_held(0, &candidates, |slot, entry| found.push((slot, entry.0)));
            let expected: Vec<(usize, f64)> = candidates
                .iter()
                .enumerate()
                .filter(|(_, position)| held.contains(position))
                .map(|(slot, position)| (slot, f64::from(*position) + 1.0))
                .collect();
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn joined_lists_keep_the_earlier_items_first_under_the_new_numbers() {
        let earlier = Postings::of(&[vec![(0, (1.0, 0.0, 8))], vec![(1, (2.0, 0.0, 8))]], 2);
        // The later part numbered "its" term 0 as the earlier part's term 1, and met a new term.
        let later = Postings::of(&[vec![(0, (3.0, 0.0, 8)), (1, (4.0, 1.0, 1))]], 2);
        let mut joined = earlier;
        joined.append(&later, &[1, 2], 2, 3);
        assert!(joined.is_consistent(3, 3));
        assert_eq!(joined.list(0), (&[0_u32][..], &[(1.0, 0.0, 8)][..]));
        assert_eq!(
            joined.list(1),
            (&[1_u32, 2][..], &[(2.0, 0.0, 8), (3.0, 0.0, 8)][..])
        );
        assert_eq!(joined.list(2), (&[2_u32][..], &[(4.0, 1.0, 1)][..]));
        assert_eq!(joined.find(1, 2), Some((3.0, 0.0, 8)));
        assert_eq!(joined.find(2, 0), None);
        assert_eq!(joined.list(7), (&[][..], &[][..]));
    }
}
