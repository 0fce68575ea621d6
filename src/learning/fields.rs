//! Checks of the fields an agent gives a learned rule: title, triggers, scope, evidence and
//! refs. Each check returns the cleaned value or one sentence saying what is wrong, so a batch
//! can report it per entry.

/// Fewest and most words of a proposed title.
pub(crate) const TITLE_WORDS: std::ops::RangeInclusive<usize> = 3..=6;

/// Longest title, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 60;

/// Most triggers of one rule.
pub(crate) const MAX_TRIGGERS: usize = 12;

/// Longest trigger, in characters.
pub(crate) const MAX_TRIGGER_CHARS: usize = 40;

/// Longest evidence, in characters (one line).
pub(crate) const MAX_EVIDENCE_CHARS: usize = 300;

/// Most refs of one rule, and the longest ref in characters.
pub(crate) const MAX_REFS: usize = 20;
const MAX_REF_CHARS: usize = 300;

/// A title of 3–6 words and at most 60 characters on one line, trimmed.
///
/// Errors: what is wrong with it.
pub(crate) fn title(text: &str) -> Result<String, String> {
    let text = text.trim();
    let words = text.split_whitespace().count();
    if !TITLE_WORDS.contains(&words) {
        return Err(format!(
            "title has {words} word(s); give it {} to {}",
            TITLE_WORDS.start(),
            TITLE_WORDS.end()
        ));
    }
    let length = text.chars().count();
    if length > MAX_TITLE_CHARS {
        return Err(format!(
            "title is {length} characters long; keep it to {MAX_TITLE_CHARS}"
        ));
    }
    if text.chars().any(char::is_control) {
        return Err("title must be one line".to_owned());
    }
    Ok(text.to_owned())
}

/// At most 12 triggers of at most 40 characters each, trimmed, lower-cased and de-duplicated
/// in their first order; empty ones are dropped.
///
/// Errors: which limit a trigger or the list breaks.
pub(crate) fn triggers(list: &[String]) -> Result<Vec<String>, String> {
    let mut cleaned: Vec<String> = Vec::new();
    for trigger in list {
        let trigger = trigger.trim().to_lowercase();
        if trigger.is_empty() || cleaned.contains(&trigger) {
            continue;
        }
        let length = trigger.chars().count();
        if length > MAX_TRIGGER_CHARS {
            return Err(format!(
                "trigger `{trigger}` is {length} characters long; keep each to {MAX_TRIGGER_CHARS}"
            ));
        }
        if trigger
            .chars()
            .any(|character| character.is_control() || character == ',')
        {
            return Err(format!(
                "trigger `{}` holds a comma or a control character; give one word or phrase per trigger",
                trigger.escape_debug()
            ));
        }
        cleaned.push(trigger);
    }
    if cleaned.len() > MAX_TRIGGERS {
        return Err(format!(
            "{} triggers; give at most {MAX_TRIGGERS}",
            cleaned.len()
        ));
    }
    Ok(cleaned)
}

/// A scope written `global`, `section:<folder>` or `glob:<patterns>` whose globs pass the
/// pattern limits; returns it trimmed.
///
/// Errors: the unknown spelling or the limit a pattern breaks.
pub(crate) fn scope(text: &str) -> Result<String, String> {
    let text = text.trim();
    let globs = crate::scope::scope_globs(text).ok_or_else(|| {
        format!("unknown scope `{text}`; use global, section:<folder> or glob:<patterns>")
    })?;
    crate::scope::check_globs("scope", &globs)?;
    Ok(text.to_owned())
}

/// Evidence of one line and at most 300 characters, trimmed; `None` when empty.
///
/// Errors: it spans lines or is too long.
pub(crate) fn evidence(text: Option<&str>) -> Result<Option<String>, String> {
    let Some(text) = text.map(str::trim).filter(|text| !text.is_empty()) else {
        return Ok(None);
    };
    if text.chars().count() > MAX_EVIDENCE_CHARS || text.contains('\n') {
        return Err(format!(
            "`evidence` must be one line of at most {MAX_EVIDENCE_CHARS} characters"
        ));
    }
    Ok(Some(text.to_owned()))
}

/// At most 20 refs of one line and at most 300 characters each, trimmed, empty ones dropped.
///
/// Errors: which limit is broken.
pub(crate) fn refs(list: &[String]) -> Result<Vec<String>, String> {
    let cleaned: Vec<String> = list
        .iter()
        .map(|reference| reference.trim().to_owned())
        .filter(|reference| !reference.is_empty())
        .collect();
    if cleaned.len() > MAX_REFS {
        return Err(format!("{} refs; give at most {MAX_REFS}", cleaned.len()));
    }
    if let Some(bad) = cleaned.iter().find(|reference| {
        reference.chars().count() > MAX_REF_CHARS || reference.chars().any(char::is_control)
    }) {
        return Err(format!(
            "ref `{}` is not one line of at most {MAX_REF_CHARS} characters",
            bad.chars().take(40).collect::<String>().escape_debug()
        ));
    }
    Ok(cleaned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_triggers_are_checked_and_cleaned() {
        assert_eq!(
            title(" Paginate list endpoints "),
            Ok("Paginate list endpoints".to_owned())
        );
        assert_eq!(
            title("Tabs"),
            Err("title has 1 word(s); give it 3 to 6".to_owned())
        );
        let raw = [
            "SQL".to_owned(),
            "sql".to_owned(),
            " Query ".to_owned(),
            String::new(),
        ];
        assert_eq!(
            triggers(&raw),
            Ok(vec!["sql".to_owned(), "query".to_owned()])
        );
        let many: Vec<String> = (0..13).map(|number| format!("t{number}")).collect();
        assert_eq!(
            triggers(&many),
            Err("13 triggers; give at most 12".to_owned())
        );
    }
}
