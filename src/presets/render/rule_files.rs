//! The files a preset writes into its rules folder, one per rule or context item: decided in
//! item order by the renderer, rendered here on several threads for a large project (each file
//! depends only on its item), and added to the plan in item order so output, warnings and the
//! first error stay deterministic.

use super::{Renderer, template_error, trim_blank_edges};
use crate::content::{Activation, Item};
use crate::error::Result;
use crate::plan::{Content, Markdown, Output, Plan};
use crate::presets::{PresetSpec, RulesSpec};

/// A rule or context item to be written as a file of a preset's rules folder.
pub(super) struct RuleFile<'i> {
    /// The rule or context item.
    pub item: &'i Item,
    /// The activation written (the item's, or always-on when the preset cannot express it).
    pub activation: Activation,
    /// The globs written, in output form (see [`crate::scope::output_globs`]); empty for
    /// always-on files.
    pub globs: Vec<String>,
    /// Project-relative output path.
    pub path: String,
}

impl Renderer<'_> {
    /// Renders every file of `files` (on several threads for a large project) and adds them to
    /// `plan` in the order of `files`, with their warnings.
    ///
    /// Errors: the first template failure or path conflict, in that order.
    pub(super) fn rule_files(
        &self,
        preset: &PresetSpec,
        rules: &RulesSpec,
        files: &[RuleFile<'_>],
        plan: &mut Plan,
    ) -> Result<()> {
        let rendered = crate::parallel::map_in_order(files, |file| {
            let mut warnings = Vec::new();
            let output = self.rule_file(preset, rules, file, &mut warnings);
            (output, warnings)
        });
        for (output, mut warnings) in rendered {
            let output = output?;
            plan.warnings.append(&mut warnings);
            if let Some(output) = output {
                plan.add(output)?;
            }
        }
        Ok(())
    }

    /// The output of one rule or context file (`None` for an empty body, with a warning), and
    /// its warnings (limits of the assistant) in `warnings`.
    ///
    /// Errors: a template failure.
    fn rule_file(
        &self,
        preset: &PresetSpec,
        rules: &RulesSpec,
        file: &RuleFile<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Output>> {
        let RuleFile {
            item,
            activation,
            globs,
            path,
        } = file;
        let body = trim_blank_edges(&item.body);
        if body.is_empty() {
            warnings.push(format!(
                "{}: empty body; no {} file is written",
                item.source_path, preset.label
            ));
            return Ok(None);
        }
        let yaml = self
            .frontmatter
            .render(
                &self.environment,
                &rules.frontmatter,
                item,
                *activation,
                globs,
            )
            .map_err(template_error)?;
        let frontmatter = (!yaml.trim().is_empty()).then_some(yaml);
        let body = if frontmatter.is_some() {
            format!("\n{body}")
        } else {
            body
        };
        let markdown = Markdown::build(frontmatter.as_deref(), &body, &item.source_path, false);
        check_limits(path, &markdown.bytes, rules, warnings);
        Ok(Some(Output {
            path: path.clone(),
            content: Content::Markdown(markdown),
            writers: vec![preset.name.clone()],
        }))
    }
}

/// Warns when a rule file is over the assistant's limits (characters, bytes, lines).
fn check_limits(path: &str, bytes: &[u8], rules: &RulesSpec, warnings: &mut Vec<String>) {
    if let Some(limit) = rules.max_chars {
        let count = String::from_utf8_lossy(bytes).chars().count();
        if count > limit {
            warnings.push(format!(
                "{path}: {count} characters, over the {limit}-character limit per rule file; the assistant ignores the rest, so split the rule"
            ));
        }
    }
    if let Some(limit) = rules.max_bytes
        && bytes.len() > limit
    {
        warnings.push(format!(
            "{path}: {} bytes, over the {limit}-byte limit per rule file; the assistant ignores the rest, so split the rule",
            bytes.len()
        ));
    }
    if let Some(limit) = rules.max_lines {
        let count = line_count(bytes);
        if count > limit {
            warnings.push(format!(
                "{path}: {count} lines, over the {limit}-line guidance per rule file"
            ));
        }
    }
}

/// How many lines `str::lines` finds in `bytes` (taken as text): one per line feed, and one
/// for text after the last. Counted on the bytes, since every rule file of a large project is
/// counted and the text need not be decoded for it.
fn line_count(bytes: &[u8]) -> usize {
    let feeds = memchr::memchr_iter(b'\n', bytes).count();
    let unterminated = bytes.last().is_some_and(|last| *last != b'\n');
    feeds + usize::from(unterminated)
}

#[cfg(test)]
mod tests {
    use super::line_count;

    #[test]
    fn lines_are_counted_as_str_lines_counts_them() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "a\n\nb\n",
            "é\n\u{fffd}",
        ] {
            assert_eq!(
                line_count(text.as_bytes()),
                text.lines().count(),
                "{text:?}"
            );
        }
    }
}
