//! The planner: a pure function from a [`Library`] to the new contents of MEMORY.md and the
//! hubs, slimming only as far as the target needs.

use serde::Serialize;

use super::budget::{Size, measure};
use super::groups::{Group, Layout, Resolver, Role, classify};
use super::library::{INDEX, Library, Topic};
use super::parse::{Index, Kind, eol_of, parse};
use super::{Options, Refusal, Target};
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
    /// The pointer lines of these hubs were aggregated onto one line.
    Aggregated {
        /// The hub files.
        hubs: Vec<String>,
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

impl Library {
    /// This library with `plan` applied (in memory).
    pub fn with(&self, plan: &Plan) -> Library {
        let mut out = self.clone();
        for f in &plan.files {
            if f.name == INDEX {
                out.index = f.new.clone();
            } else {
                out.files.insert(f.name.clone(), Topic::new(f.new.clone()));
            }
        }
        out
    }
}

/// Plans the restructure of `lib` within `opts.target`.
pub fn plan(lib: &Library, opts: &Options) -> Result<Plan, Refusal> {
    let idx = parse(&lib.index).map_err(|m| Refusal::line(INDEX, m.no, m.why))?;
    let resolver = Resolver::new(lib)?;
    let layout = classify(lib, &idx, &resolver)?;
    let crowns: Vec<String> = crown_lines(&idx, &layout);
    let before = measure(&lib.index);
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
            result.suggestions = super::proof::compress_suggestions(&lib.index);
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
    let mut pushed = vec![false; layout.groups.len()];
    let mut aggregated: Vec<usize> = Vec::new();
    let mut index = render_index(&idx, &layout, &pushed, &aggregated);
    result.steps.push(Step::CrownsToTop {
        count: result.crowns.len(),
    });
    for &g in &order {
        if opts.target.fits(measure(&index.0)) {
            break;
        }
        pushed[g] = true;
        result.steps.push(Step::Pushed {
            group: layout.groups[g].key.clone(),
            hub: layout.groups[g].hub.clone(),
            lines: layout.groups[g].lines.len(),
        });
        index = render_index(&idx, &layout, &pushed, &aggregated);
    }
    let mut smallest: Vec<usize> = (0..layout.groups.len())
        .filter(|&g| pushed[g] && !layout.groups[g].has_pointer)
        .collect();
    smallest.sort_by_key(|&g| (layout.groups[g].entries, layout.groups[g].key.clone()));
    let mut k = 2;
    while !opts.target.fits(measure(&index.0)) && k <= smallest.len() {
        aggregated = smallest[..k].to_vec();
        index = render_index(&idx, &layout, &pushed, &aggregated);
        k += 1;
    }
    if !aggregated.is_empty() {
        result.steps.push(Step::Aggregated {
            hubs: aggregated
                .iter()
                .map(|&g| layout.groups[g].hub.clone())
                .collect(),
        });
    }
    let (text, generated) = index;
    result.after = measure(&text);
    result.generated = generated;
    if text != lib.index {
        result.files.push(FilePlan {
            name: INDEX.to_owned(),
            old: Some(lib.index.clone()),
            new: text,
        });
    }
    for (g, group) in layout.groups.iter().enumerate() {
        if pushed[g] && lib.symlinks.contains(&group.hub) {
            return Err(Refusal {
                file: group.hub.clone(),
                line: None,
                why: "is a symbolic link; tier appends to hubs and will not write through a link"
                    .into(),
            });
        }
        if pushed[g] {
            let (file, generated) = hub_file(lib, &idx, group);
            result.generated.extend(generated);
            result.files.push(file);
        }
    }
    if opts.compress {
        let index = result.files.first().map_or(&lib.index, |f| &f.new);
        result.suggestions = super::proof::compress_suggestions(index);
    }
    Ok(result)
}

fn crown_lines(idx: &Index, layout: &Layout) -> Vec<String> {
    (idx.lines.iter().zip(&layout.roles))
        .filter(|(_, r)| **r == Role::Crown)
        .map(|(l, _)| l.text.to_owned())
        .collect()
}

/// The index text for a choice of pushed and aggregated groups, and the lines it generated.
fn render_index(
    idx: &Index,
    layout: &Layout,
    pushed: &[bool],
    aggregated: &[usize],
) -> (String, Vec<String>) {
    let mut out: Vec<&str> = Vec::new();
    // A leading `# Title` stays first; the crowns come right after it.
    let title = idx
        .lines
        .iter()
        .position(|l| !matches!(l.kind, Kind::Blank))
        .filter(|&i| {
            let kept = match layout.roles[i] {
                Role::Group(g) => !pushed[g],
                Role::Crown => false,
                Role::Keep | Role::Pointer => true,
            };
            kept && matches!(idx.lines[i].kind, Kind::Heading { .. })
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
        out.extend(title_block.iter().map(|&i| idx.lines[i].text));
    }
    let crowns: Vec<_> = (idx.lines.iter().zip(&layout.roles))
        .filter(|(_, r)| **r == Role::Crown)
        .map(|(l, _)| l)
        .collect();
    for (k, line) in crowns.iter().enumerate() {
        let heading = matches!(line.kind, Kind::Heading { .. });
        if (k == 0 && title.is_some()) || (k > 0 && heading) {
            out.push("");
        }
        out.push(line.text);
    }
    if !crowns.is_empty() {
        out.push("");
    }
    for (i, (line, role)) in idx.lines.iter().zip(&layout.roles).enumerate() {
        if title_block.contains(&i) {
            continue;
        }
        let keep = match role {
            Role::Crown => false,
            Role::Group(g) => !pushed[*g],
            Role::Keep | Role::Pointer => true,
        };
        let blank = matches!(line.kind, Kind::Blank);
        if keep && !(blank && out.last().is_none_or(|l| l.trim().is_empty())) {
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
        let mut line = String::from("- More hubs:");
        for (i, &g) in aggregated.iter().enumerate() {
            let group = &layout.groups[g];
            let link = format!("[{}]({})", short(&group.title), group.hub);
            let sep = if i == 0 || line.ends_with(':') {
                " "
            } else {
                " · "
            };
            if utf16_len(&line) + utf16_len(sep) + utf16_len(&link) > 190 && !line.ends_with(':') {
                generated.push(std::mem::replace(&mut line, "- More hubs:".to_owned()));
                line.push(' ');
            } else {
                line.push_str(sep);
            }
            line.push_str(&link);
        }
        generated.push(line);
    }
    if !generated.is_empty() {
        if !out.is_empty() {
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
        if utf16_len(&line) + utf16_len(sep) + utf16_len(t) > 148 {
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

/// The hub's new text (created, or the old text with the group's lines appended).
fn hub_file(lib: &Library, idx: &Index, group: &Group) -> (FilePlan, Vec<String>) {
    let moved: Vec<&str> = group.lines.iter().map(|&i| idx.lines[i].text).collect();
    let mut generated = Vec::new();
    let old = lib.files.get(&group.hub).map(|t| t.text.clone());
    let (mut text, eol) = match &old {
        Some(old) => {
            let eol = eol_of(old);
            let mut t = old.clone();
            if !t.is_empty() && !t.ends_with('\n') {
                t.push_str(eol);
            }
            (t, eol)
        }
        None => {
            let eol = idx.eol;
            let head = [
                "---".to_owned(),
                format!("name: {}", group.hub.trim_end_matches(".md")),
                format!(
                    "description: {}",
                    serde_json::to_string(&format!(
                        "Hub of the {} entries moved out of MEMORY.md",
                        group.title
                    ))
                    .unwrap_or_default()
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
                let title = format!("# {}", group.title);
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
    let file = FilePlan {
        name: group.hub.clone(),
        old,
        new: text,
    };
    (file, generated)
}
