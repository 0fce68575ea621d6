//! ai-rulez keeps a team's AI-assistant knowledge (rules, context, skills, agents, commands) as
//! Markdown with YAML frontmatter under `.ai-rulez/`, and renders each coding assistant's native
//! files from it with content hashes, without ever overwriting a file it did not write.
//!
//! Data flow: [`project::load`] → [`project::view`] → [`presets::render::render`] → [`plan::Plan`]
//! → [`write::apply`].

#![warn(missing_docs)]

pub mod authoring;
pub mod cli;
pub mod commands;
pub mod config;
pub mod confined_fs;
pub mod content;
pub mod error;
pub mod frontmatter;
pub mod generate;
pub mod git;
pub mod gitignore;
pub mod hash;
pub mod init;
pub mod limits;
pub mod lint;
pub mod lock;
pub mod manifest;
pub(crate) mod markdown;
pub mod mcp;
pub mod mcp_config;
pub mod plan;
pub mod presets;
pub mod project;
pub mod retrieval;
pub mod scope;
pub mod search;
pub(crate) mod settings;
pub(crate) mod summary;
pub mod write;

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
        Command::Lock(args) => commands::lock::run(&global, args),
        Command::Hook(cli::HookCommand::Install) => commands::hook::install(&global),
        Command::Mcp(args) => commands::mcp::run(&global, args),
        Command::Explain(args) => commands::explain::run(&global, args),
        Command::Validate(args) => commands::validate::run(&global, args),
        Command::Scan(args) => commands::scan::run(&global, args),
    };
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
        Command::Validate(args) | Command::Scan(args) => {
            matches!(args.format, LintFormat::Json | LintFormat::Sarif)
        }
        Command::Init(_) | Command::Hook(_) | Command::Mcp(_) => false,
    }
}
