//! The languages convention discovery knows, told apart by file extension, and the lockfiles
//! and toolchain files that pin each one's tools.

use serde::Serialize;

/// A source language whose files are analysed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Language {
    /// `.rs`.
    Rust,
    /// `.ts`, `.tsx`, `.mts`, `.cts`.
    TypeScript,
    /// `.js`, `.jsx`, `.mjs`, `.cjs`.
    JavaScript,
    /// `.py`, `.pyi`.
    Python,
    /// `.go`.
    Go,
}

impl Language {
    /// The language of a file name by its extension; `None` for any other file (and for
    /// minified bundles, `*.min.js`, and TypeScript declaration files, `*.d.ts`, which are
    /// generated).
    #[must_use]
    pub(super) fn of_file_name(name: &str) -> Option<Self> {
        if name.ends_with(".min.js") || name.ends_with(".d.ts") {
            return None;
        }
        let (_, extension) = name.rsplit_once('.')?;
        match extension {
            "rs" => Some(Self::Rust),
            "ts" | "tsx" | "mts" | "cts" => Some(Self::TypeScript),
            "js" | "jsx" | "mjs" | "cjs" => Some(Self::JavaScript),
            "py" | "pyi" => Some(Self::Python),
            "go" => Some(Self::Go),
            _ => None,
        }
    }

    /// The name people use, for rule texts ("Rust", "TypeScript").
    #[must_use]
    pub(crate) fn display_name(self) -> &'static str {
        match self {
            Self::Rust => "Rust",
            Self::TypeScript => "TypeScript",
            Self::JavaScript => "JavaScript",
            Self::Python => "Python",
            Self::Go => "Go",
        }
    }

    /// Whether its statements may end with `;` by choice (JavaScript and TypeScript).
    #[must_use]
    pub(super) fn has_optional_semicolons(self) -> bool {
        matches!(self, Self::TypeScript | Self::JavaScript)
    }

    /// Whether `'…'` and `"…"` are both plain strings (so the choice is a convention).
    #[must_use]
    pub(super) fn has_quote_choice(self) -> bool {
        matches!(self, Self::TypeScript | Self::JavaScript | Self::Python)
    }
}

/// The lockfiles and toolchain files reported when present: (file name, language, what it
/// tells, as the end of a rule sentence). Names come from each tool's documentation.
pub(super) const TOOLCHAIN_FILES: &[(&str, Language, &str)] = &[
    (
        "Cargo.lock",
        Language::Rust,
        "keep Cargo.lock committed and updated with cargo",
    ),
    (
        "rust-toolchain.toml",
        Language::Rust,
        "build with the toolchain pinned in rust-toolchain.toml",
    ),
    (
        "rust-toolchain",
        Language::Rust,
        "build with the toolchain pinned in rust-toolchain",
    ),
    (
        "package-lock.json",
        Language::JavaScript,
        "install packages with npm (package-lock.json is committed); do not add another lockfile",
    ),
    (
        "pnpm-lock.yaml",
        Language::JavaScript,
        "install packages with pnpm (pnpm-lock.yaml is committed); do not add another lockfile",
    ),
    (
        "yarn.lock",
        Language::JavaScript,
        "install packages with yarn (yarn.lock is committed); do not add another lockfile",
    ),
    (
        "bun.lockb",
        Language::JavaScript,
        "install packages with bun (bun.lockb is committed); do not add another lockfile",
    ),
    (
        "bun.lock",
        Language::JavaScript,
        "install packages with bun (bun.lock is committed); do not add another lockfile",
    ),
    (
        ".nvmrc",
        Language::JavaScript,
        "use the Node.js version pinned in .nvmrc",
    ),
    (
        ".node-version",
        Language::JavaScript,
        "use the Node.js version pinned in .node-version",
    ),
    (
        "go.mod",
        Language::Go,
        "manage Go dependencies with go.mod (go mod tidy)",
    ),
    (
        "pyproject.toml",
        Language::Python,
        "declare Python dependencies and tool settings in pyproject.toml",
    ),
    (
        "uv.lock",
        Language::Python,
        "manage Python dependencies with uv (uv.lock is committed)",
    ),
    (
        "poetry.lock",
        Language::Python,
        "manage Python dependencies with poetry (poetry.lock is committed)",
    ),
    (
        ".python-version",
        Language::Python,
        "use the Python version pinned in .python-version",
    ),
];
