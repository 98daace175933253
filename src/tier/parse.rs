//! Reading MEMORY.md as lines: frontmatter, headings, entries (list lines linking a file),
//! crowns (⭐ / ⚠️ or pinned), and everything else, with the line numbers of the file on disk.

use crate::text::links::links;

/// One line of the index, without its line terminator (a trailing `\r` is dropped too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    /// 1-based line number in the file.
    pub no: usize,
    /// The text, verbatim.
    pub text: &'a str,
    /// What the line is.
    pub kind: Kind,
    /// Index (in [`Index::lines`]) of the heading this line is under, if any.
    pub section: Option<usize>,
}

/// The kinds of index lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// Whitespace only.
    Blank,
    /// An ATX heading (`## Title`) outside code fences.
    Heading {
        /// The title, trimmed, without the `#` marks.
        title: String,
    },
    /// A list line with at least one file link.
    Entry {
        /// Link targets in order, as written (see [`crate::text::links`]).
        targets: Vec<String>,
    },
    /// Anything else (prose, fenced code, comments).
    Text,
}

/// MEMORY.md split into its parts.
#[derive(Debug, Clone)]
pub struct Index<'a> {
    /// The frontmatter block, verbatim (empty when there is none).
    pub frontmatter: &'a str,
    /// The lines after the frontmatter.
    pub lines: Vec<Line<'a>>,
    /// The line terminator the file mostly uses (`"\r\n"` or `"\n"`).
    pub eol: &'static str,
}

/// A line the planner cannot read unambiguously.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed {
    /// 1-based line number.
    pub no: usize,
    /// What is wrong.
    pub why: String,
}

/// The terminator `text` mostly uses.
pub fn eol_of(text: &str) -> &'static str {
    let lf = text.matches('\n').count();
    let crlf = text.matches("\r\n").count();
    if lf > 0 && crlf * 2 > lf {
        "\r\n"
    } else {
        "\n"
    }
}

/// Splits `text` into lines without terminators (a trailing `\r` removed).
pub fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let empty = text.is_empty();
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.split('\n')
        .filter(move |_| !empty)
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
}

/// Parses the index.
pub fn parse(text: &str) -> Result<Index<'_>, Malformed> {
    let split = crate::text::frontmatter::split(text);
    let (frontmatter, body) = if split.yaml.is_some() {
        text.split_at(split.body_start)
    } else {
        ("", text)
    };
    let first_no = frontmatter.matches('\n').count() + 1;
    let mut lines = Vec::new();
    let mut section = None;
    let mut fence: Option<&str> = None;
    for (i, raw) in split_lines(body).enumerate() {
        let no = first_no + i;
        let trimmed = raw.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        let kind = if let Some(open) = fence {
            if marker == Some(open) {
                fence = None;
            }
            Kind::Text
        } else if let Some(m) = marker {
            fence = Some(m);
            Kind::Text
        } else if raw.trim().is_empty() {
            Kind::Blank
        } else if let Some(title) = heading(raw) {
            section = Some(lines.len());
            Kind::Heading { title }
        } else if is_list_item(raw) {
            check_brackets(raw).map_err(|why| Malformed { no, why })?;
            let targets: Vec<String> = links(raw).into_iter().map(|l| l.target).collect();
            if targets.is_empty() {
                Kind::Text
            } else {
                Kind::Entry { targets }
            }
        } else {
            Kind::Text
        };
        let in_section = if matches!(kind, Kind::Heading { .. }) {
            None
        } else {
            section
        };
        lines.push(Line {
            no,
            text: raw,
            kind,
            section: in_section,
        });
    }
    Ok(Index {
        frontmatter,
        lines,
        eol: eol_of(text),
    })
}

/// Whether a line carries a crown mark (⭐ or ⚠, with or without a variation selector).
pub fn has_crown_mark(text: &str) -> bool {
    text.contains('\u{2B50}') || text.contains('\u{26A0}')
}

fn heading(raw: &str) -> Option<String> {
    let t = raw.strip_prefix("   ").or_else(|| raw.strip_prefix("  "));
    let t = t.or_else(|| raw.strip_prefix(' ')).unwrap_or(raw);
    let hashes = t.len() - t.trim_start_matches('#').len();
    let rest = &t[hashes..];
    let ok = (1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then(|| rest.trim().trim_end_matches('#').trim().to_owned())
}

fn is_list_item(raw: &str) -> bool {
    let t = raw.trim_start();
    if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        return rest.is_empty() || rest.starts_with([' ', '\t']);
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    digits > 0
        && digits < 10
        && t[digits..]
            .strip_prefix(['.', ')'])
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
}

/// An entry line with a link opener and no closer is ambiguous: which file does it point to?
fn check_brackets(raw: &str) -> Result<(), String> {
    for (i, _) in raw.match_indices("](") {
        if !raw[i + 2..].contains(')') {
            return Err(format!(
                "unclosed Markdown link at column {} (`](` without `)`)",
                raw[..i].chars().count() + 1
            ));
        }
    }
    for (i, _) in raw.match_indices("[[") {
        if !raw[i + 2..].contains("]]") {
            return Err(format!(
                "unclosed wiki link at column {} (`[[` without `]]`)",
                raw[..i].chars().count() + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_sections_and_line_numbers() {
        let t = "---\nname: x\n---\n- ⭐ [a](a.md)\r\n\r\n## Tools 🔧\n- [b](b.md) — b\n```\n- [c](c.md)\n```\nprose\n";
        let idx = parse(t).unwrap();
        assert_eq!(idx.frontmatter, "---\nname: x\n---\n");
        let kinds: Vec<_> = idx
            .lines
            .iter()
            .map(|l| (l.no, l.text, l.section))
            .collect();
        assert_eq!(kinds[0], (4, "- ⭐ [a](a.md)", None));
        assert_eq!(
            idx.lines[2].kind,
            Kind::Heading {
                title: "Tools 🔧".into()
            }
        );
        assert_eq!(kinds[3], (7, "- [b](b.md) — b", Some(2)));
        assert_eq!(
            idx.lines[5].kind,
            Kind::Text,
            "fenced lines are not entries"
        );
        assert_eq!(idx.lines[7].kind, Kind::Text);
        assert!(has_crown_mark(idx.lines[0].text));
    }

    #[test]
    fn malformed_links_are_refused_with_their_line() {
        let err = parse("# T\n- [a](a.md\n").unwrap_err();
        assert_eq!(err.no, 2);
        assert!(err.why.contains("unclosed Markdown link"));
        assert_eq!(parse("x\n\n- [[a\n").unwrap_err().no, 3);
        assert!(parse("- plain [text] (not a link)\n").is_ok());
    }

    #[test]
    fn eol_and_splitting() {
        assert_eq!(eol_of("a\r\nb\r\nc\n"), "\r\n");
        assert_eq!(eol_of("a\nb\r\n"), "\n");
        assert_eq!(split_lines("a\r\nb").collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(split_lines("").count(), 0);
        assert_eq!(split_lines("\n").collect::<Vec<_>>(), [""]);
    }
}
