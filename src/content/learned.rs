//! The review state and provenance of an item, as the learning loop writes them in frontmatter:
//! `status` (active, pending, rejected), `source` (how a rule came to be) and the `created` day.

/// Review state of an item (`status` in frontmatter; absent means active).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Status {
    /// Generated and served.
    Active,
    /// Waiting for a person's review; never generated nor served.
    Pending,
    /// Turned down by a person; kept so the same rule is not proposed again.
    Rejected,
}

impl Status {
    /// Every status with its frontmatter spelling, in review order.
    pub const ALL: [(Status, &'static str); 3] = [
        (Status::Active, "active"),
        (Status::Pending, "pending"),
        (Status::Rejected, "rejected"),
    ];

    /// The frontmatter spelling.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(status, _)| *status == self)
            .map_or("active", |(_, name)| name)
    }

    /// The status spelled `text`, if any.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, name)| *name == text)
            .map(|(status, _)| *status)
    }
}

/// How a rule came to be (`source` in frontmatter).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Source {
    /// A user's correction, saved with `record_feedback`.
    Feedback,
    /// A pull-request review comment.
    Review,
    /// A convention found in the code.
    Discovered,
    /// Proposed by an agent with `propose_rules`.
    Proposed,
    /// Written by a person.
    Manual,
}

impl Source {
    /// Every source with its frontmatter spelling.
    pub const ALL: [(Source, &'static str); 5] = [
        (Source::Feedback, "feedback"),
        (Source::Review, "review"),
        (Source::Discovered, "discovered"),
        (Source::Proposed, "proposed"),
        (Source::Manual, "manual"),
    ];

    /// The frontmatter spelling.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(source, _)| *source == self)
            .map_or("manual", |(_, name)| name)
    }

    /// The source spelled `text`, if any.
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .find(|(_, name)| *name == text)
            .map(|(source, _)| *source)
    }
}

/// Whether `text` is a calendar date written `YYYY-MM-DD` (months 01–12, days valid for the
/// month, leap years counted).
#[must_use]
pub(crate) fn is_iso_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let shape = bytes.len() == 10
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes
            .iter()
            .enumerate()
            .all(|(index, byte)| index == 4 || index == 7 || byte.is_ascii_digit());
    if !shape {
        return false;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().unwrap_or(0);
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}
