//! The planner: a pure function from a [`Library`] to the new contents of MEMORY.md and the
//! hubs, slimming only as far as the target needs.

use serde::Serialize;

use super::budget::{Size, measure};
use super::groups::{Group, Layout, Resolver, Role, classify};
use super::parse::{Index, Kind, parse};
use super::shape::{Choice, MORE_HUBS, fold_into_more_hubs, hub_file, render_index};
use super::{Options, Refusal, Target, is_symlink};
use crate::constants::INDEX_FILE as INDEX;
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
    /// The pointer lines of the least recently needed groups were aggregated onto one line
    /// that links their hubs directly.
    Aggregated {
        /// The hub files, as linked.
        hubs: Vec<String>,
        /// Pointer lines written by the user (and their headings) moved verbatim into
        /// `reference_more-hubs_hub.md`.
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
    /// Non-blank lines the plan wrote itself (pointers, hub titles and frontmatter).
    pub generated: Vec<String>,
    /// Crown lines (kept verbatim at the top).
    pub crowns: Vec<String>,
    /// `--compress` proposals.
    pub suggestions: Vec<Suggestion>,
}

impl Plan {
    /// Whether the plan changes nothing.
    pub fn is_noop(&self) -> bool {
        self.files.is_empty()
    }
}

/// Plans the restructure of `lib` within `opts.target`.
pub fn plan(lib: &Library, opts: &Options) -> Result<Plan, Refusal> {
    let index_text = lib.index_text();
    let idx = parse(index_text).map_err(|m| Refusal::line(INDEX, m.no, m.why))?;
    let resolver = Resolver::new(lib)?;
    let layout = classify(lib, &idx, &resolver)?;
    let crowns: Vec<String> = crown_lines(&idx, &layout);
    let before = measure(index_text);
    let mut result = Plan {
        target: opts.target,
        before,
        after: before,
        steps: Vec::new(),
        files: Vec::new(),
        generated: Vec::new(),
        crowns,
        suggestions: Vec::new(),
    };
    if opts.target.fits(before) {
        if opts.compress {
            result.suggestions = super::proof::compress_suggestions(index_text);
        }
        return Ok(result);
    }
    let mut order: Vec<usize> = (0..layout.groups.len())
        .filter(|&g| layout.groups[g].entries > 0)
        .collect();
    let weight = |g: usize| -> usize {
        let lines = &layout.groups[g].lines;
        lines
            .iter()
            .map(|&i| utf16_len(idx.lines[i].text) + 1)
            .sum()
    };
    order.sort_by_key(|&g| (std::cmp::Reverse(weight(g)), layout.groups[g].key.clone()));
    let mut choice = Choice {
        pushed: vec![false; layout.groups.len()],
        aggregated: Vec::new(),
        compact: false,
    };
    let mut index = render_index(&idx, &layout, &choice);
    result.steps.push(Step::CrownsToTop {
        count: result.crowns.len(),
    });
    for &g in &order {
        if opts.target.fits(measure(&index.0)) {
            break;
        }
        choice.pushed[g] = true;
        result.steps.push(Step::Pushed {
            group: layout.groups[g].key.clone(),
            hub: layout.groups[g].hub.clone(),
            lines: layout.groups[g].lines.len(),
        });
        index = render_index(&idx, &layout, &choice);
    }
    if !opts.target.fits(measure(&index.0)) {
        choice.compact = true;
        index = render_index(&idx, &layout, &choice);
        result.steps.push(Step::BlankLinesDropped);
    }
    // Least recently needed first (no `modified` anywhere counts as oldest), then smallest.
    let mut rarest: Vec<usize> = (0..layout.groups.len())
        .filter(|&g| aggregatable(&idx, &layout, &choice, g))
        .collect();
    rarest.sort_by_key(|&g| {
        let group = &layout.groups[g];
        (group.last_used, group.entries, group.key.clone())
    });
    let mut k = 1;
    while !opts.target.fits(measure(&index.0)) && k <= rarest.len() {
        choice.aggregated = rarest[..k].to_vec();
        index = render_index(&idx, &layout, &choice);
        k += 1;
    }
    let folded = choice.folded_lines(&layout);
    if !choice.aggregated.is_empty() {
        result.steps.push(Step::Aggregated {
            hubs: (choice.aggregated.iter())
                .flat_map(|&g| layout.groups[g].linked_hubs())
                .map(str::to_owned)
                .collect(),
            folded: folded.len(),
        });
    }
    let (text, generated) = index;
    result.after = measure(&text);
    result.generated = generated;
    if text != index_text {
        result.files.push(FilePlan {
            name: INDEX.to_owned(),
            old: Some(index_text.to_owned()),
            new: text,
        });
    }
    // Groups sharing a hub (a heading whose pointer names an existing hub) write it once.
    let mut hubs: Vec<(&str, Vec<&Group>)> = Vec::new();
    for (g, group) in layout.groups.iter().enumerate() {
        if !choice.pushed[g] {
            continue;
        }
        if is_symlink(lib, &group.hub) {
            return Err(Refusal {
                file: group.hub.clone(),
                line: None,
                why: "is a symbolic link; tier appends to hubs and will not write through a link"
                    .into(),
            });
        }
        match hubs.iter_mut().find(|(h, _)| *h == group.hub) {
            Some((_, members)) => members.push(group),
            None => hubs.push((&group.hub, vec![group])),
        }
    }
    for (_, members) in hubs {
        let (file, generated) = hub_file(lib, &idx, &members);
        result.generated.extend(generated);
        result.files.push(file);
    }
    if !folded.is_empty() {
        if is_symlink(lib, MORE_HUBS) {
            return Err(Refusal {
                file: MORE_HUBS.into(),
                line: None,
                why: "is a symbolic link; tier appends to hubs and will not write through a link"
                    .into(),
            });
        }
        let generated = fold_into_more_hubs(lib, &idx, &folded, &mut result.files);
        result.generated.extend(generated);
    }
    if opts.compress {
        let index = result.files.first().map_or(index_text, |f| &f.new);
        result.suggestions = super::proof::compress_suggestions(index);
    }
    Ok(result)
}

/// Whether group `g` can go onto the aggregate line: its hub was made by this plan, or its
/// own pointer line is all that is left of it in MEMORY.md (not under a crown heading).
fn aggregatable(idx: &Index, layout: &Layout, choice: &Choice, g: usize) -> bool {
    let group = &layout.groups[g];
    if !group.has_pointer {
        return choice.pushed[g];
    }
    let under_crown = (group.pointers.iter()).any(|&i| {
        idx.lines[i]
            .section
            .is_some_and(|h| layout.roles[h] == Role::Crown)
    });
    let only_heading_left = choice.pushed[g]
        || (group.lines.iter()).all(|&i| matches!(idx.lines[i].kind, Kind::Heading { .. }));
    // The index's `# Title` stays on top, and so do the pointers right under it.
    let under_title = (group.lines.iter()).any(|&i| idx.lines[i].text.starts_with("# "));
    !under_crown && !under_title && only_heading_left
}

fn crown_lines(idx: &Index, layout: &Layout) -> Vec<String> {
    (idx.lines.iter().zip(&layout.roles))
        .filter(|(_, r)| **r == Role::Crown)
        .map(|(l, _)| l.text.to_owned())
        .collect()
}
