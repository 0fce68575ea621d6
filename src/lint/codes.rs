//! The one table of finding codes: number, name, default severity, whether `scan` reports it,
//! and the documentation shown by `validate --explain CODE` and written to `docs/codes.md`.
//!
//! Numbers follow the Go ai-rulez where the meaning is the same (`AR0xx` security, `AR1xx`
//! scope, `AR2xx` links, `AR3xx` frontmatter, `AR4xx` paths, `AR6xx` MCP, `AR7xx` duplicates,
//! `AR8xx` names and shape, `AR9xx` size and assistant traps). Codes are never renumbered; a retired code stays
//! reserved.

#[cfg(test)]
use std::fmt::Write as _;

use super::Severity;

/// One entry of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[expect(
    clippy::struct_field_names,
    reason = "`code` is what the findings, the docs and `--explain` call the stable AR code"
)]
pub(crate) struct Code {
    /// Stable code, e.g. `AR001`.
    pub code: &'static str,
    /// Stable kebab-case name.
    pub name: &'static str,
    /// Default severity.
    pub severity: Severity,
    /// Whether the check belongs to `scan` (security) rather than `validate` (structure).
    pub security: bool,
    /// One-line summary.
    pub summary: &'static str,
    /// What the check looks for, why it matters, and how to fix or silence it.
    pub doc: &'static str,
}

const fn code(
    code: &'static str,
    name: &'static str,
    severity: Severity,
    security: bool,
    summary: &'static str,
    doc: &'static str,
) -> Code {
    Code {
        code,
        name,
        severity,
        security,
        summary,
        doc,
    }
}

use Severity::{Error, Info, Warning};

/// Every code, sorted by code.
pub(crate) const CODES: &[Code] = &[
    code(
        "AR001",
        "secret-detected",
        Error,
        true,
        "A credential is written in the text.",
        "Matches AWS access key ids (AKIA/ASIA), GitHub tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), Slack tokens (xoxb-, xoxp-, ...), private key PEM headers, OpenAI and Anthropic keys (sk-, sk-ant-), Google API keys (AIza...), Stripe live keys (sk_live_, rk_live_), JSON Web Tokens, and quoted assignments to `password`, `secret`, `api_key`, `client_secret`, `access_token` or `auth_token`. Values that look like placeholders (`example`, `your-...`, `xxxx`, `${VAR}`, `<...>`) are not reported. The report masks the value. Credentials written into an `[[includes]]` URL (`https://user:token@host/...`) are reported whatever their length. Rules are sent to every assistant and often committed, so `generate`, `lock` and `lock --check` refuse while an item holds one: remove the credential, rotate it, and reference an environment variable instead.",
    ),
    code(
        "AR002",
        "hidden-characters",
        Error,
        true,
        "The text holds characters a reader cannot see.",
        "Zero-width characters, bidirectional controls (U+202A-U+202E, U+2066-U+2069, LRM, RLM, ALM), Unicode tag characters (U+E0000-U+E007F), the soft hyphen, Hangul fillers, variation selectors after plain letters or in runs, and every other format (Cf) character can hide instructions from a human reviewer while the model still reads them. A leading byte-order mark, joiners inside emoji sequences and scripts that need them (ZWJ/ZWNJ between non-Latin letters), tag characters of flag emoji, and variation selectors after symbols are allowed. Delete the characters (the message names each with its column).",
    ),
    code(
        "AR003",
        "html-comment-instruction",
        Warning,
        true,
        "An HTML comment reads like an instruction to the assistant.",
        "HTML comments (and `[//]: # (...)` comment links) are invisible in rendered Markdown but sent to the model verbatim. A comment that addresses the assistant, asks to ignore or override instructions, to act silently, or to run or send something is reported. Tool markers (`ai-rulez`, `prettier-ignore`, `markdownlint-...`, `toc`) are not. Move real guidance into visible text.",
    ),
    code(
        "AR004",
        "prompt-injection-phrase",
        Warning,
        true,
        "A phrase typical of prompt injection.",
        "Phrases such as \"ignore all previous instructions\", \"disregard the rules above\", \"do not tell the user\", \"without telling the user\", \"reveal your system prompt\" or \"DAN mode\" try to take control of the assistant. Legitimate rules rarely need them; reword the rule or remove the text.",
    ),
    code(
        "AR005",
        "risky-shell-exec",
        Error,
        true,
        "A command runs code it downloads or decodes.",
        "A download piped into a shell (`curl ... | sh`, `wget -qO- ... | bash`, `iwr ... | iex`), process substitution of a download (`bash <(curl ...)`, `sh -c \"$(curl ...)\"`), base64-decoded text piped into a shell, and `eval` of downloaded or decoded text run whatever the remote side or the blob says. On a line that forbids it (\"never\", \"do not\", \"avoid\"), the finding is lowered to info. Pin and verify what you run instead: download, check a digest, then execute.",
    ),
    code(
        "AR006",
        "credential-read",
        Warning,
        true,
        "A command reads a credential location.",
        "Reading `~/.ssh/`, private key files, `~/.aws/credentials`, `.netrc`, `.git-credentials`, `~/.docker/config.json`, `~/.kube/config`, `~/.npmrc`, `~/.pypirc`, `~/.gnupg/`, gcloud and Azure folders, `/etc/shadow` or `.env` (with `cat`, `cp`, `head`, `grep`, `base64`, `open`, ...) exposes secrets to the assistant and its logs. Public keys (`*.pub`), `known_hosts` and copies from `.env.example` are not reported; sending a credential over the network is AR014. On a line that forbids it, the finding is lowered to info.",
    ),
    code(
        "AR009",
        "encoded-blob",
        Warning,
        true,
        "A long base64 run.",
        "A run of 200 or more base64 characters cannot be reviewed by reading and can carry hidden instructions or binaries. Keep binaries as skill assets and decode nothing at run time.",
    ),
    code(
        "AR012",
        "mcp-unpinned-package",
        Warning,
        true,
        "An MCP server runs a package without a pinned version.",
        "`npx pkg` without `@version` (or with `@latest`), `uvx pkg` without `==version` or `@version`, `pipx run pkg` without a version, and docker images without a tag or digest fetch whatever the registry serves today, so a compromised release runs on every machine. Pin the version.",
    ),
    code(
        "AR014",
        "exfil-command",
        Error,
        true,
        "A command sends secrets or credential files out.",
        "A network command (`curl`, `wget`, `nc`, `scp`, `rsync`, `ftp`, `Invoke-WebRequest`) on the same line as a credential file, a data upload of a secret environment variable (`-d \"$API_TOKEN\"`, `-F`, `--upload-file`), the whole environment (`env |`, `printenv`, `/proc/self/environ`), or a DNS lookup carrying a secret variable. Prose forbidding it does not lower this finding.",
    ),
    code(
        "AR018",
        "fake-directive-tag",
        Error,
        true,
        "Text imitates a system or role marker of a chat format.",
        "Tags such as `<system>`, `</system>`, `<system-reminder>`, `<|im_start|>`, `<|endoftext|>`, `[INST]` and `<<SYS>>` imitate the markers models use to separate system, user and assistant turns, and are used to smuggle authority into ordinary text. Remove them; describe chat formats in prose if a rule must mention them.",
    ),
    code(
        "AR022",
        "destructive-command",
        Error,
        true,
        "A command destroys data or the system.",
        "`rm -rf /`, `rm -rf ~`, `rm -rf /*`, `dd ... of=/dev/sd*`, `mkfs` on a disk, a force push to `main` or `master`, `DROP DATABASE` or `DROP SCHEMA`, and the shell fork bomb. On a line that forbids it (\"never\", \"do not\", \"avoid\"), the finding is lowered to info.",
    ),
    code(
        "AR024",
        "insecure-transport",
        Warning,
        true,
        "Something is fetched over plain `http://`.",
        "A download command, package index or MCP server URL using `http://` can be read and altered in transit. Local addresses (`localhost`, `127.0.0.1`, `0.0.0.0`, `[::1]`, `host.docker.internal`, `*.local`, `*.localhost`, `*.test`, private networks) and `example.com` are not reported. Use `https://`.",
    ),
    code(
        "AR034",
        "low-analyzability",
        Info,
        true,
        "A file could not be scanned.",
        "Skill files are scanned when they are UTF-8 text of at most 512 KiB; binaries (images, archives) and larger files are reported here so a reviewer knows they were not inspected.",
    ),
    code(
        "AR035",
        "symlink-in-tree",
        Error,
        true,
        "A file or folder of the tree is a symlink.",
        "ai-rulez reads, writes and deletes nothing through a symlink: a committed link could point anywhere on the machine that checks the repository out (a home folder, `/etc`). The item behind the link is neither loaded nor scanned. Replace the link with the real file or folder, or share rules through `[[includes]]`.",
    ),
    code(
        "AR101",
        "glob-no-match",
        Warning,
        false,
        "A rule glob matches no tracked file.",
        "Each `paths`/`globs` pattern of an item is matched against the files in the git index (what `git ls-files` lists). A pattern that matches nothing never activates the rule: fix the pattern, or remove it. Skipped outside a git repository.",
    ),
    code(
        "AR201",
        "link-unresolved",
        Warning,
        false,
        "A relative Markdown link points at a missing file.",
        "Relative links `[text](path)`, images `![alt](path)` and reference definitions `[label]: path` are resolved against the folder of the file that holds them, and, because rule bodies are rendered into files at the repository root, against the project root as well; the link is reported when neither exists. A definition is reported once, on its own line, however many `[text][label]` links use it. URLs, anchors, and links inside code (inline code, indented code blocks, and code blocks fenced with backticks or tildes) are not checked.",
    ),
    code(
        "AR210",
        "import-invalid",
        Warning,
        false,
        "An `@path` import points at a missing file.",
        "Claude Code and Gemini read `@path/to/file.md` as an import. An `@` word whose last segment has a file extension (so `@types/node` and decorators are left alone) is resolved against the folder of the file that holds it and against the project root; the import is reported when neither exists. `@~/...` home imports are not checked.",
    ),
    code(
        "AR303",
        "frontmatter-key-unknown",
        Warning,
        false,
        "A frontmatter key is unknown for this kind of item.",
        "Each kind (rule, context, skill, agent, command) has a list of keys that ai-rulez or an assistant reads; other keys are usually misspellings and are silently ignored by every assistant. Fix the spelling or remove the key.",
    ),
    code(
        "AR304",
        "frontmatter-value-invalid",
        Error,
        false,
        "A frontmatter value is invalid or contradicts another.",
        "An unknown `priority` or `activation`, `activation: glob` without `paths`, `auto` without a `description`, `always` together with `paths`, or a value of the wrong type. The item cannot be generated until it is fixed. Also an `[[includes]]` entry that cannot be read: a local folder that does not exist, or a git include that cannot be fetched, whose `ref` or `path` the repository lacks, whose tag moved away from the pinned commit, or whose pinned commit is not in the cache under `--locked`; the message names `includes[N]`, the URL (credentials masked) and what to run.",
    ),
    code(
        "AR306",
        "frontmatter-malformed",
        Error,
        false,
        "A file cannot be read as Markdown with YAML frontmatter.",
        "Invalid UTF-8, invalid YAML, duplicate keys, a frontmatter that is not a mapping, an opening `---` never closed, an oversized file, a symlink leaving the project, or a file this user may not read. The message names the line.",
    ),
    code(
        "AR310",
        "config-key-unknown",
        Warning,
        false,
        "The config has a key this tool does not know.",
        "The message gives the key's full path (`header.builtins`, `mcp_servers[0].cmd`). Unknown keys are ignored, which usually hides a typo or a key placed under the wrong `[table]` header.",
    ),
    code(
        "AR311",
        "config-invalid",
        Error,
        false,
        "The config cannot be read.",
        "A TOML or YAML syntax error, a missing `name`, a value of the wrong type, an unknown config version, or two items with one id in one layer. Nothing else can be checked until it is fixed.",
    ),
    code(
        "AR312",
        "preset-unknown",
        Warning,
        false,
        "`presets` names a preset this tool does not know.",
        "An unknown preset is skipped by `generate`, so the assistant it was meant for gets no files. The message lists the known presets.",
    ),
    code(
        "AR313",
        "profile-domain-unknown",
        Warning,
        false,
        "A profile names a domain that has no folder.",
        "`[profiles]` entries name folders under `domains/`; a name without a folder selects nothing, which usually means a typo or a removed domain.",
    ),
    code(
        "AR314",
        "config-key-ignored",
        Info,
        false,
        "A config key is known but not acted on by this version.",
        "Keys of the Go ai-rulez that this tool reads but does not use yet, and settings it cannot honour, are listed so nobody relies on them silently.",
    ),
    code(
        "AR315",
        "field-not-expressible",
        Warning,
        false,
        "An agent or command field has no equivalent in an enabled assistant's format.",
        "Agents and commands are usually written the Claude Code way (`tools: Read, Grep`, `model: sonnet`). `generate` translates `tools` and `model` into each assistant's own vocabulary (OpenCode's `{name: bool}` map and `provider/model`, VS Code tool sets, Cursor's `readonly`) and leaves out, with a warning, what that assistant cannot hold. The message names the assistant and the fields; use values it understands (an OpenCode `provider/model`, say) or accept that it does without them.",
    ),
    code(
        "AR402",
        "skill-resource-missing",
        Warning,
        false,
        "SKILL.md references a resource the skill does not ship.",
        "Paths under `references/`, `scripts/` or `assets/` mentioned in a SKILL.md must exist in the skill folder; the assistant fails when it tries to open them.",
    ),
    code(
        "AR602",
        "mcp-config-invalid",
        Error,
        false,
        "An MCP server entry cannot be used.",
        "An `[[mcp_servers]]` entry needs a `command` (stdio) or a `url` (http, sse), a known transport, and a name used once.",
    ),
    code(
        "AR603",
        "mcp-server-name",
        Warning,
        false,
        "An MCP server name some assistant will not use.",
        "Codex lists a server whose name holds a space, `:`, `+` or a non-ASCII letter (`my server`) but never starts it. `generate` leaves such a server out of `.codex/config.toml`; rename it to 1 to 64 ASCII letters, digits, `_`, `-`, `.`, `/` and `@`.",
    ),
    code(
        "AR701",
        "description-duplicate",
        Warning,
        false,
        "Two items of one kind share a description.",
        "Assistants choose skills, agents and auto-activated rules by description; two equal descriptions make the choice arbitrary. Describe what sets each apart.",
    ),
    code(
        "AR702",
        "description-near-duplicate",
        Info,
        false,
        "Two items of one kind have nearly the same description.",
        "Descriptions whose word sets overlap by 90% or more (Jaccard similarity) are hard for an assistant to tell apart.",
    ),
    code(
        "AR704",
        "id-duplicate",
        Error,
        false,
        "Two items of one kind share an id in one layer.",
        "Two files define the same rule, skill, agent or command id at the same precedence, so neither can win. Rename or remove one.",
    ),
    code(
        "AR804",
        "skill-name-invalid",
        Warning,
        false,
        "A skill name breaks the Agent Skills naming rules.",
        "A skill name (the `name` key, else the folder) must be 1 to 64 characters of lower-case letters, digits and single hyphens, neither starting nor ending with a hyphen, and equal to the folder name. Assistants refuse or rename skills that break this.",
    ),
    code(
        "AR805",
        "body-empty",
        Warning,
        false,
        "An item has no body text.",
        "An item whose body is empty or only whitespace gives the assistant nothing; write the content or delete the file.",
    ),
    code(
        "AR900",
        "content-too-large",
        Error,
        true,
        "Screened text is larger than its kind allows.",
        "The screening function refuses text over the size limit of its kind (256 KiB for items, 512 KiB for skill files, 16 KiB for an MCP server entry), so one write cannot flood the context of every assistant.",
    ),
    code(
        "AR964",
        "load-budget-exceeded",
        Warning,
        false,
        "A rendered file is over the size an assistant reads.",
        "Checked on the files `generate` would write, per enabled preset: Codex reads 32 KiB of AGENTS.md, Windsurf and Devin read 12,000 characters per rule file, Antigravity 24,000 bytes, and Claude Code lists at most 1,536 characters of a skill's description. The rest is silently dropped: split the content or shorten the description.",
    ),
    code(
        "AR9C1",
        "cursor-rule-not-mdc",
        Warning,
        false,
        "A `.md` file in `.cursor/rules/` is ignored by Cursor.",
        "Cursor reads only `.mdc` files in `.cursor/rules/`; rename the file or move it into `.ai-rulez/rules/`.",
    ),
    code(
        "AR9C4",
        "copilot-instructions-suffix",
        Warning,
        false,
        "A file in `.github/instructions/` is ignored by Copilot.",
        "GitHub Copilot reads only files ending in `.instructions.md` in `.github/instructions/`; rename the file.",
    ),
    code(
        "AR9C6",
        "kiro-frontmatter-not-first",
        Warning,
        false,
        "Kiro steering frontmatter does not start at byte 0.",
        "Kiro reads a steering file's `---` frontmatter only when it is the very first bytes of the file; a BOM, blank line or comment before it turns the frontmatter into body text and the inclusion mode is lost.",
    ),
];

/// The table entry for `code` (case-insensitive).
#[must_use]
pub(crate) fn lookup(code: &str) -> Option<&'static Code> {
    CODES
        .iter()
        .find(|entry| entry.code.eq_ignore_ascii_case(code))
}

/// The text `validate --explain CODE` prints.
#[must_use]
pub(crate) fn explain(entry: &Code) -> String {
    format!(
        "{} {} ({}, {})\n\n{}\n\n{}\n",
        entry.code,
        entry.name,
        entry.severity.name(),
        if entry.security { "scan" } else { "validate" },
        entry.summary,
        entry.doc
    )
}

/// The content of `docs/codes.md`, generated from [`CODES`] (a test keeps the file equal).
#[cfg(test)]
#[must_use]
pub(crate) fn markdown() -> String {
    let mut out = String::from(
        "# Finding codes\n\n\
         <!-- Generated from src/lint/codes.rs by `cargo test`; edit the table there. -->\n\n\
         `ai-rulez scan` reports the security codes, `ai-rulez validate` the others. Codes are \
         stable and never renumbered; where the Go ai-rulez has a code with the same meaning, \
         the number is the same. `ai-rulez validate --explain CODE` prints one entry.\n\n\
         Silence one finding with `<!-- ai-rulez-ignore CODE -->` on its line or the line above \
         (files from `[[includes]]` cannot silence themselves, and text screened for MCP writes \
         never can), or a code everywhere with `[lint] ignore = [\"CODE\"]` in the config.\n\n\
         | code | name | severity | command | summary |\n|---|---|---|---|---|\n",
    );
    for entry in CODES {
        writeln!(
            out,
            "| [{code}](#{anchor}) | {name} | {severity} | {command} | {summary} |",
            code = entry.code,
            anchor = entry.code.to_ascii_lowercase(),
            name = entry.name,
            severity = entry.severity.name(),
            command = if entry.security { "scan" } else { "validate" },
            summary = entry.summary,
        )
        .ok();
    }
    for entry in CODES {
        write!(
            out,
            "\n## {}\n\n`{}` · {} · {}\n\n{}\n",
            entry.code,
            entry.name,
            entry.severity.name(),
            if entry.security { "scan" } else { "validate" },
            entry.doc
        )
        .ok();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_sorted_unique_and_well_formed() {
        for pair in CODES.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} !< {}",
                pair[0].code,
                pair[1].code
            );
        }
        for entry in CODES {
            assert_eq!(entry.code.len(), 5, "{}", entry.code);
            assert!(entry.code.starts_with("AR"));
            assert!(
                entry
                    .name
                    .chars()
                    .all(|character| character.is_ascii_lowercase()
                        || character == '-'
                        || character.is_ascii_digit()),
                "{}",
                entry.name
            );
        }
        assert_eq!(
            lookup("ar001").map(|entry| entry.name),
            Some("secret-detected")
        );
        assert_eq!(lookup("AR999"), None);
    }

    #[test]
    fn docs_codes_md_is_generated_from_the_table() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/codes.md");
        let expected = markdown();
        let actual = fs_err::read_to_string(&path).unwrap_or_default();
        if actual != expected && std::env::var_os("AI_RULEZ_UPDATE_DOCS").is_some() {
            fs_err::write(&path, &expected).expect("write docs/codes.md");
            return;
        }
        assert!(
            actual == expected,
            "docs/codes.md differs from src/lint/codes.rs; run `AI_RULEZ_UPDATE_DOCS=1 cargo test docs_codes_md` and commit it"
        );
    }
}
