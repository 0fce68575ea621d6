//! The frontmatter keys each kind of item may carry, in one place: the keys ai-rulez reads
//! ([`super::AI_RULEZ_ONLY_KEYS`]), metadata any item may carry, and each kind's
//! assistant-native keys. `generate` warns about, and `validate` reports (AR303), every other
//! key, with the closest known key as a hint; a key added to one of these lists is known to both.

use super::{AI_RULEZ_ONLY_KEYS, Item, Kind, key_line};

/// Keys any item may carry: the ones ai-rulez reads and common metadata.
const COMMON_KEYS: [&str; 13] = [
    "name",
    "description",
    "title",
    "tags",
    "version",
    "author",
    "license",
    "metadata",
    "category",
    "id",
    "owner",
    "domain",
    "superseded_by",
];
/// Extra keys of rules and context (assistant-native spellings are accepted as input).
const RULE_KEYS: [&str; 6] = [
    "applyTo",
    "fileMatchPattern",
    "inclusion",
    "excludeAgent",
    "when",
    "type",
];
/// Extra keys of skills (Agent Skills specification and Claude Code).
const SKILL_KEYS: [&str; 12] = [
    "allowed-tools",
    "compatibility",
    "disable-model-invocation",
    "user-invocable",
    "argument-hint",
    "model",
    "context",
    "agent",
    "hooks",
    "when_to_use",
    "effort",
    "paths",
];
/// Extra keys of subagents (Claude Code, `OpenCode`, Copilot, Codex custom agents).
const AGENT_KEYS: [&str; 25] = [
    "tools",
    "model",
    "color",
    "permissionMode",
    "skills",
    "hooks",
    "disallowedTools",
    "mcpServers",
    "memory",
    "mode",
    "temperature",
    "permission",
    "maxTurns",
    "effort",
    "isolation",
    "background",
    "extends",
    "initialPrompt",
    "omitClaudeMd",
    "hidden",
    "top_p",
    "permission_mode",
    "model_reasoning_effort",
    "sandbox_mode",
    "nickname_candidates",
];
/// Extra keys of slash commands.
const COMMAND_KEYS: [&str; 7] = [
    "argument-hint",
    "allowed-tools",
    "model",
    "disable-model-invocation",
    "agent",
    "subtask",
    "user-invocable",
];

/// The keys an item of `kind` may carry without a warning: the kind's own keys, then the keys
/// of every item, then the keys only ai-rulez reads. Agents may also carry `<preset>_model`
/// keys, which [`is_known`] accepts by shape.
pub(crate) fn known_keys(kind: Kind) -> impl Iterator<Item = &'static str> {
    let own: &'static [&'static str] = match kind {
        Kind::Rule | Kind::Context => &RULE_KEYS,
        Kind::Skill => &SKILL_KEYS,
        Kind::Agent => &AGENT_KEYS,
        Kind::Command => &COMMAND_KEYS,
    };
    own.iter()
        .chain(COMMON_KEYS.iter())
        .chain(AI_RULEZ_ONLY_KEYS.iter())
        .copied()
}

/// Whether `key` is a frontmatter key an item of `kind` may carry.
#[must_use]
pub(crate) fn is_known(kind: Kind, key: &str) -> bool {
    (kind == Kind::Agent && key.ends_with("_model")) || known_keys(kind).any(|known| known == key)
}

/// One frontmatter key of an item that no list above knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownKey {
    /// The key as written.
    pub key: String,
    /// 1-based line of the key in the item's file, when found.
    pub line: Option<usize>,
    /// What is wrong and the closest known key, e.g. "unknown rule frontmatter key `pahts`;
    /// assistants ignore it; did you mean `paths`?".
    pub message: String,
}

/// The unknown frontmatter keys of `item`, in file order, each with its line and a "did you
/// mean" hint (see [`crate::suggest::closest`]).
#[must_use]
pub(crate) fn unknown_keys(item: &Item) -> Vec<UnknownKey> {
    let yaml = item.yaml.as_deref().unwrap_or_default();
    item.frontmatter
        .keys()
        .filter(|key| !is_known(item.kind, key))
        .map(|key| {
            let hint = crate::suggest::did_you_mean(key, known_keys(item.kind));
            UnknownKey {
                key: key.clone(),
                line: key_line(yaml, key),
                message: format!(
                    "unknown {} frontmatter key `{key}`; assistants ignore it{hint}",
                    item.kind.noun()
                ),
            }
        })
        .collect()
}

/// One warning per unknown frontmatter key of `items`, as `path:line: message` (`path: message`
/// when the line is not found), in path order, then file order; `generate` says them so a typo
/// such as `pahts` never silently makes a rule always-on.
#[must_use]
pub(crate) fn unknown_key_warnings(items: &[Item]) -> Vec<String> {
    let mut sorted: Vec<&Item> = items.iter().collect();
    sorted.sort_by(|left, right| left.source_path.cmp(&right.source_path));
    sorted
        .into_iter()
        .flat_map(|item| {
            unknown_keys(item)
                .into_iter()
                .map(move |unknown| match unknown.line {
                    Some(line) => format!("{}:{line}: {}", item.source_path, unknown.message),
                    None => format!("{}: {}", item.source_path, unknown.message),
                })
        })
        .collect()
}
