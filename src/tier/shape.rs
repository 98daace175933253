//! The shapes the planner writes: MEMORY.md for a choice of pushed and aggregated groups
//! (title block, crowns, kept lines, pointer lines, the aggregate line), pointer lines, and
//! hub files.

use super::groups::{Group, Layout, Role};
use super::parse::{Index, Kind, eol_of};
use super::plan::FilePlan;
use super::{text_of, topic};
use crate::constants::{INDEX_LINE_GUIDE_UTF16, INDEX_LINE_LONG_UTF16};
use crate::memory::Library;
use crate::text::js::utf16_len;

/// Which slimming steps are applied.
#[derive(Debug, Clone)]
pub(super) struct Choice {
    /// Per group: moved into its hub.
    pub pushed: Vec<bool>,
    /// Groups whose pointer lines are aggregated onto one line. A group that had its own
    /// pointer line in MEMORY.md is *folded*: that line (and its heading, when still there)
    /// moves verbatim into [`MORE_HUBS`], and the aggregate line links its hubs directly.
    pub aggregated: Vec<usize>,
    /// Blank lines dropped (they count toward the client's line limit).
    pub compact: bool,
}

/// The hub that receives the folded pointer lines, with their descriptions.
pub(super) const MORE_HUBS: &str = "reference_more-hubs_hub.md";

impl Choice {
    /// Index lines that leave MEMORY.md for [`MORE_HUBS`], in file order.
    pub(super) fn folded_lines(&self, layout: &Layout) -> Vec<usize> {
        let mut lines: Vec<usize> = (self.aggregated.iter())
            .map(|&g| (g, &layout.groups[g]))
            .filter(|(_, group)| group.has_pointer)
            .flat_map(|(g, group)| {
                let heading = (!self.pushed[g]).then_some(&group.lines[..]);
                group.pointers.iter().chain(heading.into_iter().flatten())
            })
            .copied()
            .collect();
        lines.sort_unstable();
        lines
    }
}

/// The index text for `choice`, and the lines it generated.
pub(super) fn render_index(idx: &Index, layout: &Layout, choice: &Choice) -> (String, Vec<String>) {
    let (pushed, aggregated) = (&choice.pushed, &choice.aggregated);
    let folded = choice.folded_lines(layout);
    let kept = |i: usize| -> bool {
        let role_kept = match layout.roles[i] {
            Role::Group(g) => !pushed[g],
            Role::Crown => false,
            Role::Keep | Role::Pointer => true,
        };
        role_kept && folded.binary_search(&i).is_err()
    };
    let mut out: Vec<&str> = Vec::new();
    // A leading `# Title` stays first; the crowns come right after it.
    let title = idx
        .lines
        .iter()
        .position(|l| !matches!(l.kind, Kind::Blank))
        .filter(|&i| {
            kept(i)
                && matches!(idx.lines[i].kind, Kind::Heading { .. })
                && idx.lines[i].text.starts_with("# ")
        });
    // The title block: the title and the prose right under it (not its entries).
    let mut title_block = Vec::new();
    if let Some(t) = title {
        title_block.push(t);
        for (i, l) in idx.lines.iter().enumerate().skip(t + 1) {
            let prose = matches!(l.kind, Kind::Text | Kind::Blank) && l.section == Some(t);
            if !prose || layout.roles[i] == Role::Crown {
                break;
            }
            title_block.push(i);
        }
        while title_block.len() > 1
            && matches!(
                idx.lines[title_block[title_block.len() - 1]].kind,
                Kind::Blank
            )
        {
            title_block.pop();
        }
        let lines = title_block.iter().map(|&i| &idx.lines[i]);
        let lines = lines.filter(|l| !(choice.compact && matches!(l.kind, Kind::Blank)));
        out.extend(lines.map(|l| l.text));
    }
    let crowns: Vec<_> = (idx.lines.iter().zip(&layout.roles))
        .filter(|(_, r)| **r == Role::Crown)
        .map(|(l, _)| l)
        .collect();
    for (k, line) in crowns.iter().enumerate() {
        let heading = matches!(line.kind, Kind::Heading { .. });
        if !choice.compact && ((k == 0 && title.is_some()) || (k > 0 && heading)) {
            out.push("");
        }
        out.push(line.text);
    }
    if !crowns.is_empty() && !choice.compact {
        out.push("");
    }
    for (i, line) in idx.lines.iter().enumerate() {
        if title_block.contains(&i) {
            continue;
        }
        let keep = kept(i);
        let blank = matches!(line.kind, Kind::Blank);
        let skip_blank = choice.compact || out.last().is_none_or(|l| l.trim().is_empty());
        if keep && !(blank && skip_blank) {
            out.push(line.text);
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let mut generated = Vec::new();
    for (g, group) in layout.groups.iter().enumerate() {
        if pushed[g] && !group.has_pointer && !aggregated.contains(&g) {
            generated.push(pointer(group));
        }
    }
    if !aggregated.is_empty() {
        // One line, split only where it would pass the one-line limit of the index.
        let mut links: Vec<String> = Vec::new();
        if !folded.is_empty() {
            links.push(format!("[all, described]({MORE_HUBS})"));
        }
        for &g in aggregated {
            let group = &layout.groups[g];
            for (k, hub) in group.linked_hubs().iter().enumerate() {
                let label = if k == 0 {
                    short(&group.title)
                } else {
                    short(
                        hub.trim_start_matches("reference_")
                            .trim_end_matches("_hub.md"),
                    )
                };
                links.push(format!("[{label}]({hub})"));
            }
        }
        let mut line = String::from("- More hubs:");
        for (i, link) in links.iter().enumerate() {
            let sep = if i == 0 || line.ends_with(':') {
                " "
            } else {
                " · "
            };
            if utf16_len(&line) + utf16_len(sep) + utf16_len(link) > INDEX_LINE_LONG_UTF16 - 10
                && !line.ends_with(':')
            {
                generated.push(std::mem::replace(&mut line, "- More hubs:".to_owned()));
                line.push(' ');
            } else {
                line.push_str(sep);
            }
            line.push_str(link);
        }
        generated.push(line);
    }
    if !generated.is_empty() {
        if !out.is_empty() && !choice.compact {
            out.push("");
        }
        out.extend(generated.iter().map(String::as_str));
    }
    let eol = idx.eol;
    let mut text = idx.frontmatter.to_owned();
    for l in &out {
        text.push_str(l);
        text.push_str(eol);
    }
    (text, generated)
}

/// `- [Title](reference_x_hub.md) — N entries: a, b, c…` (at most ~150 UTF-16 units).
fn pointer(group: &Group) -> String {
    let head = format!(
        "- [{}]({}) — {} {}",
        short(&group.title),
        group.hub,
        group.entries,
        if group.entries == 1 {
            "entry"
        } else {
            "entries"
        }
    );
    let mut line = head.clone();
    for (i, t) in group.topics.iter().enumerate() {
        let sep = if i == 0 { ": " } else { ", " };
        if utf16_len(&line) + utf16_len(sep) + utf16_len(t) > INDEX_LINE_GUIDE_UTF16 - 2 {
            line.push('…');
            break;
        }
        line.push_str(sep);
        line.push_str(t);
    }
    line
}

/// A title cut to 40 characters for pointer lines.
fn short(title: &str) -> String {
    if title.chars().count() <= 40 {
        return title.to_owned();
    }
    let cut: String = title.chars().take(39).collect();
    format!("{}…", cut.trim_end())
}

/// The hub's new text (created, or the old text with the groups' lines appended).
pub(super) fn hub_file(lib: &Library, idx: &Index, groups: &[&Group]) -> (FilePlan, Vec<String>) {
    let first = groups[0];
    let moved: Vec<&str> = groups
        .iter()
        .flat_map(|g| g.lines.iter().map(|&i| idx.lines[i].text))
        .collect();
    let about = format!("Hub of the {} entries moved out of MEMORY.md", first.title);
    let old = topic(lib, &first.hub).map(|f| text_of(f).to_owned());
    let (new, generated) = append_to_hub(
        old.as_deref(),
        idx,
        &first.hub,
        &first.title,
        &about,
        &moved,
    );
    let file = FilePlan {
        name: first.hub.clone(),
        old,
        new,
    };
    (file, generated)
}

/// Appends the folded pointer lines to [`MORE_HUBS`] (as already planned in `files`, else as on
/// disk, else new) and returns the lines written on top of them.
pub(super) fn fold_into_more_hubs(
    lib: &Library,
    idx: &Index,
    lines: &[usize],
    files: &mut Vec<FilePlan>,
) -> Vec<String> {
    let moved: Vec<&str> = lines.iter().map(|&i| idx.lines[i].text).collect();
    let about = "Hubs whose pointer lines were folded out of MEMORY.md, with their descriptions";
    // A group named "More hubs" may have been pushed into it already: append after those lines.
    let planned = files.iter().position(|f| f.name == MORE_HUBS);
    let old = topic(lib, MORE_HUBS).map(|f| text_of(f).to_owned());
    let base = planned.map_or(old.clone(), |i| Some(files[i].new.clone()));
    let (new, generated) =
        append_to_hub(base.as_deref(), idx, MORE_HUBS, "More hubs", about, &moved);
    match planned {
        Some(i) => files[i].new = new,
        None => files.push(FilePlan {
            name: MORE_HUBS.to_owned(),
            old,
            new,
        }),
    }
    generated
}

/// `base` with `moved` appended, or a new hub (frontmatter, a title unless `moved` starts with
/// a heading, then `moved`). Returns the text and the lines it wrote itself.
fn append_to_hub(
    base: Option<&str>,
    idx: &Index,
    name: &str,
    title: &str,
    about: &str,
    moved: &[&str],
) -> (String, Vec<String>) {
    let mut generated = Vec::new();
    let (mut text, eol) = match base {
        Some(old) => {
            let eol = eol_of(old);
            let mut t = old.to_owned();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(eol);
            }
            (t, eol)
        }
        None => {
            let eol = idx.eol;
            let head = [
                "---".to_owned(),
                format!("name: {}", name.trim_end_matches(".md")),
                format!(
                    "description: {}",
                    serde_json::to_string(about).unwrap_or_default()
                ),
                "type: reference".to_owned(),
                "---".to_owned(),
            ];
            let mut t = head.join(eol);
            t.push_str(eol);
            generated.extend(head);
            if !moved
                .first()
                .is_some_and(|l| l.trim_start().starts_with('#'))
            {
                let title = format!("# {title}");
                t.push_str(&title);
                t.push_str(eol);
                generated.push(title);
            }
            (t, eol)
        }
    };
    for (i, line) in moved.iter().enumerate() {
        if i > 0 && line.trim_start().starts_with('#') {
            text.push_str(eol);
        }
        text.push_str(line);
        text.push_str(eol);
    }
    (text, generated)
}
