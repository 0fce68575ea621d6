//! The rule files of one folder read and parsed ahead, on several threads, before the loader
//! takes them one by one in name order. Reading and parsing is nearly all of the cost of loading
//! a large project (100,000 rules), and each file's work is independent; the loader still
//! decides everything in order (ids, errors, the byte budget, the parse cache), so the result is
//! the same as reading one file after another.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_FILE_BYTES, Stamp, Tree, join};
use crate::confined_fs::{Entry, EntryKind};
use crate::content::{Item, Kind, Layer, interpret};
use crate::error::Result;
use crate::frontmatter;

/// Fewest files in a folder worth reading ahead; a smaller folder is read in order.
const LEAST_FILES: usize = 64;

/// One file read and parsed ahead.
pub(super) struct ReadAhead {
    /// The stamp of the file read, when the caller keeps a parse cache.
    pub stamp: Option<Stamp>,
    /// Bytes read (charged against the tree's byte budget by the loader).
    pub length: usize,
    /// The item, or why the file does not load.
    pub parsed: Result<Item>,
}

/// The `.md` files among `entries` of `folder` (items of `kind` in `layer`) read and parsed,
/// by project-relative path. A file is left out (and read again in order by the loader, which
/// reports any error) when reading it fails, its name holds a control character, or the bytes
/// read ahead reach `budget` (the bytes the tree may still read). Empty for a folder of fewer
/// than [`LEAST_FILES`] files. `stamps`: whether to take each file's size and time first.
pub(super) fn read_ahead(
    tree: &Tree<'_>,
    kind: Kind,
    folder: &str,
    entries: &[Entry],
    layer: &Layer,
    stamps: bool,
    budget: u64,
) -> HashMap<String, ReadAhead> {
    let files: Vec<(&str, String)> = entries
        .iter()
        .filter(|entry| entry.kind == EntryKind::File && entry.exact_name)
        .filter_map(|entry| Some((entry.name.strip_suffix(".md")?, join(folder, &entry.name))))
        .filter(|(id, _)| !id.chars().any(char::is_control))
        .collect();
    if files.len() < LEAST_FILES {
        return HashMap::new();
    }
    let spent = AtomicU64::new(0);
    let read = crate::parallel::map_in_order(&files, |(id, relative)| {
        if spent.load(Ordering::Relaxed) >= budget {
            return None;
        }
        // The stamp comes from the open file itself (one system call less than a separate
        // look, and exactly the file whose bytes were read).
        let (bytes, info) = tree
            .dir
            .read_with_info(relative, MAX_FILE_BYTES)
            .ok()
            .flatten()?;
        let stamp = stamps.then(|| Stamp::of(&info));
        spent.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        let shown = tree.shown(relative);
        let parsed = frontmatter::parse(&shown, &bytes)
            .and_then(|document| interpret(kind, (*id).to_owned(), layer.clone(), shown, document));
        Some(ReadAhead {
            stamp,
            length: bytes.len(),
            parsed,
        })
    });
    files
        .into_iter()
        .zip(read)
        .filter_map(|((_, relative), ahead)| Some((relative, ahead?)))
        .collect()
}
