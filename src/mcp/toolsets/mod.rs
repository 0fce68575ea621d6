//! Every tool declaration, grouped by toolset: one module per toolset, one function per tool
//! returning its [`ToolSpec`] with the handler inline. Adding a tool means one such function in
//! its toolset's module, listed in that module's `tools()` (plus its library function and
//! tests); adding a toolset means one module here, one line in [`all`], and one variant and row
//! in [`super::registry`]. The `memory` toolset is the one split in two modules: memories and
//! navigation in `memory`, learnings, refresh requests and activity in `learnings`.

mod admin;
mod author;
mod context;
mod core;
mod learn;
mod learnings;
mod memory;
mod read;
mod skills;

use super::registry::{ToolError, ToolSpec};

/// Every declared tool, in listing order: core, read, skills, author, admin, learn, memory,
/// context.
#[must_use]
pub(crate) fn all() -> Vec<ToolSpec> {
    let mut tools = core::tools();
    tools.extend(read::tools());
    tools.extend(skills::tools());
    tools.extend(author::tools());
    tools.extend(admin::tools());
    tools.extend(learn::tools());
    tools.extend(memory::tools());
    tools.extend(learnings::tools());
    tools.extend(context::tools());
    tools
}

/// Refuses a `path` (or `scope`) argument, named `argument` in the error, holding a control
/// character or line separator (a NUL, newline, escape, U+2028) or a hidden one (zero-width, a
/// blank filler, a bidirectional control): no
/// indexed file or item scope has one (such files are withheld by name), so the call is answered
/// with what is wrong instead of calling the path outside the project, or echoing a name that
/// reads as another. Errors: that sentence, with the value escaped.
fn refuse_unservable_characters(argument: &str, value: &str) -> Result<(), ToolError> {
    let shown = crate::lint::screen::escape_unreadable(value);
    if crate::lint::screen::breaks_lines(value) {
        return Err(ToolError(format!(
            "{argument} `{shown}` holds a control character or line separator (a NUL, newline, escape or U+2028), which no indexed file's path has; give the path as it is on disk"
        )));
    }
    if crate::lint::screen::has_hidden_characters(value) {
        return Err(ToolError(format!(
            "{argument} `{shown}` holds a hidden character (invisible, such as a zero-width space, a blank filler or a bidirectional control), which no served file's path has; type the path again without it"
        )));
    }
    Ok(())
}

/// Refuses free text the client sent as a task or a query (named `argument` in the error) when
/// the part of it that is ranked (the first 500 characters, see `retrieval::ranked_part`) holds
/// a hidden character (zero-width, a blank filler, a bidirectional control): such text reads as
/// other words than it holds, so it is answered with what is wrong instead of being ranked or
/// echoed. The text itself is not repeated, since it may be megabytes long.
///
/// Errors: that sentence.
fn refuse_hidden_characters_in_words(argument: &str, value: &str) -> Result<(), ToolError> {
    let ranked = crate::retrieval::ranked_part(value);
    if crate::lint::screen::has_hidden_characters(&ranked) {
        return Err(ToolError(format!(
            "{argument} holds a hidden character (invisible, such as a zero-width space, a blank filler or a bidirectional control), which reads as other words than it holds; type it again without it"
        )));
    }
    Ok(())
}

/// Refuses a path argument (named `argument`, given by the client as `given`, `relative` once
/// made project-relative) that holds a backslash when nothing is at `relative` in the project
/// `dir`: the client most likely wrote Windows separators, and answering for a file that does
/// not exist would silently leave out every scoped item. A path that exists keeps working, since
/// on Linux a backslash is part of a file name and the index keeps such names as they are. The
/// wording is `write_memory`'s for a node path with a backslash.
///
/// Errors: that sentence, with the path as given and with `/` separators, both escaped.
fn refuse_backslash_separators(
    argument: &str,
    given: &str,
    relative: &str,
    dir: &crate::confined_fs::ProjectDir,
) -> Result<(), ToolError> {
    if !relative.contains('\\') {
        return Ok(());
    }
    // A path that cannot be looked at (a symlink on the way) is answered as before: the reply
    // says why nothing behind it is served.
    if !matches!(dir.info(relative), Ok(None)) {
        return Ok(());
    }
    Err(ToolError(format!(
        "{argument} `{}` contains a backslash and nothing is at that path in the project; separate folders with `/`, such as `{}`",
        given.escape_debug(),
        given.replace('\\', "/").escape_debug()
    )))
}
