//! How a skill reaches an assistant: written into the preset skill trees (`static`), served over
//! MCP on demand (`served`), or both. One skill's delivery is resolved in one place,
//! [`of_skill`], so `generate` and `ai-rulez mcp` cannot disagree about it.
//!
//! Precedence, first found wins: the skill's `delivery` frontmatter key, then
//! `[domains.<name>] delivery` for a skill of that domain, then `[skills] delivery`, then
//! `static` (what every project did before the key existed).

use crate::config::Config;
use crate::content::{Item, Layer};

/// Where a skill is delivered.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Delivery {
    /// Written into every preset's skill tree (the default).
    Static,
    /// Left out of the skill trees of presets that can call MCP tools, and served by
    /// `find_skill`/`load_skill`.
    Served,
    /// Written into the skill trees and served as well.
    Both,
}

impl Delivery {
    /// The delivery called `text` (`static`, `served` or `both`, any case, surrounding blanks
    /// ignored); `None` for anything else.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "static" => Some(Self::Static),
            "served" => Some(Self::Served),
            "both" => Some(Self::Both),
            _ => None,
        }
    }

    /// Lower-case name as written in frontmatter and config.toml.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::Served => "served",
            Self::Both => "both",
        }
    }

    /// Whether `ai-rulez mcp` serves a skill of this delivery.
    #[must_use]
    pub fn is_served(self) -> bool {
        matches!(self, Self::Served | Self::Both)
    }
}

/// The message for a value that is not a delivery, naming the accepted ones.
#[must_use]
pub(crate) fn unknown_message(text: &str) -> String {
    format!("unknown delivery `{text}`; use static, served or both")
}

/// The delivery of `skill` under `config`: its frontmatter `delivery`, else its domain's
/// `[domains.<name>] delivery`, else `[skills] delivery`, else [`Delivery::Static`]. Items of
/// other kinds are always static.
#[must_use]
pub(crate) fn of_skill(skill: &Item, config: &Config) -> Delivery {
    if let Some(delivery) = skill.delivery {
        return delivery;
    }
    if let Layer::Domain(domain) = &skill.layer
        && let Some(delivery) = config.domain_delivery.get(domain)
    {
        return *delivery;
    }
    config.skills_delivery.unwrap_or(Delivery::Static)
}
