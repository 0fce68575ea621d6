//! Content digests and the generated-file banner: how a file proves that ai-rulez wrote it.
//!
//! Banner rule (documented in the README): a generated Markdown file carries one banner line that
//! contains `Content-Hash: sha256:<64 hex>`. It is the first line of the file, or, when the format
//! needs YAML frontmatter at byte 0, the first line after the opening `---` (as a YAML comment).
//! The hash is the SHA-256 of exactly the bytes that follow the banner line's `\n`, so
//! `tail -n +2 CLAUDE.md | sha256sum` (or `tail -n +3` with frontmatter) verifies it.
//!
//! Files written by the Go ai-rulez carry `Content-Hash: blake3:<hex>` over their body; they are
//! recognised too, so a project can switch tools without `--force`.

use std::borrow::Cow;

use sha2::{Digest, Sha256};

/// Extensions of text files: their CRLF line ends are turned into LF before any digest or
/// comparison of their content, so a checkout with `core.autocrlf=true` (Windows) is never taken
/// for an edit. Other files (images, archives) are compared byte-exact.
const TEXT_EXTENSIONS: [&str; 10] = [
    "md", "markdown", "mdc", "mdx", "txt", "toml", "yaml", "yml", "json", "jsonc",
];

/// Marker that precedes the hex digest in a banner.
pub(crate) const SHA256_MARKER: &str = "Content-Hash: sha256:";
const BLAKE3_MARKER: &str = "Content-Hash: blake3:";

/// `sha256:<hex>` of `bytes`.
#[must_use]
pub(crate) fn sha256_tagged(bytes: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(bytes))
}

/// Lower-case hex SHA-256 of `bytes` (64 characters).
#[must_use]
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether the path's extension marks a text file (see [`TEXT_EXTENSIONS`]).
#[must_use]
pub(crate) fn is_text_path(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, extension)| {
        TEXT_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
    })
}

/// `bytes` with every CRLF pair turned into LF (a lone CR is kept): the one line-end
/// normalisation of generated content and sources. Borrowed when there is nothing to change.
#[must_use]
pub(crate) fn lf_line_ends(bytes: &[u8]) -> Cow<'_, [u8]> {
    // Every digest and comparison of a generated file passes here, so the search for a CRLF
    // uses the vectorised `memchr` (a no-op run of 100,000 rules checks 200,000 files).
    let mut pairs = memchr::memmem::find_iter(bytes, b"\r\n").peekable();
    if pairs.peek().is_none() {
        return Cow::Borrowed(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut start = 0;
    for position in pairs {
        // Keep everything up to the CR, drop the CR itself; the LF starts the next run.
        out.extend_from_slice(&bytes[start..position]);
        start = position + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    Cow::Owned(out)
}

/// `text` without a carriage return directly before any line feed (a run of them included):
/// the form of generated text that [`lf_line_ends`] leaves as it is. A source can hold such
/// returns (`\r\r\n` in a rule, whose CRLF the loader turns into LF, or a config value ending
/// in `\r`); written as they are, the file would be compared through its LF view, differ from
/// what was planned, and look edited after every run. Borrowed when there is nothing to remove.
#[must_use]
pub(crate) fn without_line_end_returns(text: &str) -> Cow<'_, str> {
    if !text.contains("\r\n") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(content) => {
                out.push_str(content.trim_end_matches('\r'));
                out.push('\n');
            }
            None => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// The bytes of the project file at `path` as they are compared and digested: with LF line ends
/// for a text file ([`is_text_path`]), byte-exact otherwise. Everything that decides whether a
/// generated file is unchanged, edited or ours (the writer, `clean`, the manifest, the lock)
/// reads a file through this, so CRLF-only differences are never drift or edits.
#[must_use]
pub(crate) fn comparable<'bytes>(path: &str, bytes: &'bytes [u8]) -> Cow<'bytes, [u8]> {
    if is_text_path(path) {
        lf_line_ends(bytes)
    } else {
        Cow::Borrowed(bytes)
    }
}

/// `sha256:<hex>` of [`comparable`]`(path, bytes)`: the digest the manifest records for a whole
/// generated file and compares a file on disk against.
#[must_use]
pub(crate) fn content_digest(path: &str, bytes: &[u8]) -> String {
    sha256_tagged(&comparable(path, bytes))
}

/// What a file on disk says about its origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Provenance {
    /// No banner: the tool cannot prove it wrote this file.
    NoBanner,
    /// A banner whose hash matches the bytes: generated and unedited.
    Unedited,
    /// A banner whose hash no longer matches: generated, then edited by hand.
    Edited,
}

/// Reads the banner of `bytes` (our sha256 banner or the Go tool's blake3 banner) and checks it
/// on the text with LF line ends ([`lf_line_ends`]). Only the first 40 lines are searched, so a banner quoted deep in a body does not count.
#[must_use]
pub(crate) fn banner_provenance(bytes: &[u8]) -> Provenance {
    // A banner is only ever written into text, so its hash is checked on LF line ends.
    let bytes = &*lf_line_ends(bytes);
    match find_banner_line(bytes) {
        None => Provenance::NoBanner,
        Some(banner) if banner.kind == BannerKind::Sha256 => {
            if banner.claimed == sha256_hex(&bytes[banner.line.end..]) {
                Provenance::Unedited
            } else {
                Provenance::Edited
            }
        }
        Some(banner) => go_banner_provenance(&banner.claimed, bytes, banner.line.end),
    }
}

/// `bytes` without its ai-rulez sha256 banner line, the line [`banner_provenance`] reads; `None`
/// when the banner is not ours or there is none. Two texts equal after this differ only in the
/// banner, which ai-rulez writes, so replacing one with the other loses nothing.
#[must_use]
pub(crate) fn without_banner_line(bytes: &[u8]) -> Option<Vec<u8>> {
    let banner = find_banner_line(bytes).filter(|banner| banner.kind == BannerKind::Sha256)?;
    let mut without = bytes[..banner.line.start].to_vec();
    without.extend_from_slice(&bytes[banner.line.end..]);
    Some(without)
}

/// Which tool's banner a line carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BannerKind {
    /// Ours: `Content-Hash: sha256:` over the bytes after the line.
    Sha256,
    /// The Go ai-rulez's: `Content-Hash: blake3:` over its body (see [`go_banner_provenance`]).
    Blake3,
}

/// A banner line found in a file.
struct BannerLine {
    /// Byte range of the line, its line end included.
    line: std::ops::Range<usize>,
    kind: BannerKind,
    /// The 64 lower-case hex digits the line claims.
    claimed: String,
}

/// The first line of the first 40 of `bytes` that carries a banner's hash. A managed section's
/// BEGIN line carries the section's own hash, not the file's, so it does not count.
fn find_banner_line(bytes: &[u8]) -> Option<BannerLine> {
    let mut offset = 0;
    for _ in 0..40 {
        let rest = bytes.get(offset..).filter(|rest| !rest.is_empty())?;
        let line_end = rest
            .iter()
            .position(|&byte| byte == b'\n')
            .map_or(rest.len(), |index| index + 1);
        let line = &rest[..line_end];
        let line_range = offset..offset + line_end;
        offset += line_end;
        if line.starts_with(b"<!-- BEGIN ai-rulez") {
            continue;
        }
        let found = [
            (BannerKind::Sha256, SHA256_MARKER),
            (BannerKind::Blake3, BLAKE3_MARKER),
        ]
        .into_iter()
        .find_map(|(kind, marker)| Some((kind, find_hex_after(line, marker)?)));
        if let Some((kind, claimed)) = found {
            return Some(BannerLine {
                line: line_range,
                kind,
                claimed,
            });
        }
    }
    None
}

/// What a generated file's banner says it is generated from (`.ai-rulez/rules/style.md`, or
/// `.ai-rulez/` for a file built from many items), read from the first two lines (the banner is
/// line 1, or line 2 after an opening `---`). `None` when there is no ai-rulez sha256 banner.
#[must_use]
pub(crate) fn banner_source(bytes: &[u8]) -> Option<String> {
    const LEAD: &str = "Generated by ai-rulez from ";
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    text.lines()
        .take(2)
        .filter(|line| line.contains(SHA256_MARKER))
        .find_map(|line| {
            let (_, rest) = line.split_once(LEAD)?;
            let (source, _) = rest.split_once("; edit the source")?;
            Some(source.to_owned())
        })
}

fn find_hex_after(line: &[u8], marker: &str) -> Option<String> {
    let text = std::str::from_utf8(line).ok()?;
    let start = text.find(marker)? + marker.len();
    let hex: String = text[start..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (hex.len() == 64).then(|| hex.to_ascii_lowercase())
}

/// The Go ai-rulez hashes the body after its header (a `-->` line, or the closing frontmatter
/// fence), with leading blank lines removed; root files were hashed with one extra trailing
/// newline. Those variants were checked against real committed files (botsandbytes/decode).
fn go_banner_provenance(claimed: &str, bytes: &[u8], after_marker_line: usize) -> Provenance {
    let rest = &bytes[after_marker_line..];
    let body_start = find_header_end(rest).map_or(after_marker_line, |end| after_marker_line + end);
    let mut body = &bytes[body_start..];
    while let Some(stripped) = body.strip_prefix(b"\n") {
        body = stripped;
    }
    let mut with_newline = body.to_vec();
    with_newline.push(b'\n');
    let without_newline = body.strip_suffix(b"\n").unwrap_or(body);
    let candidates: [&[u8]; 3] = [body, &with_newline, without_newline];
    if candidates
        .iter()
        .any(|candidate| blake3::hash(candidate).to_hex().as_str() == claimed)
    {
        Provenance::Unedited
    } else {
        Provenance::Edited
    }
}

/// Offset just past the first line that closes a Go header: `-->` or `---`.
fn find_header_end(bytes: &[u8]) -> Option<usize> {
    let mut offset = 0;
    for line in bytes.split_inclusive(|&byte| byte == b'\n') {
        offset += line.len();
        let trimmed = line.strip_suffix(b"\n").unwrap_or(line);
        if trimmed == b"-->" || trimmed == b"---" {
            return Some(offset);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_text_loses_every_return_before_a_line_feed_and_stays_as_lf_line_ends_see_it() {
        for (text, expected) in [
            ("x\r\r\ny\n", "x\ny\n"),
            ("# demo\r\n\nbody\r", "# demo\n\nbody\r"),
            ("a\rb\n", "a\rb\n"),
        ] {
            let stable = without_line_end_returns(text);
            assert_eq!(stable, expected);
            assert!(matches!(lf_line_ends(stable.as_bytes()), Cow::Borrowed(_)));
        }
        assert!(matches!(
            without_line_end_returns("a\nb\r"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn only_crlf_pairs_of_text_files_are_normalised() {
        assert_eq!(&*lf_line_ends(b"a\r\nb\rc\r\n"), b"a\nb\rc\n");
        assert_eq!(&*lf_line_ends(b"\r\r\n\r\n\r"), b"\r\n\n\r");
        assert_eq!(&*lf_line_ends(b"\r\nx"), b"\nx");
        assert!(matches!(lf_line_ends(b"a\nb\n"), Cow::Borrowed(_)));
        assert_eq!(&*comparable("x/CLAUDE.md", b"a\r\n"), b"a\n");
        assert_eq!(&*comparable("x/logo.png", b"a\r\n"), b"a\r\n");
        assert_eq!(
            content_digest("a.md", b"x\r\n"),
            content_digest("a.md", b"x\n")
        );
    }

    #[test]
    fn crlf_checkout_of_a_banner_file_is_unedited() {
        let body = b"# Title\nbody\n";
        let file = format!(
            "<!-- x {SHA256_MARKER}{} -->\n# Title\nbody\n",
            sha256_hex(body)
        );
        let crlf = file.replace('\n', "\r\n");
        assert_eq!(banner_provenance(crlf.as_bytes()), Provenance::Unedited);
        let edited = crlf.replace("body", "bodies");
        assert_eq!(banner_provenance(edited.as_bytes()), Provenance::Edited);
    }

    #[test]
    fn sha256_banner_round_trip() {
        let body = b"# Title\nbody\n";
        let file = format!("<!-- x {SHA256_MARKER}{} -->\n", sha256_hex(body));
        let mut bytes = file.into_bytes();
        bytes.extend_from_slice(body);
        assert_eq!(banner_provenance(&bytes), Provenance::Unedited);
        bytes.push(b'x');
        assert_eq!(banner_provenance(&bytes), Provenance::Edited);
        assert_eq!(banner_provenance(b"# plain\n"), Provenance::NoBanner);
    }

    #[test]
    fn without_banner_line_drops_only_the_banner_line() {
        let hex = "ab".repeat(32);
        let file = format!("---\nglobs: x\n# Content-Hash: sha256:{hex}\n---\n# Body\n");
        assert_eq!(
            without_banner_line(file.as_bytes()).as_deref(),
            Some(b"---\nglobs: x\n---\n# Body\n".as_slice())
        );
        // A marker with a short digest is not a banner, nor is a section's BEGIN line.
        assert_eq!(without_banner_line(b"Content-Hash: sha256:ab\n"), None);
        let section = format!("<!-- BEGIN ai-rulez Content-Hash: sha256:{hex} -->\ntext\n");
        assert_eq!(without_banner_line(section.as_bytes()), None);
    }

    #[test]
    fn go_root_banner_is_recognised() {
        let body = "# decode\n\ntext\n";
        let mut hashed = body.to_owned();
        hashed.push('\n');
        let hex = blake3::hash(hashed.as_bytes()).to_hex();
        let file = format!("<!--\nGenerated\nContent-Hash: blake3:{hex}\n-->\n\n{body}");
        assert_eq!(banner_provenance(file.as_bytes()), Provenance::Unedited);
        let edited = file.replace("text", "texts");
        assert_eq!(banner_provenance(edited.as_bytes()), Provenance::Edited);
    }
}
