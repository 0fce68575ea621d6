//! The test side of git includes: an upstream repository built with the `git` CLI (a bare
//! repository and a clone to commit from), a machine to run ai-rulez on (a home with no git
//! configuration and a cache, both outside every project), and a `git daemon` serving them.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Project, Run, skip_notice};

/// Runs `git` with a private configuration and fixed identities and dates (so commit ids do
/// not depend on the machine); asserts it succeeds and returns its trimmed stdout.
fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Upstream")
        .env("GIT_AUTHOR_EMAIL", "upstream@example.com")
        .env("GIT_COMMITTER_NAME", "Upstream")
        .env("GIT_COMMITTER_EMAIL", "upstream@example.com")
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .expect("run git");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// One machine: a home folder with no git configuration and an ai-rulez cache, both outside
/// every project, plus an upstream: a bare repository `shared.git` and a clone to commit from.
pub(crate) struct Machine {
    dir: tempfile::TempDir,
}

impl Machine {
    pub(crate) fn new() -> Self {
        let machine = Self {
            dir: tempfile::tempdir().expect("temp dir"),
        };
        for folder in ["home", "work"] {
            fs_err::create_dir_all(machine.path().join(folder)).expect("mkdir");
        }
        git(
            machine.path(),
            &machine.home(),
            &["init", "-q", "--bare", "-b", "main", "shared.git"],
        );
        let work = machine.work();
        git(&work, &machine.home(), &["init", "-q", "-b", "main"]);
        let bare = machine.bare().display().to_string();
        git(&work, &machine.home(), &["remote", "add", "origin", &bare]);
        machine
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn home(&self) -> PathBuf {
        self.path().join("home")
    }

    pub(crate) fn work(&self) -> PathBuf {
        self.path().join("work")
    }

    pub(crate) fn bare(&self) -> PathBuf {
        self.path().join("shared.git")
    }

    pub(crate) fn cache(&self) -> PathBuf {
        self.path().join("cache")
    }

    pub(crate) fn file_url(&self) -> String {
        format!("git+file://{}", self.bare().display())
    }

    /// Writes `files` (path, text; a path ending in `.sh` is made executable) into the work
    /// clone, commits everything, pushes `main`, and returns the commit id as git prints it.
    pub(crate) fn commit(&self, files: &[(&str, &str)]) -> String {
        for (relative, text) in files {
            let path = self.work().join(relative);
            fs_err::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            fs_err::write(&path, text).expect("write");
            if Path::new(relative)
                .extension()
                .is_some_and(|extension| extension == "sh")
            {
                use std::os::unix::fs::PermissionsExt as _;
                fs_err::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .expect("chmod");
            }
        }
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "change", "--allow-empty"]);
        self.git(&["push", "-q", "origin", "main"]);
        self.git(&["rev-parse", "HEAD"])
    }

    /// Tags the last commit `name` (moving the tag when it exists) and pushes it by force.
    pub(crate) fn tag(&self, name: &str) {
        self.git(&["tag", "-f", name]);
        self.git(&["push", "-q", "-f", "origin", name]);
    }

    fn git(&self, args: &[&str]) -> String {
        git(&self.work(), &self.home(), args)
    }

    /// Sends every fetch of `url` to the upstream repository instead, the way a user's git
    /// config does with `url.<base>.insteadOf`.
    pub(crate) fn route(&self, url: &str) {
        fs_err::write(
            self.home().join(".gitconfig"),
            format!(
                "[url \"file://{}\"]\n\tinsteadOf = {url}\n",
                self.bare().display()
            ),
        )
        .expect("write .gitconfig");
    }

    /// The environment of every ai-rulez run on this machine.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        vec![
            ("HOME".to_owned(), self.home().display().to_string()),
            (
                "XDG_CONFIG_HOME".to_owned(),
                self.home().join(".config").display().to_string(),
            ),
            ("GIT_CONFIG_NOSYSTEM".to_owned(), "1".to_owned()),
            (
                "AI_RULEZ_CACHE_DIR".to_owned(),
                self.cache().display().to_string(),
            ),
        ]
    }

    /// Runs ai-rulez in `project` on this machine, with `extra` environment variables.
    pub(crate) fn run(&self, project: &Project, args: &[&str], extra: &[(&str, &str)]) -> Run {
        let mut env = self.env();
        env.extend(
            extra
                .iter()
                .map(|(name, value)| ((*name).to_owned(), (*value).to_owned())),
        );
        let pairs: Vec<(&str, &str)> = env
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
            .collect();
        project.run_with_env(args, &pairs)
    }
}

/// A `git daemon` serving every repository below a folder on a free local port; stopped on
/// drop.
pub(crate) struct Daemon {
    child: Child,
    pub(crate) port: u16,
}

impl Daemon {
    /// Starts one serving `base`; `None` (after a visible `skipping:` line) when this machine
    /// has no `git daemon`.
    pub(crate) fn start(base: &Path) -> Option<Self> {
        // `git daemon` runs `git-daemon` as a child of its own; killing `git` would leave that
        // serving, so the program itself is started.
        let exec_path = Command::new("git").arg("--exec-path").output().ok()?;
        let program =
            PathBuf::from(String::from_utf8_lossy(&exec_path.stdout).trim()).join("git-daemon");
        if !program.is_file() {
            skip_notice("git-daemon is not installed; the git:// cases are not run");
            return None;
        }
        let port = free_port();
        let child = Command::new(&program)
            .args([
                "--reuseaddr",
                "--export-all",
                "--listen=127.0.0.1",
                &format!("--port={port}"),
                &format!("--base-path={}", base.display()),
                &base.display().to_string(),
            ])
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
        let Ok(mut child) = child else {
            skip_notice("git daemon cannot be started; the git:// cases are not run");
            return None;
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if child.try_wait().ok().flatten().is_some()
                || started.elapsed() > Duration::from_secs(20)
            {
                child.kill().ok();
                child.wait().ok();
                skip_notice("git daemon did not start; the git:// cases are not run");
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Self { child, port })
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// A local port nothing listens on (the system's pick, released again).
pub(crate) fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .expect("bind")
        .local_addr()
        .expect("address")
        .port()
}
