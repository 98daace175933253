//! The planner: a pure function from a [`Library`] to the new contents of MEMORY.md and the
//! hubs, slimming only as far as the target needs.
//!
//! **It never overshoots.** Tier moves a group only while MEMORY.md is over the target. When
//! one more group would bring it within the target, it moves the smallest group that does (not
//! the biggest); afterwards it gives back every group MEMORY.md still fits without, so that
//! putting back any one group it moved would put MEMORY.md over the target again. Blank lines
//! are dropped, and pointer lines aggregated one hub at a time (two at least: one alone saves
//! nothing), only when moving every group is not enough.

use serde::Serialize;

use super::budget::{Size, measure};
use super::groups::{Layout, Role, classify};
use super::parse::{Index, parse};
use super::shape::{Choice, Dest, Unit, destinations, hub_files, pointer, render_index};
use super::{Options, Refusal, Target};
use crate::constants::{INDEX_FILE as INDEX, INDEX_LINE_LONG_UTF16};
use crate::memory::Library;
use crate::text::js::utf16_len;

/// One file the plan creates or changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilePlan {
    /// File name in the memory folder.
    pub name: String,
    /// Its current text (`None`: created).
    pub old: Option<String>,
    /// Its planned text.
    pub new: String,
}

/// One slimming step taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// Crown lines moved to the top.
    CrownsToTop {
        /// How many.
        count: usize,
    },
    /// A group's lines moved verbatim into its hub.
    Pushed {
        /// The group.
        group: String,
        /// The hub file.
        hub: String,
        /// Lines moved.
        lines: usize,
    },
    /// Blank lines were dropped from MEMORY.md (the client counts them as lines).
    BlankLinesDropped,
    /// The pointer lines of the least recently needed hubs were aggregated onto one line
    /// that links those hubs directly.
    Aggregated {
        /// The hub files, as linked.
        hubs: Vec<String>,
        /// Pointer lines written by the user moved verbatim (with their headings, when nothing
        /// else of their section stays) into `reference_more-hubs_hub.md`.
        folded: usize,
    },
}

/// A shorter description proposed by `--compress` (shown for approval, never applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// 1-based line in the planned MEMORY.md.
    pub line: usize,
    /// The line as planned.
    pub old: String,
    /// The proposed line.
    pub new: String,
}

/// Something the plan did not fix and the user should know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "note", rename_all = "kebab-case")]
pub enum Note {
    /// An entry line whose links lead to no file: it moved verbatim (or stayed).
    BrokenLink {
        /// 1-based line in MEMORY.md before the plan.
        line: usize,
        /// The targets, as written.
        targets: Vec<String>,
        /// The hub it moved into (`None`: it stayed in MEMORY.md).
        moved_to: Option<String>,
    },
    /// A line of MEMORY.md longer than the client calls too long, kept as written.
    LongLine {
        /// 1-based line in MEMORY.md before the plan.
        line: usize,
        /// Its length in UTF-16 units.
        utf16: usize,
    },
}

/// A restructure plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// The budget planned for.
    pub target: Target,
    /// MEMORY.md before.
    pub before: Size,
    /// MEMORY.md as planned.
    pub after: Size,
    /// Steps taken, in order (empty: already within the target).
    pub steps: Vec<Step>,
    /// Files created or changed, MEMORY.md first.
    pub files: Vec<FilePlan>,
    /// Non-blank lines the plan wrote itself (pointers, headings, hub frontmatter and titles).
    pub generated: Vec<String>,
    /// What the plan left as it was and reports.
    pub notes: Vec<Note>,
    /// `--compress` proposals.
    pub suggestions: Vec<Suggestion>,
}

impl Plan {
    /// Whether the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.files.is_empty()
    }
}

/// The parsed index and its layout, rendered under any choice of steps.
struct Planner<'a> {
    idx: Index<'a>,
    layout: Layout,
    target: Target,
}

impl Planner<'_> {
    fn render(&self, choice: &Choice) -> (String, Vec<String>) {
        let dest = destinations(&self.idx, &self.layout, choice);
        render_index(&self.idx, &self.layout, choice, &dest)
    }

    fn fits(&self, choice: &Choice) -> bool {
        self.target.fits(measure(&self.render(choice).0))
    }

    /// What pushing group `g` saves, estimated: (lines, UTF-16 units).
    fn saving(&self, g: usize) -> (isize, isize) {
        let group = &self.layout.groups[g];
        let mut lines = group.lines.len() as isize;
        let mut utf16: isize = (group.lines.iter())
            .map(|&i| utf16_len(self.idx.lines[i].text) as isize + 1)
            .sum();
        if !group.linked {
            lines -= 1;
            utf16 -= utf16_len(&pointer(group)) as isize + 1;
        }
        (lines, utf16)
    }

    /// Pushes groups until MEMORY.md fits, never one more than needed: when one group would
    /// do, the smallest that does; else the biggest (in the dimension most over the target).
    /// Then gives back every group MEMORY.md still fits without. Returns the groups pushed, in
    /// order.
    fn push(&self, choice: &mut Choice) -> Vec<usize> {
        let mut order = Vec::new();
        let mut size = measure(&self.render(choice).0);
        while !self.target.fits(size) {
            let rest: Vec<usize> = (0..self.layout.groups.len())
                .filter(|&g| !choice.pushed[g] && self.layout.groups[g].pushable())
                .collect();
            if rest.is_empty() {
                break;
            }
            let over =
                |have: usize, limit: usize| have.saturating_sub(limit) as f64 / limit.max(1) as f64;
            let by_lines =
                over(size.lines, self.target.lines) >= over(size.utf16, self.target.utf16);
            let rank = |g: usize| {
                let (l, u) = self.saving(g);
                if by_lines { (l, u) } else { (u, l) }
            };
            let enough = |g: usize| {
                let (l, u) = self.saving(g);
                size.lines as isize - l <= self.target.lines as isize
                    && size.utf16 as isize - u <= self.target.utf16 as isize
            };
            let pick = (rest.iter().copied().filter(|&g| enough(g)))
                .min_by_key(|&g| rank(g))
                .or_else(|| {
                    rest.iter()
                        .copied()
                        .max_by_key(|&g| (rank(g), std::cmp::Reverse(g)))
                });
            let Some(g) = pick else { break };
            choice.pushed[g] = true;
            order.push(g);
            size = measure(&self.render(choice).0);
        }
        if self.target.fits(size) {
            loop {
                let mut changed = false;
                for &g in order.iter().rev() {
                    if !choice.pushed[g] {
                        continue;
                    }
                    choice.pushed[g] = false;
                    if self.fits(choice) {
                        changed = true;
                    } else {
                        choice.pushed[g] = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        order.retain(|&g| choice.pushed[g]);
        order
    }

    /// What can go onto the aggregate line, least recently needed first (no `modified`
    /// counts as oldest), then smallest.
    fn rarest(&self, choice: &Choice) -> Vec<Unit> {
        let layout = &self.layout;
        let mut units: Vec<(Option<jiff::Timestamp>, usize, &str, Unit)> = Vec::new();
        for (g, group) in layout.groups.iter().enumerate() {
            if choice.pushed[g] && !group.linked {
                units.push((
                    group.last_used,
                    group.lines.len(),
                    &group.hub,
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

/// Plans the restructure of `lib` within `opts.target`.
pub fn plan(lib: &Library, opts: &Options) -> Result<Plan, Refusal> {
    let index_text = lib.index_text();
    let idx = parse(index_text);
    let layout = classify(lib, &idx);
    let before = measure(index_text);
    let planner = Planner {
        idx,
        layout,
        target: opts.target,
    };
    let (idx, layout) = (&planner.idx, &planner.layout);
    let mut result = Plan {
        target: opts.target,
        before,
        after: before,
        steps: Vec::new(),
        files: Vec::new(),
        generated: Vec::new(),
        notes: Vec::new(),
        suggestions: Vec::new(),
    };
    let mut choice = Choice {
        pushed: vec![false; layout.groups.len()],
        aggregated: Vec::new(),
        compact: false,
    };
    if opts.target.fits(before) {
        let dest = vec![Dest::Stay; idx.lines.len()];
        result.notes = notes(idx, layout, &dest, &[]);
        if opts.compress {
            result.suggestions = super::proof::compress_suggestions(index_text);
        }
        return Ok(result);
    }
    let crowns = (layout.roles.iter()).filter(|r| **r == Role::Crown).count();
    result.steps.push(Step::CrownsToTop { count: crowns });
    for g in planner.push(&mut choice) {
        let group = &layout.groups[g];
        result.steps.push(Step::Pushed {
            group: group.key.clone(),
            hub: group.hub.clone(),
            lines: group.lines.len(),
        });
    }
    if !planner.fits(&choice) {
        choice.compact = true;
        result.steps.push(Step::BlankLinesDropped);
    }
    // One hub on an aggregate line saves nothing (one pointer line for another): at least two.
    let rarest = planner.rarest(&choice);
    let mut k = 1;
    while !planner.fits(&choice) && k < rarest.len() {
        k += 1;
        choice.aggregated = rarest[..k].to_vec();
    }
    if !choice.aggregated.is_empty() {
        let mut hubs = Vec::new();
        let mut folded = 0;
        for unit in &choice.aggregated {
            match *unit {
                Unit::Group(g) => hubs.push(layout.groups[g].hub.clone()),
                Unit::Pointer(p) => {
                    folded += 1;
                    hubs.extend(layout.pointers[p].hubs.iter().cloned());
                }
            }
        }
        result.steps.push(Step::Aggregated { hubs, folded });
    }
    let dest = destinations(idx, layout, &choice);
    let (text, generated) = render_index(idx, layout, &choice, &dest);
    result.after = measure(&text);
    result.notes = notes(idx, layout, &dest, &generated);
    result.generated = generated;
    if text != index_text {
        result.files.push(FilePlan {
            name: INDEX.to_owned(),
            old: Some(index_text.to_owned()),
            new: text,
        });
    }
    let (hubs, generated) = hub_files(lib, idx, layout, &dest, opts.now);
    result.files.extend(hubs);
    result.generated.extend(generated);
    if opts.compress {
        let index = result.files.first().map_or(index_text, |f| &f.new);
        result.suggestions = super::proof::compress_suggestions(index);
    }
    Ok(result)
}

/// Broken lines (where they went) and long lines that stay in MEMORY.md.
fn notes(idx: &Index, layout: &Layout, dest: &[Dest], generated: &[String]) -> Vec<Note> {
    let mut notes: Vec<Note> = (layout.broken.iter())
        .map(|b| Note::BrokenLink {
            line: idx.lines[b.line].no,
            targets: b.targets.clone(),
            moved_to: match dest[b.line] {
                Dest::Hub(h) => Some(h.to_owned()),
                _ => None,
            },
        })
        .collect();
    for (i, line) in idx.lines.iter().enumerate() {
        let utf16 = utf16_len(line.text);
        if matches!(dest[i], Dest::Stay | Dest::Top)
            && utf16 > INDEX_LINE_LONG_UTF16
            && !generated.iter().any(|g| g == line.text)
        {
            notes.push(Note::LongLine {
                line: line.no,
                utf16,
            });
        }
    }
    notes
}

/// Whether MEMORY.md would still fit the target if the plan had not moved the group whose hub
/// is `hub` (the "never overshoots" property, checked by the tests).
#[cfg(test)]
pub(super) fn fits_without(lib: &Library, opts: &Options, plan: &Plan, hub: &str) -> bool {
    let idx = parse(lib.index_text());
    let layout = classify(lib, &idx);
    let pushed: Vec<bool> = (layout.groups.iter())
        .map(|g| {
            g.hub != hub
                && plan.steps.iter().any(
                    |s| matches!(s, Step::Pushed { hub: h, group, .. } if *h == g.hub && *group == g.key),
                )
        })
        .collect();
    let planner = Planner {
        idx,
        layout,
        target: opts.target,
    };
    planner.fits(&Choice {
        pushed,
        aggregated: Vec::new(),
        compact: false,
    })
}
