//! Shared test helpers: temporary project copies and running the binary.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use assert_cmd::Command;

/// A temporary project directory (deleted on drop).
pub(crate) struct Project {
    pub(crate) dir: tempfile::TempDir,
}

impl Project {
    /// An empty project directory with `git init` done (so the project search stops there).
    pub(crate) fn empty() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        fs_err::create_dir(dir.path().join(".git")).expect("mark git root");
        Self { dir }
    }

    /// A copy of `fixtures/<name>` (files, modes kept) inside a fresh git-root directory.
    pub(crate) fn fixture(name: &str) -> Self {
        let project = Self::empty();
        copy_tree(&fixtures_dir().join(name), project.path());
        project
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` to the project-relative `relative` path, creating folders.
    pub(crate) fn write(&self, relative: &str, text: impl AsRef<[u8]>) {
        let path = self.path().join(relative);
        fs_err::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs_err::write(path, text).expect("write");
    }

    /// Reads a project-relative file as text.
    pub(crate) fn read(&self, relative: &str) -> String {
        fs_err::read_to_string(self.path().join(relative))
            .unwrap_or_else(|error| panic!("read {relative}: {error}"))
    }

    pub(crate) fn exists(&self, relative: &str) -> bool {
        self.path().join(relative).exists()
    }

    /// Runs `ai-rulez <args>` in the project directory.
    pub(crate) fn run(&self, args: &[&str]) -> Run {
        self.run_with_env(args, &[])
    }

    /// Runs `ai-rulez <args>` in the project directory with extra environment variables (set
    /// after `GITHUB_TOKEN` is removed, so a test may set it).
    pub(crate) fn run_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::cargo_bin("ai-rulez").expect("binary");
        command.current_dir(self.path()).env_remove("GITHUB_TOKEN");
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.args(args).output().expect("run");
        Run { output }
    }

    /// A copy of any directory tree (for example a read-only corpus project) inside a fresh
    /// git-root directory; copied files are writable.
    pub(crate) fn copy_of(source: &Path) -> Self {
        let project = Self::empty();
        copy_tree(source, project.path());
        project
    }

    /// Reads a project-relative file as bytes.
    pub(crate) fn read_bytes(&self, relative: &str) -> Vec<u8> {
        fs_err::read(self.path().join(relative))
            .unwrap_or_else(|error| panic!("read {relative}: {error}"))
    }

    /// Permission bits (`0o777` part) of a project-relative file.
    pub(crate) fn mode(&self, relative: &str) -> u32 {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::metadata(self.path().join(relative))
            .expect("metadata")
            .permissions()
            .mode()
            & 0o777
    }

    /// Every file's bytes, permission bits and modification time, by project-relative path.
    pub(crate) fn states(&self) -> BTreeMap<String, FileState> {
        self.files()
            .into_iter()
            .map(|relative| {
                let modified = fs_err::metadata(self.path().join(&relative))
                    .expect("metadata")
                    .modified()
                    .expect("mtime");
                let state = FileState {
                    bytes: self.read_bytes(&relative),
                    mode: self.mode(&relative),
                    modified,
                };
                (relative, state)
            })
            .collect()
    }

    /// Sets every file's modification time (except under `.git/`) to one fixed moment in 2001,
    /// so a later rewrite is visible however coarse the file system's clock is.
    pub(crate) fn age_files(&self) {
        let moment = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        for relative in self.files() {
            let file = fs_err::OpenOptions::new()
                .write(true)
                .open(self.path().join(&relative))
                .expect("open");
            file.file().set_modified(moment).expect("set mtime");
        }
    }

    /// Every folder below the project (except `.git/`), sorted, project-relative.
    pub(crate) fn dirs(&self) -> Vec<String> {
        let mut dirs: Vec<String> = walkdir::WalkDir::new(self.path())
            .min_depth(1)
            .into_iter()
            .filter_entry(|entry| entry.depth() != 1 || entry.file_name() != ".git")
            .map(|entry| entry.expect("walk"))
            .filter(|entry| entry.file_type().is_dir())
            .map(|entry| {
                entry
                    .path()
                    .strip_prefix(self.path())
                    .expect("prefix")
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        dirs.sort();
        dirs
    }

    /// Every file below the project (except `.git/`), sorted, project-relative.
    pub(crate) fn files(&self) -> Vec<String> {
        let mut files = Vec::new();
        collect_files(self.path(), self.path(), &mut files);
        files.sort();
        files
    }
}

/// One file's observable state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileState {
    pub(crate) bytes: Vec<u8>,
    pub(crate) mode: u32,
    pub(crate) modified: SystemTime,
}

/// Result of one run.
pub(crate) struct Run {
    pub(crate) output: Output,
}

impl Run {
    pub(crate) fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }
    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    /// Asserts the exit code, printing both streams when it differs.
    #[track_caller]
    pub(crate) fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code(),
            code,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout(),
            self.stderr()
        );
        self
    }
}

/// SHA-256 of `bytes` as printed by the `sha256sum` command (a different implementation).
pub(crate) fn sha256sum(bytes: &[u8]) -> String {
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run sha256sum");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(bytes)
        .expect("feed sha256sum");
    let output = child.wait_with_output().expect("sha256sum output");
    assert!(output.status.success(), "sha256sum failed");
    let text = String::from_utf8(output.stdout).expect("utf8");
    let hex = text.split_whitespace().next().expect("digest").to_owned();
    assert_eq!(hex.len(), 64, "sha256sum printed {text:?}");
    hex
}

pub(crate) fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copies a directory tree, keeping file modes (symlinks are recreated as symlinks).
pub(crate) fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.expect("walk");
        let relative = entry.path().strip_prefix(from).expect("prefix");
        let target = to.join(relative);
        let file_type = entry.file_type();
        if file_type.is_dir() {
            fs_err::create_dir_all(&target).expect("mkdir");
        } else if file_type.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("readlink");
            std::os::unix::fs::symlink(link, &target).expect("symlink");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            // Only the owner write bit is added, so a 0644 file stays 0644 and a read-only
            // corpus file becomes editable without turning group/other writable.
            let mode = std::os::unix::fs::PermissionsExt::mode(
                &std::fs::metadata(entry.path()).expect("meta").permissions(),
            );
            let writable = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(
                mode | 0o200,
            );
            std::fs::set_permissions(&target, writable).expect("chmod");
        }
    }
}

fn collect_files(root: &Path, dir: &Path, files: &mut Vec<String>) {
    for entry in fs_err::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        let name = entry.file_name();
        if dir == root && name == ".git" {
            continue;
        }
        if entry.file_type().expect("type").is_dir() {
            collect_files(root, &path, files);
        } else {
            files.push(
                path.strip_prefix(root)
                    .expect("prefix")
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

/// Says on the real standard error (not the test harness's captured one, which a passing test
/// never shows) that a test skipped part of its work and why.
pub(crate) fn skip_notice(reason: &str) {
    writeln!(std::io::stderr().lock(), "skipping: {reason}").ok();
}
