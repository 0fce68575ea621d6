//! Command-line types only: what the user typed, before validation (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Keep AI-assistant rules, context, skills, agents and commands in `.ai-rulez/` and generate
/// every assistant's native files from them.
#[derive(Debug, Parser)]
#[command(name = "ai-rulez", version, about, long_about = None)]
pub struct Cli {
    /// Run as if started in DIR (the project is found by walking up from it).
    #[arg(short = 'C', long = "directory", global = true, value_name = "DIR")]
    pub directory: Option<PathBuf>,

    /// Print no warnings (errors and results still print).
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write every enabled assistant's files from .ai-rulez/.
    #[command(visible_alias = "gen")]
    Generate(GenerateArgs),
    /// Remove the files generate wrote (edited ones are kept with a warning).
    Clean(CleanArgs),
    /// Create .ai-rulez/ with a working config and one example of each item kind.
    Init(InitArgs),
    /// Pin sources and generated files in .ai-rulez/ai-rulez.lock, or check them against it.
    Lock(LockArgs),
    /// Manage the git pre-commit hook.
    #[command(subcommand)]
    Hook(HookCommand),
}

/// `lock` arguments.
#[derive(Debug, Args)]
pub struct LockArgs {
    /// Write nothing; compare the lock with the sources and generated files; exit 2 on any difference.
    #[arg(long, conflicts_with = "diff")]
    pub check: bool,
    /// Write nothing; print every difference and exit 0.
    #[arg(long)]
    pub diff: bool,
    /// Compare with the git index (what is being committed) instead of the working tree.
    #[arg(long)]
    pub staged: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `hook` subcommands.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write a pre-commit hook that runs `ai-rulez lock --check --staged`.
    Install,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Lines for people.
    Text,
    /// One JSON document on stdout.
    Json,
}

/// `generate` arguments.
#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// Write nothing; report drift (`missing:`, `stale:`, `edited:`, `blocked:`, `orphan:`) and exit 2 when any.
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,
    /// Write nothing; list what would be written, updated or deleted.
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Overwrite files ai-rulez cannot prove it wrote.
    #[arg(long)]
    pub force: bool,
    /// Refuse to run when the sources differ from .ai-rulez/ai-rulez.lock.
    #[arg(long)]
    pub locked: bool,
    /// Profiles to use (comma-separated); default: the config's `default`.
    #[arg(short, long, value_name = "A,B")]
    pub profile: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `clean` arguments.
#[derive(Debug, Args)]
pub struct CleanArgs {
    /// Write nothing; list what would be removed.
    #[arg(short = 'n', long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `init` arguments.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Project name (default: the directory name).
    #[arg(long)]
    pub name: Option<String>,
    /// Presets to enable (comma-separated).
    #[arg(long, value_name = "A,B", default_value = "claude,cursor,codex")]
    pub presets: String,
}
