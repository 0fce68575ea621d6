//! Every size and count limit this tool puts on what users and clients send it, in one place, so
//! that an error can name the limit it enforces and a reader can see at once what is accepted.
//! Each limit is far above what real trees use and low enough that no input within it can
//! exhaust memory, the stack, or a library's own internal limit (which would abort the process).

/// Longest glob or word in `paths`, `globs`, `targets`, `triggers` or `scope: glob:`, in bytes
/// after trimming. Real patterns are a few dozen bytes.
pub(crate) const MAX_PATTERN_BYTES: usize = 1024;

/// Most patterns one key of one item may list (after comma-separated strings are split, before
/// `{a,b}` alternatives are expanded).
pub(crate) const MAX_PATTERNS_PER_KEY: usize = 100;

/// Most patterns the `{a,b}` alternatives of one pattern may expand to (assistants without
/// brace support get the expanded list).
pub const MAX_BRACE_EXPANSIONS: usize = 256;

/// Deepest nesting of `{...}` groups and `[...]` classes in one pattern.
pub(crate) const MAX_PATTERN_NESTING: usize = 8;

/// The compiled-size limit of the glob library (`globset`) for one matcher, in bytes. It is the
/// library's own fixed limit, named here so messages can state it; the limits above keep every
/// accepted list well below it, so exceeding it is reported, never reached in practice.
pub(crate) const MAX_COMPILED_GLOB_BYTES: usize = 10 * 1024 * 1024;

/// Longest JSON-RPC line the MCP server reads, in bytes, newline excluded: one byte under
/// 16 MiB, since rmcp's own line reader, which the accepted lines are passed on to, drops a line
/// of 16 MiB without a reply (the client would wait forever).
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024 - 1;

/// How many of the first bytes of a line over [`MAX_LINE_BYTES`] the MCP server keeps (64 KiB),
/// so the refusal can carry the request's `id` when it comes before the huge part.
pub(crate) const MAX_DISCARDED_LINE_HEAD_BYTES: usize = 64 * 1024;

/// Most messages one JSON-RPC batch line may hold (protocol version 2025-03-26).
pub(crate) const MAX_BATCH_MESSAGES: usize = 1000;

/// Deepest folder nesting ai-rulez walks (below a kind, skill, domain or output folder). Real
/// trees nest a few levels; the bound keeps a hostile tree from exhausting the stack.
pub(crate) const MAX_FOLDER_DEPTH: usize = 32;

/// Most bytes one load reads from a project's files in all (512 MiB). Each file is capped on its
/// own too; this bound keeps many large (or sparse) files from exhausting memory together.
pub(crate) const MAX_TREE_BYTES: u64 = 512 * 1024 * 1024;
