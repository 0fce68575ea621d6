//! The skill folders of one skills folder listed, and their resource files read, ahead on
//! several threads before the loader takes the skills one by one in name order. Each skill
//! costs a few listings and reads (500 skills: about 13 ms of a server's first load on one
//! core), and each skill's are independent. The loader still decides everything in order
//! (errors, warnings, the byte budget, the parse cache): it takes a listing or read from here
//! when there is one and makes it itself otherwise, so the result is the same as looking at one
//! folder after another.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{MAX_FILE_BYTES, SKILL_RESOURCE_FOLDERS, Tree, join};
use crate::confined_fs::{Entry, EntryKind, Info};
use crate::error::Result;

/// Fewest skills in a folder worth reading ahead; a smaller folder is read in order.
const LEAST_SKILLS: usize = 64;

/// A folder's listing as `ProjectDir::list` gives it.
type Listing = Result<Option<Vec<Entry>>>;

/// A folder's listing with each entry's facts, as `ProjectDir::list_with_info` gives it.
type ListingWithInfo = Result<Option<Vec<(Entry, Info)>>>;

/// A file's bytes and mode, as `ProjectDir::read` gives them.
type Read = Result<Option<(Vec<u8>, u32)>>;

/// What was looked at ahead, by path relative to the tree's folder; each is taken once.
#[derive(Default)]
pub(super) struct SkillsAhead {
    /// Resource folders as `ProjectDir::list` gives them (and skill folders without a parse
    /// cache).
    listings: HashMap<String, Listing>,
    /// Skill folders as `ProjectDir::list_with_info` gives them (with a parse cache).
    listings_with_info: HashMap<String, ListingWithInfo>,
    /// Resource files as `ProjectDir::read` gives them.
    reads: HashMap<String, Read>,
}

impl SkillsAhead {
    /// The listing of `folder` made ahead, if any.
    pub(super) fn take_listing(&mut self, folder: &str) -> Option<Listing> {
        self.listings.remove(folder)
    }

    /// The listing with facts of `folder` made ahead, if any.
    pub(super) fn take_listing_with_info(&mut self, folder: &str) -> Option<ListingWithInfo> {
        self.listings_with_info.remove(folder)
    }

    /// The read of `file` made ahead, if any.
    pub(super) fn take_read(&mut self, file: &str) -> Option<Read> {
        self.reads.remove(file)
    }

    fn extend(&mut self, other: Self) {
        self.listings.extend(other.listings);
        self.listings_with_info.extend(other.listings_with_info);
        self.reads.extend(other.reads);
    }
}

/// The skill folders `names` of `folder` listed (with each file's facts when `stamps` is set,
/// as the loader does with a parse cache), and below each, the resource folders the loader
/// walks listed and their files read, until the bytes read reach `budget` (the bytes the tree
/// may still read). Empty for fewer than [`LEAST_SKILLS`] skills. Symlinks are never followed
/// and folders deeper than the loader walks are not looked at.
pub(super) fn read_ahead(
    tree: &Tree<'_>,
    folder: &str,
    names: &[String],
    stamps: bool,
    budget: u64,
) -> SkillsAhead {
    let mut ahead = SkillsAhead::default();
    if names.len() < LEAST_SKILLS {
        return ahead;
    }
    let spent = AtomicU64::new(0);
    let parts = crate::parallel::map_in_order(names, |name| {
        let mut part = SkillsAhead::default();
        let skill_dir = join(folder, name);
        let entries: Vec<(String, EntryKind)> = if stamps {
            let listed = tree.dir.list_with_info(&skill_dir);
            let entries = match &listed {
                Ok(Some(listed)) => listed
                    .iter()
                    .filter(|(entry, _)| entry.exact_name)
                    .map(|(entry, _)| (entry.name.clone(), entry.kind))
                    .collect(),
                _ => Vec::new(),
            };
            part.listings_with_info.insert(skill_dir.clone(), listed);
            entries
        } else {
            let listed = tree.dir.list(&skill_dir);
            let entries = exact_entries(&listed);
            part.listings.insert(skill_dir.clone(), listed);
            entries
        };
        for (name, kind) in entries {
            if SKILL_RESOURCE_FOLDERS.contains(&name.as_str()) {
                let relative = join(&skill_dir, &name);
                resource_ahead(tree, &skill_dir, &relative, kind, &spent, budget, &mut part);
            }
        }
        part
    });
    for part in parts {
        ahead.extend(part);
    }
    ahead
}

/// The names and kinds of the entries of `listed` whose names are exactly as on disk (the
/// loader reports the others and skips them).
fn exact_entries(listed: &Listing) -> Vec<(String, EntryKind)> {
    match listed {
        Ok(Some(entries)) => entries
            .iter()
            .filter(|entry| entry.exact_name)
            .map(|entry| (entry.name.clone(), entry.kind))
            .collect(),
        _ => Vec::new(),
    }
}

/// Lists (a folder) or reads (a file) `relative`, a resource path below `skill_dir` of `kind`,
/// as the loader's walk of resources would, into `part`.
fn resource_ahead(
    tree: &Tree<'_>,
    skill_dir: &str,
    relative: &str,
    kind: EntryKind,
    spent: &AtomicU64,
    budget: u64,
    part: &mut SkillsAhead,
) {
    let depth = relative[skill_dir.len()..].matches('/').count();
    if depth > crate::limits::MAX_FOLDER_DEPTH {
        return;
    }
    match kind {
        EntryKind::Folder => {
            let listed = tree.dir.list(relative);
            let entries = exact_entries(&listed);
            part.listings.insert(relative.to_owned(), listed);
            for (name, kind) in entries {
                let inner = join(relative, &name);
                resource_ahead(tree, skill_dir, &inner, kind, spent, budget, part);
            }
        }
        EntryKind::File => {
            if spent.load(Ordering::Relaxed) >= budget {
                return;
            }
            let read = tree.dir.read(relative, MAX_FILE_BYTES);
            if let Ok(Some((bytes, _))) = &read {
                spent.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            }
            part.reads.insert(relative.to_owned(), read);
        }
        EntryKind::Symlink | EntryKind::Other => {}
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::path::Path;

    use crate::content::ParseCache;

    /// A project with `count` skills `s00`, `s01`, ... each with `references/notes.md` and an
    /// executable `scripts/run.sh`, where `s01` links a resource file out of the tree, `s02`
    /// links its whole `references` folder, `s03` holds a pipe, `s04` nests folders deeper
    /// than the loader walks and `s05` has a folder the skill format does not ship.
    fn skills_project(count: usize) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt as _;
        let folder = tempfile::tempdir().expect("temporary folder");
        let root = folder.path();
        let write = |relative: &str, text: &str| {
            let path = root.join(relative);
            fs_err::create_dir_all(path.parent().expect("parent")).expect("folder");
            fs_err::write(path, text).expect("file");
        };
        write(
            ".ai-rulez/config.toml",
            "version = \"5.0\"\nname = \"p\"\npresets = [\"claude\"]\n",
        );
        for number in 0..count {
            let skill = format!(".ai-rulez/skills/s{number:02}");
            write(
                &format!("{skill}/SKILL.md"),
                &format!("---\ndescription: Skill {number}.\n---\nRead references/notes.md.\n"),
            );
            write(
                &format!("{skill}/references/notes.md"),
                &format!("Notes {number}.\n"),
            );
            write(&format!("{skill}/scripts/run.sh"), "#!/bin/sh\necho hi\n");
            let script = root.join(format!("{skill}/scripts/run.sh"));
            fs_err::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
        let outside = root.join("outside.md");
        fs_err::write(&outside, "outside\n").expect("outside");
        std::os::unix::fs::symlink(
            &outside,
            root.join(".ai-rulez/skills/s01/references/linked.md"),
        )
        .expect("symlink");
        let references = root.join(".ai-rulez/skills/s02/references");
        fs_err::remove_dir_all(&references).expect("remove");
        std::os::unix::fs::symlink(root.join(".ai-rulez/skills/s00/references"), &references)
            .expect("symlink");
        fs_err::create_dir_all(root.join(".ai-rulez/skills/s03/assets")).expect("folder");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            root.join(".ai-rulez/skills/s03/assets/pipe").as_path(),
            rustix::fs::Mode::from_raw_mode(0o644),
        )
        .expect("pipe");
        let deep = (0..34).fold(String::new(), |mut path, level| {
            path.push_str(&format!("d{level}/"));
            path
        });
        write(
            &format!(".ai-rulez/skills/s04/references/{deep}deep.md"),
            "deep\n",
        );
        write(".ai-rulez/skills/s05/examples/a.md", "example\n");
        folder
    }

    /// What loading the project at `root` gives for skills `s00` to `s05`: each skill's
    /// resources, then every error and warning.
    fn load_first_six(root: &Path, cache: Option<&mut ParseCache>) -> String {
        let mut warnings = Vec::new();
        let (project, errors) = crate::project::load_lenient_cached(
            root,
            &mut warnings,
            cache,
            crate::git_include::GitIncludes::CacheOnly,
        )
        .expect("project loads");
        let mut shown = String::new();
        for item in project.tree.items.iter().take(6) {
            shown.push_str(&format!("{}:", item.id));
            for resource in &item.resources {
                shown.push_str(&format!(
                    " {} {}{}",
                    resource.relative_path,
                    resource.bytes.len(),
                    if resource.executable { "x" } else { "" }
                ));
            }
            shown.push('\n');
        }
        for error in errors {
            shown.push_str(&format!("error: {error}\n"));
        }
        for warning in warnings {
            shown.push_str(&format!("warning: {warning}\n"));
        }
        shown
    }

    #[test]
    fn skills_read_ahead_load_exactly_as_skills_read_in_order() {
        // 63 skills are read in order, 70 ahead; the first six load the same either way, with
        // and without a parse cache (which lists folders with each file's facts).
        let in_order = skills_project(super::LEAST_SKILLS - 1);
        let ahead = skills_project(super::LEAST_SKILLS + 6);
        let expected = load_first_six(in_order.path(), None);
        assert_eq!(load_first_six(ahead.path(), None), expected);
        let mut cache = ParseCache::default();
        assert_eq!(load_first_six(ahead.path(), Some(&mut cache)), expected);
        let mut cache = ParseCache::default();
        assert_eq!(load_first_six(in_order.path(), Some(&mut cache)), expected);
        // The cases are all there.
        for expected_part in [
            "s00: references/notes.md 9 scripts/run.sh 18x\n",
            "s02: scripts/run.sh 18x\n",
            "error: .ai-rulez/skills/s01/references/linked.md: is a symlink;",
            "error: .ai-rulez/skills/s02/references: is a symlink;",
            "error: .ai-rulez/skills/s03/assets/pipe: is not a regular file",
            "/d31: nests folders deeper than 32 levels inside a skill",
            "warning: .ai-rulez/skills/s05/examples: not copied;",
        ] {
            assert!(
                expected.contains(expected_part),
                "{expected_part} in\n{expected}"
            );
        }
    }
}
