//! `validate`: is the tree correct, and will it behave as intended in each assistant? Checks the
//! config, every item's frontmatter and body, links and imports, skill resources, rule globs
//! against the git index, and the rendered outputs of every enabled preset.

mod config;
mod items;
mod links;
mod outputs;
mod repository;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::Path;

use super::scan::{Texts, finish};
use super::{Finding, Report};
use crate::error::{Error, Result};
use crate::project::{self, Project};

use config::{config_error_code, key_path_line};

/// Validates the project around `start`.
///
/// Output: the report, with `[lint] ignore` and inline suppressions applied. A config that
/// cannot be read is reported as one finding whose code comes from the error's kind (AR311, or
/// AR602 for MCP entries). Errors: no project
/// found, or an I/O failure reading the config.
pub fn validate(start: &Path, warnings: &mut Vec<String>) -> Result<Report> {
    let mut load_warnings = Vec::new();
    let loaded = project::load_lenient(start, &mut load_warnings);
    let (project, errors) = match loaded {
        Ok(loaded) => loaded,
        Err(Error::Invalid {
            kind,
            path,
            line,
            key_path,
            message,
        }) => {
            let code = config_error_code(kind);
            let config = project::discover(start)
                .ok()
                .and_then(|(root, relative, _)| {
                    let dir = crate::confined_fs::ProjectDir::open(&root).ok()?;
                    let (bytes, _) = dir.read(relative, 8 * 1024 * 1024).ok()??;
                    String::from_utf8(bytes).ok()
                })
                .unwrap_or_default();
            let line = line.or_else(|| {
                key_path
                    .as_deref()
                    .and_then(|key_path| key_path_line(&config, key_path))
            });
            let text = line_text(&config, line);
            let mut report = Report {
                findings: vec![Finding::new(code, &path, line, text, message)],
            };
            report.sort();
            return Ok(report);
        }
        Err(error) => return Err(error),
    };
    let config_text = project
        .text_of(&project.config_relative)
        .unwrap_or_default();
    let mut checker = Checker {
        project: &project,
        config_text: &config_text,
        report: Report::default(),
        texts: HashMap::new(),
    };
    checker.config_warnings(load_warnings, warnings);
    checker.load_errors(&errors);
    checker.presets_and_profiles();
    for item in &project.tree.items {
        checker.item(item);
    }
    checker.descriptions();
    checker.globs();
    checker.rendered_outputs(warnings);
    checker.agent_and_command_fields();
    checker.repository_traps();
    let Checker { report, texts, .. } = checker;
    Ok(finish(&project, report, &texts))
}

struct Checker<'a> {
    project: &'a Project,
    config_text: &'a str,
    report: Report,
    texts: Texts,
}

fn line_text(text: &str, line: Option<usize>) -> &str {
    line.and_then(|line| text.lines().nth(line.checked_sub(1)?))
        .unwrap_or_default()
}

impl Checker<'_> {
    fn push(
        &mut self,
        code: &'static str,
        file: &str,
        line: Option<usize>,
        line_text: &str,
        message: String,
    ) {
        self.report
            .findings
            .push(Finding::new(code, file, line, line_text, message));
    }
}
