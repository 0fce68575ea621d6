//! The machine-local copy of the relevance index (`.ai-rulez/local/relevance-index`): the first
//! `get_rules` of a server started on a large unchanged tree reads the index the last server
//! built instead of indexing every item again (100,000 rules: about 1.2 s on two cores). Only
//! the MCP server's first catalog of a project reads and stores it (`Catalog::offer_stored_index`).
//!
//! The copy is found by what it indexes, not by file times. Its header holds a SHA-256 digest
//! of every field the index reads from each item (kind, id, title, triggers, description,
//! body), in index order, and the identity of the binary that wrote it
//! ([`crate::local_state::binary_identity`]). A copy is taken only when both match, so it is
//! exactly the index building would give, and it is checked to be well formed for as many items
//! as it indexes ([`RelevanceIndex::is_consistent`]) when it is read, on the core that reads it
//! while the project loads; a missing, cut, damaged or foreign copy is ignored and the index is
//! built.
//!
//! Format: the header line `ai-rulez relevance index 1 <binary identity> <digest hex>
//! <checksum of the rest>` ([`crate::local_state::framed`]: a flipped bit makes the copy be
//! ignored), then the index in postcard's encoding
//! (<https://postcard.jamesmunns.com/wire-format>).

use super::RelevanceIndex;
use crate::confined_fs::ProjectDir;
use crate::content::Item;
use crate::error::Result;

/// The copy's file name in the machine-local folder.
pub(crate) const FILE_NAME: &str = "relevance-index";

/// Fewest items for which the index is stored: a smaller one is built in less time than it
/// takes to read.
pub(crate) const LEAST_ITEMS: usize = 4096;

/// Largest copy read (2 GiB), so a stray file cannot exhaust memory.
const MAX_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Items per leaf of [`digest_of`]: the leaves are hashed on every core. `map_in_order` gives
/// a thread at least 32 leaves, so with 1,024 items per leaf anything under 65,536 items was
/// hashed on one core (5,000 items: 7 ms of a first `get_rules`); 64 makes two threads' worth
/// of the 4,096 items, the fewest [`LEAST_ITEMS`] stores.
const ITEMS_PER_LEAF: usize = 64;

/// The SHA-256 digest (hex) of what indexing `items`, in this order, reads from them: the
/// digest of the digests of consecutive runs of [`ITEMS_PER_LEAF`] items, hashed on every core.
/// Each field is hashed with its length first, so no two different lists of items share a
/// digest by the way their texts join. (SHA-256, not BLAKE3: the processor's SHA instructions
/// make it quicker than the portable BLAKE3 build this binary carries.)
pub(crate) fn digest_of(items: &[&Item]) -> String {
    use sha2::Digest as _;
    let runs: Vec<&[&Item]> = items.chunks(ITEMS_PER_LEAF).collect();
    let leaves = crate::parallel::map_in_order(&runs, |run| leaf_digest(run));
    let mut hasher = sha2::Sha256::new();
    hasher.update((items.len() as u64).to_le_bytes());
    for leaf in leaves {
        hasher.update(leaf);
    }
    hex::encode(hasher.finalize())
}

/// The SHA-256 digest of the indexed fields of `items`, in order.
fn leaf_digest(items: &[&Item]) -> [u8; 32] {
    use sha2::Digest as _;
    let mut hasher = sha2::Sha256::new();
    let mut field = |text: &str| {
        hasher.update((text.len() as u64).to_le_bytes());
        hasher.update(text.as_bytes());
    };
    for item in items {
        field(item.kind.noun());
        field(&item.id);
        field(&item.title);
        field(&item.triggers.len().to_string());
        for trigger in &item.triggers {
            field(trigger);
        }
        match &item.description {
            Some(description) => {
                field("some");
                field(description);
            }
            None => field("none"),
        }
        field(&item.body);
    }
    hasher.finalize().into()
}

/// The kind of cache the header line names.
const KIND: &str = "relevance index";

/// A copy of the index read before the items it must match are known (while the project
/// loads): the digest its header names, and the index.
#[derive(Debug)]
pub(crate) struct StoredIndex {
    digest: String,
    index: RelevanceIndex,
}

impl StoredIndex {
    /// The index, when it was built over `count` items with `digest` (it was found well formed
    /// for as many items as it indexes when read); `None` otherwise.
    pub(crate) fn index_for(self, digest: &str, count: usize) -> Option<RelevanceIndex> {
        (self.digest == digest && self.index.lengths.len() == count).then_some(self.index)
    }
}

impl RelevanceIndex {
    /// Whether this index, decoded from a copy, can rank `count` items without an index out of
    /// range, a wrong binary search or a score that is not a number: one length and trigger list
    /// per item, one vocabulary term per term number (and one pair flag), posting lists that
    /// fit the terms and items (see [`super::postings::Postings::is_consistent`]), no empty
    /// trigger, finite lengths and a positive average length. A digest match already makes a
    /// damaged copy unlikely; this keeps a copy that is damaged anyway (or
    /// written by hand) from making `get_rules` panic.
    fn is_consistent(&self, count: usize) -> bool {
        let terms = self.pairs.len();
        let known = |number: u32| (number as usize) < terms;
        let mut numbered = vec![false; terms];
        // Every term number is held by exactly one vocabulary term.
        let one_term_per_number = self.vocabulary.len() == terms
            && self.vocabulary.values().all(|number| {
                known(*number) && !std::mem::replace(&mut numbered[*number as usize], true)
            });
        self.lengths.len() == count
            && self.triggers.len() == count
            && one_term_per_number
            && self.postings.is_consistent(terms, count)
            && self
                .triggers
                .iter()
                .flatten()
                .all(|trigger| !trigger.is_empty() && trigger.iter().all(|number| known(*number)))
            && self
                .lengths
                .iter()
                .all(|length| length.is_finite() && *length >= 0.0)
            && self.average_length.is_finite()
            && self.average_length > 0.0
    }
}

/// The copy stored at `path` (project-relative), whatever items it indexes; `None` when there
/// is none, or it is unreadable, damaged, written by another build, or not well formed for as
/// many items as it indexes ([`RelevanceIndex::is_consistent`]; checked here, so that a first
/// `get_rules` waiting for the load does not pay for it: 5,000 items, about 3.5 ms).
pub(crate) fn read(dir: &ProjectDir, path: &str) -> Option<StoredIndex> {
    let (bytes, _) = dir.read(path, MAX_BYTES).ok()??;
    let (digest, body) = crate::local_state::unframed(KIND, &bytes)?;
    let index: RelevanceIndex = postcard::from_bytes(body).ok()?;
    index
        .is_consistent(index.lengths.len())
        .then(|| StoredIndex {
            digest: digest.to_owned(),
            index,
        })
}

/// Stores `index`, the index over items with `digest`, at `path` (project-relative, in the
/// machine-local folder, which is made to ignore itself first), atomically.
///
/// Errors: [`crate::error::Error::Refused`] for a symlink on the way; I/O. Without a header (the
/// running executable cannot be looked at) nothing is written.
pub(crate) fn write(
    dir: &ProjectDir,
    path: &str,
    digest: &str,
    index: &RelevanceIndex,
) -> Result<()> {
    // Encoding into memory fails only when memory does; then nothing is stored.
    let Ok(body) = postcard::to_stdvec(index) else {
        return Ok(());
    };
    let Some(bytes) = crate::local_state::framed(KIND, digest, &body) else {
        return Ok(());
    };
    crate::local_state::write_file(dir, path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Vec<Item> {
        [
            "---\ntriggers: [retry, \"database timeout\"]\ndescription: Retries\n---\n# Retry the database client\n\nWrap `dbClient.connect` in retries with a timeout.\n",
            "# Logging\n\nLog with the structured logger; never print secrets.\n",
            "---\ndescription: Pages\n---\nPaginate list endpoints with a cursor, 50 items a page.\n",
        ]
        .iter()
        .enumerate()
        .map(|(number, text)| {
            crate::content::root_rule_from_bytes(
                &format!(".ai-rulez/rules/r{number}.md"),
                text.as_bytes(),
            )
            .expect("a rule")
        })
        .collect()
    }

    fn assert_same(left: &RelevanceIndex, right: &RelevanceIndex) {
        assert_eq!(left.vocabulary, right.vocabulary);
        assert_eq!(left.postings, right.postings);
        assert_eq!(left.pairs, right.pairs);
        assert_eq!(left.triggers, right.triggers);
        assert_eq!(left.lengths, right.lengths);
        assert_eq!(
            left.average_length.to_bits(),
            right.average_length.to_bits()
        );
    }

    #[test]
    fn a_stored_index_reads_back_only_for_the_items_it_indexes() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let dir = ProjectDir::open(folder.path()).expect("open");
        let path = ".ai-rulez/local/relevance-index";
        let rules = rules();
        let items: Vec<&Item> = rules.iter().collect();
        let index = RelevanceIndex::build_in_order(&items);
        let digest = digest_of(&items);
        write(&dir, path, &digest, &index).expect("stored");
        let read_back = |digest: &str| read(&dir, path)?.index_for(digest, 3);
        assert_same(&read_back(&digest).expect("read back"), &index);
        let bytes = fs_err::read(folder.path().join(path)).expect("bytes");
        let header = bytes.split(|byte| *byte == b'\n').next().expect("header");
        let body = &bytes[header.len() + 1..];
        assert_eq!(
            std::str::from_utf8(header).expect("text"),
            format!(
                "ai-rulez relevance index 1 {} {digest} {}",
                crate::local_state::binary_identity().expect("identity"),
                crate::local_state::checksum(body)
            )
        );
        assert_eq!(
            fs_err::read_to_string(folder.path().join(".ai-rulez/local/.gitignore"))
                .expect("ignore file")
                .lines()
                .last(),
            Some("*")
        );
        // One changed body, or the same items in another order, is another digest.
        let mut edited = rules.clone();
        edited[1].body.push_str("Also log the request id.\n");
        let edited_items: Vec<&Item> = edited.iter().collect();
        assert_ne!(digest_of(&edited_items), digest);
        assert!(read_back(&digest_of(&edited_items)).is_none());
        // A copy for another number of items is refused even with its own digest.
        assert!(
            read(&dir, path)
                .expect("copy")
                .index_for(&digest, 4)
                .is_none()
        );
        let reordered: Vec<&Item> = rules.iter().rev().collect();
        assert_ne!(digest_of(&reordered), digest);
        // One flipped bit anywhere in the body, or a cut, and the copy is ignored.
        let mut flipped = bytes.clone();
        let middle = header.len() + 1 + body.len() / 2;
        flipped[middle] ^= 0x10;
        fs_err::write(folder.path().join(path), &flipped).expect("flipped");
        assert!(read_back(&digest).is_none());
        fs_err::write(folder.path().join(path), &bytes[..bytes.len() - 10]).expect("cut");
        assert!(read_back(&digest).is_none());
    }

    #[test]
    fn a_copy_with_damaged_posting_lists_is_refused() {
        let rules = rules();
        // Each rule twice, so every term's list holds two items.
        let items: Vec<&Item> = rules.iter().chain(&rules).collect();
        let intact = || RelevanceIndex::build_in_order(&items);
        assert!(intact().is_consistent(6));
        // One entry fewer than positions: scoring would read past the entries.
        let mut short = intact();
        short.postings.entries.pop();
        assert!(!short.is_consistent(6));
        // A position past the items (still last in its list).
        let mut unknown = intact();
        let last = unknown.postings.positions.last_mut().expect("a position");
        *last = 6;
        assert!(!unknown.is_consistent(6));
        // A list out of order: the walks and searches would miss items.
        let mut unsorted = intact();
        let term = unsorted
            .postings
            .starts
            .windows(2)
            .position(|pair| pair[1] - pair[0] >= 2)
            .expect("a term two items hold");
        let start = unsorted.postings.starts[term];
        unsorted.postings.positions.swap(start, start + 1);
        assert!(!unsorted.is_consistent(6));
        // A start past the end: a list would run out of the arena.
        let mut cut = intact();
        let end = cut.postings.positions.len();
        cut.postings.starts[1] = end + 1;
        assert!(!cut.is_consistent(6));
        // One start fewer than terms and one: the last term's list would be lost.
        let mut fewer = intact();
        fewer.postings.starts.pop();
        assert!(!fewer.is_consistent(6));
        // Values a forged copy could carry that make every score not a number or every rule
        // trigger-matched (helper-14).
        let mut not_a_number = intact();
        not_a_number.postings.entries[0].0 = f64::NAN;
        assert!(!not_a_number.is_consistent(6));
        let mut no_frequency = intact();
        no_frequency.postings.entries[0].0 = 0.0;
        assert!(!no_frequency.is_consistent(6));
        let mut no_average = intact();
        no_average.average_length = 0.0;
        assert!(!no_average.is_consistent(6));
        // One pair flag more than the vocabulary has terms: a term number without a term.
        let mut flagged = intact();
        flagged.pairs.push(false);
        assert!(!flagged.is_consistent(6));
        let mut empty_trigger = intact();
        empty_trigger.triggers[1].push(Vec::new());
        assert!(!empty_trigger.is_consistent(6));
        let mut shared_number = intact();
        let number = *shared_number.vocabulary.values().next().expect("a term");
        shared_number.vocabulary.insert("forged".to_owned(), number);
        assert!(!shared_number.is_consistent(6));
    }

    #[test]
    fn a_copy_that_is_not_well_formed_is_refused_when_read() {
        let folder = tempfile::tempdir().expect("temporary folder");
        let dir = ProjectDir::open(folder.path()).expect("open");
        let path = ".ai-rulez/local/relevance-index";
        let rules = rules();
        let items: Vec<&Item> = rules.iter().collect();
        let digest = digest_of(&items);
        let mut damaged = RelevanceIndex::build_in_order(&items);
        damaged.postings.entries[0].0 = f64::NAN;
        // Framed with a correct checksum, as a forger or a faulty writer would leave it.
        write(&dir, path, &digest, &damaged).expect("stored");
        assert!(read(&dir, path).is_none());
        write(&dir, path, &digest, &RelevanceIndex::build_in_order(&items)).expect("stored");
        assert!(read(&dir, path).is_some());
    }
}
