//! The one reader of Markdown structure: links, reference definitions, code (blocks fenced with
//! backticks or tildes, indented blocks, inline spans) and headings, found by pulldown-cmark so
//! that every check and every renderer agrees on what is code and what is prose.
//!
//! Callers split the frontmatter off by hand before calling in (see [`crate::frontmatter`]), so
//! the text given here is exactly a body; byte offsets are offsets into that body and lines are
//! mapped back to the file through the body's first line.

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// One link destination written in a body: an inline link or image (`[text](target)`,
/// `![alt](target)`), or a reference definition (`[label]: target`). Reference-style uses
/// (`[text][label]`) are not listed, because their target is the definition's, listed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LinkTarget {
    /// The destination as the Markdown specification reads it: angle brackets removed and
    /// backslash escapes resolved; percent-encoding is kept as written.
    pub(crate) destination: String,
    /// 1-based line of the file: the line holding `](` for an inline link or image, the line
    /// holding `[label]:` for a definition.
    pub(crate) line: usize,
}

/// One heading of a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    /// Level, 1 to 6.
    pub(crate) level: usize,
    /// Byte range of the whole heading in the body, its line end included (both lines of an
    /// underlined heading).
    pub(crate) range: Range<usize>,
    /// Byte range of the heading's text as written, inline markup intact and the `#` marks and
    /// closing sequence left out; empty for an empty heading.
    pub(crate) text: Range<usize>,
    /// Whether it is written with `#` marks (rather than underlined with `===` or `---`).
    pub(crate) hashes: bool,
}

/// What one parse of a body found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Outline {
    /// Inline links, images and reference definitions, ordered by line.
    pub(crate) links: Vec<LinkTarget>,
    /// Headings in body order, also those inside block quotes and list items.
    pub(crate) headings: Vec<Heading>,
    /// Byte ranges of code in body order: code blocks (fence lines included) and inline code
    /// spans (backticks included).
    pub(crate) code: Vec<Range<usize>>,
}

/// Parses `body`, whose first line is line `first_line` (1-based) of its file.
///
/// Output: the links, headings and code of the body (see [`Outline`]); never fails, since any
/// text is Markdown.
#[must_use]
pub(crate) fn outline(body: &str, first_line: usize) -> Outline {
    let lines = LineIndex::new(body, first_line);
    let mut iterator = parser(body).into_offset_iter();
    let mut outline = Outline::default();
    // The heading being read (headings do not nest): its level, its range, and the range of
    // the inline content seen so far.
    let mut open_heading: Option<(usize, Range<usize>, Option<Range<usize>>)> = None;
    for (event, range) in iterator.by_ref() {
        if let Some((_, _, text)) = open_heading.as_mut()
            && !matches!(event, Event::End(TagEnd::Heading(_)))
        {
            let start = text.as_ref().map_or(range.start, |text| text.start);
            *text = Some(start..range.end);
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                open_heading = Some((heading_level(level), range, None));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, range, text)) = open_heading.take() {
                    let text = text.unwrap_or(range.start..range.start);
                    let hashes = !body[range.clone()].trim_end().contains('\n');
                    outline.headings.push(Heading {
                        level,
                        range,
                        text,
                        hashes,
                    });
                }
            }
            Event::Start(Tag::CodeBlock(_)) | Event::Code(_) => outline.code.push(range),
            Event::Start(
                Tag::Link {
                    link_type,
                    dest_url,
                    ..
                }
                | Tag::Image {
                    link_type,
                    dest_url,
                    ..
                },
            ) if link_type == LinkType::Inline => {
                // The destination follows the last `](` of the link's text: a nested image
                // inside the link text has its own, earlier one.
                let written = &body[range.clone()];
                let at = range.start + written.rfind("](").unwrap_or(0);
                outline.links.push(LinkTarget {
                    destination: dest_url.into_string(),
                    line: lines.line_of(at),
                });
            }
            _ => {}
        }
    }
    let mut definitions: Vec<(usize, String)> = iterator
        .reference_definitions()
        .iter()
        .map(|(_, definition)| (definition.span.start, definition.dest.to_string()))
        .collect();
    definitions.sort();
    outline.links.extend(
        definitions
            .into_iter()
            .map(|(offset, destination)| LinkTarget {
                destination,
                line: lines.line_of(offset),
            }),
    );
    outline.links.sort_by_key(|link| link.line);
    outline
}

/// The body's leading `# Heading`: a level-1 heading written with `#` that comes before any
/// other text (blank lines may precede it).
///
/// Output: the heading, or `None` when the body starts with anything else.
#[must_use]
pub(crate) fn leading_title(body: &str) -> Option<Heading> {
    // The parser reads the block structure of all it is given before its first event, and
    // every item's title is looked for on loading, so only the lines up to the first one with
    // text are parsed: a `#` heading is one line, and the lines after it cannot change what
    // that line is. Nothing but a `#` there can be a leading title.
    let text_at = body.len() - body.trim_start().len();
    if !body[text_at..].starts_with('#') {
        return None;
    }
    let line_end = body[text_at..]
        .find('\n')
        .map_or(body.len(), |offset| text_at + offset + 1);
    let body = &body[..line_end];
    let mut events = parser(body).into_offset_iter();
    let (Event::Start(Tag::Heading { level, .. }), range) = events.next()? else {
        return None;
    };
    if level != HeadingLevel::H1 || !body[..range.start].trim().is_empty() {
        return None;
    }
    outline(&body[..range.end], 1)
        .headings
        .into_iter()
        .next()
        .filter(|heading| heading.hashes)
}

/// The text of `heading` (from [`outline`] or [`leading_title`] of `body`), trimmed.
#[must_use]
pub(crate) fn heading_text<'a>(body: &'a str, heading: &Heading) -> &'a str {
    body[heading.text.clone()].trim()
}

/// `body` with every heading written with `#` moved `by` levels deeper (at most level 6), so a
/// body nests under a heading of its own; code and underlined headings are left as written.
///
/// Output: the new text; every byte other than the added `#` marks is unchanged.
#[must_use]
pub(crate) fn demote_headings(body: &str, by: usize) -> String {
    let mut out = String::with_capacity(body.len() + 16);
    let mut copied = 0;
    for heading in outline(body, 1).headings {
        if !heading.hashes {
            continue;
        }
        let written = &body[heading.range.clone()];
        let marks_at = heading.range.start + (written.len() - written.trim_start().len());
        let added = (heading.level + by).min(6) - heading.level;
        out.push_str(&body[copied..marks_at]);
        out.push_str(&"#".repeat(added));
        copied = marks_at;
    }
    out.push_str(&body[copied..]);
    out
}

/// `body` with the text of every code block and inline code span replaced by spaces (one per
/// character) and line ends kept, so line-based scanners of prose (`@imports`, path mentions)
/// see the same lines without the code.
#[must_use]
pub(crate) fn mask_code(body: &str, outline: &Outline) -> String {
    let mut out = String::with_capacity(body.len());
    let mut copied = 0;
    for range in &outline.code {
        if range.start < copied {
            continue;
        }
        out.push_str(&body[copied..range.start]);
        out.extend(
            body[range.clone()]
                .chars()
                .map(|character| if character == '\n' { '\n' } else { ' ' }),
        );
        copied = range.end;
    }
    out.push_str(&body[copied..]);
    out
}

/// The parser with the GitHub extensions assistants render: tables, footnotes (so `[^1]: note`
/// is not read as a link definition), strikethrough and task lists.
fn parser(body: &str) -> Parser<'_> {
    Parser::new_ext(
        body,
        Options::ENABLE_TABLES
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_TASKLISTS,
    )
}

fn heading_level(level: HeadingLevel) -> usize {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Maps byte offsets of a body to 1-based lines of its file.
struct LineIndex {
    /// Byte offset where each line after the first starts.
    starts: Vec<usize>,
    first_line: usize,
}

impl LineIndex {
    fn new(body: &str, first_line: usize) -> Self {
        let starts = body
            .match_indices('\n')
            .map(|(index, _)| index + 1)
            .collect();
        Self { starts, first_line }
    }

    fn line_of(&self, offset: usize) -> usize {
        self.first_line + self.starts.partition_point(|&start| start <= offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(body: &str, first_line: usize) -> Vec<(String, usize)> {
        outline(body, first_line)
            .links
            .into_iter()
            .map(|link| (link.destination, link.line))
            .collect()
    }

    #[test]
    fn links_images_and_definitions_carry_file_lines() {
        let body = "See [a](docs/a.md#x) and ![i](<img b.png> \"title\").\n\
                    Use [t][r], [foo\nbar](x.md) and <https://x.io>.\n\n[r]: missing.md\n[^1]: note\n";
        assert_eq!(
            targets(body, 5),
            [
                ("docs/a.md#x".to_owned(), 5),
                ("img b.png".to_owned(), 5),
                ("x.md".to_owned(), 7),
                ("missing.md".to_owned(), 9),
            ]
        );
    }

    #[test]
    fn links_in_code_of_either_fence_or_inline_are_not_links() {
        let body = "~~~md\n```sh\n[x](fenced.md)\n```\n~~~\n\n    [y](indented.md)\n\nA `[z](inline.md)` and [w](real.md).\n";
        assert_eq!(targets(body, 1), [("real.md".to_owned(), 9)]);
        let masked = mask_code(body, &outline(body, 1));
        let blank = |width: usize| " ".repeat(width);
        let expected = [
            blank(5),
            blank(5),
            blank(14),
            blank(3),
            blank(3),
            String::new(),
            blank(20),
            String::new(),
            format!("A {} and [w](real.md).", blank(16)),
        ];
        assert_eq!(masked, format!("{}\n", expected.join("\n")));
    }

    #[test]
    fn headings_and_the_leading_title() {
        let body = "\n# Use `cargo` daily #\n\nTitle\n===\n\n> ## quoted\n";
        let found = outline(body, 1).headings;
        let summary: Vec<(usize, &str, bool)> = found
            .iter()
            .map(|heading| (heading.level, heading_text(body, heading), heading.hashes))
            .collect();
        assert_eq!(
            summary,
            [
                (1, "Use `cargo` daily", true),
                (1, "Title", false),
                (2, "quoted", true)
            ]
        );
        let title = leading_title(body).expect("a leading title");
        assert_eq!(heading_text(body, &title), "Use `cargo` daily");
        assert_eq!(&body[title.range.end..], "\nTitle\n===\n\n> ## quoted\n");
        assert_eq!(leading_title("Intro\n\n# Later\n"), None);
        assert_eq!(leading_title("## Second level\n"), None);
        assert_eq!(leading_title("Underlined\n===\n"), None);
        assert_eq!(leading_title("<!-- note -->\n# Title\n"), None);
        // Only the lines up to the title are parsed; what follows cannot change it.
        let text =
            |body: &str| leading_title(body).map(|title| heading_text(body, &title).to_owned());
        assert_eq!(
            text("  \n   # Indented\nrest\n").as_deref(),
            Some("Indented")
        );
        assert_eq!(text("# A | B\n--|--\n").as_deref(), Some("A | B"));
        assert_eq!(
            text("# See [the guide][g]\n\n[g]: guide.md\n").as_deref(),
            Some("See [the guide][g]")
        );
        assert_eq!(
            text("# Last line, no new line").as_deref(),
            Some("Last line, no new line")
        );
        assert_eq!(text("    # indented code\n"), None);
        assert_eq!(text("#NoSpace\n"), None);
        assert_eq!(text("> # Quoted\n"), None);
    }

    #[test]
    fn demoting_skips_code_and_stops_at_level_six() {
        assert_eq!(
            demote_headings(
                "## Why\n~~~sh\n# comment\n~~~\n##### Five\n###### Six\n> # Quoted\n",
                2
            ),
            "#### Why\n~~~sh\n# comment\n~~~\n###### Five\n###### Six\n> ### Quoted\n"
        );
    }
}
