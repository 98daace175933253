//! The new MEMORY.md: the lines that stay, the pointers tier writes where their entries were,
//! and the `- More hubs:` lines that link the aggregated units' hubs.

use super::words::{cut_words, pointer, topic_of};
use super::{Choice, Dest, Unit};
use crate::constants::INDEX_LINE_LONG_UTF16;
use crate::text::js::utf16_len;
use crate::tier::groups::Layout;
use crate::tier::parse::{Index, Kind};

/// A pointer tier writes: the hub, and the line of the index it takes the place of.
struct Written {
    at: usize,
    text: String,
}

/// The pointers tier writes under `dest`: one per hub that receives entries and that no line
/// of MEMORY.md links yet, where the first of its entries was (or the heading that left with
/// them): a section's pointer goes where the section was.
fn written_pointers(idx: &Index, layout: &Layout, choice: &Choice, dest: &[Dest]) -> Vec<Written> {
    let mut out = Vec::new();
    for (g, group) in layout.groups.iter().enumerate() {
        if choice.aggregated.contains(&Unit::Group(g)) {
            continue;
        }
        for (c, hub) in group.hubs.iter().enumerate() {
            if c == 0 && group.linked {
                continue;
            }
            let mine: Vec<usize> = (group.lines.iter().copied())
                .filter(|&i| dest[i] == Dest::Hub(hub))
                .collect();
            let Some(&first) = mine.first() else { continue };
            let mut at = first;
            while let Some(h) = idx.lines[at].section
                && dest[h] == Dest::Hub(hub)
            {
                at = h;
            }
            let labels: Vec<&str> = (group.lines.iter().zip(&group.labels))
                .filter(|(i, _)| mine.contains(i))
                .map(|(_, l)| l.as_str())
                .collect();
            out.push(Written {
                at,
                text: pointer(&group.title_of(idx, &mine), hub, &labels),
            });
        }
    }
    out
}

/// The index text for `choice`, and the lines it generated (pointers, `- More hubs:` lines).
pub(crate) fn render_index(
    idx: &Index,
    layout: &Layout,
    choice: &Choice,
    dest: &[Dest],
) -> (String, Vec<String>) {
    let pointers = written_pointers(idx, layout, choice, dest);
    let aggregate = aggregate_lines(layout, choice, dest);
    let mut out: Vec<&str> = Vec::new();
    let blank = |i: usize| matches!(idx.lines[i].kind, Kind::Blank);
    // Aggregate lines go under the index's own `## Hubs` heading, after its last line.
    let anchor = layout.hubs_heading.map(|h| {
        (h + 1..idx.section_end(h))
            .rev()
            .find(|&i| dest[i] == Dest::Stay && !blank(i))
            .unwrap_or(h)
    });
    let mut at: Vec<(usize, usize)> = pointers
        .iter()
        .enumerate()
        .map(|(k, p)| (p.at, k))
        .collect();
    at.sort_unstable();
    let mut next = 0;
    for (i, line) in idx.lines.iter().enumerate() {
        while next < at.len() && at[next].0 == i {
            out.push(&pointers[at[next].1].text);
            next += 1;
        }
        let skip_blank = choice.compact || out.last().is_none_or(|l| l.trim().is_empty());
        if dest[i] == Dest::Stay && !(blank(i) && skip_blank) {
            out.push(line.text);
        }
        if anchor == Some(i) {
            out.extend(aggregate.iter().map(String::as_str));
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    if anchor.is_none() {
        out.extend(aggregate.iter().map(String::as_str));
    }
    let mut text = idx.frontmatter.to_owned();
    for l in &out {
        text.push_str(l);
        text.push_str(idx.eol);
    }
    let mut written: Vec<String> = pointers.into_iter().map(|p| p.text).collect();
    written.extend(aggregate);
    (text, written)
}

/// The `- More hubs:` lines linking the aggregated units' hubs.
fn aggregate_lines(layout: &Layout, choice: &Choice, dest: &[Dest]) -> Vec<String> {
    let mut generated = Vec::new();
    if choice.aggregated.is_empty() {
        return generated;
    }
    let mut links: Vec<String> = Vec::new();
    for (k, more) in layout.more_hubs.iter().enumerate() {
        if dest.contains(&Dest::Hub(more)) {
            let label = if k == 0 {
                "all, described"
            } else {
                "more, described"
            };
            links.push(format!("[{label}]({more})"));
        }
    }
    for unit in &choice.aggregated {
        let (title, hubs): (String, Vec<&str>) = match *unit {
            Unit::Group(g) => {
                let group = &layout.groups[g];
                let title = topic_of(
                    &group.title,
                    &group.labels.iter().map(String::as_str).collect::<Vec<_>>(),
                )
                .0;
                (title, group.hubs.iter().map(String::as_str).collect())
            }
            Unit::Pointer(p) => {
                let pointer = &layout.pointers[p];
                (
                    pointer.title.clone(),
                    pointer.hubs.iter().map(String::as_str).collect(),
                )
            }
        };
        for (k, hub) in hubs.iter().enumerate() {
            let label = if k == 0 {
                title.as_str()
            } else {
                hub_label(hub)
            };
            links.push(format!("[{}]({hub})", cut_words(label, 40)));
        }
    }
    // One line, split only where it would pass the length the client calls too long.
    let mut line = String::from("- More hubs:");
    for link in &links {
        let fresh = line.ends_with(':');
        if !fresh && utf16_len(&line) + 3 + utf16_len(link) > INDEX_LINE_LONG_UTF16 - 10 {
            generated.push(std::mem::replace(&mut line, "- More hubs: ".to_owned()));
        } else {
            line.push_str(if fresh { " " } else { " · " });
        }
        line.push_str(link);
    }
    generated.push(line);
    generated
}

/// `reference_db_hub.md` → `db`.
fn hub_label(hub: &str) -> &str {
    hub.trim_start_matches("reference_")
        .trim_end_matches("_hub.md")
}
