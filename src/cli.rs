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
    /// Bring another tool's setup (rulesync, ruler, an assistant's rule files, CLAUDE.md,
    /// AGENTS.md, the Go ai-rulez's ai-rulez.yaml) into .ai-rulez/; never overwrites a file.
    Import(ImportArgs),
    /// Pin sources and generated files in .ai-rulez/ai-rulez.lock, or check them against it.
    Lock(LockArgs),
    /// Manage the git pre-commit hook.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Check that .ai-rulez/ is correct and behaves as intended in each assistant.
    #[command(visible_alias = "val")]
    Validate(LintArgs),
    /// Check .ai-rulez/ for secrets, hidden text, prompt injection and risky commands.
    Scan(LintArgs),
    /// Serve the rules to coding agents over MCP (stdio).
    Mcp(McpArgs),
    /// Show everything that applies to a file or folder, and why.
    Explain(ExplainArgs),
    /// Print a shell completion script (e.g. `ai-rulez completions bash > ~/.local/share/bash-completion/completions/ai-rulez`).
    Completions(CompletionsArgs),
    /// Review learned rules: list pending ones, show, approve, reject, unpin.
    Review(ReviewArgs),
    /// Find candidate rules in what the project already says: review comments and the code's
    /// conventions (reports only; saving is `propose_rules`' job).
    #[command(subcommand)]
    Learn(LearnCommand),
    /// Team memory: list, show, add, edit, delete (restorable) and restore the memories kept
    /// for folders in .ai-rulez/memories/.
    Memory(MemoryArgs),
    /// List learnings (claims agents read from the code) as current or stale against the files.
    Learnings(LearningsArgs),
    /// Show what agents logged doing on this machine, newest first.
    Activity(ActivityArgs),
}

/// `memory` arguments.
#[derive(Debug, Args)]
pub struct MemoryArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: MemoryCommand,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text, global = true)]
    pub format: Format,
}

/// `memory` subcommands.
#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// List the memories of a path's folder and its enclosing folders (default: all).
    List {
        /// A file or folder of the project.
        path: Option<String>,
        /// Most memories to list.
        #[arg(long, default_value_t = 50)]
        limit: usize,
    },
    /// Show one memory with its version id.
    Show {
        /// Memory id (`src/api/retry-policy`, `_/release-steps`).
        id: String,
    },
    /// Save a new memory for a folder (`_`: the whole project).
    Add {
        /// The folder, relative to the project root, or `_`.
        node_path: String,
        /// A few words, one line.
        #[arg(long)]
        title: String,
        /// The text (or use --file).
        #[arg(long, conflicts_with = "file", required_unless_present = "file")]
        content: Option<String>,
        /// Read the text from this file (`-`: standard input).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
        /// Keep a second memory with the same title at this folder.
        #[arg(long)]
        allow_duplicate: bool,
    },
    /// Change a memory's text or move it to another folder.
    Edit {
        /// Memory id.
        id: String,
        /// The whole new text.
        #[arg(long, conflicts_with_all = ["file", "old"])]
        content: Option<String>,
        /// Read the whole new text from this file (`-`: standard input).
        #[arg(long, value_name = "FILE", conflicts_with = "old")]
        file: Option<PathBuf>,
        /// Replace this exact text (it must occur once) by --new.
        #[arg(long, requires = "new")]
        old: Option<String>,
        /// The replacement of --old.
        #[arg(long, requires = "old")]
        new: Option<String>,
        /// Move the memory to this folder (`_`: the whole project).
        #[arg(long, value_name = "NODE")]
        move_to: Option<String>,
        /// Refuse unless the memory is still this version (from `memory show`).
        #[arg(long, value_name = "VERSION")]
        expected_version: Option<String>,
    },
    /// Delete a memory: into the trash (restorable), or for good with --hard.
    Rm {
        /// Memory id.
        id: String,
        /// Delete the file for good (the live memory, else its copy in the trash).
        #[arg(long)]
        hard: bool,
        /// Refuse unless the memory is still this version (from `memory show`).
        #[arg(long, value_name = "VERSION", conflicts_with = "hard")]
        expected_version: Option<String>,
    },
    /// Bring a deleted memory back from the trash.
    Restore {
        /// Memory id.
        id: String,
    },
}

/// `learnings` arguments.
#[derive(Debug, Args)]
pub struct LearningsArgs {
    /// Only learnings read from files at or below this file or folder.
    pub path: Option<PathBuf>,
    /// List only stale learnings (a source file changed or vanished).
    #[arg(long)]
    pub stale: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `activity` arguments.
#[derive(Debug, Args)]
pub struct ActivityArgs {
    /// Only entries touching this file or folder (or below it).
    pub path: Option<PathBuf>,
    /// Most entries to show (1-200).
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `learn` subcommands: each prints candidates and saves nothing.
#[derive(Debug, Subcommand)]
pub enum LearnCommand {
    /// Candidate rules from pull-request review comments (through `gh`, or a JSON file).
    Reviews(LearnReviewsArgs),
    /// Report conventions the code follows almost everywhere, with counts and a rule for each.
    Conventions(ConventionsArgs),
}

/// `learn reviews` arguments.
#[derive(Debug, Args)]
pub struct LearnReviewsArgs {
    /// Read the comments from this JSON file (as `gh api repos/OWNER/REPO/pulls/comments` prints
    /// it) instead of running `gh`.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Leave out comments older than this many days.
    #[arg(long, default_value_t = 90)]
    pub since_days: u32,
    /// Least number of similar comments for a candidate.
    #[arg(long, default_value_t = 1)]
    pub min_repeats: u32,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `learn conventions` arguments.
#[derive(Debug, Args)]
pub struct ConventionsArgs {
    /// Folders or files to scan, inside the project (default: the whole project).
    pub paths: Vec<PathBuf>,
    /// Share of observations one option must hold to be reported (above 0.5, at most 1).
    #[arg(long, value_name = "R", default_value_t = 0.9)]
    pub min_ratio: f64,
    /// Number of files that must show an aspect.
    #[arg(long, value_name = "N", default_value_t = 5)]
    pub min_files: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `completions` arguments.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `review` arguments: without a subcommand, lists what waits for review.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// What to do (default: list pending rules, suspected pairs and unused rules).
    #[command(subcommand)]
    pub action: Option<ReviewCommand>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text, global = true)]
    pub format: Format,
}

/// `review` subcommands.
#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// Show one rule in full with its evidence.
    Show {
        /// Rule id.
        id: String,
    },
    /// Make pending rules active (a revision replaces the rule it revises).
    Approve {
        /// Rule ids.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Mark rules rejected: kept, but never generated nor served.
    Reject {
        /// Rule ids.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Why, kept in the rule's `reason`.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Stop sending a rule on every call (`always: true` removed).
    Unpin {
        /// Rule id.
        id: String,
    },
}

/// `mcp` arguments.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Directory the tools may work in, and every served project must lie in (default: the
    /// directory the server starts in, serving the project around it).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Toolsets to serve: read, skills, author, admin, learn, memory (default: `[mcp] toolsets` in config.toml, else
    /// read).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub toolsets: Vec<String>,
    /// Serve only tools that read; writing tools are neither listed nor run.
    #[arg(long)]
    pub read_only: bool,
}

/// `explain` arguments.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A file or folder of the project.
    pub path: String,
    /// Optional sentence about the task, to order entries by relevance.
    #[arg(long)]
    pub task: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `validate` and `scan` arguments.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Output format.
    #[arg(long, value_enum, default_value_t = LintFormat::Text)]
    pub format: LintFormat,
    /// Exit 2 when a finding at or above this severity remains.
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Print the documentation of one finding code (e.g. AR001) and exit.
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
}

/// Output formats of `validate` and `scan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// `file:line: CODE message` lines.
    Text,
    /// One JSON document with findings and a summary.
    Json,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions workflow annotations.
    Github,
}

/// Severity threshold for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Fail on errors.
    Error,
    /// Fail on warnings or errors.
    Warning,
    /// Fail on any finding.
    Info,
    /// Never fail on findings.
    None,
}

/// `lock` arguments.
#[derive(Debug, Args)]
pub struct LockArgs {
    /// Write nothing; compare the lock with the sources and generated files; exit 2 on any difference.
    #[arg(long, conflicts_with = "diff")]
    pub check: bool,
    /// Write nothing; print every difference (with a content diff where it can be known) and exit 0.
    #[arg(long)]
    pub diff: bool,
    /// Compare with the git index (what is being committed) instead of the working tree.
    #[arg(long)]
    pub staged: bool,
    /// Fetch every git include and move its pin to the commit its `ref` names now (then run `generate` and `lock`).
    #[arg(long, conflicts_with_all = ["check", "diff", "staged"])]
    pub update_includes: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `hook` subcommands.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write a pre-commit hook that runs `ai-rulez lock --check --staged`.
    Install,
    /// Remove the pre-commit hook `hook install` wrote (a hook ai-rulez did not write is refused).
    Uninstall,
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
    /// Refuse to run when the sources differ from .ai-rulez/ai-rulez.lock; git includes come only from their pinned commits in the cache, never the network (`--frozen` is the same).
    #[arg(long, visible_alias = "frozen")]
    pub locked: bool,
    /// Print a unified diff of every file that differs or would change (coloured on a terminal).
    #[arg(long)]
    pub diff: bool,
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

/// `import` arguments.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The setup to read.
    #[arg(long, value_enum)]
    pub from: ImportFrom,
    /// List the files import would create; write nothing.
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Setups `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFrom {
    /// rulesync: .rulesync/ (rules, commands, subagents, skills, mcp.json).
    Rulesync,
    /// ruler: .ruler/*.md and .ruler/ruler.toml.
    Ruler,
    /// Claude Code: CLAUDE.md, .claude/rules, skills, agents, commands, .mcp.json.
    Claude,
    /// Cursor: .cursor/rules/*.mdc, .cursor/commands, .cursor/mcp.json, .cursorrules.
    Cursor,
    /// GitHub Copilot: .github/copilot-instructions.md, .github/instructions, prompts, agents.
    Copilot,
    /// Windsurf: .windsurf/rules, .windsurfrules.
    Windsurf,
    /// Cline: .clinerules/ and its workflows.
    Cline,
    /// AGENTS.md, one rule per section.
    AgentsMd,
    /// The Go ai-rulez's ai-rulez.yaml (v2/v3).
    AiRulezV2,
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
    /// Create a project inside an existing one on purpose (refused otherwise).
    #[arg(long)]
    pub nested: bool,
}
