//! `ai-rulez learn`: candidate rules found in what the project already says, printed for people
//! or as JSON. Nothing is saved: `reviews` is one call into [`crate::learning::reviews`], and
//! `conventions` resolves its paths and thresholds and calls
//! [`crate::learning::conventions::discover_conventions`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

use super::{Global, is_json, out, print_json, print_warnings};
use crate::cli::{ConventionsArgs, LearnReviewsArgs};
use crate::error::Error;
use crate::learning::conventions::{self, ConventionsRequest};
use crate::learning::reviews::{self, ReviewOptions, ReviewSource};
use crate::retrieval::Catalog;

/// Runs `learn reviews`; returns 0.
///
/// Errors: no project, load errors, no input (neither `gh` on PATH nor `--from`; the message
/// says how to provide it), input that is not review comment JSON, a busy writer lock.
pub(crate) fn reviews(global: &Global, args: &LearnReviewsArgs) -> anyhow::Result<u8> {
    let mut warnings = Vec::new();
    let project = crate::project::load(&global.start, &mut warnings)?;
    print_warnings(global, &warnings);
    let source = match &args.from {
        Some(path) => ReviewSource::UserFile(path.clone()),
        None => ReviewSource::GitHubCli,
    };
    let options = ReviewOptions {
        since_days: args.since_days,
        min_repeats: args.min_repeats,
        offers: reviews::Offers::Remember,
    };
    let catalog = Catalog::new(Arc::new(project), Vec::new());
    let reply = reviews::learn_from_reviews(&catalog, &source, options)?;
    if is_json(args.format) {
        print_json(&serde_json::to_value(&reply)?);
    } else {
        out(reviews::text::reviews_text(&reply).trim_end());
    }
    Ok(0)
}

/// What `learn conventions` scans, resolved: the root and project-relative paths.
#[derive(Debug)]
struct ConventionsConfig {
    /// The project root (or, outside any project, the start folder), canonical.
    root: PathBuf,
    /// The request passed to the library.
    request: ConventionsRequest,
}

/// Runs `learn conventions`: prints the report as text or JSON; returns 0.
///
/// Errors: a path outside the project or missing, thresholds out of range, a config that
/// cannot be read.
pub(crate) fn conventions(global: &Global, args: &ConventionsArgs) -> anyhow::Result<u8> {
    let config = resolve(global, args)?;
    let report = conventions::discover_conventions(&config.root, &config.request)?;
    if is_json(args.format) {
        print_json(&serde_json::to_value(&report)?);
    } else {
        out(&conventions::report_text(&report));
    }
    Ok(0)
}

/// Finds the root (the project around the start folder; code without `.ai-rulez/` can be
/// scanned too, from the start folder) and turns each path, relative to the start folder, into
/// a project-relative one.
fn resolve(global: &Global, args: &ConventionsArgs) -> anyhow::Result<ConventionsConfig> {
    let root = match crate::project::discover(&global.start) {
        Ok((root, _, _)) => root,
        Err(Error::NoProject { .. }) => fs_err::canonicalize(&global.start)?,
        Err(error) => return Err(error.into()),
    };
    let mut paths = Vec::new();
    for path in &args.paths {
        paths.push(project_relative(&root, &global.start, path)?);
    }
    Ok(ConventionsConfig {
        root,
        request: ConventionsRequest {
            paths,
            min_ratio: args.min_ratio,
            min_files: args.min_files,
        },
    })
}

/// `path` as typed (relative to `start`, or absolute) made relative to `root`.
fn project_relative(root: &Path, start: &Path, path: &Path) -> anyhow::Result<String> {
    // std's canonicalize: the error names the path as typed, below, not the joined one.
    let resolved = std::fs::canonicalize(start.join(path)).with_context(|| {
        format!(
            "`{}` cannot be scanned; pass an existing folder or file",
            path.display()
        )
    })?;
    let relative = resolved.strip_prefix(root).map_err(|_| {
        anyhow::anyhow!(
            "`{}` lies outside the project {}; pass folders or files inside it",
            path.display(),
            root.display()
        )
    })?;
    relative
        .to_str()
        .map(str::to_owned)
        .with_context(|| format!("`{}` is not valid UTF-8; rename it", path.display()))
}
