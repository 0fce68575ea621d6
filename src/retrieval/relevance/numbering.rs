//! The terms of an item's text as term numbers, for building the relevance index: the same
//! terms in the same order as [`super::for_each_term`] gives, found with fewer look-ups. An index
//! of 100,000 items visits millions of words from a vocabulary of a few thousand; looking each
//! one up by its text as written (one hash look-up) instead of lower-casing, stemming and then
//! looking up the stem, and each word pair by its two numbers instead of its joined text, was
//! most of what building the index cost.

use std::collections::HashMap;

use super::{
    Piece, RelevanceIndex, TermHasher, for_each_piece, is_stopword, lower_into, stem_into,
};

/// Most words as written one numbering remembers; past it the memory starts again (it only
/// saves work: the vocabulary keeps every term).
const MAX_REMEMBERED_WORDS: usize = 200_000;

/// Most word pairs one numbering remembers by their numbers.
const MAX_REMEMBERED_PAIRS: usize = 1_000_000;

/// What one build has learnt about words, kept from item to item.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    /// Per word as written: the term number of its stem and the stem, or `None` for a stopword.
    words: HashMap<String, Option<(u32, String)>, TermHasher>,
    /// Per pair of adjacent stems (by term number): the pair's term number.
    pairs: HashMap<(u32, u32), u32, TermHasher>,
}

impl RelevanceIndex {
    /// Calls `visit` with the term number of each term of `text`, in [`super::for_each_term`]'s
    /// order, giving terms the index has not met the next free numbers.
    pub(super) fn for_each_term_number(
        &mut self,
        numbering: &mut Numbering,
        text: &str,
        mut visit: impl FnMut(u32),
    ) {
        if numbering.words.len() >= MAX_REMEMBERED_WORDS {
            numbering.words.clear();
        }
        if numbering.pairs.len() >= MAX_REMEMBERED_PAIRS {
            numbering.pairs.clear();
        }
        let mut previous: Option<u32> = None;
        let mut previous_stem = String::new();
        let mut word = String::new();
        let mut stem = String::new();
        let mut joined = String::new();
        for_each_piece(text, |piece| {
            let part = match piece {
                Piece::Identifier(token) => {
                    visit(self.term_number(&token.to_lowercase()));
                    return;
                }
                Piece::Word(part) => part,
            };
            let number = match numbering.words.get(part) {
                Some(None) => return,
                Some(Some((number, known))) => {
                    stem.clear();
                    stem.push_str(known);
                    *number
                }
                None => {
                    lower_into(part, &mut word);
                    if is_stopword(&word) {
                        numbering.words.insert(part.to_owned(), None);
                        return;
                    }
                    stem_into(&word, &mut stem);
                    let number = self.term_number(&stem);
                    numbering
                        .words
                        .insert(part.to_owned(), Some((number, stem.clone())));
                    number
                }
            };
            visit(number);
            if let Some(before) = previous {
                let pair = if let Some(pair) = numbering.pairs.get(&(before, number)) {
                    *pair
                } else {
                    joined.clear();
                    joined.push_str(&previous_stem);
                    joined.push(' ');
                    joined.push_str(&stem);
                    let pair = self.term_number(&joined);
                    numbering.pairs.insert((before, number), pair);
                    pair
                };
                visit(pair);
            }
            previous = Some(number);
            previous_stem.clear();
            previous_stem.push_str(&stem);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbered_terms_are_the_terms_for_each_term_gives_in_its_order() {
        let texts = [
            "Use resolve_type_path and toLocaleString; the HTTP2Client retries.",
            "The cache of the cache retries: a retry and the migrations.",
            "Zürich ΣΟΦΟΣ straße, the CAFÉ and café",
            "",
            "resolve_type_path toLocaleString again, in a new item",
        ];
        let mut index = RelevanceIndex::default();
        let mut numbering = Numbering::default();
        for text in texts {
            let mut expected = Vec::new();
            super::super::for_each_term(text, |term, _, _| expected.push(term.to_owned()));
            let mut numbered = Vec::new();
            index.for_each_term_number(&mut numbering, text, |number| numbered.push(number));
            let by_number: HashMap<u32, &str> = index
                .vocabulary
                .iter()
                .map(|(term, number)| (*number, term.as_str()))
                .collect();
            let got: Vec<&str> = numbered.iter().map(|number| by_number[number]).collect();
            assert_eq!(got, expected, "{text}");
        }
        assert!(index.vocabulary.contains_key("resolv type"));
    }
}
