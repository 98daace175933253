//! The four invariants, checked on the planned library and again on the files read back from
//! disk after writing:
//!
//! 1. MEMORY.md is within the target and within the client's cap, measured as the loader does.
//! 2. Bulk lives in topic/hub files: every index line other than a crown is one short line
//!    (≤ 200 UTF-16 units) and the index holds no more entry lines than before.
//! 3. Every file reachable before is reachable after, and every file that was shallow (linked
//!    from MEMORY.md or from a hub MEMORY.md links) is still shallow.
//! 4. Nothing is deleted: the multiset of non-blank lines of all files before, plus the lines the
//!    plan generated, equals the multiset after; every file other than MEMORY.md is unchanged
//!    or a superset (its old text is a prefix of its new text).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::budget::{CAP, Size};
use super::groups::Resolver;
use super::parse::{Kind, parse, split_lines};
use super::plan::{Plan, Suggestion};
use super::{Target, is_hub, text_of, topic};
use crate::constants::{INDEX_LINE_GUIDE_UTF16, INDEX_LINE_LONG_UTF16};
use crate::memory::Library;
use crate::text::js::utf16_len;
use crate::text::links::links;

/// One invariant's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// 1–4.
    pub id: u8,
    /// Short name.
    pub name: &'static str,
    /// Whether it holds.
    pub ok: bool,
    /// The evidence, in words.
    pub detail: String,
}

/// The four checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// In order 1–4.
    pub checks: Vec<Check>,
}

impl Proof {
    /// Whether every invariant holds.
    pub fn ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }
}

/// Checks the invariants between `before` and `after`, with `after_size` measured on whatever
/// `after` came from (the plan, or the disk).
pub fn prove(before: &Library, after: &Library, plan: &Plan, after_size: Size) -> Proof {
    Proof {
        checks: vec![
            size_check(plan.target, after_size),
            bulk_check(before, after, plan),
            reach_check(before, after),
            kept_check(before, after, plan),
        ],
    }
}

fn size_check(target: Target, s: Size) -> Check {
    Check {
        id: 1,
        name: "index within target and cap",
        ok: target.fits(s) && CAP.fits(s),
        detail: format!(
            "MEMORY.md {} lines / {} UTF-16 units; target {} / {}; client cap {} / {}",
            s.lines, s.utf16, target.lines, target.utf16, CAP.lines, CAP.utf16
        ),
    }
}

fn entry_count(text: &str) -> Option<usize> {
    let idx = parse(text).ok()?;
    Some(
        idx.lines
            .iter()
            .filter(|l| matches!(l.kind, Kind::Entry { .. }))
            .count(),
    )
}

fn bulk_check(before: &Library, after: &Library, plan: &Plan) -> Check {
    let name = "bulk lives in topic and hub files";
    let (Some(was), Some(now), Ok(idx)) = (
        entry_count(before.index_text()),
        entry_count(after.index_text()),
        parse(after.index_text()),
    ) else {
        return fail(2, name, "MEMORY.md after the plan does not parse".into());
    };
    let crowns: BTreeSet<&str> = plan.crowns.iter().map(String::as_str).collect();
    let long: Vec<usize> = idx
        .lines
        .iter()
        .filter(|l| !crowns.contains(l.text) && utf16_len(l.text) > INDEX_LINE_LONG_UTF16)
        .map(|l| l.no)
        .collect();
    let hub_lines: usize = (after.top_level())
        .filter(|f| is_hub(&f.rel))
        .map(|f| split_lines(text_of(f)).count())
        .sum();
    let ok = long.is_empty() && (now <= was || plan.is_noop());
    let mut detail =
        format!("MEMORY.md holds {now} entry lines (was {was}); hubs hold {hub_lines} lines");
    if !long.is_empty() {
        detail.push_str(&format!(
            "; non-crown lines over {INDEX_LINE_LONG_UTF16} UTF-16 units at lines {long:?}"
        ));
    }
    Check {
        id: 2,
        name,
        ok,
        detail,
    }
}

fn fail(id: u8, name: &'static str, detail: String) -> Check {
    Check {
        id,
        name,
        ok: false,
        detail,
    }
}

/// Files reachable from MEMORY.md: (all, at any depth; shallow: direct or via a direct hub).
pub fn reachable(lib: &Library) -> Result<(BTreeSet<String>, BTreeSet<String>), String> {
    let resolver = Resolver::new(lib).map_err(|r| r.to_string())?;
    let direct_of = |text: &str| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for line in split_lines(text) {
            for l in links(line) {
                if let Some(f) = resolver.resolve(&l.target) {
                    out.insert(f.to_owned());
                }
            }
        }
        out
    };
    let direct = direct_of(lib.index_text());
    let mut shallow = direct.clone();
    let mut cache: HashMap<String, BTreeSet<String>> = HashMap::new();
    let mut all = BTreeSet::new();
    let mut stack: Vec<String> = direct.iter().cloned().collect();
    while let Some(f) = stack.pop() {
        if !all.insert(f.clone()) {
            continue;
        }
        let Some(file) = topic(lib, &f) else {
            continue;
        };
        let next = cache
            .entry(f.clone())
            .or_insert_with(|| direct_of(text_of(file)));
        if direct.contains(&f) && is_hub(&f) {
            shallow.extend(next.iter().cloned());
        }
        stack.extend(next.iter().filter(|n| !all.contains(*n)).cloned());
    }
    Ok((all, shallow))
}

fn reach_check(before: &Library, after: &Library) -> Check {
    let name = "every file still reachable, no deeper";
    let (b, a) = match (reachable(before), reachable(after)) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(e), _) | (_, Err(e)) => return fail(3, name, e),
    };
    let lost: Vec<&String> = b.0.difference(&a.0).collect();
    let deeper: Vec<&String> = b.1.difference(&a.1).collect();
    let ok = lost.is_empty() && deeper.is_empty();
    let mut detail = format!(
        "{} files reachable before, {} after; {} linked from MEMORY.md or a hub it links (was {})",
        b.0.len(),
        a.0.len(),
        a.1.len(),
        b.1.len()
    );
    if !ok {
        detail.push_str(&format!("; lost {lost:?}; deeper {deeper:?}"));
    }
    Check {
        id: 3,
        name,
        ok,
        detail,
    }
}

fn line_multiset(lib: &Library) -> BTreeMap<&str, isize> {
    let mut m: BTreeMap<&str, isize> = BTreeMap::new();
    let texts = std::iter::once(lib.index_text()).chain(lib.top_level().map(text_of));
    for text in texts {
        for line in split_lines(text).filter(|l| !l.trim().is_empty()) {
            *m.entry(line).or_default() += 1;
        }
    }
    m
}

fn kept_check(before: &Library, after: &Library, plan: &Plan) -> Check {
    let name = "nothing deleted";
    let mut diff = line_multiset(after);
    for (line, n) in line_multiset(before) {
        *diff.entry(line).or_default() -= n;
    }
    for g in &plan.generated {
        *diff.entry(g.as_str()).or_default() -= 1;
    }
    let wrong: Vec<(&str, isize)> = diff.into_iter().filter(|(_, n)| *n != 0).collect();
    let mut shrunk = Vec::new();
    let (mut same, mut grown) = (0, 0);
    for file in before.top_level() {
        let (name, old) = (file.rel.as_str(), text_of(file));
        match topic(after, name).map(text_of) {
            Some(t) if t == old => same += 1,
            Some(t) if t.starts_with(old) => grown += 1,
            _ => shrunk.push(name),
        }
    }
    let created = (after.top_level().count()).saturating_sub(before.top_level().count());
    let ok = wrong.is_empty() && shrunk.is_empty();
    let mut detail = format!(
        "all non-blank lines kept ({} generated added); {same} files unchanged, {grown} appended, {created} created",
        plan.generated.len()
    );
    if !wrong.is_empty() {
        let shown: Vec<_> = wrong.iter().take(5).collect();
        detail = format!("line counts differ (after − before − generated): {shown:?}");
    }
    if !shrunk.is_empty() {
        detail.push_str(&format!(
            "; not a superset of their old content: {shrunk:?}"
        ));
    }
    Check {
        id: 4,
        name,
        ok,
        detail,
    }
}

/// `--compress`: for entry lines of `index` longer than the client's guide (150 UTF-16 units), a version whose
/// description (the text after ` — ` or ` - `) is cut to fit, ending in `…`.
pub fn compress_suggestions(index: &str) -> Vec<Suggestion> {
    let Ok(idx) = parse(index) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in &idx.lines {
        if !matches!(line.kind, Kind::Entry { .. })
            || utf16_len(line.text) <= INDEX_LINE_GUIDE_UTF16
        {
            continue;
        }
        let Some(at) = line.text.find(" — ").or_else(|| line.text.find(" - ")) else {
            continue;
        };
        let mut new = String::new();
        for c in line.text.chars() {
            if utf16_len(&new) + c.len_utf16() > 149 {
                break;
            }
            new.push(c);
        }
        if new.len() <= at + 4 {
            continue;
        }
        let new = format!("{}…", new.trim_end());
        out.push(Suggestion {
            line: line.no,
            old: line.text.to_owned(),
            new,
        });
    }
    out
}
