//! Team memory for a path: what agents and people learn about a place in the repository, kept
//! as files under `.ai-rulez/memories/` beside the rules, served by the MCP `memory` toolset and
//! `ai-rulez memory`, and never generated into assistant files.

pub(crate) mod memories;
pub(crate) mod navigation;
pub(crate) mod node;
pub(crate) mod record;
