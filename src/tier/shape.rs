//! Rendering a choice of slimming steps: where each index line goes, the new MEMORY.md, and the
//! hubs' new texts.
//!
//! A heading stays while anything of its section stays in MEMORY.md; when nothing does, it moves
//! verbatim with the first line of its section that leaves. A hub that receives lines from
//! under a heading that stayed (or moved elsewhere) gets a copy of that heading, so every hub
//! keeps the index's structure. A unit's pointer goes where its first moved entry was (where
//! the section was, when its heading left too): tier writes no heading of its own. Pointer
//! lines and hub descriptions are retrieval keys built from the moved entries' own titles,
//! in the library's language: no type name, count, file name or `…`.

use jiff::Timestamp;

use super::groups::{Layout, Role};
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
    /// An existing pointer line: folded (moved verbatim into [`MORE_HUBS`] and its sequels).
    Pointer(usize),
}

/// Which slimming steps are applied.
#[derive(Debug, Clone)]
pub(super) struct Choice {
    /// Per piece: moved into its unit's hub.
    pub pushed: Vec<bool>,
    /// Per index line: an entry of a pushed piece given back on its own (a rule the budget
    /// still has room for; see `plan::Planner::give_back_rules`).
    pub kept: Vec<bool>,
    /// Units whose hubs are linked from the `- More hubs:` line instead.
    pub aggregated: Vec<Unit>,
    /// Blank lines dropped (they count toward the client's line limit).
    pub compact: bool,
}

impl Choice {
    /// Whether index line `i`, an entry, moves into its unit's hub.
    pub(super) fn moves(&self, layout: &Layout, i: usize) -> bool {
        matches!(layout.roles[i], Role::Entry(p) if self.pushed[p]) && !self.kept[i]
    }
}

/// The hub that receives the folded pointer lines, with their descriptions (then
/// `reference_more-hubs-2_hub.md`… when they pass `max-file-lines`).
pub(super) const MORE_HUBS: &str = "reference_more-hubs_hub.md";

/// Where an index line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest<'a> {
    /// Stays in place.
    Stay,
    /// Into this hub.
    Hub(&'a str),
}

/// Where every line of the index goes under `choice`: a moved entry into its unit's hub (the
/// unit's moved entries fill its hubs in order, `max_entries` each); a heading whose whole
/// section leaves goes with its first line.
pub(super) fn destinations<'a>(idx: &Index, layout: &'a Layout, choice: &Choice) -> Vec<Dest<'a>> {
    let mut dest: Vec<Dest> = vec![Dest::Stay; layout.roles.len()];
    let parts = part_counts(idx);
    // Folded pointer lines fill the more-hubs hubs in order, within the audit's limits.
    let folded: Vec<usize> = (layout.roles.iter().enumerate())
        .filter(|(_, role)| matches!(role, Role::Pointer(p) if choice.aggregated.contains(&Unit::Pointer(*p))))
        .map(|(i, _)| i)
        .collect();
    let limits = Limits {
        entries: usize::MAX,
        lines: layout.max_lines,
        room: layout.more_room,
    };
    for (&i, chunk) in folded.iter().zip(assign(idx, &parts, &folded, limits)) {
        dest[i] = Dest::Hub(&layout.more_hubs[chunk.min(layout.more_hubs.len() - 1)]);
    }
    for group in &layout.groups {
        let moving: Vec<usize> = (group.lines.iter().copied())
            .filter(|&i| choice.moves(layout, i))
            .collect();
        let limits = Limits {
            entries: layout.max_entries,
            lines: layout.max_lines,
            room: group.room,
        };
        for (&i, chunk) in moving.iter().zip(assign(idx, &parts, &moving, limits)) {
            dest[i] = Dest::Hub(&group.hubs[chunk.min(group.hubs.len() - 1)]);
        }
    }
    // A continuation line or a table's head goes with its entry.
    for (i, line) in idx.lines.iter().enumerate() {
        if let Kind::Part { entry } = line.kind {
            dest[i] = dest[entry];
        }
    }
    for h in (0..idx.lines.len()).rev() {
        if layout.roles[h] != Role::Heading || layout.hubs_heading == Some(h) {
            continue;
        }
        let content =
            (h + 1..idx.section_end(h)).filter(|&i| !matches!(idx.lines[i].kind, Kind::Blank));
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

/// What an existing hub can still take within the audit's limits: entries (under its last
/// `##` group, as `large-group` counts them) and lines (as `oversized-file` counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    /// Entries it can take.
    pub entries: usize,
    /// Lines it can take.
    pub lines: usize,
}

/// The audit's limits on a unit's hubs, and the room its existing first hub has left.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    /// `max-group-entries`.
    pub entries: usize,
    /// `max-file-lines`.
    pub lines: usize,
    /// The first hub's room when it exists already (`None`: tier creates it).
    pub room: Option<Room>,
}

/// The lines a new hub's head takes (frontmatter of either spec, blank, `# title`, blank).
const NEW_HUB_HEAD: usize = 12;

/// The room of a hub that holds `text` already: `max-file-lines` less its lines (one more
/// for a missing final newline), and `max-group-entries` less the list items after its last
/// `## ` heading (where moved entries would be counted if none of their own headings is a
/// `##`). Counting every list item, not only entries, keeps it on the safe side.
pub(super) fn room_of(text: &str, max_entries: usize, max_lines: usize) -> Room {
    let lines = text.lines().count() + usize::from(!text.is_empty() && !text.ends_with('\n'));
    let mut items = 0;
    for line in text.lines() {
        if line.starts_with("## ") {
            items = 0;
        }
        let t = line.trim_start();
        if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
            items += 1;
        }
    }
    Room {
        entries: max_entries.saturating_sub(items),
        lines: max_lines.saturating_sub(lines),
    }
}

/// How many [`Kind::Part`] lines each index line's entry has.
pub(super) fn part_counts(idx: &Index) -> Vec<usize> {
    let mut parts = vec![0; idx.lines.len()];
    for line in &idx.lines {
        if let Kind::Part { entry } = line.kind {
            parts[entry] += 1;
        }
    }
    parts
}

/// Which of a unit's hubs each of `lines` (its moving entries, in order) goes to: the first
/// hub while it has room (an existing one only what [`Room`] leaves: appending never takes a
/// hub past the audit's limits), then new hubs of at most `max-group-entries` entries each,
/// balanced (16 entries make two hubs of 8, not 15 and 1), and never past `max-file-lines`
/// counting the new hub's head, each entry's continuation lines and the heading copies (and
/// the blank line before each) that `hub_files` writes above it.
pub(super) fn assign(idx: &Index, parts: &[usize], lines: &[usize], limits: Limits) -> Vec<usize> {
    let new_room = |left: usize| {
        let hubs = left.div_ceil(limits.entries).max(1);
        Room {
            entries: left.div_ceil(hubs).max(1),
            lines: limits.lines.saturating_sub(NEW_HUB_HEAD),
        }
    };
    let mut room = limits.room.unwrap_or_else(|| new_room(lines.len()));
    let mut chunk = 0;
    let mut taken = 0;
    let mut open: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(lines.len());
    for (k, &i) in lines.iter().enumerate() {
        let chain = idx.headings_of(i);
        let cost = |open: &[usize]| {
            let same = open.iter().zip(&chain).take_while(|(a, b)| a == b).count();
            1 + parts[i] + 2 * (chain.len() - same)
        };
        let mut need = cost(&open);
        // An existing hub takes only what fits; a new one takes at least one entry, however
        // long (a new hub that cannot hold one entry is past help: the proof refuses it).
        let existing = chunk == 0 && limits.room.is_some();
        if room.entries == 0 || (need > room.lines && (taken > 0 || existing)) {
            chunk += 1;
            taken = 0;
            room = new_room(lines.len() - k);
            open.clear();
            need = cost(&open);
        }
        room.entries = room.entries.saturating_sub(1);
        room.lines = room.lines.saturating_sub(need);
        taken += 1;
        open = chain;
        out.push(chunk);
    }
    out
}

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
pub(super) fn render_index(
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

/// Type names are no topic (see `groups`).
fn is_type_word(t: &str) -> bool {
    matches!(
        t.trim().to_lowercase().as_str(),
        "user"
            | "users"
            | "feedback"
            | "feedbacks"
            | "project"
            | "projects"
            | "reference"
            | "references"
            | "other"
            | "others"
    )
}

/// The pointer's topic and the labels left for its hook: the unit's title in the library's
/// words (a heading cut at its first clause, without leading signs), else the first label.
fn topic_of<'a>(title: &str, labels: &[&'a str]) -> (String, Vec<&'a str>) {
    let t = title.trim_start_matches(|c: char| !c.is_alphanumeric() && c != '(' && c != '[');
    let t = first_clause(t);
    let t = cut_words(t, 48);
    if t.is_empty() || is_type_word(&t) {
        let first = labels.first().map(|l| cut_words(l, 48)).unwrap_or_default();
        return (first, labels.iter().skip(1).copied().collect());
    }
    (t, labels.to_vec())
}

/// The first clause of `text`: up to its first `;`, ` — `, `. `, `。`, `；`, `(` or `（`
/// (the whole text when none comes within it).
pub(super) fn first_clause(text: &str) -> &str {
    let stops = [
        " — ", " – ", "; ", ". ", "。", "；", " (", "（", "(", ": ", "：",
    ];
    let at = stops
        .iter()
        .filter_map(|s| text.find(s))
        .filter(|&at| at > 0)
        .min()
        .unwrap_or(text.len());
    text[..at].trim_end_matches([',', '，', '、', ' ']).trim()
}

/// `text` within `max` UTF-16 units, cut at the last word boundary that fits (never inside a
/// word; a text without spaces, as in Han or kana, is cut between characters).
pub(super) fn cut_words(text: &str, max: usize) -> String {
    let text = text.trim();
    if utf16_len(text) <= max {
        return text.to_owned();
    }
    let mut end = 0;
    let mut last_space = None;
    for (at, c) in text.char_indices() {
        if utf16_len(&text[..at + c.len_utf8()]) > max {
            break;
        }
        if c.is_whitespace() {
            last_space = Some(at);
        }
        end = at + c.len_utf8();
    }
    let spaced = text.contains(' ');
    let cut = match last_space {
        Some(at) if spaced => at,
        _ if spaced => 0,
        _ => end,
    };
    text[..cut]
        .trim_end_matches([',', ';', ':', '，', '、', ' ', '—', '-'])
        .trim()
        .to_owned()
}

/// A pointer line: `- [topic](hub) — label; label; …`, at most 150 UTF-16 units, the labels
/// whole (a label that does not fit is left out, never cut with `…`). `[`/`]` in the topic
/// become parentheses so the link stays one.
pub(super) fn pointer(title: &str, hub: &str, labels: &[&str]) -> String {
    let (topic, rest) = topic_of(title, labels);
    let topic = topic.replace('[', "(").replace(']', ")");
    let mut line = format!("- [{topic}]({})", hub);
    let mut first = true;
    for l in rest {
        let l = l.replace(".md", "");
        let l = l.trim();
        if l.is_empty() || l == topic {
            continue;
        }
        let sep = if first { " — " } else { "; " };
        if utf16_len(&line) + utf16_len(sep) + utf16_len(l) > INDEX_LINE_GUIDE_UTF16 {
            continue;
        }
        line.push_str(sep);
        line.push_str(l);
        first = false;
    }
    line
}

/// A hub's `description:`: its topic and its entries' labels, as its pointer says them.
fn description(title: &str, labels: &[&str]) -> String {
    let (topic, rest) = topic_of(title, labels);
    let mut d = topic;
    let mut first = true;
    for l in rest {
        let l = l.replace(".md", "");
        let sep = if first { ": " } else { "; " };
        if utf16_len(&d) + utf16_len(sep) + utf16_len(&l) > INDEX_LINE_GUIDE_UTF16 {
            continue;
        }
        d.push_str(sep);
        d.push_str(l.trim());
        first = false;
    }
    d
}

/// What a new hub says about itself.
struct About {
    title: String,
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
        let about = match layout
            .groups
            .iter()
            .find(|g| g.hubs.iter().any(|h| h == hub))
        {
            Some(g) => {
                let labels: Vec<&str> = (g.lines.iter().zip(&g.labels))
                    .filter(|(i, _)| dest[**i] == Dest::Hub(hub))
                    .map(|(_, l)| l.as_str())
                    .collect();
                let mine: Vec<usize> = (g.lines.iter().copied())
                    .filter(|&i| dest[i] == Dest::Hub(hub))
                    .collect();
                let topic = g.title_of(idx, &mine);
                About {
                    title: topic_of(&topic, &labels).0,
                    description: description(&topic, &labels),
                }
            }
            None => About {
                title: "More hubs".to_owned(),
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
