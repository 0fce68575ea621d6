//! The lock's digest scheme: SHA-256 over length-prefixed, domain-separated fields, one scheme
//! for every kind. It is the scheme of the Go ai-rulez lock (its `docs/lockfile.md`), and the
//! published test vectors reproduce exactly (see `docs/lockfile.md` here and the tests).
//!
//! - `lp(x)` = 8-byte big-endian length of `x`, then `x`; `u64(n)` = 8-byte big-endian `n`.
//! - file leaf = `SHA256(lp("ai-rulez/file/v1") ‖ lp(path) ‖ lp(mode) ‖ lp(data))`, `mode` is
//!   `"100755"` when any executable bit is set, else `"100644"`; `data` has CRLF turned into LF for
//!   text extensions (`.md .markdown .mdc .mdx .txt .toml .yaml .yml .json .jsonc`), so a Windows
//!   checkout pins the same digest; other files are hashed byte-exact ([`crate::hash::comparable`],
//!   the one normalisation every digest of project content uses).
//! - item tree = `SHA256(lp("ai-rulez/<kind>/v1") ‖ u64(n) ‖ leaf₁ ‖ … ‖ leafₙ)`, leaves (32 raw
//!   bytes each) sorted bytewise by path.
//! - top = `SHA256(lp("ai-rulez/tree/v1") ‖ u64(n) ‖ [lp(kind) ‖ lp(key) ‖ lp(digest)]…)`, entries
//!   sorted bytewise by (kind, key); `digest` is the `sha256:<hex>` text.

use sha2::{Digest, Sha256};

/// One file of an item: path relative to the item (`/`-separated), executable bit, bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEntry {
    /// Relative path, `/`-separated.
    pub path: String,
    /// Any executable bit set.
    pub executable: bool,
    /// Bytes as on disk (or in the git index).
    pub data: Vec<u8>,
}

fn length_prefixed(hasher: &mut Sha256, bytes: &[u8]) {
    hasher.update((bytes.len() as u64).to_be_bytes());
    hasher.update(bytes);
}

/// The 32-byte leaf digest of one file.
#[must_use]
pub(crate) fn file_leaf(path: &str, executable: bool, data: &[u8]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    length_prefixed(&mut hasher, b"ai-rulez/file/v1");
    length_prefixed(&mut hasher, path.as_bytes());
    length_prefixed(&mut hasher, if executable { b"100755" } else { b"100644" });
    length_prefixed(&mut hasher, &crate::hash::comparable(path, data));
    hasher.finalize().into()
}

/// `sha256:<hex>` of an item of `kind` made of `files` (sorted here by path).
///
/// Returns `None` when two files share a path (an invalid item).
#[must_use]
pub(crate) fn item_digest(kind: &str, files: &[FileEntry]) -> Option<String> {
    let mut leaves: Vec<(&str, [u8; 32])> = files
        .iter()
        .map(|file| {
            (
                file.path.as_str(),
                file_leaf(&file.path, file.executable, &file.data),
            )
        })
        .collect();
    leaves.sort_by(|left, right| left.0.as_bytes().cmp(right.0.as_bytes()));
    if leaves.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return None;
    }
    let mut hasher = Sha256::new();
    length_prefixed(&mut hasher, format!("ai-rulez/{kind}/v1").as_bytes());
    hasher.update((leaves.len() as u64).to_be_bytes());
    for (_, leaf) in &leaves {
        hasher.update(leaf);
    }
    Some(format!("sha256:{}", hex::encode(hasher.finalize())))
}

/// `sha256:<hex>` over `(kind, key, digest)` entries (sorted here bytewise by kind, then key).
#[must_use]
pub(crate) fn top_digest(entries: &[(String, String, String)]) -> String {
    let mut sorted: Vec<&(String, String, String)> = entries.iter().collect();
    sorted.sort_by(|left, right| {
        (left.0.as_bytes(), left.1.as_bytes()).cmp(&(right.0.as_bytes(), right.1.as_bytes()))
    });
    let mut hasher = Sha256::new();
    length_prefixed(&mut hasher, b"ai-rulez/tree/v1");
    hasher.update((sorted.len() as u64).to_be_bytes());
    for (kind, key, digest) in sorted {
        length_prefixed(&mut hasher, kind.as_bytes());
        length_prefixed(&mut hasher, key.as_bytes());
        length_prefixed(&mut hasher, digest.as_bytes());
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, executable: bool, data: &[u8]) -> FileEntry {
        FileEntry {
            path: path.to_owned(),
            executable,
            data: data.to_vec(),
        }
    }

    /// The Go ai-rulez's published vectors (its docs/lockfile.md), reproduced in full here.
    #[test]
    fn go_test_vectors() {
        assert_eq!(
            hex::encode(file_leaf("SKILL.md", false, b"# Title\nbody\n")),
            "cbac10c14a090ab0301ad17b0013e8c960c5960d5574dcabf38867b98987c621"
        );
        let style = "sha256:f9c0b1ef53a34e543828ff3459f4f117e08edc2976c22a3ee32d0a65ee212c9c";
        assert_eq!(
            item_digest("rule", &[file("style.md", false, b"# Style\n")]).as_deref(),
            Some(style)
        );
        assert_eq!(
            item_digest("rule", &[file("style.md", false, b"# Style\r\n")]).as_deref(),
            Some(style)
        );
        assert_eq!(
            item_digest("rule", &[]).as_deref(),
            Some("sha256:c36b2dc178586a67dfcf7bc1e18ab82e0aa267eb5c5a7d7cba0a6ee7b062ec26")
        );
        let skill = item_digest(
            "skill",
            &[
                file("SKILL.md", false, b"---\nname: deploy\n---\nDeploy.\n"),
                file("scripts/run.sh", true, b"#!/bin/sh\necho hi\n"),
                file("assets/logo.bin", false, &[0, 1, 0x0d, 0x0a, 2]),
            ],
        )
        .expect("valid");
        assert_eq!(
            skill,
            "sha256:262d721306783b4c3b554a1345253c266f6f991733dad6a347e1b55d5e57ac05"
        );
        let entries = vec![
            ("item/skill".to_owned(), "\0deploy".to_owned(), skill),
            (
                "output".to_owned(),
                "CLAUDE.md".to_owned(),
                format!("sha256:{}", "ab".repeat(32)),
            ),
        ];
        assert_eq!(
            top_digest(&entries),
            "sha256:6cd1d810fce0e91263b3ebfa3610821a820a07b415a8f2a4b9415de191b6c24e"
        );
        assert_eq!(
            top_digest(&[]),
            "sha256:e8c93a22e1ed47e16dd881a55dc4fbc5ba685af20083b93469265da901784029"
        );
        assert_eq!(
            item_digest("skill", &[file("run.sh", true, b"echo hi\n")]).as_deref(),
            Some("sha256:d7aec0e55512be14e8c20554ee6da9911881211fec26eec3927bb18b21212b54")
        );
        // A script is not a text extension: CRLF is hashed as is (vector checked by
        // tests/lock_vectors.py and listed in docs/lockfile.md).
        assert_eq!(
            item_digest("skill", &[file("run.sh", true, b"echo hi\r\n")]).as_deref(),
            Some("sha256:5b9fcff355356346b64a0f8146b7c65b765f377d1deddf29318ef9e686e7ee92")
        );
        assert_eq!(
            item_digest(
                "rule",
                &[file("a.md", false, b""), file("a.md", false, b"")]
            ),
            None
        );
        // The Go ai-rulez publishes this include vector as `94a2c6de…f01c`; the lock's
        // `[[include]]` digest is exactly it.
        assert_eq!(
            item_digest(
                "include",
                &[
                    file("rules/a.md", false, b"# A\n"),
                    file("hooks/x.sh", true, b"#!/bin/sh\n"),
                ]
            )
            .as_deref(),
            Some("sha256:94a2c6de5e10aa7eef64adb55330c4a84c02d49566d56adcedbd7f5db2ddf01c")
        );
    }
}
