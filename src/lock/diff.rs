//! `lock --diff`: what each difference from the lock is, in content where that can be known. The
//! lock keeps digests, not text, so content is known only for a generated output whose sources
//! still render to exactly what the lock pins: then the rendered text *is* the pinned text, and
//! the diff from it to the file shows the hand edit. Everything else gets a sentence saying what
//! differs and where to look.

use std::path::Path;

use super::pin::{Against, LockPaths, check_lock, locate};
use super::sources::Snapshot;
use super::{Change, leaf_digest};
use crate::error::Result;
use crate::plan::{Content, Plan};
use crate::write::Mode;

/// Compares the lock with the working tree or the index (as [`check_lock`]) and gives every
/// change a `diff` (unified, pinned content → current content) or a `detail` sentence.
///
/// The plan is rendered from the working tree's sources, with placeholders for variables (no
/// environment is read, so no secret can reach the output); when the sources do not load, every
/// output change gets a sentence naming the load error instead of a diff.
///
/// Errors: as [`check_lock`].
pub(crate) fn diff_lock(start: &Path, against: Against) -> Result<Vec<Change>> {
    let mut changes = check_lock(start, against, false)?;
    let paths = locate(start)?;
    let snapshot = match against {
        Against::WorkTree => Snapshot::WorkTree(crate::confined_fs::ProjectDir::open(&paths.root)?),
        Against::Staged => Snapshot::from_index(&paths.root)?,
    };
    let rendered = crate::generate::plan(
        start,
        None,
        Mode::Check,
        // A report command: it shows what it can without fetching.
        crate::git_include::GitIncludes::CacheOnly,
        &mut Vec::new(),
    )
    .map(|(_, plan)| plan)
    .map_err(|error| error.to_string());
    for change in &mut changes {
        describe(change, &paths, &snapshot, rendered.as_ref(), against)?;
    }
    Ok(changes)
}

fn describe(
    change: &mut Change,
    paths: &LockPaths,
    snapshot: &Snapshot,
    rendered: std::result::Result<&Plan, &String>,
    against: Against,
) -> Result<()> {
    let git_diff = match against {
        Against::WorkTree => "git diff",
        Against::Staged => "git diff --cached",
    };
    let digests = format!(
        "pinned {}, now {}",
        change.old.as_deref().unwrap_or("nothing"),
        change.new.as_deref().unwrap_or("nothing")
    );
    change.detail = Some(match change.scope {
        "source" => match change.change {
            "added" => "a new source, not pinned in the lock".to_owned(),
            "removed" => "pinned in the lock, no longer present".to_owned(),
            _ => format!(
                "the lock keeps only a digest of each source ({digests}); `{git_diff} -- {}` shows the edit",
                change.path
            ),
        },
        "mcp-server" => format!(
            "the server's entry in {} differs from the lock ({digests}); `{git_diff} -- {}` shows the edit",
            paths.config_file, paths.config_file
        ),
        _ => match rendered {
            Err(error) => {
                format!("{digests}; no content diff, because the sources do not load: {error}")
            }
            Ok(plan) => match pinned_content(plan, change) {
                Some(pinned) => {
                    let current = current_content(snapshot, change)?;
                    change.diff = Some(crate::diff::unified(
                        &change.path,
                        Some(&pinned),
                        current.as_deref(),
                    ));
                    return Ok(());
                }
                None if is_entry(change) => format!(
                    "{digests}; the lock keeps one digest per entry of a settings document, not its text; `{git_diff} -- {}` shows the edit",
                    change.path
                ),
                None => format!(
                    "{digests}; the lock keeps only digests and the sources no longer render to the pinned content, so `ai-rulez generate --check --diff` shows what generate would change"
                ),
            },
        },
    });
    Ok(())
}

/// Whether an output change pins one entry of a settings document (its label names the entry).
fn is_entry(change: &Change) -> bool {
    change.id != change.path && !change.id.ends_with("(ai-rulez section)")
}

/// The pinned content of an output change, when the current sources render to exactly the
/// pinned digest: the whole file, or the managed section's body. `None` otherwise (and for
/// settings-document entries, whose pinned form is a digest of one entry).
fn pinned_content(plan: &Plan, change: &Change) -> Option<Vec<u8>> {
    let pinned = change.old.as_deref()?;
    let output = plan.outputs.get(&change.path)?;
    let section = change.id.ends_with("(ai-rulez section)");
    match &output.content {
        Content::Markdown(markdown) if section => (crate::hash::sha256_tagged(markdown.body())
            == pinned)
            .then(|| markdown.body().to_vec()),
        Content::Markdown(markdown) => (leaf_digest(&change.path, false, &markdown.bytes)
            == pinned)
            .then(|| markdown.bytes.clone()),
        Content::Verbatim { bytes, executable } => {
            (leaf_digest(&change.path, *executable, bytes) == pinned).then(|| bytes.clone())
        }
        Content::Entries { .. } => None,
    }
}

/// The current content of an output change as the lock compares it: the file, or the body of
/// its managed section, with CRLF turned into LF for text files; `None` when absent.
fn current_content(snapshot: &Snapshot, change: &Change) -> Result<Option<Vec<u8>>> {
    let Some((_, bytes)) = snapshot.read(&change.path)? else {
        return Ok(None);
    };
    if change.id.ends_with("(ai-rulez section)") {
        // The section is found, and compared, with LF line ends, as the lock pins it.
        let text = String::from_utf8_lossy(&crate::hash::lf_line_ends(&bytes)).into_owned();
        return Ok(crate::write::section_body(&text).map(|body| body.as_bytes().to_vec()));
    }
    // A CRLF checkout differs from the pinned bytes only where it was edited.
    Ok(Some(
        crate::hash::comparable(&change.path, &bytes).into_owned(),
    ))
}
