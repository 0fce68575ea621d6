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

use super::registry::ToolSpec;

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
