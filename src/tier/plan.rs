//! The planner: a pure function from a [`Library`] to the new contents of MEMORY.md and the
//! hubs, slimming only as far as the target needs.
//!
//! **Most load-bearing last, and never more than needed.** Tier moves pieces (the entries of
//! one rank of a unit, see [`super::groups`]) in order of importance: project status first,
//! then reference, other, user, feedback; within a rank the clustered before the standalone,
//! the least read in recorded sessions first, the biggest first. Crowns never move. It stops
//! as soon as MEMORY.md fits, then gives back every piece MEMORY.md still fits with, the most
//! important first, so the whole budget is used: putting back any piece it moved would put
//! MEMORY.md over the target again. A piece whose move would not make MEMORY.md smaller (its
//! pointer costs what it saves) is not moved. Blank lines are dropped, and pointer lines
//! aggregated one hub at a time (two at least: one alone saves nothing), only when moving
//! every piece is not enough.

mod planner;

use serde::Serialize;

use self::planner::Planner;
use super::budget::{Size, measure};
use super::groups::{Layout, Rank, classify};
use super::parse::{Index, parse};
use super::shape::{Choice, Dest, Unit, destinations, hub_files, render_index};
use super::usage::Reads;
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
    /// Crowns found: they stay where they are.
    CrownsKept {
        /// How many.
        count: usize,
    },
    /// A piece of a unit (its entries of one rank) moved verbatim into the unit's hub.
    Pushed {
        /// The unit.
        group: String,
        /// The rank of the entries moved.
        rank: Rank,
        /// The (first) hub file.
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
        /// else of their section stays) into `reference_more-hubs_hub.md` (then
        /// `reference_more-hubs-2_hub.md`… past `max-file-lines`).
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
    /// An entry whose frontmatter the client cannot read: it moved (or stayed) with its unit.
    Unreadable {
        /// 1-based line in MEMORY.md before the plan.
        line: usize,
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
    /// Lines `--compress` left as they are, and why.
    pub unshortened: Vec<Unshortened>,
    /// What the plan decided for each entry, and why.
    pub decisions: Vec<Decision>,
    /// The recorded sessions whose reads ordered the moves within a rank (0: none recorded,
    /// or none read a file of this library; the plan is then the one made without evidence).
    pub usage: usize,
}

/// A long line `--compress` leaves as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unshortened {
    /// 1-based line in the planned MEMORY.md.
    pub line: usize,
    /// Why.
    pub why: String,
}

/// One entry of MEMORY.md: kept or moved, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// 1-based line in MEMORY.md before the plan.
    pub line: usize,
    /// The entry's title (its link text, else the start of the line).
    pub entry: String,
    /// `kept` or `moved`.
    pub action: &'static str,
    /// Why: `crown (🚨)`, `rule`, `user profile`, `fits`, `project status moves first`…
    pub why: String,
    /// The hub it moved into.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hub: Option<String>,
}

impl Plan {
    /// Whether the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.files.is_empty()
    }
}
/// Plans the restructure of `lib` within `opts.target`.
pub fn plan(lib: &Library, opts: &Options) -> Result<Plan, Refusal> {
    plan_with(lib, opts, &Reads::default())
}

/// [`plan`], with usage evidence: `reads` counts the recorded reads of each file (by name in
/// the memory folder); within a rank, the least read move first.
pub fn plan_with(lib: &Library, opts: &Options, reads: &Reads) -> Result<Plan, Refusal> {
    let index_text = lib.index_text();
    let idx = parse(index_text);
    let layout = classify(lib, &idx, &reads.files);
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
        unshortened: Vec::new(),
        decisions: Vec::new(),
        usage: reads.sessions,
    };
    let mut choice = Choice {
        pushed: vec![false; layout.pieces.len()],
        kept: vec![false; idx.lines.len()],
        aggregated: Vec::new(),
        compact: false,
    };
    if opts.target.fits(before) {
        let dest = vec![Dest::Stay; idx.lines.len()];
        result.notes = notes(idx, layout, &dest, &[]);
        result.decisions = decisions(idx, layout, &dest);
        if opts.compress {
            (result.suggestions, result.unshortened) = super::compress::suggestions(index_text);
        }
        return Ok(result);
    }
    result.steps.push(Step::CrownsKept {
        count: layout.crowns.len(),
    });
    for p in planner.push(&mut choice) {
        let piece = &layout.pieces[p];
        let group = &layout.groups[piece.group];
        result.steps.push(Step::Pushed {
            group: group.key.clone(),
            rank: piece.rank,
            hub: group.hub().to_owned(),
            lines: piece.lines.iter().filter(|&&i| !choice.kept[i]).count(),
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
                Unit::Group(g) => hubs.extend(layout.groups[g].hubs.iter().cloned()),
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
    result.decisions = decisions(idx, layout, &dest);
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
        (result.suggestions, result.unshortened) = super::compress::suggestions(index);
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
    for &i in &layout.unreadable {
        notes.push(Note::Unreadable {
            line: idx.lines[i].no,
            moved_to: match dest[i] {
                Dest::Hub(h) => Some(h.to_owned()),
                _ => None,
            },
        });
    }
    for (i, line) in idx.lines.iter().enumerate() {
        let utf16 = utf16_len(line.text);
        if matches!(dest[i], Dest::Stay)
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

/// What the plan decided for every entry and crown, and why (issue 24, rule 11).
fn decisions(idx: &Index, layout: &Layout, dest: &[Dest]) -> Vec<Decision> {
    let mut out = Vec::new();
    let title = |i: usize| {
        let text = idx.lines[i].text;
        super::parse::entry_title(text)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                super::shape::cut_words(text.trim_start_matches(['-', '*', ' ']), 60)
            })
    };
    for c in &layout.crowns {
        out.push(Decision {
            line: idx.lines[c.line].no,
            entry: title(c.line),
            action: "kept",
            why: match c.kind {
                "pin" => "crown: pinned in [tier] pins".to_owned(),
                "heading" => format!("crown: under a crown heading ({})", c.marker),
                _ => format!("crown ({})", c.marker),
            },
            hub: None,
        });
    }
    for piece in &layout.pieces {
        let what = match piece.rank {
            Rank::OnDemand => "in a section headed read-on-demand",
            Rank::History => "dated history",
            Rank::Project => "project status",
            Rank::Reference => "reference",
            Rank::Other => "no type",
            Rank::User => "user profile",
            Rank::Feedback => "rule",
        };
        for &i in &piece.lines {
            let (action, why, hub) = match dest[i] {
                Dest::Hub(h) => (
                    "moved",
                    format!("{what}: moved before what ranks higher"),
                    Some(h.to_owned()),
                ),
                Dest::Stay => ("kept", format!("{what}: fits the target"), None),
            };
            out.push(Decision {
                line: idx.lines[i].no,
                entry: title(i),
                action,
                why,
                hub,
            });
        }
    }
    out.sort_by_key(|d| d.line);
    out
}

/// Whether the plan could have left the piece of rank `rank` of the unit whose hub is `hub`
/// in MEMORY.md: without it, MEMORY.md would still fit the target and no new hub would hold a
/// single entry (the "uses the budget" property, checked by the tests).
#[cfg(test)]
pub(super) fn fits_without(
    lib: &Library,
    opts: &Options,
    plan: &Plan,
    hub: &str,
    rank: Rank,
) -> bool {
    let idx = parse(lib.index_text());
    let layout = classify(lib, &idx, &Default::default());
    let pushed: Vec<bool> = (layout.pieces.iter())
        .map(|piece| {
            let g = &layout.groups[piece.group];
            !(g.hub() == hub && piece.rank == rank)
                && plan.steps.iter().any(|s| {
                    matches!(s, Step::Pushed { hub: h, group, rank: r, .. }
                        if h == g.hub() && *group == g.key && *r == piece.rank)
                })
        })
        .collect();
    use super::groups::Role;
    // Rules the plan gave back one by one stay given back.
    let kept: Vec<bool> = (0..idx.lines.len())
        .map(|i| {
            matches!(layout.roles[i], Role::Entry(p) if pushed[p])
                && plan
                    .decisions
                    .iter()
                    .any(|d| d.line == i + 1 && d.action == "kept")
        })
        .collect();
    let planner = Planner {
        idx,
        layout,
        target: opts.target,
    };
    let choice = Choice {
        pushed,
        kept,
        aggregated: Vec::new(),
        compact: false,
    };
    planner.whole_hubs(&choice) && planner.fits(&choice)
}
#[cfg(test)]
mod tests;
