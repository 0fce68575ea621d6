//! The one integration-test binary: it runs the real `ai-rulez` binary on copies of fixtures.

mod bug_cases;
mod concurrency;
mod confinement;
mod conveniences;
mod conventions;
mod corpus;
mod crash;
mod edit_hints;
mod fuzz;
mod golden;
mod hostile;
mod learn;
mod learn_reviews;
mod learn_reviews_limits;
mod learn_reviews_mcp;
mod lint;
mod lock;
mod mcp;
mod mcp_registry;
mod review;
mod robustness;
mod scale;
mod silent_mistakes;
mod stdio_client;
mod support;
