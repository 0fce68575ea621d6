//! Git includes (`[[includes]]` with a git `source`): fetched with gix into a cache outside the
//! project, pinned by commit in the lock, read offline under `--locked`. The upstream
//! repositories are bare repositories built with the `git` CLI in temporary folders and
//! served over `git+file://`, over `git://` by a `git daemon` the test starts, and over
//! `git+ssh://` through a stand-in `ssh` program; nothing here needs the internet.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{Project, Run, sha256sum, skip_notice};

/// Digest of the included folder {`rules/a.md` = `# A\n`, `hooks/x.sh` (100755) =
/// `#!/bin/sh\n`}: the include vector the Go ai-rulez publishes (`94a2c6de…f01c`), in full.
const VECTOR_DIGEST: &str =
    "sha256:94a2c6de5e10aa7eef64adb55330c4a84c02d49566d56adcedbd7f5db2ddf01c";

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

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn home(&self) -> PathBuf {
        self.path().join("home")
    }

    fn work(&self) -> PathBuf {
        self.path().join("work")
    }

    fn bare(&self) -> PathBuf {
        self.path().join("shared.git")
    }

    fn cache(&self) -> PathBuf {
        self.path().join("cache")
    }

    fn file_url(&self) -> String {
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
    fn tag(&self, name: &str) {
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
    fn run(&self, project: &Project, args: &[&str], extra: &[(&str, &str)]) -> Run {
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

/// A project using Claude whose config ends with `includes` (TOML text).
fn project_with(includes: &str) -> Project {
    let project = Project::empty();
    project.write(
        ".ai-rulez/config.toml",
        format!("version = \"5.0\"\nname = \"demo\"\npresets = [\"claude\"]\n\n{includes}"),
    );
    project
}

/// The `[[includes]]` entry `shared` fetching `source`, with extra `keys` lines.
fn include(source: &str, keys: &str) -> String {
    format!("[[includes]]\nname = \"shared\"\nsource = \"{source}\"\n{keys}")
}

/// A Claude rule file generated from an included `rules/<name>` with `body`.
fn rule_output(name: &str, body: &str) -> String {
    format!(
        "<!-- Generated by ai-rulez from include:shared/rules/{name}; edit the source and run `ai-rulez generate`. Content-Hash: sha256:{} -->\n{body}",
        sha256sum(body.as_bytes())
    )
}

/// The lock's `[[include]]` row for `shared`.
fn lock_row(source: &str, git_ref: Option<&str>, commit: &str, digest: &str) -> String {
    let git_ref = git_ref
        .map(|text| format!("ref = \"{text}\"\n"))
        .unwrap_or_default();
    format!(
        "[[include]]\nname = \"shared\"\nsource = \"{source}\"\n{git_ref}commit = \"{commit}\"\ndigest = \"{digest}\"\n"
    )
}

const LOCK: &str = ".ai-rulez/ai-rulez.lock";

const GENERATED: &str =
    "create: .ai-rulez/.generated-manifest.json\ncreate: .claude/rules/a.md\ncreate: CLAUDE.md\n";

#[test]
fn a_file_include_is_fetched_into_the_cache_generated_and_pinned_at_its_commit() {
    let machine = Machine::new();
    let commit = machine.commit(&[("rules/a.md", "# A\n"), ("hooks/x.sh", "#!/bin/sh\n")]);
    let project = project_with(&include(&machine.file_url(), ""));
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(0);
    assert_eq!(generate.stdout(), GENERATED);
    assert_eq!(
        project.read(".claude/rules/a.md"),
        rule_output("a.md", "# A\n")
    );
    machine.run(&project, &["lock"], &[]).expect_code(0);
    let lock = project.read(LOCK);
    assert!(
        lock.ends_with(&lock_row(&machine.file_url(), None, &commit, VECTOR_DIGEST)),
        "{lock}"
    );
    machine
        .run(&project, &["lock", "--check"], &[])
        .expect_code(0);
    // Everything fetched lives in the cache; the project holds only its own files.
    assert_eq!(
        project.files(),
        [
            ".ai-rulez/.generated-manifest.json",
            ".ai-rulez/ai-rulez.lock",
            ".ai-rulez/config.toml",
            ".claude/rules/a.md",
            "CLAUDE.md"
        ]
    );
    let cached: Vec<String> = fs_err::read_dir(machine.cache().join("git"))
        .expect("cache")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    assert_eq!(cached.len(), 1);
    assert!(
        machine
            .cache()
            .join("git")
            .join(&cached[0])
            .join("repo/HEAD")
            .is_file()
    );
    // The other commands see the included rule too.
    let explain = machine.run(&project, &["explain", "src/main.rs"], &[]);
    explain.expect_code(0);
    assert_eq!(
        explain.stdout(),
        "What applies to `src/main.rs` in `demo` (nearest scope first):\n\n## rule A (`a`)\nWhy: rule applies everywhere\n\n# A\n"
    );
    let validate = machine.run(&project, &["validate"], &[]);
    validate.expect_code(0);
    assert_eq!(validate.stdout(), "");
    let env = machine.env();
    let pairs: Vec<(&str, &str)> = env
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", crate::mcp::ALL_TOOLSETS],
        &pairs,
    );
    let rules = server.ok("get_rules", serde_json::json!({"paths": ["src/main.rs"]}));
    let ids: Vec<&str> = rules["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|rule| rule["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["a"]);
    server.finish();
}

#[test]
fn a_new_upstream_commit_changes_nothing_until_the_pin_moves() {
    let machine = Machine::new();
    let first = machine.commit(&[("rules/a.md", "# A\n")]);
    let project = project_with(&include(&machine.file_url(), "ref = \"main\"\n"));
    machine.run(&project, &["generate"], &[]).expect_code(0);
    machine.run(&project, &["lock"], &[]).expect_code(0);
    let second = machine.commit(&[("rules/a.md", "# A, second\n")]);
    // The pin holds, with the warm cache and with an empty one (which fetches the new commit
    // and still uses the pinned one).
    let fresh = machine.path().join("fresh-cache").display().to_string();
    for extra in [vec![], vec![("AI_RULEZ_CACHE_DIR", fresh.as_str())]] {
        let check = machine.run(&project, &["generate", "--check"], &extra);
        check.expect_code(0);
        assert_eq!(check.stdout(), "");
    }
    let update = machine.run(&project, &["lock", "--update-includes"], &[]);
    update.expect_code(0);
    assert_eq!(
        update.stdout(),
        format!("moved: include shared {first} -> {second}\nwrote: .ai-rulez/ai-rulez.lock\n")
    );
    assert_eq!(
        update.stderr(),
        "the generated files still show the old commits; run `ai-rulez generate`, then `ai-rulez lock`, and commit the result\n"
    );
    let check = machine.run(&project, &["generate", "--check"], &[]);
    check.expect_code(2);
    assert_eq!(
        check.stdout(),
        "stale: .ai-rulez/.generated-manifest.json\nstale: .claude/rules/a.md\n"
    );
    machine.run(&project, &["generate"], &[]).expect_code(0);
    assert_eq!(
        project.read(".claude/rules/a.md"),
        rule_output("a.md", "# A, second\n")
    );
    machine.run(&project, &["lock"], &[]).expect_code(0);
    assert!(
        project
            .read(LOCK)
            .contains(&format!("commit = \"{second}\""))
    );
    machine
        .run(&project, &["lock", "--check"], &[])
        .expect_code(0);
    let again = machine.run(&project, &["lock", "--update-includes"], &[]);
    again.expect_code(0);
    assert_eq!(
        again.stdout(),
        format!("unchanged: include shared {second}\nunchanged: .ai-rulez/ai-rulez.lock\n")
    );
}

/// A `git daemon` serving every repository below a folder on a free local port; stopped on
/// drop.
struct Daemon {
    child: Child,
    port: u16,
}

impl Daemon {
    /// Starts one serving `base`; `None` (after a visible `skipping:` line) when this machine
    /// has no `git daemon`.
    fn start(base: &Path) -> Option<Self> {
        let port = free_port();
        let child = Command::new("git")
            .args([
                "daemon",
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
fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .expect("bind")
        .local_addr()
        .expect("address")
        .port()
}

#[test]
fn over_git_daemon_then_locked_and_frozen_use_only_the_cache() {
    let machine = Machine::new();
    let commit = machine.commit(&[("rules/a.md", "# A\n"), ("hooks/x.sh", "#!/bin/sh\n")]);
    let Some(daemon) = Daemon::start(machine.path()) else {
        return;
    };
    let source = format!("git://127.0.0.1:{}/shared.git", daemon.port);
    let project = project_with(&include(&source, "ref = \"main\"\n"));
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(0);
    assert_eq!(generate.stdout(), GENERATED);
    machine.run(&project, &["lock"], &[]).expect_code(0);
    assert!(
        project
            .read(LOCK)
            .ends_with(&lock_row(&source, Some("main"), &commit, VECTOR_DIGEST))
    );
    // With the server gone, the pinned commit comes from the cache.
    drop(daemon);
    for flag in ["--locked", "--frozen"] {
        let offline = machine.run(&project, &["generate", flag, "--check"], &[]);
        offline.expect_code(0);
    }
    // An empty cache under --locked / --frozen is an error naming the commit, without trying
    // the network (were it tried, the message would be the refused connection).
    let empty = machine.path().join("empty-cache");
    let empty_text = empty.display().to_string();
    for flag in ["--locked", "--frozen"] {
        let run = machine.run(
            &project,
            &["generate", flag],
            &[("AI_RULEZ_CACHE_DIR", &empty_text)],
        );
        run.expect_code(1);
        let folder = single_folder(&empty.join("git"));
        assert_eq!(
            run.stderr(),
            format!(
                "error: .ai-rulez/config.toml: `includes[0]` (`shared`, {source}): the pinned commit {commit} is not in the cache ({}), and `--locked` never fetches; run `ai-rulez generate --check` once without `--locked` to fetch it\n",
                folder.display()
            )
        );
        assert_eq!(run.stdout(), "");
    }
}

/// The one folder inside `parent`.
fn single_folder(parent: &Path) -> PathBuf {
    let entries: Vec<PathBuf> = fs_err::read_dir(parent)
        .expect("read")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert_eq!(entries.len(), 1, "{entries:?}");
    entries[0].clone()
}

#[test]
fn an_unreachable_remote_names_the_entry_the_url_and_what_to_do() {
    let machine = Machine::new();
    let port = free_port();
    let source = format!("git://127.0.0.1:{port}/shared.git");
    let project = project_with(&include(&source, ""));
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(1);
    assert_eq!(
        generate.stderr(),
        format!(
            "error: .ai-rulez/config.toml: `includes[0]` (`shared`, {source}): cannot fetch it: connection failed: Could not connect to git server: Connection refused (os error 111); check the URL, the network and your credentials (a git credential helper or an SSH key; never write them into the URL), or remove the include\n"
        )
    );
    assert_eq!(generate.stdout(), "");
    assert!(!project.exists(".claude"));
}

#[test]
fn a_moved_tag_is_an_error_saying_what_to_run() {
    let machine = Machine::new();
    let first = machine.commit(&[("rules/a.md", "# A\n")]);
    machine.tag("v1");
    let project = project_with(&include(&machine.file_url(), "ref = \"v1\"\n"));
    machine.run(&project, &["generate"], &[]).expect_code(0);
    machine.run(&project, &["lock"], &[]).expect_code(0);
    let second = machine.commit(&[("rules/a.md", "# A, retagged\n")]);
    machine.tag("v1");
    // The warm cache still holds the tag where it was; a machine that fetches sees it moved.
    machine
        .run(&project, &["generate", "--check"], &[])
        .expect_code(0);
    let fresh = machine.path().join("fresh-cache").display().to_string();
    let moved = machine.run(&project, &["generate"], &[("AI_RULEZ_CACHE_DIR", &fresh)]);
    moved.expect_code(1);
    assert_eq!(
        moved.stderr(),
        format!(
            "error: .ai-rulez/config.toml: `includes[0]` (`shared`, {}): tag `v1` now points to {second} but the lock pins {first}: the tag was moved upstream, and a released tag should not move; check with the repository's maintainers, then run `ai-rulez lock --update-includes` to accept the new commit (or pin `ref` to the commit you trust)\n",
            machine.file_url()
        )
    );
    let update = machine.run(&project, &["lock", "--update-includes"], &[]);
    update.expect_code(0);
    assert_eq!(
        update.stdout(),
        format!("moved: include shared {first} -> {second}\nwrote: .ai-rulez/ai-rulez.lock\n")
    );
    assert!(update.stderr().starts_with(&format!(
        "warning: .ai-rulez/config.toml: `includes[0]` (`shared`, {}): tag `v1` moved upstream from {first} to {second}; a released tag should not move, so review what changed before you commit\n",
        machine.file_url()
    )));
}

#[test]
fn credentials_in_an_include_url_are_never_printed_or_written() {
    let machine = Machine::new();
    let port = free_port();
    let project = project_with(&format!(
        "[[includes]]\nname = \"web\"\nsource = \"git+https://user:s3cr3t-token@127.0.0.1:{port}/r.git\"\n\n[[includes]]\nname = \"daemon\"\nsource = \"git://deploy:s3cr3t-token@127.0.0.1:{port}/r.git\"\n"
    ));
    project.write(".ai-rulez/rules/own.md", "# Own\n");
    let runs = [
        vec!["generate"],
        vec!["generate", "--format", "json"],
        vec!["generate", "--locked"],
        vec!["lock"],
        vec!["lock", "--update-includes"],
        vec!["lock", "--check"],
        vec!["validate"],
        vec!["validate", "--format", "json"],
        vec!["explain", "src/a.rs"],
        vec!["scan"],
    ];
    let mut everything = String::new();
    for args in &runs {
        let run = machine.run(&project, args, &[]);
        everything.push_str(&run.stdout());
        everything.push_str(&run.stderr());
    }
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(1);
    assert_eq!(
        generate
            .stderr()
            .lines()
            .map(|line| line.split(": cannot fetch it").next().unwrap_or(line))
            .collect::<Vec<_>>(),
        [
            format!(
                "error: .ai-rulez/config.toml: `includes[0]` (`web`, git+https://user:****@127.0.0.1:{port}/r.git): this ai-rulez was built without HTTPS support for git includes; use an SSH URL (`git+ssh://git@host/owner/repo.git` or `git@host:owner/repo.git`), send this one over SSH with git's `url.<base>.insteadOf`, or install a build with HTTPS (`cargo install --path . --features https`)"
            ),
            format!(
                ".ai-rulez/config.toml: `includes[1]` (`daemon`, git://deploy:****@127.0.0.1:{port}/r.git)"
            ),
        ]
    );
    let env = machine.env();
    let pairs: Vec<(&str, &str)> = env
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    let mut server = crate::mcp::Server::start_with(
        project.path(),
        &["--toolsets", crate::mcp::ALL_TOOLSETS],
        &pairs,
    );
    for tool in ["generate_outputs", "validate_config", "get_rules"] {
        everything.push_str(
            &server
                .call(tool, serde_json::json!({"paths": ["src/a.rs"]}))
                .to_string(),
        );
    }
    let (_, _, stderr) = server.finish();
    everything.push_str(&stderr);
    assert!(everything.contains("user:****@127.0.0.1"), "{everything}");
    assert!(!everything.contains("s3cr3t"), "{everything}");
    for file in project.files() {
        if file != ".ai-rulez/config.toml" {
            assert!(!project.read(&file).contains("s3cr3t"), "{file}");
        }
    }
    for entry in walkdir::WalkDir::new(machine.cache()) {
        let entry = entry.expect("walk");
        assert!(!entry.path().display().to_string().contains("s3cr3t"));
        if entry.file_type().is_file() {
            let bytes = fs_err::read(entry.path()).expect("read");
            assert!(
                !String::from_utf8_lossy(&bytes).contains("s3cr3t"),
                "{}",
                entry.path().display()
            );
        }
    }
}

#[test]
fn a_symlink_in_the_included_tree_is_refused_and_never_followed() {
    let machine = Machine::new();
    let outside = machine.path().join("outside.md");
    fs_err::write(&outside, "# Outside\nnot to be read\n").expect("write");
    machine.commit(&[("rules/a.md", "# A\n")]);
    let link = machine.work().join("rules/evil.md");
    std::os::unix::fs::symlink(&outside, &link).expect("symlink");
    machine.commit(&[]);
    let project = project_with(&include(&machine.file_url(), ""));
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(1);
    assert_eq!(
        generate.stderr(),
        "error: include:shared/rules/evil.md: is a symlink; ai-rulez never reads through symlinks (a committed link could point anywhere), so replace it with the real file or folder\n"
    );
    assert!(!project.exists(".claude"));
    let validate = machine.run(&project, &["validate"], &[]);
    assert!(
        !validate.stdout().contains("not to be read"),
        "{}",
        validate.stdout()
    );
}

#[test]
fn a_path_the_commit_lacks_or_that_names_a_file_is_a_clear_error() {
    let machine = Machine::new();
    let commit = machine.commit(&[("modules/core/rules/a.md", "# A\n")]);
    let cases = [
        (
            "modules/none",
            "does not exist in commit {commit}; fix `path` (relative to the repository root) or `ref`",
        ),
        (
            "modules/core/rules/a.md",
            "is a file in commit {commit}, not a folder; name the folder holding the shared rules",
        ),
    ];
    for (path, problem) in cases {
        let project = project_with(&include(
            &machine.file_url(),
            &format!("path = \"{path}\"\n"),
        ));
        let generate = machine.run(&project, &["generate"], &[]);
        generate.expect_code(1);
        assert_eq!(
            generate.stderr(),
            format!(
                "error: .ai-rulez/config.toml: `includes[0]` (`shared`, {}): `path` = \"{path}\" {}\n",
                machine.file_url(),
                problem.replace("{commit}", &commit)
            )
        );
    }
    let project = project_with(&include(&machine.file_url(), "path = \"modules/core/\"\n"));
    let generate = machine.run(&project, &["generate"], &[]);
    generate.expect_code(0);
    assert_eq!(
        project.read(".claude/rules/a.md"),
        rule_output("a.md", "# A\n")
    );
}

#[test]
fn lock_check_compares_the_pins_with_the_config_without_fetching() {
    let machine = Machine::new();
    machine.commit(&[("rules/a.md", "# A\n")]);
    let project = project_with(&include(&machine.file_url(), "ref = \"main\"\n"));
    machine.run(&project, &["generate"], &[]).expect_code(0);
    machine.run(&project, &["lock"], &[]).expect_code(0);
    // Without the upstream and without the cache, the pre-commit check still answers.
    fs_err::remove_dir_all(machine.bare()).expect("remove upstream");
    fs_err::remove_dir_all(machine.cache()).expect("remove cache");
    machine
        .run(&project, &["lock", "--check"], &[])
        .expect_code(0);
    let config = project
        .read(".ai-rulez/config.toml")
        .replace("ref = \"main\"", "ref = \"v2\"");
    project.write(".ai-rulez/config.toml", config);
    let check = machine.run(&project, &["lock", "--check"], &[]);
    check.expect_code(2);
    assert_eq!(
        check.stdout(),
        format!(
            "source changed config config.toml (.ai-rulez/config.toml)\ninclude changed shared ({})\n",
            machine.file_url()
        )
    );
    assert!(!machine.cache().exists());
}

#[test]
fn over_ssh_through_the_ssh_program() {
    let machine = Machine::new();
    machine.commit(&[("rules/a.md", "# A\n")]);
    // A stand-in for ssh: it skips the options and the host and runs the remote command (git's
    // `git-upload-pack '<path>'`) here, as sshd would on the server.
    let fake = machine.path().join("ssh");
    fs_err::write(
        &fake,
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do\n  case \"$1\" in\n    -G) exit 0 ;;\n    -o|-p|-l|-i) shift 2 ;;\n    -*) shift ;;\n    *) break ;;\n  esac\ndone\nshift\nexec sh -c \"$*\"\n",
    )
    .expect("write");
    {
        use std::os::unix::fs::PermissionsExt as _;
        fs_err::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let source = format!("git+ssh://git@upstream.invalid{}", machine.bare().display());
    let project = project_with(&include(&source, ""));
    let fake_text = fake.display().to_string();
    let generate = machine.run(&project, &["generate"], &[("GIT_SSH_COMMAND", &fake_text)]);
    generate.expect_code(0);
    assert_eq!(generate.stdout(), GENERATED);
    assert_eq!(
        project.read(".claude/rules/a.md"),
        rule_output("a.md", "# A\n")
    );
}
