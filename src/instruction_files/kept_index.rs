//! The instruction-file index kept between calls, and when it must be walked again. Walking a
//! monorepo costs milliseconds to seconds, so the index is reused; nothing watches the tree
//! outside `.ai-rulez/`, so two things say when it is out of date: its age, for any question,
//! and, for a question about one path, the times of the folders and files along that path that
//! could hold an instruction file for it. An agent that writes `pkg/api/AGENTS.md` and asks
//! about `pkg/api/main.go` at once gets the new file; a file added elsewhere is found within
//! [`MAX_AGE`], and so is a change git makes to what it lists from outside the project's folders
//! (the git index after `git add --force`, `.git/info/exclude`, a `.gitignore` above a project
//! that is a subfolder of its repository).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use super::{InstructionIndex, build};
use crate::confined_fs::{Info, ProjectDir};

/// How long an index is reused before the tree is walked again for a question that names no
/// path (or one whose folders show no change): a file added meanwhile away from the path asked
/// about is found within this time (`load_context` always reads the current text of a file the
/// index knows).
pub(crate) const MAX_AGE: Duration = Duration::from_secs(10);

/// How far before the walk began a change still counts as possibly unseen. The file system
/// stamps a change with its clock as of the last tick (up to 10 ms behind on Linux), so a
/// change made just after the walk began can carry a time a little before it.
const CLOCK_TICK_MARGIN: Duration = Duration::from_millis(100);

/// Names, relative to a scope folder, whose times move on when an instruction file of that
/// scope is added, removed or renamed, or when what git lists there changes (`.gitignore`).
/// A tool folder's subfolders are looked at only when the tool folder exists.
const WATCHED_NAMES: [(&str, &[&str]); 4] = [
    (".gitignore", &[]),
    (
        ".claude",
        &[".claude/rules", ".claude/agents", ".claude/commands"],
    ),
    (".cursor", &[".cursor/rules"]),
    (".github", &[".github/instructions", ".github/agents"]),
];

/// An index kept between calls: rebuilt when older than [`MAX_AGE`], or when something along
/// the path a call asks about changed after its walk began.
#[derive(Debug, Default)]
pub(crate) struct CachedIndex {
    built: Mutex<Option<Built>>,
}

#[derive(Debug)]
struct Built {
    /// When the walk finished, for the age.
    at: Instant,
    /// When the walk began, less [`CLOCK_TICK_MARGIN`], as file times are written: (seconds,
    /// nanoseconds) since the epoch.
    walk_began: (i64, i64),
    index: Arc<InstructionIndex>,
}

impl CachedIndex {
    /// The index of the project at `dir` (see [`build`] for `config_dir_relative`). It is built
    /// on first use and again once older than [`MAX_AGE`]; with `along` (a project-relative
    /// file or folder the call asks about), also when a folder enclosing it, a file it could hold
    /// for that path, or an indexed file of those folders changed after the last walk began
    /// (see [`changed_along`]).
    pub(crate) fn get(
        &self,
        dir: &ProjectDir,
        config_dir_relative: &str,
        along: Option<&str>,
    ) -> Arc<InstructionIndex> {
        let mut built = self.built.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(kept) = built.as_ref()
            && kept.at.elapsed() < MAX_AGE
            && along.is_none_or(|path| !changed_along(dir, &kept.index, path, kept.walk_began))
        {
            return Arc::clone(&kept.index);
        }
        let walk_began = file_time_of(
            SystemTime::now()
                .checked_sub(CLOCK_TICK_MARGIN)
                .unwrap_or(SystemTime::UNIX_EPOCH),
        );
        let index = Arc::new(build(dir, config_dir_relative));
        *built = Some(Built {
            at: Instant::now(),
            walk_began,
            index: Arc::clone(&index),
        });
        index
    }
}

/// Whether anything that decides which instruction files apply to `path` (project-relative)
/// may have changed at or after `since` (seconds, nanoseconds since the epoch): for the root and
/// each folder enclosing `path` (and `path` itself when it is a folder), the folder (an entry
/// added, removed or renamed), its `.gitignore`, its `.claude`, `.cursor` and `.github` folders
/// and their rule and agent folders, and every indexed file of that scope with the folder
/// holding it (an edit in place, which moves no folder's time). Looks only, through
/// [`ProjectDir`]: a folder that is missing, a file or a symlink tells nothing and is passed
/// over, as the walk does not enter it either.
fn changed_along(
    dir: &ProjectDir,
    index: &InstructionIndex,
    path: &str,
    since: (i64, i64),
) -> bool {
    let is_recent = |info: Option<Info>| info.is_some_and(|info| info.changed >= since);
    let folders = std::iter::once(".").chain(
        path.trim_end_matches('/')
            .match_indices('/')
            .map(|(end, _)| &path[..end])
            .chain(std::iter::once(path.trim_end_matches('/')))
            .filter(|folder| !folder.is_empty()),
    );
    for scope in folders {
        let opened;
        let folder = if scope == "." {
            dir
        } else {
            match dir.folder(scope) {
                Ok(Some(found)) => {
                    opened = found;
                    &opened
                }
                // `path` itself is a file, or a folder on the way is missing or refused.
                _ => break,
            }
        };
        if is_recent(folder.own_info().ok()) {
            return true;
        }
        for (name, inside) in WATCHED_NAMES {
            let Ok(info) = folder.info(name) else {
                continue;
            };
            if is_recent(info) {
                return true;
            }
            if info.is_some()
                && inside
                    .iter()
                    .any(|name| is_recent(folder.info(name).ok().flatten()))
            {
                return true;
            }
        }
        let recent_file = index
            .files
            .iter()
            .filter(|file| file.scope == scope)
            .any(|file| {
                let holder = file.path.rsplit_once('/').map_or(".", |(holder, _)| holder);
                is_recent(dir.info(&file.path).ok().flatten())
                    || (holder != "." && is_recent(dir.info(holder).ok().flatten()))
            });
        if recent_file {
            return true;
        }
    }
    false
}

/// `time` as file times are written: (seconds, nanoseconds) since the epoch.
fn file_time_of(time: SystemTime) -> (i64, i64) {
    let since_epoch = time
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    (
        i64::try_from(since_epoch.as_secs()).unwrap_or(i64::MAX),
        i64::from(since_epoch.subsec_nanos()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let folder = tempfile::tempdir().expect("temporary folder");
        for (path, text) in files {
            let full = folder.path().join(path);
            fs_err::create_dir_all(full.parent().expect("a parent")).expect("folders");
            fs_err::write(full, text).expect("write");
        }
        folder
    }

    fn paths(index: &InstructionIndex) -> Vec<&str> {
        index.files.iter().map(|file| file.path.as_str()).collect()
    }

    #[test]
    fn an_unchanged_tree_reuses_the_index_and_a_change_along_the_path_rebuilds_it() {
        let project = project_with(&[
            ("AGENTS.md", "# Root\n"),
            ("pkg/api/src/main.go", "package main\n"),
            (
                "pkg/api/.claude/rules/go.md",
                "---\npaths: \"**/*.go\"\n---\nRun gofmt.\n",
            ),
            ("web/app.ts", "export {};\n"),
        ]);
        // The files above must be older than the first walk by more than the clock margin, or
        // every call would rightly walk again.
        std::thread::sleep(CLOCK_TICK_MARGIN * 2);
        let dir = ProjectDir::open(project.path()).expect("open");
        let kept = CachedIndex::default();
        let first = kept.get(&dir, ".ai-rulez", Some("pkg/api/src/main.go"));
        assert_eq!(paths(&first), ["AGENTS.md", "pkg/api/.claude/rules/go.md"]);
        let again = kept.get(&dir, ".ai-rulez", Some("pkg/api/src/main.go"));
        assert!(
            Arc::ptr_eq(&first, &again),
            "nothing changed: the index is reused"
        );

        // A change away from the path is left to the age.
        fs_err::write(project.path().join("web/AGENTS.md"), "# Web\n").expect("write");
        let elsewhere = kept.get(&dir, ".ai-rulez", Some("pkg/api/src/main.go"));
        assert!(Arc::ptr_eq(&first, &elsewhere));

        // A file added in a folder enclosing the path is found at once.
        fs_err::write(project.path().join("pkg/api/AGENTS.md"), "# Api\n").expect("write");
        let added = kept.get(&dir, ".ai-rulez", Some("pkg/api/src/main.go"));
        assert_eq!(
            paths(&added),
            [
                "AGENTS.md",
                "web/AGENTS.md",
                "pkg/api/.claude/rules/go.md",
                "pkg/api/AGENTS.md"
            ]
        );
    }

    #[test]
    fn each_kind_of_change_along_the_path_is_seen_and_none_away_from_it() {
        let project = project_with(&[
            ("AGENTS.md", "# Root\n"),
            (".gitignore", "ignored/\n"),
            ("pkg/api/src/main.go", "package main\n"),
            (
                "pkg/api/.claude/rules/go.md",
                "---\npaths: \"**/*.go\"\n---\nRun gofmt.\n",
            ),
            (
                "pkg/api/.cursor/rules/nested/ts.mdc",
                "---\nglobs: \"*.ts\"\n---\nStrict.\n",
            ),
            ("web/app.ts", "export {};\n"),
        ]);
        std::thread::sleep(CLOCK_TICK_MARGIN * 2);
        let dir = ProjectDir::open(project.path()).expect("open");
        let index = build(&dir, ".ai-rulez");
        let since = file_time_of(SystemTime::now() - CLOCK_TICK_MARGIN);
        let path = "pkg/api/src/main.go";
        assert!(!changed_along(&dir, &index, path, since));
        let changes: [(&str, &str); 6] = [
            // An edit in place of an indexed file (its globs may have changed).
            (
                "pkg/api/.claude/rules/go.md",
                "---\npaths: \"**/*.rs\"\n---\nRun rustfmt.\n",
            ),
            // A new rule in an existing rule folder.
            ("pkg/api/.claude/rules/new.md", "New.\n"),
            // A new file in a nested folder that holds an indexed rule.
            ("pkg/api/.cursor/rules/nested/more.mdc", "More.\n"),
            // What git lists changes.
            (".gitignore", "ignored/\npkg/\n"),
            // A new tool folder.
            (
                "pkg/api/src/.github/instructions/go.instructions.md",
                "Go.\n",
            ),
            // An instruction file in the folder of the path.
            ("pkg/api/src/CLAUDE.md", "# Src\n"),
        ];
        for (changed, text) in changes {
            // Each change is judged against a walk that began after the one before it.
            std::thread::sleep(CLOCK_TICK_MARGIN * 2);
            let index = build(&dir, ".ai-rulez");
            let since = file_time_of(SystemTime::now() - CLOCK_TICK_MARGIN);
            assert!(
                !changed_along(&dir, &index, path, since),
                "before {changed}"
            );
            let full = project.path().join(changed);
            fs_err::create_dir_all(full.parent().expect("a parent")).expect("folders");
            fs_err::write(full, text).expect("write");
            assert!(changed_along(&dir, &index, path, since), "after {changed}");
            assert!(!changed_along(&dir, &index, "web/app.ts", since) || changed == ".gitignore");
        }
    }
}
