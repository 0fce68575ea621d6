//! Shared test helpers: temporary project copies and running the binary.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

/// A temporary project directory (deleted on drop).
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    /// An empty project directory with `git init` done (so the project search stops there).
    pub fn empty() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join(".git")).expect("mark git root");
        Self { dir }
    }

    /// A copy of `fixtures/<name>` (files, modes kept) inside a fresh git-root directory.
    pub fn fixture(name: &str) -> Self {
        let project = Self::empty();
        copy_tree(&fixtures_dir().join(name), project.path());
        project
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` to the project-relative `relative` path, creating folders.
    pub fn write(&self, relative: &str, text: impl AsRef<[u8]>) {
        let path = self.path().join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// Reads a project-relative file as text.
    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.path().join(relative)).unwrap_or_else(|error| panic!("read {relative}: {error}"))
    }

    pub fn exists(&self, relative: &str) -> bool {
        self.path().join(relative).exists()
    }

    /// Runs `ai-rulez <args>` in the project directory.
    pub fn run(&self, args: &[&str]) -> Run {
        let output = Command::cargo_bin("ai-rulez")
            .expect("binary")
            .current_dir(self.path())
            .env_remove("GITHUB_TOKEN")
            .args(args)
            .output()
            .expect("run");
        Run { output }
    }

    /// Every file below the project (except `.git/`), sorted, project-relative.
    pub fn files(&self) -> Vec<String> {
        let mut files = Vec::new();
        collect_files(self.path(), self.path(), &mut files);
        files.sort();
        files
    }
}

/// Result of one run.
pub struct Run {
    pub output: Output,
}

impl Run {
    pub fn code(&self) -> i32 {
        self.output.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }
    /// Asserts the exit code, printing both streams when it differs.
    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(self.code(), code, "stdout:\n{}\nstderr:\n{}", self.stdout(), self.stderr());
        self
    }
}

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Copies a directory tree, keeping file modes (symlinks are recreated as symlinks).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.expect("walk");
        let relative = entry.path().strip_prefix(from).expect("prefix");
        let target = to.join(relative);
        let file_type = entry.file_type();
        if file_type.is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else if file_type.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("readlink");
            std::os::unix::fs::symlink(link, &target).expect("symlink");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            let mode = std::fs::metadata(entry.path()).expect("meta").permissions();
            let mut writable = mode.clone();
            #[expect(clippy::permissions_set_readonly_false, reason = "copies of read-only corpus files must be editable by tests")]
            writable.set_readonly(false);
            std::fs::set_permissions(&target, writable).expect("chmod");
        }
    }
}

fn collect_files(root: &Path, dir: &Path, files: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        let name = entry.file_name();
        if dir == root && name == ".git" {
            continue;
        }
        if entry.file_type().expect("type").is_dir() {
            collect_files(root, &path, files);
        } else {
            files.push(path.strip_prefix(root).expect("prefix").to_string_lossy().replace('\\', "/"));
        }
    }
}
