//! The managed block in `.gitignore`: one block between fixed BEGIN/END markers, replaced in
//! place, never duplicated; the user's lines above and below are untouched.

use crate::error::{Error, Result};

/// First line of the managed block.
pub const BEGIN: &str =
    "# BEGIN ai-rulez (managed by `ai-rulez generate`; edit .ai-rulez/config.toml instead)";
/// Last line of the managed block.
pub const END: &str = "# END ai-rulez";
const BEGIN_PREFIX: &str = "# BEGIN ai-rulez";

/// Returns the new `.gitignore` text with the block holding `entries` (root-anchored paths,
/// written sorted), or with the block removed when `entries` is `None` or empty. `current` is the
/// file's text (`None` when absent). Returns `None` when the file should not exist.
///
/// Errors: [`Error::Invalid`] when the markers are damaged (a BEGIN without END, an END without
/// BEGIN, or two blocks); nothing is changed then.
pub fn update(current: Option<&str>, entries: Option<&[String]>) -> Result<Option<String>> {
    let text = current.unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
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
    let block = match (begins.as_slice(), ends.as_slice()) {
        ([], []) => None,
        ([begin], [end]) if begin < end => Some((*begin, *end)),
        ([_], [_]) => return Err(damaged("the END marker comes before the BEGIN marker")),
        ([], _) => return Err(damaged("an END marker without a BEGIN marker")),
        (_, []) => return Err(damaged("a BEGIN marker without an END marker")),
        _ => return Err(damaged("more than one managed block")),
    };
    let mut sorted: Vec<String> = entries.unwrap_or_default().to_vec();
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
    if let Some((begin, end)) = block {
        out.extend(lines[..begin].iter().map(|line| (*line).to_owned()));
        out.extend(new_block);
        out.extend(lines[end + 1..].iter().map(|line| (*line).to_owned()));
    } else {
        out.extend(lines.iter().map(|line| (*line).to_owned()));
        if !new_block.is_empty() {
            if out.last().is_some_and(|line| !line.trim().is_empty()) {
                out.push(String::new());
            }
            out.extend(new_block);
        }
    }
    if block.is_some() && sorted_is_empty(entries) {
        // Removing the block also drops the blank separator line added before it.
        if out.last().is_some_and(|line| line.trim().is_empty()) {
            out.pop();
        }
    }
    if out.is_empty() {
        return Ok(current.map(|_| String::new()));
    }
    let mut result = out.join("\n");
    result.push('\n');
    Ok(Some(result))
}

fn sorted_is_empty(entries: Option<&[String]>) -> bool {
    entries.is_none_or(<[String]>::is_empty)
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
            format!("node_modules/\n\n{BEGIN}\n/AGENTS.md\n/CLAUDE.md\n{END}\n")
        );
        let second = update(Some(&first), Some(&entries))
            .expect("ok")
            .expect("text");
        assert_eq!(second, first);
        let removed = update(Some(&first), None).expect("ok").expect("text");
        assert_eq!(removed, "node_modules/\n");
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
