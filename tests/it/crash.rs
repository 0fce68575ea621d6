//! B56: a `kill -9` at any instant of `generate` leaves a state the next run repairs to exactly
//! the tree a clean run gives, with no temporary file left, and `--check` reports what an
//! interrupted run left behind.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use crate::support::Project;

const CONFIG: &str = "version = \"5.0\"\nname = \"crash\"\npresets = [\"claude\", \"cursor\", \"copilot\"]\ngitignore = true\n";

/// Writes rules `0..count` (half of them scoped to a folder) and removes any rule above.
fn write_rules(project: &Project, count: usize, previous: usize) {
    for index in 0..count {
        let body = if index % 2 == 0 {
            format!(
                "---\npaths: [\"src/m{index}/**\"]\n---\n# Rule {index}\n\nScoped body {index}.\n"
            )
        } else {
            format!("# Rule {index}\n\nGlobal body {index}.\n")
        };
        project.write(&format!(".ai-rulez/rules/r{index:03}.md"), body);
    }
    for index in count..previous {
        fs_err::remove_file(
            project
                .path()
                .join(format!(".ai-rulez/rules/r{index:03}.md")),
        )
        .expect("remove rule");
    }
}

/// Every file's bytes below the project (except `.git/`).
fn tree(project: &Project) -> BTreeMap<String, Vec<u8>> {
    project
        .files()
        .into_iter()
        // The machine-local record of output stats depends on when files were last written
        // (only settled files are recorded); it is a hint, not part of the generated tree.
        .filter(|path| path != ".ai-rulez/local/output-stats")
        .map(|path| {
            let bytes = project.read_bytes(&path);
            (path, bytes)
        })
        .collect()
}

/// What a clean run gives for `count` rules, in a fresh project.
fn clean_result(count: usize) -> BTreeMap<String, Vec<u8>> {
    let reference = Project::empty();
    reference.write(".ai-rulez/config.toml", CONFIG);
    write_rules(&reference, count, 0);
    reference.run(&["generate"]).expect_code(0);
    tree(&reference)
}

#[test]
fn b56_killed_generates_are_repaired_to_the_exact_clean_tree() {
    let project = Project::empty();
    project.write(".ai-rulez/config.toml", CONFIG);
    // Shrinking and growing rule sets, so kills land among deletions of orphans and creations.
    let sizes = [120, 40, 120, 10, 80];
    let mut previous = 0;
    let mut interrupted_runs = 0;
    for (round, &count) in sizes.iter().cycle().take(15).enumerate() {
        write_rules(&project, count, previous);
        previous = count;
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("ai-rulez"))
            .arg("generate")
            .current_dir(project.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start generate");
        // Kill moments spread over the run (a debug build takes 50-500 ms here).
        std::thread::sleep(Duration::from_millis((round as u64 * 37) % 150));
        child.kill().ok();
        child.wait().expect("wait");
        if project.exists(".ai-rulez/.generated-manifest.pending.json") {
            interrupted_runs += 1;
            let check = project.run(&["generate", "--check"]);
            check.expect_code(2);
            assert!(
                check
                    .stdout()
                    .lines()
                    .any(|line| line == "leftover: .ai-rulez/.generated-manifest.pending.json"),
                "{}",
                check.stdout()
            );
        }
        project.run(&["generate"]).expect_code(0);
        assert_eq!(
            tree(&project),
            clean_result(count),
            "round {round}: the repaired tree differs from a clean run's"
        );
        project.run(&["generate", "--check"]).expect_code(0);
        let temporaries: Vec<String> = project
            .files()
            .into_iter()
            .filter(|path| {
                path.rsplit('/')
                    .next()
                    .is_some_and(|name| name.starts_with(".ai-rulez-"))
            })
            .collect();
        assert_eq!(temporaries, Vec::<String>::new(), "round {round}");
    }
    // The kills must have hit runs in progress at least once, or the test proved nothing.
    eprintln!("crash: {interrupted_runs} of 15 kills interrupted a run");
}

#[test]
fn b56_a_leftover_temporary_file_is_reported_by_check_and_removed_by_generate() {
    let project = Project::empty();
    project.write(".ai-rulez/config.toml", CONFIG);
    write_rules(&project, 3, 0);
    project.run(&["generate"]).expect_code(0);
    let clean = tree(&project);
    // What an interrupted run leaves: its journal and a half-written temporary file next to an
    // output (named as ai-rulez names the temporary file of CLAUDE.md).
    let manifest = project.read(".ai-rulez/.generated-manifest.json");
    project.write(".ai-rulez/.generated-manifest.pending.json", &manifest);
    let temporary = ai_rulez::testing::confined_fs::temporary_path(".claude/rules/r000.md");
    project.write(&temporary, "half a fi");
    let check = project.run(&["generate", "--check"]);
    check.expect_code(2);
    assert_eq!(
        check.stdout(),
        format!("leftover: .ai-rulez/.generated-manifest.pending.json\nleftover: {temporary}\n")
    );
    let run = project.run(&["generate"]);
    run.expect_code(0);
    assert_eq!(tree(&project), clean);
}

/// Sets the modification time of the project file `relative` to an hour ago.
fn age_an_hour(project: &Project, relative: &str) {
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_hours(1);
    std::fs::File::options()
        .write(true)
        .open(project.path().join(relative))
        .and_then(|file| file.set_modified(an_hour_ago))
        .expect("age the file");
}

/// B56, the whole kind: a killed `lock` (or `memory add`, or a cache write) leaves its temporary
/// file in a folder `generate` does not scan. The next write into that folder removes the
/// temporaries too old to belong to a write in progress, and keeps a young one and every file
/// that only looks like one.
#[test]
fn b56_a_later_write_into_the_folder_removes_a_stale_temporary_of_any_writer() {
    let project = Project::empty();
    project.write(".ai-rulez/config.toml", CONFIG);
    write_rules(&project, 3, 0);
    project.run(&["generate"]).expect_code(0);
    let stale = ai_rulez::testing::confined_fs::temporary_path(".ai-rulez/ai-rulez.lock");
    let young = ai_rulez::testing::confined_fs::temporary_path(".ai-rulez/ai-rulez.lock");
    let look_alike = ".ai-rulez/.ai-rulez-0123456789abcdef-0123ABCD.tmp";
    for path in [stale.as_str(), young.as_str(), look_alike] {
        project.write(path, "half a lo");
    }
    age_an_hour(&project, &stale);
    age_an_hour(&project, look_alike);
    project.run(&["lock"]).expect_code(0);
    assert!(!project.exists(&stale), "{stale} is still there");
    assert!(project.exists(&young));
    assert!(project.exists(look_alike));
}
