//! The learning loop: corrections and proposals an agent saves become rule files under
//! `.ai-rulez/`, pending until a person approves them (an ordinary file change, reviewed in
//! git), with checks against duplicates and contradictions, tagging, usage counts and review.
//! The MCP `learn` toolset and the `review` command are thin calls into this module.

pub(crate) mod conventions;
pub(crate) mod day;
pub(crate) mod draft;
pub(crate) mod feedback;
pub(crate) mod fields;
pub(crate) mod guard;
pub(crate) mod ledger;
pub(crate) mod matching;
pub(crate) mod organize;
pub(crate) mod proposals;
pub(crate) mod review;
pub(crate) mod reviews;
pub(crate) mod risk;
pub(crate) mod similarity;
pub(crate) mod usage;
