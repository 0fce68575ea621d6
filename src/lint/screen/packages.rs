//! Unpinned packages: MCP server commands that fetch and run a package or container image
//! without a pinned version, so what runs can change under the user.

use super::{Finding, LineIndex};

/// AR012 for MCP server entries: `npx`, `bunx`, `pnpm dlx`, `uvx`, `pipx run` and `docker run`
/// on a `command:` line without a pinned version.
pub(super) fn unpinned_packages(text: &str, lines: &LineIndex<'_>, findings: &mut Vec<Finding>) {
    for (index, line) in text.lines().enumerate() {
        let Some(command) = line.strip_prefix("command: ") else {
            continue;
        };
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        let program = first.rsplit('/').next().unwrap_or(first);
        let problem = match program {
            "npx" | "bunx" => unpinned_npm(&words[1..]),
            "pnpm" | "yarn" if words.get(1) == Some(&"dlx") => unpinned_npm(&words[2..]),
            "uvx" => unpinned_python(&words[1..], "uvx"),
            "pipx" if words.get(1) == Some(&"run") => unpinned_python(&words[2..], "pipx run"),
            "docker" | "podman" if words.get(1) == Some(&"run") => unpinned_image(&words[2..]),
            _ => None,
        };
        if let Some(message) = problem {
            findings.push(Finding::new(
                "AR012",
                "",
                Some(index + 1),
                lines.text(index + 1),
                message,
            ));
        }
    }
}

fn unpinned_npm(words: &[&str]) -> Option<String> {
    let mut iter = words.iter();
    let mut package = None;
    while let Some(word) = iter.next() {
        if let Some(value) = word.strip_prefix("--package=") {
            package = Some(value);
            break;
        }
        if *word == "-p" || *word == "--package" {
            package = iter.next().copied();
            break;
        }
        if !word.starts_with('-') {
            package = Some(word);
            break;
        }
    }
    let package = package?;
    let version = package
        .strip_prefix('@')
        .map_or(package, |rest| rest)
        .split_once('@')
        .map(|(_, version)| version);
    match version {
        Some(version) if !version.is_empty() && !matches!(version, "latest" | "next") => None,
        _ => Some(format!(
            "MCP package `{package}` runs without a pinned version; write `{}@<version>`",
            package
                .rsplit_once('@')
                .filter(|(name, _)| !name.is_empty())
                .map_or(package, |(name, _)| name)
        )),
    }
}

fn unpinned_python(words: &[&str], runner: &str) -> Option<String> {
    let mut iter = words.iter();
    let mut package = None;
    while let Some(word) = iter.next() {
        if let Some(value) = word.strip_prefix("--from=") {
            package = Some(value);
            break;
        }
        if *word == "--from" || *word == "--spec" {
            package = iter.next().copied();
            break;
        }
        if matches!(
            *word,
            "--python" | "--with" | "--index-url" | "--extra-index-url"
        ) {
            iter.next();
            continue;
        }
        if !word.starts_with('-') {
            package = Some(word);
            break;
        }
    }
    let package = package?;
    let pinned = package.contains("==")
        || package
            .split_once('@')
            .is_some_and(|(_, version)| !version.is_empty() && version != "latest");
    (!pinned).then(|| {
        format!("MCP package `{package}` runs with `{runner}` without a pinned version; write `{package}==<version>`")
    })
}

fn unpinned_image(words: &[&str]) -> Option<String> {
    const VALUE_FLAGS: [&str; 16] = [
        "-e",
        "--env",
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--name",
        "--network",
        "-w",
        "--workdir",
        "--env-file",
        "-u",
        "--user",
        "--entrypoint",
        "--mount",
        "--platform",
    ];
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        if VALUE_FLAGS.contains(word) {
            iter.next();
            continue;
        }
        if word.starts_with('-') {
            continue;
        }
        let name_part = word.rsplit('/').next().unwrap_or(word);
        let pinned = word.contains("@sha256:")
            || name_part
                .split_once(':')
                .is_some_and(|(_, tag)| !tag.is_empty() && tag != "latest");
        return (!pinned).then(|| {
            format!("MCP container image `{word}` has no pinned tag or digest; write `{word}:<version>` or `@sha256:<digest>`")
        });
    }
    None
}
