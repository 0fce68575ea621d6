//! The managed block in `.gitignore`: one block between fixed BEGIN/END markers, replaced in
//! place, never duplicated; the user's lines above and below are untouched.

use crate::error::{Error, Result};

/// First line of the managed block.
pub(crate) const BEGIN: &str =
    "# BEGIN ai-rulez (managed by `ai-rulez generate`; edit .ai-rulez/config.toml instead)";
/// Last line of the managed block.
pub(crate) const END: &str = "# END ai-rulez";
const BEGIN_PREFIX: &str = "# BEGIN ai-rulez";
/// The one unanchored pattern of the block: temporary files ai-rulez writes next to the file it
/// replaces, at any depth.
const TEMPORARY_PATTERN: &str = ".ai-rulez-*.tmp";
/// Machine-local state under the config folder (local items, rule usage counts, the learning
/// ledger): it describes one machine and never belongs in a commit.
const LOCAL_PATTERN: &str = "/.ai-rulez/local/";

/// Header line of the fragments the Go ai-rulez (before its fenced block) appended on every run.
/// Each is followed by its entry lines up to the next blank or comment line.
const LEGACY_HEADER: &str = "# AI Rules generated files";

/// Returns the new `.gitignore` text with the block holding `entries` (root-anchored literal
/// paths such as `/CLAUDE.md`; gitignore pattern characters in them are escaped here, written
/// sorted), or with the block removed when `entries` is `None` or empty. `current` is the file's
/// text (`None` when absent). Returns `None` when the file should not exist.
///
/// Fragments left by the Go ai-rulez under `# AI Rules generated files` are migrated: the block
/// takes the place of the first one and the others are dropped, so a project switching tools
/// ends up with one block instead of the old fragments plus ours (their unanchored entries would
/// also keep ignoring nested source files).
///
/// Errors: [`Error::Invalid`] when the markers are damaged (a BEGIN without END, an END without
/// BEGIN, or two blocks); nothing is changed then.
pub(crate) fn update(current: Option<&str>, entries: Option<&[String]>) -> Result<Option<String>> {
    let text = current.unwrap_or_default();
    let (lines, legacy_at) = without_legacy_fragments(text);
    let begins: Vec<usize> = positions(&lines, |line| line.starts_with(BEGIN_PREFIX));
    let ends: Vec<usize> = positions(&lines, |line| line.trim_end() == END);
    let damaged = |message: &str| {
        Error::invalid(
            ".gitignore",
            None,
            format!(
                "{message}; fix the `{BEGIN_PREFIX}` / `{END}` markers by hand (nothing was changed)"
            ),
        )
    };
    // The lines `start..end` are replaced by the new block.
    let splice = match (begins.as_slice(), ends.as_slice()) {
        ([], []) => legacy_at.map(|at| (at, at)),
        ([begin], [end]) if begin < end => Some((*begin, *end + 1)),
        ([_], [_]) => return Err(damaged("the END marker comes before the BEGIN marker")),
        ([], _) => return Err(damaged("an END marker without a BEGIN marker")),
        (_, []) => return Err(damaged("a BEGIN marker without an END marker")),
        _ => return Err(damaged("more than one managed block")),
    };
    let mut sorted: Vec<String> = entries
        .unwrap_or_default()
        .iter()
        .map(|entry| escape_entry(entry))
        .collect();
    if !sorted.is_empty() {
        // Temporary files of an interrupted write, at any depth (see `confined_fs`).
        sorted.push(TEMPORARY_PATTERN.to_owned());
        sorted.push(LOCAL_PATTERN.to_owned());
    }
    sorted.sort();
    sorted.dedup();
    let new_block: Vec<String> = if sorted.is_empty() {
        Vec::new()
    } else {
        let mut block = vec![BEGIN.to_owned()];
        block.extend(sorted);
        block.push(END.to_owned());
        block
    };
    let mut out: Vec<String> = Vec::new();
    if let Some((start, end)) = splice {
        out.extend(lines[..start].iter().map(|line| (*line).to_owned()));
        let after_is_blank = lines.get(end).is_none_or(|line| line.trim().is_empty());
        if new_block.is_empty() && after_is_blank {
            // Removing the block also drops the blank separator line added before it.
            if out.last().is_some_and(|line| line.trim().is_empty()) {
                out.pop();
            }
        }
        out.extend(new_block);
        out.extend(lines[end..].iter().map(|line| (*line).to_owned()));
    } else {
        out.extend(lines.iter().map(|line| (*line).to_owned()));
        if !new_block.is_empty() {
            if out.last().is_some_and(|line| !line.trim().is_empty()) {
                out.push(String::new());
            }
            out.extend(new_block);
        }
    }
    if out.is_empty() {
        // Nothing but ai-rulez's lines was in the file, so the file goes with them; a file that
        // was empty (or blank) to begin with is left as it is.
        return Ok(if text.trim().is_empty() {
            current.map(str::to_owned)
        } else {
            None
        });
    }
    let mut result = out.join("\n");
    result.push('\n');
    Ok(Some(result))
}

/// The lines of `text` without the Go ai-rulez's legacy fragments, and the index (in the
/// returned lines) where the first fragment was. A dropped fragment also takes the blank line
/// the old tool wrote before it, unless the fragment was the first.
fn without_legacy_fragments(text: &str) -> (Vec<&str>, Option<usize>) {
    let mut kept: Vec<&str> = Vec::new();
    let mut first_at = None;
    let mut in_fragment = false;
    for line in text.lines() {
        if line.trim_end() == LEGACY_HEADER {
            in_fragment = true;
            if first_at.is_some() {
                if kept.last().is_some_and(|line| line.trim().is_empty()) {
                    kept.pop();
                }
            } else {
                first_at = Some(kept.len());
            }
            continue;
        }
        if in_fragment {
            let entry = !line.trim().is_empty() && !line.starts_with('#');
            if entry {
                continue;
            }
            in_fragment = false;
        }
        kept.push(line);
    }
    (kept, first_at)
}

/// Escapes the characters gitignore reads as pattern syntax, so an entry matches exactly the one
/// path it names: `*`, `?`, `[` and `\` anywhere, and a trailing space (which would be trimmed).
/// A leading `!` or `#` cannot occur because entries start with `/`.
fn escape_entry(entry: &str) -> String {
    let mut escaped = String::with_capacity(entry.len());
    for character in entry.chars() {
        if matches!(character, '*' | '?' | '[' | '\\') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    if escaped.ends_with(' ') {
        escaped.pop();
        escaped.push_str("\\ ");
    }
    escaped
}

fn positions(lines: &[&str], predicate: impl Fn(&str) -> bool) -> Vec<usize> {
    lines
        .iter()
        .enumerate()
        .filter(|(_, line)| predicate(line))
        .map(|(index, _)| index)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_added_once_and_replaced_in_place() {
        let entries = vec!["/CLAUDE.md".to_owned(), "/AGENTS.md".to_owned()];
        let first = update(Some("node_modules/\n"), Some(&entries))
            .expect("ok")
            .expect("text");
        assert_eq!(
            first,
            format!(
                "node_modules/\n\n{BEGIN}\n.ai-rulez-*.tmp\n/.ai-rulez/local/\n/AGENTS.md\n/CLAUDE.md\n{END}\n"
            )
        );
        let second = update(Some(&first), Some(&entries))
            .expect("ok")
            .expect("text");
        assert_eq!(second, first);
        let removed = update(Some(&first), None).expect("ok").expect("text");
        assert_eq!(removed, "node_modules/\n");
        let only_block = update(None, Some(&entries)).expect("ok").expect("text");
        assert_eq!(update(Some(&only_block), None).expect("ok"), None);
        assert_eq!(update(Some(""), None).expect("ok").as_deref(), Some(""));
    }

    #[test]
    fn legacy_fragments_become_the_block() {
        let entries = vec!["/CLAUDE.md".to_owned()];
        let legacy = "a/\n\n# AI Rules generated files\n.claude/\nCLAUDE.md\n\n# AI Rules generated files\n.mcp.json\n\nb/\n";
        let migrated = update(Some(legacy), Some(&entries))
            .expect("ok")
            .expect("text");
        assert_eq!(
            migrated,
            format!("a/\n\n{BEGIN}\n.ai-rulez-*.tmp\n/.ai-rulez/local/\n/CLAUDE.md\n{END}\n\nb/\n")
        );
        let cleaned = update(Some(legacy), None).expect("ok").expect("text");
        assert_eq!(cleaned, "a/\n\nb/\n");
    }

    #[test]
    fn pattern_characters_are_escaped() {
        let entries = vec!["/r/[draft]*?.md".to_owned(), "/r/x\\y ".to_owned()];
        let text = update(None, Some(&entries)).expect("ok").expect("text");
        assert_eq!(
            text,
            format!(
                "{BEGIN}\n.ai-rulez-*.tmp\n/.ai-rulez/local/\n/r/\\[draft]\\*\\?.md\n/r/x\\\\y\\ \n{END}\n"
            )
        );
    }

    #[test]
    fn damaged_markers_are_an_error() {
        let error = update(Some(&format!("{BEGIN}\n/x\n")), Some(&[])).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("a BEGIN marker without an END marker"),
            "{error}"
        );
        assert!(update(Some(&format!("{BEGIN}\n{END}\n{BEGIN}\n{END}\n")), None).is_err());
    }
}
