//! The search for the smallest change: which pieces move, in order of importance, until
//! MEMORY.md fits, then which come back (whole pieces, then a section's rules one by one) while
//! it still fits, and what the aggregate line takes when moving is not enough.

use crate::tier::Target;
use crate::tier::budget::measure;
use crate::tier::groups::{Group, Layout, Rank};
use crate::tier::parse::Index;
use crate::tier::shape::{Choice, Limits, Unit, assign, destinations, part_counts, render_index};

/// The parsed index and its layout, rendered under any choice of steps.
pub(super) struct Planner<'a> {
    pub(super) idx: Index<'a>,
    pub(super) layout: Layout,
    pub(super) target: Target,
}

impl Planner<'_> {
    fn render(&self, choice: &Choice) -> (String, Vec<String>) {
        let dest = destinations(&self.idx, &self.layout, choice);
        render_index(&self.idx, &self.layout, choice, &dest)
    }

    pub(super) fn fits(&self, choice: &Choice) -> bool {
        self.target.fits(measure(&self.render(choice).0))
    }

    /// Moves pieces in order of importance until MEMORY.md fits, skipping a piece whose move
    /// does not shrink it; then gives back every piece MEMORY.md still fits with, the most
    /// important first. Returns the pieces moved, in order.
    pub(super) fn push(&self, choice: &mut Choice) -> Vec<usize> {
        let layout = &self.layout;
        let mut order: Vec<usize> = (0..layout.pieces.len())
            .filter(|&p| self.pushable(p))
            .collect();
        order.sort_by_key(|&p| layout.pieces[p].order_key());
        let mut moved = Vec::new();
        let mut size = measure(&self.render(choice).0);
        for &p in &order {
            if self.target.fits(size) {
                break;
            }
            choice.pushed[p] = true;
            if !self.whole_hubs(choice) {
                choice.pushed[p] = false;
                continue;
            }
            let now = measure(&self.render(choice).0);
            if now.lines < size.lines || now.utf16 < size.utf16 {
                moved.push(p);
                size = now;
            } else {
                choice.pushed[p] = false;
            }
        }
        // Rules first: whole pieces of rules, then the rules of a section too big to come back
        // whole, one by one; only then whatever ranks lower, with the room left.
        if self.target.fits(size) {
            let rules = |p: &usize| layout.pieces[*p].rank >= Rank::User;
            let rule_pieces: Vec<usize> = moved.iter().copied().filter(rules).collect();
            self.give_back(choice, &rule_pieces);
            for &p in rule_pieces.iter().rev() {
                if choice.pushed[p] {
                    self.give_back_rules(choice, p);
                }
            }
            self.give_back(choice, &moved);
        }
        moved.retain(|&p| choice.pushed[p]);
        moved
    }

    /// Gives back every piece of `moved` (in the order moved) MEMORY.md still fits with, the
    /// last moved first, until none can be: size is not monotone in the pieces moved (a move
    /// kept for the units it saves may cost a line, and a pointer lists what its hub holds), so
    /// a piece given back late can make one tried earlier unneeded. Each pass that gives one
    /// back moves fewer pieces, so this ends.
    fn give_back(&self, choice: &mut Choice, moved: &[usize]) {
        let mut gave = true;
        while gave {
            gave = false;
            for &p in moved.iter().rev() {
                if !choice.pushed[p] {
                    continue;
                }
                choice.pushed[p] = false;
                if self.whole_hubs(choice) && self.fits(choice) {
                    gave = true;
                } else {
                    choice.pushed[p] = true;
                }
            }
        }
    }

    /// Gives back, one by one in the user's order, the entries of pushed piece `p` that
    /// MEMORY.md still fits with, when `p` holds rules (user or feedback) of a user's section
    /// too big to come back whole. Without this, a section of
    /// rules that had to move as one piece left the room it freed to project status and
    /// references of other sections given back after it, and the rules the user wrote first
    /// (the ones in force whatever the task) sat in a hub while the budget held them (issue 24,
    /// rule 6). The rest of the piece still goes to one hub, never a new hub for one entry.
    ///
    /// Not from a section whose status or references moved too: that section is a topic
    /// looked up when its work comes, and its rules are that work's (a webshop's SEO and cache
    /// habits); one of them given back alone left the rest of the section in a hub and split
    /// the user's section (rule 3). It moves as one piece, or comes back whole.
    fn give_back_rules(&self, choice: &mut Choice, p: usize) {
        let layout = &self.layout;
        let piece = &layout.pieces[p];
        if piece.rank < Rank::User || layout.groups[piece.group].heading.is_none() {
            return;
        }
        let topic_moved = (layout.pieces.iter().enumerate()).any(|(q, other)| {
            other.group == piece.group && other.rank < Rank::User && choice.pushed[q]
        });
        if topic_moved {
            return;
        }
        for &i in &piece.lines {
            if choice.kept[i] {
                continue;
            }
            choice.kept[i] = true;
            let rest = piece.lines.iter().any(|&l| !choice.kept[l]);
            if !(rest && self.whole_hubs(choice) && self.fits(choice)) {
                choice.kept[i] = false;
            }
        }
    }

    /// Whether every new hub of `choice` gets two entries at least (tier never makes a hub
    /// for one entry).
    pub(super) fn whole_hubs(&self, choice: &Choice) -> bool {
        let layout = &self.layout;
        let mut moved: Vec<Vec<usize>> = vec![Vec::new(); layout.groups.len()];
        for (p, piece) in layout.pieces.iter().enumerate() {
            if choice.pushed[p] {
                moved[piece.group].extend(piece.lines.iter().filter(|&&i| !choice.kept[i]));
            }
        }
        (layout.groups.iter().zip(moved)).all(|(g, mut lines)| {
            lines.sort_unstable();
            self.new_hubs_whole(g, &lines)
        })
    }

    /// Whether `lines` of `group` moving fill no new hub with one entry: an existing first
    /// hub takes what its room leaves, and the rest must make hubs of two or more.
    fn new_hubs_whole(&self, group: &Group, lines: &[usize]) -> bool {
        if lines.is_empty() {
            return true;
        }
        let limits = Limits {
            entries: self.layout.max_entries,
            lines: self.layout.max_lines,
            room: group.room,
        };
        let chunks = assign(&self.idx, &part_counts(&self.idx), lines, limits);
        let old = group.hub_exists || group.linked;
        let mut count = vec![0usize; chunks.last().map_or(0, |c| c + 1)];
        for c in chunks {
            count[c] += 1;
        }
        (count.iter().enumerate()).all(|(c, &n)| n != 1 || (c == 0 && old))
    }

    /// Whether piece `p` may move: never into a new hub for one entry alone.
    fn pushable(&self, p: usize) -> bool {
        let group = &self.layout.groups[self.layout.pieces[p].group];
        group.lines.len() >= 2 || self.new_hubs_whole(group, &group.lines)
    }

    /// What can go onto the aggregate line, least recently needed first (no `modified`
    /// counts as oldest), then smallest.
    pub(super) fn rarest(&self, choice: &Choice) -> Vec<Unit> {
        let layout = &self.layout;
        let mut units: Vec<(Option<jiff::Timestamp>, usize, &str, Unit)> = Vec::new();
        for (g, group) in layout.groups.iter().enumerate() {
            let pushed = (layout.pieces.iter().enumerate())
                .any(|(p, piece)| piece.group == g && choice.pushed[p]);
            if pushed && !group.linked {
                units.push((
                    group.last_used,
                    group.lines.len(),
                    group.hub(),
                    Unit::Group(g),
                ));
            }
        }
        for (p, pointer) in layout.pointers.iter().enumerate() {
            if pointer.foldable {
                units.push((pointer.last_used, 0, &pointer.hubs[0], Unit::Pointer(p)));
            }
        }
        units.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        units.into_iter().map(|u| u.3).collect()
    }
}
