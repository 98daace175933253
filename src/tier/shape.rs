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

mod hubs;
mod render;
mod words;

use super::groups::{Layout, Role};
use super::parse::{Index, Kind};

pub(super) use self::hubs::hub_files;
pub(super) use self::render::render_index;
pub(super) use self::words::{cut_words, first_clause};

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
    /// still has room for; see `plan::planner::Planner::give_back_rules`).
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
