//! The learning file: `.ai-rulez/learnings/<id>.md`, written by `record_learning` and
//! `retire_learning`, read by every check. Files laid out as written are read without the YAML
//! parser (reviewing thousands of learnings is mostly reading them); any other layout a person
//! may write is read with it.
//!
//! File format (written here, hand edits allowed as long as it parses):
//!
//! ```text
//! ---
//! sources:
//!   - path: src/db/pool.rs
//!     blob: 3b18e512dba79e4c8300dd08aeb37f8e728b8dad
//! created: 2026-12-01
//! replaces: pool-is-global        (optional: the learning this one replaced)
//! retired: 2026-12-02             (optional: kept for history, never served)
//! replaced_by: pool-is-per-thread (optional)
//! ---
//! The claim, in the agent's words.
//! ```

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use serde::{Deserialize, Serialize};

use super::{base_folder, today};
use crate::error::{Error, Result};
use crate::frontmatter;
use crate::project::Project;

/// Largest learning file read, in bytes.
pub(crate) const MAX_LEARNING_BYTES: u64 = 256 * 1024;

/// One file a learning was read from, with its git blob id when the learning was recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SourceFile {
    /// Project-relative path (`/`-separated).
    pub path: String,
    /// Git blob id (40 hex digits) of the file's content, line ends normalised as git does.
    pub blob: String,
}

/// The frontmatter keys of a learning file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LearningKeys {
    sources: Vec<SourceFile>,
    #[serde(default)]
    created: Option<String>,
    #[serde(default)]
    replaces: Option<String>,
    #[serde(default)]
    retired: Option<String>,
    #[serde(default)]
    replaced_by: Option<String>,
}

/// One learning file as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Learning {
    /// The file stem.
    pub id: String,
    /// Project-relative path of the file.
    pub path: String,
    /// The claim (the file's body, trimmed).
    pub claim: String,
    /// The files it was read from, in file order.
    pub sources: Vec<SourceFile>,
    /// `created` (`YYYY-MM-DD`), when written.
    pub created: Option<String>,
    /// `replaces`, when written.
    pub replaces: Option<String>,
    /// `retired` (`YYYY-MM-DD`), when retired.
    pub retired: Option<String>,
    /// `replaced_by`, when a newer learning replaced it.
    pub replaced_by: Option<String>,
    /// The frontmatter text, kept so a rewrite keeps the rest of the file as written.
    pub(super) yaml: String,
}

/// The project-relative folder of learning files (`.ai-rulez/learnings`).
#[must_use]
pub(crate) fn folder(project: &Project) -> String {
    format!("{}/{}", base_folder(project), super::LEARNINGS_FOLDER)
}

/// Parses the learning file at `path` (its stem is the id).
///
/// Errors: [`Error::Invalid`] naming the file when the frontmatter does not parse, has unknown
/// keys or lacks `sources`, or the body (the claim) is empty.
pub(crate) fn parse(path: &str, bytes: &[u8]) -> Result<Learning> {
    if let Some(learning) = parse_as_written(path, bytes) {
        return Ok(learning);
    }
    let document = frontmatter::parse(path, bytes)?;
    let invalid = |message: String| Error::invalid(path, None, message);
    let values = serde_json::Value::Object(document.values.into_iter().collect());
    let keys: LearningKeys = serde_json::from_value(values).map_err(|error| {
        invalid(format!(
            "is not a learning file: {error}; a learning has `sources` (a list of `path` and `blob`) and optional `created`, `replaces`, `retired`, `replaced_by`"
        ))
    })?;
    let claim = document.body.trim().to_owned();
    if claim.is_empty() {
        return Err(invalid(
            "has no claim: write the claim below the frontmatter".to_owned(),
        ));
    }
    Ok(Learning {
        id: id_of(path),
        path: path.to_owned(),
        claim,
        sources: keys.sources,
        created: keys.created,
        replaces: keys.replaces,
        retired: keys.retired,
        replaced_by: keys.replaced_by,
        yaml: document.yaml.unwrap_or_default(),
    })
}

/// Reads a learning file laid out exactly as [`render`] and `retire_learning` write it (LF line
/// ends, block list of `path`/`blob` pairs, one-line values, plain or JSON-quoted) without the
/// YAML parser, which is most of the cost of reviewing thousands of learnings. `None` for any
/// other layout (a comment, a flow list, a hand edit), which [`parse`] then reads with the YAML
/// parser; both give the same [`Learning`] for what this accepts.
fn parse_as_written(path: &str, bytes: &[u8]) -> Option<Learning> {
    let text = std::str::from_utf8(bytes).ok()?;
    if text.starts_with('\u{feff}') || text.contains('\r') {
        return None;
    }
    let after_open = text.strip_prefix("---\n")?;
    let mut yaml_end = None;
    let mut offset = 0;
    for line in after_open.split_inclusive('\n') {
        let content = line.strip_suffix('\n').unwrap_or(line);
        if content.trim_end() == "---" {
            // The YAML reader closes at the first such line; accept only the exact fence.
            if content != "---" {
                return None;
            }
            yaml_end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let (yaml_len, body_start) = yaml_end?;
    let yaml = &after_open[..yaml_len];
    let claim = after_open[body_start..].trim();
    let scalar = |value: &str| -> Option<String> {
        if value.starts_with('"') {
            serde_json::from_str::<String>(value).ok()
        } else {
            (frontmatter::yaml_string(value) == value).then(|| value.to_owned())
        }
    };
    let mut sources: Option<Vec<SourceFile>> = None;
    let mut fields: [Option<String>; 4] = [None, None, None, None];
    for line in yaml.lines() {
        if line == "sources:" && sources.is_none() {
            sources = Some(Vec::new());
        } else if let Some(value) = line.strip_prefix("  - path: ") {
            sources.as_mut()?.push(SourceFile {
                path: scalar(value)?,
                blob: String::new(),
            });
        } else if let Some(value) = line.strip_prefix("    blob: ") {
            let last = sources.as_mut()?.last_mut()?;
            if !last.blob.is_empty() {
                return None;
            }
            last.blob = scalar(value)?;
        } else {
            let (key, value) = line.split_once(": ")?;
            let index = ["created", "replaces", "retired", "replaced_by"]
                .iter()
                .position(|known| *known == key)?;
            if fields[index].is_some() {
                return None;
            }
            fields[index] = Some(scalar(value)?);
        }
    }
    let sources = sources?;
    if claim.is_empty() || sources.iter().any(|source| source.blob.is_empty()) {
        return None;
    }
    let [created, replaces, retired, replaced_by] = fields;
    Some(Learning {
        id: id_of(path),
        path: path.to_owned(),
        claim: claim.to_owned(),
        sources,
        created,
        replaces,
        retired,
        replaced_by,
        yaml: yaml.to_owned(),
    })
}

/// The id of the learning file at `path`: its stem.
fn id_of(path: &str) -> String {
    path.rsplit('/')
        .next()
        .and_then(|name| name.strip_suffix(".md"))
        .unwrap_or(path)
        .to_owned()
}

/// Learning files already parsed by this process, by the absolute path of their folder, then
/// by file name: the size and modification time they had, and what they held. A file whose
/// size or time differs is read again.
type ParsedFolders = HashMap<PathBuf, HashMap<String, (u64, (i64, i64), Learning)>>;

static PARSED: LazyLock<Mutex<ParsedFolders>> = LazyLock::new(Mutex::default);

/// A file modified this recently (seconds) is read again on every load: another write in the
/// same clock tick could keep its size and time (git's "racily clean" rule).
const RACY_SECONDS: i64 = 2;

/// Every learning file of `project`, sorted by id, and the files that could not be read (each
/// a message naming the file and what to do). Files unchanged (same size and modification
/// time, older than [`RACY_SECONDS`]) since this process last read them are not read again, so
/// a server answering `get_context` repeatedly reads only what changed.
///
/// Errors: the learnings folder is a symlink or cannot be listed.
pub(crate) fn load_all(project: &Project) -> Result<(Vec<Learning>, Vec<String>)> {
    let folder = folder(project);
    let mut learnings = Vec::new();
    let mut problems = Vec::new();
    let Some(entries) = project.dir.list_with_info(&folder)? else {
        return Ok((learnings, problems));
    };
    let key = project.root.join(&folder);
    let mut parsed = PARSED
        .lock()
        .map(|mut folders| folders.remove(&key).unwrap_or_default())
        .unwrap_or_default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        });
    let mut kept = HashMap::with_capacity(entries.len());
    for (entry, info) in entries {
        let markdown = std::path::Path::new(&entry.name)
            .extension()
            .is_some_and(|extension| extension == "md");
        if !markdown || !entry.exact_name || entry.name.starts_with('.') {
            continue;
        }
        if let Some((len, modified, learning)) = parsed.remove(&entry.name)
            && len == info.len
            && modified == info.modified
        {
            learnings.push(learning.clone());
            kept.insert(entry.name, (len, modified, learning));
            continue;
        }
        let path = format!("{folder}/{}", entry.name);
        let read = project
            .dir
            .read(&path, MAX_LEARNING_BYTES)
            .and_then(|bytes| {
                let (bytes, _) =
                    bytes.ok_or_else(|| Error::refused(&path, "was removed while being read"))?;
                parse(&path, &bytes)
            });
        match read {
            Ok(learning) => {
                if info.modified.0 < now - RACY_SECONDS {
                    kept.insert(entry.name, (info.len, info.modified, learning.clone()));
                }
                learnings.push(learning);
            }
            Err(error) => problems.push(error.to_string()),
        }
    }
    if let Ok(mut folders) = PARSED.lock() {
        folders.insert(key, kept);
    }
    // File names sort `a-2.md` before `a.md`; ids sort `a` first.
    learnings.sort_by(|left, right| left.id.cmp(&right.id));
    Ok((learnings, problems))
}

/// The file text of a new learning.
pub(super) fn render(claim: &str, sources: &[SourceFile], replaces: Option<&str>) -> String {
    let mut text = String::from("---\nsources:\n");
    for source in sources {
        text.push_str(&format!(
            "  - path: {}\n    blob: {}\n",
            frontmatter::yaml_string(&source.path),
            // An id of digits only (or digits around one `e`) would read back as a number.
            frontmatter::yaml_string(&source.blob)
        ));
    }
    text.push_str(&format!("created: {}\n", today()));
    if let Some(old) = replaces {
        text.push_str(&format!("replaces: {}\n", frontmatter::yaml_string(old)));
    }
    text.push_str("---\n");
    text.push_str(claim);
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_reader_agrees_with_the_yaml_reader() {
        let sources = vec![
            SourceFile {
                path: "src/a b: c.rs".to_owned(),
                blob: "0".repeat(40),
            },
            SourceFile {
                path: "src/x.rs".to_owned(),
                blob: "ab".repeat(20),
            },
        ];
        let written = render("Claim\n\nwith two lines.", &sources, Some("old"));
        let retired = written.replacen("---\n", "---\nretired: 2026-01-02\nreplaced_by: new\n", 1);
        for text in [written.as_str(), retired.as_str()] {
            let path = ".ai-rulez/learnings/x.md";
            let fast = parse_as_written(path, text.as_bytes()).expect("read fast");
            let document = frontmatter::parse(path, text.as_bytes()).unwrap();
            let values = serde_json::Value::Object(document.values.into_iter().collect());
            let keys: LearningKeys = serde_json::from_value(values).unwrap();
            assert_eq!(fast.sources, keys.sources);
            assert_eq!(fast.created, keys.created);
            assert_eq!(fast.replaces, keys.replaces);
            assert_eq!(fast.retired, keys.retired);
            assert_eq!(fast.replaced_by, keys.replaced_by);
            assert_eq!(fast.claim, document.body.trim());
            assert_eq!(fast.yaml, document.yaml.unwrap());
        }
        // Anything else goes to the YAML reader.
        for other in [
            "---\n# note\nsources:\n  - path: a\n    blob: b\n---\nC\n",
            "---\nsources: [{path: a, blob: b}]\n---\nC\n",
            "---\nsources:\n  - path: a\n    blob: b\n--- \nC\n",
            "---\nsources:\n  - path: a\n---\nC\n",
            "---\r\nsources:\r\n  - path: a\r\n    blob: b\r\n---\r\nC\r\n",
        ] {
            assert_eq!(
                parse_as_written("l/x.md", other.as_bytes()),
                None,
                "{other}"
            );
        }
    }

    #[test]
    fn a_learning_file_round_trips() {
        let sources = vec![SourceFile {
            path: "src/a b.rs".to_owned(),
            blob: "0".repeat(40),
        }];
        let text = render("Claim.", &sources, Some("old"));
        let learning = parse(".ai-rulez/learnings/x.md", text.as_bytes()).unwrap();
        assert_eq!(learning.id, "x");
        assert_eq!(learning.claim, "Claim.");
        assert_eq!(learning.sources, sources);
        assert_eq!(learning.replaces.as_deref(), Some("old"));
    }
}
