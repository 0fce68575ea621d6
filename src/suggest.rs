//! "Did you mean" hints: the known name closest to a misspelled one, so a typo in a frontmatter
//! key, a config key, a preset name or a folder name is named together with its fix.

/// The entry of `known` closest to `typed`, when it is close enough to be a likely typo.
///
/// Inputs: the name as written and the names that would have been understood, in any order.
/// Output: the best candidate, or `None` when none is close. Two names match when they are equal
/// after lower-casing and dropping `_` and `-` (`always_apply` for `alwaysApply`), or when their
/// optimal-string-alignment distance (the Damerau–Levenshtein variant of the `strsim` crate: one
/// edit per inserted, deleted, replaced or swapped letter) is at most a third of the longer
/// name, and at least 1. Ties go to the earlier entry of `known`, so hints are deterministic.
#[must_use]
pub(crate) fn closest<'known>(
    typed: &str,
    known: impl IntoIterator<Item = &'known str>,
) -> Option<&'known str> {
    let folded = fold(typed);
    let mut best: Option<(usize, &str)> = None;
    for candidate in known {
        if candidate == typed {
            continue;
        }
        let distance = if fold(candidate) == folded {
            0
        } else {
            strsim::osa_distance(typed, candidate)
        };
        let allowed = (typed.chars().count().max(candidate.chars().count()) / 3).max(1);
        if distance <= allowed && best.is_none_or(|(shortest, _)| distance < shortest) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// `"; did you mean `x`?"` for the closest entry of `known`, or an empty string; appended to
/// messages that name an unknown key or name.
#[must_use]
pub(crate) fn did_you_mean<'known>(
    typed: &str,
    known: impl IntoIterator<Item = &'known str>,
) -> String {
    closest(typed, known)
        .map(|candidate| format!("; did you mean `{candidate}`?"))
        .unwrap_or_default()
}

/// Lower case without `_` and `-`, so spellings of one name in different cases compare equal.
fn fold(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '-'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapped_letters_and_other_spellings_are_found() {
        assert_eq!(closest("pahts", ["globs", "paths"]), Some("paths"));
        assert_eq!(
            closest("always_apply", ["alwaysApply"]),
            Some("alwaysApply")
        );
        assert_eq!(closest("rule", ["rules", "context"]), Some("rules"));
        assert_eq!(closest("claud", ["claude", "cursor"]), Some("claude"));
    }

    #[test]
    fn unrelated_names_get_no_hint() {
        assert_eq!(closest("banana", ["paths", "globs"]), None);
        assert_eq!(did_you_mean("x", ["paths"]), "");
        assert_eq!(closest("ab", ["xy"]), None);
    }
}
