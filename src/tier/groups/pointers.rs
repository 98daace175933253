//! Hub pointers: the hubs an index line links, the hub a section's pointer feeds, and the
//! more-hubs hubs that folded pointer lines go to.

use std::collections::HashMap;

use super::{Group, Pointer, Role};
use crate::memory::file::Role as FileRole;
use crate::memory::library::{FileLink, Target};
use crate::memory::{Library, names};
use crate::tier::parse::Index;
use crate::tier::shape::{Limits, MORE_HUBS, Room, assign, part_counts, room_of};

/// The hubs that folded pointer lines go to, enough for every foldable pointer within
/// `max-file-lines` ([`MORE_HUBS`] first, appended to when it exists), and the room an
/// existing [`MORE_HUBS`] has left.
pub(super) fn more_hubs(
    lib: &Library,
    idx: &Index,
    pointers: &[Pointer],
    groups: &[Group],
    (max_entries, max_lines): (usize, usize),
) -> (Vec<String>, Option<Room>) {
    let room = lib
        .file(MORE_HUBS)
        .map(|f| room_of(f.text().unwrap_or(""), max_entries, max_lines));
    let lines: Vec<usize> = (pointers.iter())
        .filter(|p| p.foldable)
        .map(|p| p.line)
        .collect();
    let limits = Limits {
        entries: usize::MAX,
        lines: max_lines,
        room,
    };
    let chunks = assign(idx, &part_counts(idx), &lines, limits)
        .last()
        .map_or(1, |c| c + 1);
    let mut hubs = vec![MORE_HUBS.to_owned()];
    let mut n = 2;
    while hubs.len() < chunks {
        let hub = names::hub_file(&format!("more-hubs-{n}"));
        n += 1;
        let taken = groups.iter().any(|g| g.hubs.contains(&hub))
            || pointers.iter().any(|p| p.hubs.contains(&hub));
        if !taken && lib.file(&hub).is_none() {
            hubs.push(hub);
        }
    }
    (hubs, room)
}

/// The hub files among `links`' targets, in order, once each.
pub(super) fn hubs_linked(lib: &Library, links: &[FileLink]) -> Vec<String> {
    let mut hubs: Vec<String> = Vec::new();
    for l in links {
        if let Target::File(t) = l.target
            && matches!(lib.files[t].role, FileRole::Hub { .. })
            && !lib.files[t].rel.contains('/')
            && !hubs.contains(&lib.files[t].rel)
        {
            hubs.push(lib.files[t].rel.clone());
        }
    }
    hubs
}

/// Sections (headings) with exactly one pointer line among their own lines, linking exactly
/// one hub: the hub the section's entries go to.
pub(super) fn section_hubs(
    idx: &Index,
    roles: &[Role],
    pointers: &[Pointer],
) -> HashMap<usize, String> {
    let mut count: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, role) in roles.iter().enumerate() {
        if let (Role::Pointer(p), Some(h)) = (role, idx.lines[i].section) {
            count.entry(h).or_default().push(*p);
        }
    }
    count
        .into_iter()
        .filter_map(|(h, ps)| match ps.as_slice() {
            [p] if pointers[*p].hubs.len() == 1 => Some((h, pointers[*p].hubs[0].clone())),
            _ => None,
        })
        .collect()
}
