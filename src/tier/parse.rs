//! Reading MEMORY.md as lines: frontmatter, the title, headings and the sections they open,
//! entries (list lines linking a file), and everything else, with the line numbers of the file
//! on disk. Nothing here refuses: a line that is not clearly an entry is text, and text stays.

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
    /// Index (in [`Index::lines`]) of the innermost heading whose section holds this line (for
    /// a heading: the nearest heading of a lower level before it), the title excluded.
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
        /// 1 for `#` … 6 for `######`.
        level: usize,
    },
    /// A list line with at least one file link (which file, the library says).
    Entry,
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
    /// The index's title: its first non-blank line when that is an `# H1` (never a group: it
    /// stays on top).
    pub title: Option<usize>,
    /// The line terminator the file mostly uses (`"\r\n"` or `"\n"`).
    pub eol: &'static str,
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
pub fn parse(text: &str) -> Index<'_> {
    let split = crate::text::frontmatter::split(text);
    let (frontmatter, body) = if split.yaml.is_some() {
        text.split_at(split.body_start)
    } else {
        ("", text)
    };
    let first_no = frontmatter.matches('\n').count() + 1;
    let mut lines: Vec<Line> = Vec::new();
    let mut title = None;
    // Open headings, outermost first: (level, line index).
    let mut open: Vec<(usize, usize)> = Vec::new();
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
        } else if let Some((level, title)) = heading(raw) {
            Kind::Heading { title, level }
        } else if lead(raw).is_some_and(|l| l.starts_with(['[', '`'])) && !links(raw).is_empty() {
            Kind::Entry
        } else {
            Kind::Text
        };
        let at = lines.len();
        let section = match &kind {
            Kind::Heading { level, .. } => {
                while open.last().is_some_and(|&(l, _)| l >= *level) {
                    open.pop();
                }
                let parent = open.last().map(|&(_, h)| h);
                let first = lines.iter().all(|l| matches!(l.kind, Kind::Blank));
                if first && *level == 1 && title.is_none() {
                    title = Some(at);
                } else {
                    open.push((*level, at));
                }
                parent
            }
            _ => open.last().map(|&(_, h)| h),
        };
        lines.push(Line {
            no,
            text: raw,
            kind,
            section,
        });
    }
    Index {
        frontmatter,
        lines,
        title,
        eol: eol_of(text),
    }
}

impl Index<'_> {
    /// The end (exclusive) of heading `h`'s section: the next heading of the same or a lower
    /// level, else the end of the file.
    pub fn section_end(&self, h: usize) -> usize {
        let Kind::Heading { level, .. } = self.lines[h].kind else {
            return h + 1;
        };
        (h + 1..self.lines.len())
            .find(|&i| matches!(self.lines[i].kind, Kind::Heading { level: l, .. } if l <= level))
            .unwrap_or(self.lines.len())
    }

    /// The headings line `i` is under, outermost first (the title excluded).
    pub fn headings_of(&self, i: usize) -> Vec<usize> {
        let mut chain = Vec::new();
        let mut at = self.lines[i].section;
        while let Some(h) = at {
            chain.push(h);
            at = self.lines[h].section;
        }
        chain.reverse();
        chain
    }
}

pub use crate::memory::names::has_crown_mark;

fn heading(raw: &str) -> Option<(usize, String)> {
    let t = raw.strip_prefix("   ").or_else(|| raw.strip_prefix("  "));
    let t = t.or_else(|| raw.strip_prefix(' ')).unwrap_or(raw);
    let hashes = t.len() - t.trim_start_matches('#').len();
    let rest = &t[hashes..];
    let ok = (1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then(|| (hashes, rest.trim().trim_end_matches('#').trim().to_owned()))
}

/// A list item's text after its marker, a task box, crown marks and emphasis: where an index
/// entry has its link (`- ⭐ **[Title](file.md)** — hook`). `None` for a line that is no list
/// item. A list item whose link comes later (`3. Ask first ([why](feedback_x.md))`) is a rule
/// that cites a file, not an entry.
fn lead(raw: &str) -> Option<&str> {
    let t = raw.trim_start();
    let rest = if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        rest
    } else {
        let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 || digits >= 10 {
            return None;
        }
        t[digits..].strip_prefix(['.', ')'])?
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut rest = rest.trim_start();
    for boxed in ["[ ] ", "[x] ", "[X] "] {
        rest = rest.strip_prefix(boxed).unwrap_or(rest);
    }
    Some(rest.trim_start_matches(|c: char| {
        c.is_whitespace() || matches!(c, '\u{2B50}' | '\u{26A0}' | '\u{FE0F}' | '*' | '_' | '~')
    }))
}

/// The title of an entry line: the text of its leading `[Title](…)` or `[[name|title]]`.
pub fn entry_title(raw: &str) -> Option<&str> {
    let t = lead(raw)?;
    let title = if let Some(wiki) = t.strip_prefix("[[") {
        let inner = &wiki[..wiki.find("]]")?];
        inner.rsplit('|').next()?
    } else {
        let inner = t.strip_prefix('[')?;
        &inner[..inner.find(']')?]
    };
    let title = title.trim().trim_matches(['*', '_', '`']).trim();
    (!title.is_empty()).then_some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_sections_and_line_numbers() {
        let t = "---\nname: x\n---\n- ⭐ [a](a.md)\r\n\r\n## Tools 🔧\n- [b](b.md) — b\n```\n- [c](c.md)\n```\nprose\n";
        let idx = parse(t);
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
                title: "Tools 🔧".into(),
                level: 2
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
        assert_eq!(idx.title, None, "a title is a leading `# H1`");
    }

    #[test]
    fn the_title_opens_no_section_and_headings_nest() {
        let idx =
            parse("\n# Memory\n- [a](a.md)\n## A\n### A1\n- [b](b.md)\n## B\nrule\n# Other\nx\n");
        assert_eq!(idx.title, Some(1));
        assert_eq!(
            idx.lines[2].section, None,
            "entries under the title are in no section"
        );
        assert_eq!(idx.lines[4].section, Some(3));
        assert_eq!(idx.headings_of(5), [3, 4]);
        assert_eq!(idx.section_end(3), 6);
        assert_eq!(idx.section_end(4), 6);
        assert_eq!(idx.lines[7].section, Some(6));
        assert_eq!(idx.lines[9].section, Some(8), "a later H1 is a section");
        assert_eq!(idx.section_end(8), idx.lines.len());
    }

    #[test]
    fn entries_start_with_their_link_and_rules_that_cite_a_file_are_text() {
        let idx = parse(
            "- ⭐ **[Title](a.md)** — hook\n3. Ask first ([why](feedback_x.md)).\n- [ ] [[b|Bee]]\n* `c.md` — code\n- see [d](d.md)\n",
        );
        let kinds: Vec<&Kind> = idx.lines.iter().map(|l| &l.kind).collect();
        assert_eq!(
            kinds,
            [
                &Kind::Entry,
                &Kind::Text,
                &Kind::Entry,
                &Kind::Entry,
                &Kind::Text
            ]
        );
        let titles: Vec<Option<&str>> = idx.lines.iter().map(|l| entry_title(l.text)).collect();
        assert_eq!(titles, [Some("Title"), None, Some("Bee"), None, None]);
    }

    #[test]
    fn unclosed_links_are_text_not_refusals() {
        let idx = parse("# T\n- [a](a.md\n- [[a\n- plain [text] (not a link)\n");
        assert!(idx.lines[1..].iter().all(|l| l.kind == Kind::Text));
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
