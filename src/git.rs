//! The few git facts generation needs, read with gix (no `git` subprocess): whether a path is
//! ignored, so a resolved secret is never written to a file git would commit; the blob id of a
//! working-tree file, so a learning knows whether the files it was read from changed.

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::{Error, Result};

/// Whether git ignores the project-relative `relative` path (`.gitignore` files,
/// `.git/info/exclude` and `core.excludesFile`). Outside a git repository nothing is ignored.
///
/// Errors: [`Error::Usage`] when the repository exists but cannot be read.
pub(crate) fn is_ignored(project_root: &Path, relative: &str) -> Result<bool> {
    // Git's answer depends on files outside the confined layer's record of reads.
    crate::confined_fs::record::taint();
    Ok(!ignored_among(project_root, &[relative])?.is_empty())
}

/// The paths among `relative` (project-relative) that git ignores. The repository, its index and
/// its ignore rules are read once for all of them, which keeps `lock --check --staged` cheap
/// when many generated files are ignored.
///
/// Errors: [`Error::Usage`] when the repository exists but cannot be read.
pub(crate) fn ignored_among(project_root: &Path, relative: &[&str]) -> Result<BTreeSet<String>> {
    // Git's answer depends on files outside the confined layer's record of reads.
    crate::confined_fs::record::taint();
    let mut ignored = BTreeSet::new();
    if relative.is_empty() {
        return Ok(ignored);
    }
    let Ok(repository) = gix::discover(project_root) else {
        return Ok(ignored);
    };
    let Some(prefix) = index_prefix(&repository, project_root) else {
        return Ok(ignored);
    };
    let failure = |error: &dyn std::fmt::Display| {
        Error::Usage(format!("cannot read git ignore rules: {error}"))
    };
    let index = repository
        .index_or_empty()
        .map_err(|error| failure(&error))?;
    let mut stack = repository
        .excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(|error| failure(&error))?;
    for path in relative {
        let platform = stack
            .at_path(format!("{prefix}{path}"), None)
            .map_err(|error| failure(&error))?;
        if platform.is_excluded() {
            ignored.insert((*path).to_owned());
        }
    }
    Ok(ignored)
}

/// The files git lists among a project's files: `walked` (project-relative paths found by a walk
/// that read only the project's own ignore files) less those git ignores and does not track,
/// plus every tracked regular file or symlink of the project for which `wanted` holds, which a
/// walk that skips ignored folders misses when it was added with `git add --force`. Git's verdict
/// takes in what a walk of the project alone cannot see: `.gitignore` files of the folders
/// above the project, `.git/info/exclude` and `core.excludesFile`. Output: sorted, without
/// duplicates. Outside a git repository, or when the project is not in its work tree, `walked`
/// is returned sorted as it is. Submodules in the index are not files and are left out.
///
/// Errors: [`Error::Usage`] when the repository exists but its index or ignore rules cannot be
/// read.
pub(crate) fn listed_among(
    project_root: &Path,
    walked: Vec<String>,
    wanted: impl Fn(&str) -> bool,
) -> Result<Vec<String>> {
    // Git's answer depends on files outside the confined layer's record of reads.
    crate::confined_fs::record::taint();
    let fallback = |mut walked: Vec<String>| {
        walked.sort();
        walked.dedup();
        Ok(walked)
    };
    let Ok(repository) = gix::discover(project_root) else {
        return fallback(walked);
    };
    let Some(prefix) = index_prefix(&repository, project_root) else {
        return fallback(walked);
    };
    let failure = |error: &dyn std::fmt::Display| {
        Error::Usage(format!("cannot read what git lists: {error}"))
    };
    let index = repository
        .index_or_empty()
        .map_err(|error| failure(&error))?;
    let mut listed = BTreeSet::new();
    for entry in index.entries() {
        let is_file_or_link = matches!(
            entry.mode,
            gix::index::entry::Mode::FILE
                | gix::index::entry::Mode::FILE_EXECUTABLE
                | gix::index::entry::Mode::SYMLINK
        );
        let Ok(path) = std::str::from_utf8(entry.path(&index)) else {
            continue;
        };
        if let Some(relative) = path.strip_prefix(prefix.as_str())
            && is_file_or_link
            && wanted(relative)
        {
            listed.insert(relative.to_owned());
        }
    }
    let mut stack = repository
        .excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(|error| failure(&error))?;
    for path in walked {
        if listed.contains(&path) {
            continue;
        }
        let platform = stack
            .at_path(
                format!("{prefix}{path}"),
                Some(gix::index::entry::Mode::FILE),
            )
            .map_err(|error| failure(&error))?;
        if !platform.is_excluded() {
            listed.insert(path);
        }
    }
    Ok(listed.into_iter().collect())
}

/// Where the project sits in the repository: the prefix (empty, or ending in `/`) that index
/// paths of files inside the project start with. `None` when the repository has no work tree or
/// the project is not inside it.
#[must_use]
pub(crate) fn index_prefix(repository: &gix::Repository, project_root: &Path) -> Option<String> {
    // Git's answer depends on files outside the confined layer's record of reads.
    crate::confined_fs::record::taint();
    let workdir = fs_err::canonicalize(repository.workdir()?).ok()?;
    let root = fs_err::canonicalize(project_root).ok()?;
    // Index paths are UTF-8 with `/`; a project under a non-UTF-8 folder has no index prefix.
    let relative = camino::Utf8Path::from_path(root.strip_prefix(&workdir).ok()?)?.as_str();
    Some(if relative.is_empty() {
        String::new()
    } else {
        format!("{relative}/")
    })
}

/// Whether the git index holds the project-relative `relative` path (a tracked file). Outside a
/// repository nothing is tracked.
///
/// Errors: [`Error::Usage`] when the repository exists but its index cannot be read.
pub(crate) fn is_tracked(project_root: &Path, relative: &str) -> Result<bool> {
    // Git's answer depends on files outside the confined layer's record of reads.
    crate::confined_fs::record::taint();
    let Ok(repository) = gix::discover(project_root) else {
        return Ok(false);
    };
    let Some(prefix) = index_prefix(&repository, project_root) else {
        return Ok(false);
    };
    let index = repository
        .index_or_empty()
        .map_err(|error| Error::Usage(format!("cannot read the git index: {error}")))?;
    let wanted = format!("{prefix}{relative}");
    Ok(index
        .entries()
        .iter()
        .any(|entry| entry.path(&index) == wanted.as_str()))
}

/// The git blob id (SHA-1, 40 lowercase hex digits) of a working-tree file's `bytes`, as git
/// would store the file with its usual line-end conversion (`core.autocrlf` or `text=auto`):
/// a file that looks like text (no NUL byte, no carriage return outside a CRLF pair) is hashed
/// with CRLF turned into LF, any other file byte for byte. So a checkout with CRLF line ends
/// gives the id of the LF blob, the one `git hash-object` reports under `core.autocrlf`; custom
/// clean filters of `.gitattributes` (such as Git LFS) are not run. `None` only for bytes gix
/// recognises as a SHA-1 collision attack, which have no trustworthy id.
#[must_use]
pub(crate) fn worktree_blob_id(bytes: &[u8]) -> Option<String> {
    let normalised = if looks_like_text(bytes) {
        crate::hash::lf_line_ends(bytes)
    } else {
        std::borrow::Cow::Borrowed(bytes)
    };
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &normalised)
        .ok()
        .map(|id| id.to_string())
}

/// Git's test for converting line ends of a file whose attributes say `auto`: text has no NUL
/// byte and no carriage return that is not followed by a line feed.
fn looks_like_text(bytes: &[u8]) -> bool {
    !bytes
        .iter()
        .enumerate()
        .any(|(index, byte)| *byte == 0 || (*byte == b'\r' && bytes.get(index + 1) != Some(&b'\n')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits_and_ignore_crlf_in_text_only() {
        // `printf 'hello\n' | git hash-object --stdin`
        let hello = "ce013625030ba8dba906f756967f9e9ca394464a";
        assert_eq!(worktree_blob_id(b"hello\n").as_deref(), Some(hello));
        assert_eq!(worktree_blob_id(b"hello\r\n").as_deref(), Some(hello));
        // A NUL byte or a lone carriage return makes it binary: hashed byte for byte.
        assert_ne!(worktree_blob_id(b"a\r\nb\0"), worktree_blob_id(b"a\nb\0"));
        assert_ne!(worktree_blob_id(b"a\r\nb\r"), worktree_blob_id(b"a\nb\r"));
    }
}
