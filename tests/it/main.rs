//! The one integration-test binary: it runs the real `ai-rulez` binary on copies of fixtures.

mod bug_cases;
mod concurrency;
mod confinement;
mod conventions;
mod corpus;
mod crash;
mod fuzz;
mod golden;
mod hostile;
mod learn;
mod lint;
mod lock;
mod mcp;
mod mcp_registry;
mod review;
mod robustness;
mod stdio_client;
mod support;
