//! Reading MEMORY.md as lines: frontmatter, the title, headings and the sections they open,
//! entries, the lines that belong to an entry, and everything else, with the line numbers of
//! the file on disk. Nothing here refuses: a line that is not clearly an entry is text, and text
//! stays.
//!
//! Which lines are entries (a line whose link leads it) is [`entry`]'s to say.
//!
//! Lines that belong to an entry move with it ([`Kind::Part`]): its indented continuation
//! (`  Keywords: …` under a phase entry, an indented note), and a table's header and delimiter
//! rows, which belong to its first row.

mod entry;

pub use self::entry::entry_title;
use self::entry::{is_row, link_start};
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
    /// A line led by a link (see the module docs; which file it links, the library says).
    Entry,
    /// A line that belongs to the entry at this index (into [`Index::lines`]): its indented
    /// continuation, or the header and delimiter rows of the table it opens.
    Part {
        /// The entry's line.
        entry: usize,
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
        } else if link_start(raw).is_some() && !links(raw).is_empty() {
            Kind::Entry
        } else if let Some(entry) = owner(&lines, raw) {
            Kind::Part { entry }
        } else {
            Kind::Text
        };
        if kind == Kind::Entry && is_row(raw) {
            let at = lines.len();
            table_head(&mut lines, at);
        }
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

/// The entry a line belongs to as its continuation: an indented line (no heading, no entry of
/// its own) right after an entry or another of its continuation lines.
fn owner(lines: &[Line], raw: &str) -> Option<usize> {
    let indent = raw.len() - raw.trim_start().len();
    if !(raw.starts_with('\t') || indent >= 2) {
        return None;
    }
    let prev = lines.last()?;
    match prev.kind {
        Kind::Entry if !is_row(prev.text) => Some(lines.len() - 1),
        Kind::Part { entry } if !is_row(prev.text) => Some(entry),
        _ => None,
    }
}

/// Makes the header and delimiter rows right above a table's first entry row (at `first`)
/// belong to that row: moving the rows without them would leave a broken table.
fn table_head(lines: &mut [Line], first: usize) {
    let delimiter = |t: &str| {
        is_row(t)
            && t.trim()
                .chars()
                .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
    };
    if first < 2 || !delimiter(lines[first - 1].text) || lines[first - 1].kind != Kind::Text {
        return;
    }
    let head = first - 2;
    if !is_row(lines[head].text) || lines[head].kind != Kind::Text {
        return;
    }
    lines[first - 1].kind = Kind::Part { entry: first };
    lines[head].kind = Kind::Part { entry: first };
}

#[cfg(test)]
mod tests;
