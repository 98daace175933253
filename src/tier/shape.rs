//! Rendering a choice of slimming steps: where each index line goes, the new MEMORY.md, and the
//! hubs' new texts.
//!
//! A heading stays while anything of its section stays in MEMORY.md; when nothing does, it moves
//! verbatim with the first line of its section that leaves. A hub that receives lines from
//! under a heading that stayed (or moved elsewhere) gets a copy of that heading, so every hub
//! keeps the index's structure. Tier's own pointers go under a `## Hubs` heading: the index's
//! own when it has one, else a new one at the end.

use jiff::Timestamp;

use super::groups::{Group, HUBS_HEADING, Layout, Role};
use super::parse::{Index, Kind, eol_of};
use super::plan::FilePlan;
use super::{text_of, topic};
use crate::constants::{INDEX_LINE_GUIDE_UTF16, INDEX_LINE_LONG_UTF16};
use crate::memory::names;
use crate::memory::{Library, Spec};
use crate::text::js::utf16_len;

/// One thing the aggregate line can link instead of a pointer line of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// A pushed group whose pointer tier would write.
    Group(usize),
    /// An existing pointer line: folded (moved verbatim into [`MORE_HUBS`]).
    Pointer(usize),
}

/// Which slimming steps are applied.
#[derive(Debug, Clone)]
pub(super) struct Choice {
    /// Per group: moved into its hub.
    pub pushed: Vec<bool>,
    /// Units whose hubs are linked from the `- More hubs:` line instead.
    pub aggregated: Vec<Unit>,
    /// Blank lines dropped (they count toward the client's line limit).
    pub compact: bool,
}

/// The hub that receives the folded pointer lines, with their descriptions.
pub(super) const MORE_HUBS: &str = "reference_more-hubs_hub.md";

/// Where an index line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest<'a> {
    /// Stays in place.
    Stay,
    /// To the top of MEMORY.md (a crown).
    Top,
    /// Into this hub.
    Hub(&'a str),
}

/// Where every line of the index goes under `choice`.
pub(super) fn destinations<'a>(idx: &Index, layout: &'a Layout, choice: &Choice) -> Vec<Dest<'a>> {
    let mut dest: Vec<Dest> = (layout.roles.iter())
        .map(|role| match *role {
            Role::Keep | Role::Title | Role::Heading => Dest::Stay,
            Role::Crown => Dest::Top,
            Role::Pointer(p) if choice.aggregated.contains(&Unit::Pointer(p)) => {
                Dest::Hub(MORE_HUBS)
            }
            Role::Pointer(_) => Dest::Stay,
            Role::Entry(g) if choice.pushed[g] => Dest::Hub(&layout.groups[g].hub),
            Role::Entry(_) => Dest::Stay,
        })
        .collect();
    for h in 0..idx.lines.len() {
        if layout.roles[h] != Role::Heading || layout.hubs_heading == Some(h) {
            continue;
        }
        let content = (h + 1..idx.section_end(h))
            .filter(|&i| !matches!(idx.lines[i].kind, Kind::Blank | Kind::Heading { .. }));
        let mut first_moved = None;
        let mut stays = false;
        for i in content {
            match dest[i] {
                Dest::Stay => stays = true,
                Dest::Hub(hub) if first_moved.is_none() => first_moved = Some(hub),
                _ => {}
            }
        }
        if let (false, Some(hub)) = (stays, first_moved) {
            dest[h] = Dest::Hub(hub);
        }
    }
    dest
}

/// The index text for `choice`, and the lines it generated (pointers, `- More hubs:` lines,
/// a new `## Hubs` heading).
pub(super) fn render_index(
    idx: &Index,
    layout: &Layout,
    choice: &Choice,
    dest: &[Dest],
) -> (String, Vec<String>) {
    let generated = generated_lines(layout, choice);
    let heading = format!("## {HUBS_HEADING}");
    let mut out: Vec<&str> = Vec::new();
    let blank = |i: usize| matches!(idx.lines[i].kind, Kind::Blank);
    // The title and the prose right under it stay first; the crowns come right after.
    let mut title_block = Vec::new();
    if let Some(t) = idx.title {
        title_block.push(t);
        for i in t + 1..idx.lines.len() {
            let prose = layout.roles[i] == Role::Keep && idx.lines[i].section.is_none();
            if !prose || !matches!(idx.lines[i].kind, Kind::Text | Kind::Blank) {
                break;
            }
            title_block.push(i);
        }
        while title_block.len() > 1 && title_block.last().is_some_and(|&i| blank(i)) {
            title_block.pop();
        }
        let lines = title_block
            .iter()
            .filter(|&&i| !(choice.compact && blank(i)));
        out.extend(lines.map(|&i| idx.lines[i].text));
    }
    let crowns: Vec<usize> = (0..idx.lines.len())
        .filter(|&i| dest[i] == Dest::Top)
        .collect();
    for (k, &i) in crowns.iter().enumerate() {
        let heading = matches!(idx.lines[i].kind, Kind::Heading { .. });
        if !choice.compact && ((k == 0 && idx.title.is_some()) || (k > 0 && heading)) {
            out.push("");
        }
        out.push(idx.lines[i].text);
    }
    if !crowns.is_empty() && !choice.compact {
        out.push("");
    }
    // Tier's pointers go under the index's own `## Hubs` heading, after its last line.
    let anchor = layout.hubs_heading.map(|h| {
        (h + 1..idx.section_end(h))
            .rev()
            .find(|&i| dest[i] == Dest::Stay && !blank(i))
            .unwrap_or(h)
    });
    for (i, line) in idx.lines.iter().enumerate() {
        if title_block.contains(&i) {
            continue;
        }
        let skip_blank = choice.compact || out.last().is_none_or(|l| l.trim().is_empty());
        if dest[i] == Dest::Stay && !(blank(i) && skip_blank) {
            out.push(line.text);
        }
        if anchor == Some(i) {
            out.extend(generated.iter().map(String::as_str));
        }
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let mut written = generated.clone();
    if anchor.is_none() && !generated.is_empty() {
        if !out.is_empty() && !choice.compact {
            out.push("");
        }
        out.push(&heading);
        written.insert(0, heading.clone());
        out.extend(generated.iter().map(String::as_str));
    }
    let mut text = idx.frontmatter.to_owned();
    for l in &out {
        text.push_str(l);
        text.push_str(idx.eol);
    }
    (text, written)
}

/// Pointer lines of the pushed groups MEMORY.md does not link yet, then the `- More hubs:`
/// lines.
fn generated_lines(layout: &Layout, choice: &Choice) -> Vec<String> {
    let mut generated = Vec::new();
    for (g, group) in layout.groups.iter().enumerate() {
        if choice.pushed[g] && !group.linked && !choice.aggregated.contains(&Unit::Group(g)) {
            generated.push(pointer(group));
        }
    }
    if choice.aggregated.is_empty() {
        return generated;
    }
    let folded = (choice.aggregated.iter()).any(|u| matches!(u, Unit::Pointer(_)));
    let mut links: Vec<String> = Vec::new();
    if folded {
        links.push(format!("[all, described]({MORE_HUBS})"));
    }
    for unit in &choice.aggregated {
        let (title, hubs): (&str, Vec<&str>) = match *unit {
            Unit::Group(g) => (&layout.groups[g].title, vec![&layout.groups[g].hub]),
            Unit::Pointer(p) => {
                let pointer = &layout.pointers[p];
                (
                    &pointer.title,
                    pointer.hubs.iter().map(String::as_str).collect(),
                )
            }
        };
        for (k, hub) in hubs.iter().enumerate() {
            let label = if k == 0 { title } else { hub_label(hub) };
            links.push(format!("[{}]({hub})", short(label)));
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

/// `- [Title](reference_x_hub.md) — N entries: a, b, c…` (at most ~150 UTF-16 units).
pub(super) fn pointer(group: &Group) -> String {
    let n = group.lines.len();
    let head = format!(
        "- [{}]({}) — {n} {}",
        short(&group.title),
        group.hub,
        if n == 1 { "entry" } else { "entries" }
    );
    let mut line = head;
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

/// What a new hub says about itself.
struct About<'a> {
    title: &'a str,
    description: String,
}

/// The new texts of every hub that receives lines under `dest`, in order of first line, and
/// the lines they generated (frontmatter, titles, heading copies).
pub(super) fn hub_files(
    lib: &Library,
    idx: &Index,
    layout: &Layout,
    dest: &[Dest],
    now: Timestamp,
) -> (Vec<FilePlan>, Vec<String>) {
    let mut order: Vec<&str> = Vec::new();
    for d in dest {
        if let Dest::Hub(h) = d
            && !order.contains(h)
        {
            order.push(h);
        }
    }
    let mut files = Vec::new();
    let mut generated = Vec::new();
    for hub in order {
        let about = match layout.groups.iter().find(|g| g.hub == hub) {
            Some(g) => About {
                title: &g.title,
                description: format!("Hub of the {} entries moved out of MEMORY.md", g.title),
            },
            None => About {
                title: "More hubs",
                description:
                    "Hubs whose pointer lines were folded out of MEMORY.md, with their descriptions"
                        .to_owned(),
            },
        };
        let moved = moved_lines(idx, dest, hub, &mut generated);
        let old = topic(lib, hub).map(|f| text_of(f).to_owned());
        let eol = old.as_deref().map_or(idx.eol, eol_of);
        let mut text = match &old {
            Some(old) => {
                let mut t = old.clone();
                if !t.is_empty() && !t.ends_with('\n') {
                    t.push_str(eol);
                }
                t
            }
            None => {
                let head = new_hub_head(lib.spec(), hub, &about, now);
                let mut t = String::new();
                for l in head {
                    t.push_str(&l);
                    t.push_str(eol);
                    generated.push(l);
                }
                t.push_str(eol);
                if !moved
                    .first()
                    .is_some_and(|l| l.trim_start().starts_with('#'))
                {
                    let title = format!("# {}", about.title);
                    t.push_str(&title);
                    t.push_str(eol);
                    t.push_str(eol);
                    generated.push(title);
                }
                t
            }
        };
        let mut last_blank = text.is_empty() || text.ends_with(&format!("{eol}{eol}"));
        for (i, line) in moved.iter().enumerate() {
            let heading = line.trim_start().starts_with('#');
            if heading && (i > 0 || old.is_some()) && !last_blank {
                text.push_str(eol);
            }
            text.push_str(line);
            text.push_str(eol);
            last_blank = line.trim().is_empty();
        }
        files.push(FilePlan {
            name: hub.to_owned(),
            old,
            new: text,
        });
    }
    (files, generated)
}

/// The lines `hub` receives, in index order, each under copies of the headings it was under
/// (a heading moving into this hub comes verbatim instead of as a copy).
fn moved_lines(idx: &Index, dest: &[Dest], hub: &str, generated: &mut Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (i, line) in idx.lines.iter().enumerate() {
        if dest[i] != Dest::Hub(hub) || matches!(line.kind, Kind::Heading { .. }) {
            continue;
        }
        let chain = idx.headings_of(i);
        let same = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
        for &h in &chain[same..] {
            let text = idx.lines[h].text.to_owned();
            if dest[h] != Dest::Hub(hub) {
                generated.push(text.clone());
            }
            out.push(text);
        }
        open = chain;
        out.push(line.text.to_owned());
    }
    out
}

/// The frontmatter of a new hub, in the library's write spec, stamped `modified`.
fn new_hub_head(spec: Spec, hub: &str, about: &About, now: Timestamp) -> Vec<String> {
    let description = serde_json::to_string(&about.description).unwrap_or_default();
    match spec {
        Spec::Client => vec![
            "---".to_owned(),
            format!("name: {}", names::kebab_name(hub)),
            format!("description: {description}"),
            "metadata:".to_owned(),
            format!("  node_type: {}", crate::constants::NODE_TYPE_MEMORY),
            "  type: reference".to_owned(),
            format!("  modified: {}", now.strftime("%Y-%m-%dT%H:%M:%S%.3fZ")),
            "---".to_owned(),
        ],
        Spec::Manager => vec![
            "---".to_owned(),
            format!("name: {}", hub.trim_end_matches(".md")),
            format!("description: {description}"),
            "type: reference".to_owned(),
            format!("modified: {}", now.strftime("%Y-%m-%d")),
            "---".to_owned(),
        ],
    }
}
