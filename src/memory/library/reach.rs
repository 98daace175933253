//! How MEMORY.md reaches each file of the library: from the part of it the client loads,
//! through a hub that part links, only from lines past the client's cut, or not at all.

use crate::load::automem::IndexState;
use crate::memory::file::Role;

use super::{Library, Target};

/// How MEMORY.md reaches a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The index itself.
    Index,
    /// Linked from the part of MEMORY.md the client loads.
    Direct,
    /// Linked from a hub (this file index) that the loaded part of MEMORY.md links.
    ViaHub(usize),
    /// Linked only from lines of MEMORY.md past the client's cut (or from a hub only those
    /// lines link): on disk, never seen.
    PastCut,
    /// Not reached.
    Unreachable,
}

impl Library {
    /// How MEMORY.md reaches each file, by file index (computed once, by [`Library::build`]).
    pub(super) fn compute_reach(&self) -> Vec<Reach> {
        let mut reach = vec![Reach::Unreachable; self.files.len()];
        let Some(index) = self.index() else {
            return reach;
        };
        reach[index] = Reach::Index;
        // `Named` links do not count (see `Target::Named`).
        let direct = |loaded: bool| {
            self.links[index]
                .iter()
                .filter_map(move |l| match l.target {
                    Target::File(t) if t != index && l.loaded == loaded => Some(t),
                    _ => None,
                })
        };
        for t in direct(true) {
            reach[t] = Reach::Direct;
        }
        for hub in direct(true).collect::<Vec<_>>() {
            if !matches!(self.files[hub].role, Role::Hub { .. }) {
                continue;
            }
            for l in &self.links[hub] {
                if let Target::File(t) = l.target
                    && reach[t] == Reach::Unreachable
                {
                    reach[t] = Reach::ViaHub(hub);
                }
            }
        }
        for t in direct(false).collect::<Vec<_>>() {
            if reach[t] != Reach::Unreachable {
                continue;
            }
            reach[t] = Reach::PastCut;
            if matches!(self.files[t].role, Role::Hub { .. }) {
                for l in &self.links[t] {
                    if let Target::File(u) = l.target
                        && reach[u] == Reach::Unreachable
                    {
                        reach[u] = Reach::PastCut;
                    }
                }
            }
        }
        reach
    }
}

/// The dark lines of the index (file line, partially cut), sorted.
pub(super) fn dark_lines(state: &IndexState) -> Vec<(usize, bool)> {
    let IndexState::Loaded(m) = state else {
        return Vec::new();
    };
    let mut dark: Vec<(usize, bool)> = m
        .cut
        .iter()
        .flat_map(|c| c.dark.iter().map(|d| (d.line, d.partial)))
        .collect();
    dark.sort_unstable();
    dark
}
