//! Where a new line goes in MEMORY.md's text: an entry line under the section it belongs to,
//! a pointer line in tier's `## Hubs` section, each in the file's own line ending.

use super::entry::capitalized;
use crate::tier::groups::HUBS_HEADING;
use crate::tier::parse::{Index, Kind, eol_of, parse};

/// The index with the entry line of the new `<kind>_<topic>.md` added. In an index of
/// sections, under the heading whose entries link most files sharing its prefix
/// (`<kind>_<first topic word>`, else `<kind>_`), after its last entry; else in a section of its
/// own, `## <Kind>`, before tier's `## Hubs` (or at the end). In an index without sections,
/// before tier's `## Hubs` when the index ends with one, else at the end.
pub(super) fn insert_entry(text: &str, line: &str, kind: &str, topic: &str) -> String {
    let idx = parse(text);
    let is_hubs = |i: usize| matches!(&idx.lines[i].kind, Kind::Heading { title, .. } if title.eq_ignore_ascii_case(HUBS_HEADING));
    let hubs = (0..idx.lines.len()).rposition(is_hubs);
    let sections: Vec<usize> = (0..idx.lines.len())
        .filter(|&i| {
            matches!(idx.lines[i].kind, Kind::Heading { .. }) && Some(i) != idx.title && !is_hubs(i)
        })
        .collect();
    let last_non_blank = |from: usize, to: usize| {
        (from..to)
            .rev()
            .find(|&i| !matches!(idx.lines[i].kind, Kind::Blank))
    };
    if sections.is_empty() {
        let last_heading = (idx.lines.iter()).rposition(|l| matches!(l.kind, Kind::Heading { .. }));
        return match hubs.filter(|&h| Some(h) == last_heading) {
            Some(h) => insert_after(text, &idx, last_non_blank(0, h), line),
            None => append_line(text, line),
        };
    }
    let first_word = topic.split(['_', '-']).next().unwrap_or(topic);
    for prefix in [format!("{kind}_{first_word}"), format!("{kind}_")] {
        let shares = |i: usize| {
            idx.lines[i].kind == Kind::Entry
                && link_targets(idx.lines[i].text).any(|t| t.starts_with(prefix.as_str()))
        };
        let best = (sections.iter().copied())
            .map(|h| {
                (
                    h,
                    (h + 1..idx.section_end(h)).filter(|&i| shares(i)).count(),
                )
            })
            .filter(|&(_, n)| n > 0)
            .max_by_key(|&(h, n)| (n, std::cmp::Reverse(h)));
        if let Some((h, _)) = best {
            let end = idx.section_end(h);
            let last_entry = (h + 1..end)
                .rev()
                .find(|&i| idx.lines[i].kind == Kind::Entry);
            return insert_after(text, &idx, last_entry.or(last_non_blank(h, end)), line);
        }
    }
    let eol = idx.eol;
    let section = format!("{eol}## {}{eol}{line}", capitalized(kind));
    match hubs {
        Some(h) => insert_after(text, &idx, last_non_blank(0, h), &section),
        None => append_line(text, &section),
    }
}

/// The targets of the Markdown links `](target)` of an index line.
fn link_targets(line: &str) -> impl Iterator<Item = &str> {
    line.split("](").skip(1).filter_map(|rest| {
        let end = rest.find([')', ' ', '#'])?;
        Some(rest[..end].trim_start_matches("./"))
    })
}

/// The index with a pointer line added: at the end of its `## Hubs` section when it has one,
/// else at the end.
pub(super) fn insert_pointer(text: &str, line: &str) -> String {
    let idx = parse(text);
    let hubs = (idx.lines.iter()).position(|l| {
        matches!(&l.kind, Kind::Heading { title, .. } if title.eq_ignore_ascii_case(HUBS_HEADING))
    });
    match hubs {
        Some(h) => {
            let end = idx.section_end(h);
            let last = (h..end)
                .rev()
                .find(|&i| !matches!(idx.lines[i].kind, Kind::Blank));
            insert_after(text, &idx, last, line)
        }
        None => append_line(text, line),
    }
}

/// `text` with `line` inserted after index line `after` (`None`: before the first line).
fn insert_after(text: &str, idx: &Index, after: Option<usize>, line: &str) -> String {
    let eol = idx.eol;
    // Byte offset where line `after + 1` starts.
    let skip = idx.frontmatter.len();
    let mut at = skip;
    if let Some(a) = after {
        let mut seen = 0;
        for (k, b) in text.bytes().enumerate().skip(skip) {
            if b == b'\n' {
                if seen == a {
                    at = k + 1;
                    break;
                }
                seen += 1;
            }
        }
        if seen < a || at == skip {
            return append_line(text, line);
        }
    }
    let mut out = String::with_capacity(text.len() + line.len() + 2);
    out.push_str(&text[..at]);
    out.push_str(line);
    out.push_str(eol);
    out.push_str(&text[at..]);
    out
}

/// `text` with `line` appended on a line of its own, in `text`'s line ending.
pub(super) fn append_line(text: &str, line: &str) -> String {
    let eol = eol_of(text);
    let mut out = text.to_owned();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(eol);
    }
    out.push_str(line);
    out.push_str(eol);
    out
}
