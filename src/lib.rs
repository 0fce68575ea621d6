//! ai-rulez keeps a team's AI-assistant knowledge (rules, context, skills, agents, commands) as
//! Markdown with YAML frontmatter under `.ai-rulez/`, and renders each coding assistant's native
//! files from it with content hashes, without ever overwriting a file it did not write.
//!
//! The library's only public entry point is [`run`], which the `ai-rulez` binary calls; every
//! module is crate-private. Data flow inside: `project::load` → `project::view` →
//! `presets::render::render` → `plan::Plan` → `write::apply` (see
//! `cargo doc --document-private-items`).

#![warn(missing_docs)]
// The items re-exported for the tests through the hidden `testing` module count as public for
// rustdoc, so their docs' links to crate-private items would warn; those docs are not rendered
// (the module is hidden) and the links resolve in `cargo doc --document-private-items`.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod authoring;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod config;
pub(crate) mod confined_fs;
pub(crate) mod content;
pub(crate) mod delivery;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod file_times;
pub(crate) mod frontmatter;
pub(crate) mod generate;
pub(crate) mod git;
pub(crate) mod git_include;
pub(crate) mod gitignore;
pub(crate) mod hash;
pub(crate) mod import;
pub(crate) mod init;
pub(crate) mod instruction_files;
pub(crate) mod learning;
pub(crate) mod limits;
pub(crate) mod lint;
pub(crate) mod local_state;
pub(crate) mod lock;
pub(crate) mod manifest;
pub(crate) mod markdown;
pub(crate) mod mcp;
pub(crate) mod mcp_config;
pub(crate) mod memory;
pub(crate) mod message_list;
pub(crate) mod parallel;
pub(crate) mod plan;
pub(crate) mod portable;
pub(crate) mod presets;
pub(crate) mod project;
pub(crate) mod redact;
pub(crate) mod retrieval;
pub(crate) mod run_memo;
pub(crate) mod scope;
pub(crate) mod search;
pub(crate) mod settings;
pub(crate) mod suggest;
pub(crate) mod summary;
pub(crate) mod write;

use std::process::ExitCode;

use clap::Parser as _;

use crate::cli::{Cli, Command};
use crate::commands::Global;

/// Parses the process arguments, runs the command and returns its exit code: 0 ok, 1 could not
/// run (bad config, bad flag, refused write), 2 drift or findings.
#[must_use]
pub fn run() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = u8::from(error.use_stderr());
            error.print().ok();
            return ExitCode::from(code);
        }
    };
    // Named now, before anything could replace the executable (see the function).
    local_state::binary_identity();
    let start = cli
        .directory
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("."));
    let global = Global {
        start,
        quiet: cli.quiet,
    };
    let result = match &cli.command {
        Command::Generate(args) => commands::generate::run(
            &global,
            &commands::generate::GenerateConfig::from_args(args),
        ),
        Command::Clean(args) => commands::clean::run(&global, args),
        Command::Init(args) => commands::init::run(&global, args),
        Command::Import(args) => commands::import::run(&global, args),
        Command::Lock(args) => commands::lock::run(&global, args),
        Command::Hook(cli::HookCommand::Install) => commands::hook::install(&global),
        Command::Hook(cli::HookCommand::Uninstall) => commands::hook::uninstall(&global),
        Command::Completions(args) => Ok(commands::completions::run(args)),
        Command::Mcp(args) => commands::mcp::run(&global, args),
        Command::Explain(args) => commands::explain::run(&global, args),
        Command::Review(args) => commands::review::run(&global, args),
        Command::Learn(cli::LearnCommand::Reviews(args)) => commands::learn::reviews(&global, args),
        Command::Validate(args) => commands::validate::run(&global, args),
        Command::Scan(args) => commands::scan::run(&global, args),
        Command::Learn(cli::LearnCommand::Conventions(args)) => {
            commands::learn::conventions(&global, args)
        }
        Command::Memory(args) => commands::memory::run(&global, args),
        Command::Learnings(args) => commands::learnings::run(&global, args),
        Command::Activity(args) => commands::activity::run(&global, args),
    };
    // A machine-local cache still being written (by `ai-rulez mcp`) is finished, not cut off.
    local_state::finish_background_writes();
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            commands::err(&format!("error: {error:#}"));
            // `--format json` promises one JSON document on stdout, failures included.
            if wants_json(&cli.command) {
                commands::print_json(&serde_json::json!({
                    "status": "error",
                    "error": format!("{error:#}"),
                    "exit_code": 1,
                }));
            }
            ExitCode::from(1)
        }
    }
}

/// Whether the command was asked for machine-readable output.
fn wants_json(command: &Command) -> bool {
    use cli::{Format, LintFormat};
    match command {
        Command::Generate(args) => args.format == Format::Json,
        Command::Clean(args) => args.format == Format::Json,
        Command::Lock(args) => args.format == Format::Json,
        Command::Explain(args) => args.format == Format::Json,
        Command::Review(args) => args.format == Format::Json,
        Command::Learn(cli::LearnCommand::Reviews(args)) => args.format == Format::Json,
        Command::Learn(cli::LearnCommand::Conventions(args)) => args.format == Format::Json,
        Command::Memory(args) => args.format == Format::Json,
        Command::Learnings(args) => args.format == Format::Json,
        Command::Activity(args) => args.format == Format::Json,
        Command::Import(args) => args.format == Format::Json,
        Command::Validate(args) | Command::Scan(args) => {
            matches!(args.format, LintFormat::Json | LintFormat::Sarif)
        }
        Command::Init(_) | Command::Hook(_) | Command::Mcp(_) | Command::Completions(_) => false,
    }
}

/// Re-exports of the internals this crate's own integration tests (`tests/it`), proptest fuzz
/// targets and benches call directly. It exists only for them: it is not a stable API, may change
/// in any release, and is hidden from the docs. The sub-modules mirror the crate's module paths so
/// a test reads `testing::scope::split_globs` where the code says `scope::split_globs`.
#[doc(hidden)]
pub mod testing {
    /// The command line definition, for checking the CLI against the MCP tool registry.
    pub mod cli {
        pub use crate::cli::Cli;
    }

    /// Parsing `config.toml` / `config.yaml`.
    pub mod config {
        pub use crate::config::parse;
    }

    /// The confined project folder and its writer lock.
    pub mod confined_fs {
        pub use crate::confined_fs::{ProjectDir, temporary_path};
    }

    /// Content kinds and the per-document checks.
    pub mod content {
        pub use crate::content::{Kind, check};
    }

    /// The checksum the machine-local caches carry in their header line.
    pub mod local_state {
        /// See the crate-internal `local_state::checksum`.
        #[must_use]
        pub fn checksum(bytes: &[u8]) -> String {
            crate::local_state::checksum(bytes)
        }
    }

    /// The library's typed error.
    pub mod error {
        pub use crate::error::Error;
    }

    /// Frontmatter parsing and rewriting.
    pub mod frontmatter {
        pub use crate::frontmatter::{Document, is_strict_yaml, parse, rewrite_top_level};
    }

    /// Generating and cleaning the assistants' files.
    pub mod generate {
        pub use crate::generate::{Options, clean, generate};
    }

    /// Input size limits.
    pub mod limits {
        pub use crate::limits::MAX_BRACE_EXPANSIONS;
    }

    /// Validation and scanning.
    pub mod lint {
        /// `validate`.
        pub mod validate {
            pub use crate::lint::validate::validate;
        }

        /// `scan`.
        pub mod scan {
            pub use crate::lint::scan::scan;
        }
    }

    /// The lock file.
    pub mod lock {
        /// Writing and checking the lock.
        pub mod pin {
            pub use crate::lock::pin::{Against, check_lock, write_lock};
        }
    }

    /// The MCP server's tool registry and JSON-RPC framing.
    pub mod mcp {
        pub use crate::mcp::declared_tools;

        /// The tool registry.
        pub mod registry {
            pub use crate::mcp::registry::{
                CLI_ONLY, Pairing, TOOLSETS, ToolSpec, Toolset, parity_markdown,
            };
        }

        /// JSON-RPC line framing.
        pub mod framing {
            pub use crate::mcp::framing::{Line, Verdict, judge, read_line};

            /// JSON-RPC batches.
            pub mod batch {
                pub use crate::mcp::framing::batch::{BATCH_VERSION, BatchPlan, plan};
            }
        }
    }

    /// Preset specs.
    pub mod presets {
        pub use crate::presets::{default_reads, reads_nested_agents_md};
    }

    /// Loading a project.
    pub mod project {
        pub use crate::project::load_lenient;
    }

    /// The MCP retrieval tools.
    pub mod retrieval {
        pub use crate::retrieval::{
            CandidateFeatures, Catalog, MemoryText, RulesRequest, Session, candidate_features,
            get_context, get_context_with, get_rules, search_rules,
        };
    }

    /// Rule scopes: globs and targets.
    pub mod scope {
        pub use crate::scope::{
            check_globs, check_targets, compile, expand_braces, matcher, normalize_target,
            scope_globs, split_globs, target_matches, try_expand_braces,
        };
    }

    /// Write modes.
    pub mod write {
        pub use crate::write::Mode;
    }
}
