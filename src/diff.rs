//! Unified diffs of file content for `--diff` (generate and lock), so a user sees what changed and
//! not only which file. The text is plain; colouring is the printer's business (`commands`).

/// Lines of context around each change, as `diff -u` and git use by default.
const CONTEXT_LINES: usize = 3;

/// The unified diff from `old` to `new` of the project-relative file `path`, with `a/` and `b/`
/// headers as git prints them (`/dev/null` for a side that does not exist). Lines end in LF; a
/// side without a final newline gets git's `\ No newline at end of file` line.
///
/// Inputs: `old`/`new` are the whole file's bytes (`None` = the file does not exist on that
/// side). Output: the diff text, empty when both sides are equal; for content that is not UTF-8,
/// one line saying the binary files differ (as git says it). Deterministic: no time limit is put
/// on the diff algorithm, so the same inputs always give the same text.
#[must_use]
pub(crate) fn unified(path: &str, old: Option<&[u8]>, new: Option<&[u8]>) -> String {
    if old == new {
        return String::new();
    }
    let old_header = old.map_or_else(|| "/dev/null".to_owned(), |_| format!("a/{path}"));
    let new_header = new.map_or_else(|| "/dev/null".to_owned(), |_| format!("b/{path}"));
    let (Ok(old_text), Ok(new_text)) = (
        std::str::from_utf8(old.unwrap_or_default()),
        std::str::from_utf8(new.unwrap_or_default()),
    ) else {
        return format!("Binary files {old_header} and {new_header} differ\n");
    };
    let text_diff = similar::TextDiff::from_lines(old_text, new_text);
    let mut unified = text_diff.unified_diff();
    unified
        .context_radius(CONTEXT_LINES)
        .missing_newline_hint(true)
        .header(&old_header, &new_header);
    unified.to_string()
}

#[cfg(test)]
mod tests {
    use super::unified;

    #[test]
    fn a_changed_line_is_one_hunk_with_git_headers() {
        let diff = unified(
            "CLAUDE.md",
            Some(b"one\ntwo\nthree\n"),
            Some(b"one\nTWO\nthree\n"),
        );
        assert_eq!(
            diff,
            "--- a/CLAUDE.md\n+++ b/CLAUDE.md\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
        );
    }

    #[test]
    fn a_new_file_comes_from_dev_null_and_binary_content_is_named() {
        assert_eq!(
            unified("x.md", None, Some(b"a\n")),
            "--- /dev/null\n+++ b/x.md\n@@ -0,0 +1 @@\n+a\n"
        );
        assert_eq!(
            unified("x.bin", Some(b"\xff"), Some(b"\xfe")),
            "Binary files a/x.bin and b/x.bin differ\n"
        );
        assert_eq!(unified("same", Some(b"a"), Some(b"a")), "");
    }
}
