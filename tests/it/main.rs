//! The one integration-test binary: it runs the real `ai-rulez` binary on copies of fixtures.

mod bug_cases;
mod corpus;
mod fuzz;
mod golden;
mod hostile;
mod lint;
mod lock;
mod mcp;
mod robustness;
mod support;
