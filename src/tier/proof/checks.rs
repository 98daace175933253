//! Invariants 1–4, each a function of the libraries before and after and the plan: the index's
//! size, where the bulk lives, what the loaded index reaches, and that no line is lost.

use super::{Check, Invariant};
use crate::constants::{Count, INDEX_LINE_LONG_UTF16};
use crate::memory::Library;
use crate::memory::library::Reach;
use crate::text::js::utf16_len;
use crate::tier::budget::{CAP, Size};
use crate::tier::parse::{Kind, parse, split_lines};
use crate::tier::plan::Plan;
use crate::tier::{Target, is_hub, text_of, topic};

pub(super) fn size_check(target: Target, s: Size) -> Check {
    Check {
        id: Invariant::Size,
        name: "index within target and cap",
        ok: target.fits(s) && CAP.fits(s),
        detail: format!(
            "MEMORY.md {} lines / {} UTF-16 units; target {} / {}; client cap {} / {}",
            Count(s.lines),
            Count(s.utf16),
            Count(target.lines),
            Count(target.utf16),
            Count(CAP.lines),
            Count(CAP.utf16)
        ),
    }
}

/// Entry lines, and the notes that move like entries (link-less lines of dated or
/// read-on-demand sections, [`crate::tier::groups::is_note`]).
fn entry_count(text: &str) -> usize {
    let idx = parse(text);
    (0..idx.lines.len())
        .filter(|&i| idx.lines[i].kind == Kind::Entry || crate::tier::groups::is_note(&idx, i))
        .count()
}

pub(super) fn bulk_check(before: &Library, after: &Library, plan: &Plan) -> Check {
    let name = "bulk lives in topic and hub files";
    let (was, now) = (
        entry_count(before.index_text()),
        entry_count(after.index_text()),
    );
    let long: Vec<usize> = (split_lines(after.index_text()).enumerate())
        .filter(|(_, l)| {
            utf16_len(l) > INDEX_LINE_LONG_UTF16 && plan.generated.iter().any(|g| g == l)
        })
        .map(|(i, _)| i + 1)
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
            "; lines tier wrote over {INDEX_LINE_LONG_UTF16} UTF-16 units at lines {long:?}"
        ));
    }
    Check {
        id: Invariant::Bulk,
        name,
        ok,
        detail,
    }
}

/// Files by how the loaded part of MEMORY.md reaches them: (reached directly or through a hub,
/// reached only past the cut).
pub(super) type Reached<'a> = (Vec<&'a str>, Vec<&'a str>);

pub(super) fn reached(lib: &Library) -> Reached<'_> {
    let (mut shallow, mut dark) = (Vec::new(), Vec::new());
    for (f, r) in lib.files.iter().zip(lib.reach()) {
        match r {
            Reach::Direct | Reach::ViaHub(_) => shallow.push(f.rel.as_str()),
            Reach::PastCut => dark.push(f.rel.as_str()),
            Reach::Index | Reach::Unreachable => {}
        }
    }
    (shallow, dark)
}

pub(super) fn reach_check(before: &Reached<'_>, after: &Library) -> Check {
    let name = "every file still reached from the loaded index, no deeper";
    let (was, was_dark) = before;
    let (now, now_dark) = reached(after);
    let lost: Vec<&str> = (was.iter().chain(was_dark))
        .filter(|f| now.binary_search(f).is_err())
        .copied()
        .collect();
    let ok = lost.is_empty() && now_dark.is_empty();
    let mut detail = format!(
        "{} files reached from the loaded part of MEMORY.md or a hub it links, was {} (+{} only past the client's cut)",
        now.len(),
        was.len(),
        was_dark.len()
    );
    if !lost.is_empty() {
        detail.push_str(&format!("; no longer reached: {lost:?}"));
    }
    if !now_dark.is_empty() {
        detail.push_str(&format!("; still only past the cut: {now_dark:?}"));
    }
    Check {
        id: Invariant::Reach,
        name,
        ok,
        detail,
    }
}

/// Whether two texts are equal; a file [`Library::with`] left as it was shares its text, so
/// the bytes are compared only when the texts are not one.
fn same_text(a: &str, b: &str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// The texts of MEMORY.md and the top-level files of `lib` that are not the same in `other`
/// (a file identical in both adds the same lines to both sides of the count).
fn changed_texts<'a>(lib: &'a Library, other: &Library) -> Vec<&'a str> {
    let mut texts = Vec::new();
    if !same_text(lib.index_text(), other.index_text()) {
        texts.push(lib.index_text());
    }
    for f in lib.top_level() {
        let text = text_of(f);
        if topic(other, &f.rel).is_none_or(|o| !same_text(text_of(o), text)) {
            texts.push(text);
        }
    }
    texts
}

pub(super) fn kept_check(before: &Library, after: &Library, plan: &Plan) -> Check {
    let name = "nothing deleted";
    let mut diff: foldhash::HashMap<&str, isize> = foldhash::HashMap::default();
    let lines = |text| split_lines(text).filter(|l| !l.trim().is_empty());
    for text in changed_texts(after, before) {
        for line in lines(text) {
            *diff.entry(line).or_default() += 1;
        }
    }
    for text in changed_texts(before, after) {
        for line in lines(text) {
            *diff.entry(line).or_default() -= 1;
        }
    }
    for g in &plan.generated {
        *diff.entry(g.as_str()).or_default() -= 1;
    }
    let mut wrong: Vec<(&str, isize)> = diff.into_iter().filter(|(_, n)| *n != 0).collect();
    wrong.sort_unstable();
    let mut shrunk = Vec::new();
    let (mut same, mut grown) = (0, 0);
    for file in before.top_level() {
        let (name, old) = (file.rel.as_str(), text_of(file));
        match topic(after, name).map(text_of) {
            Some(t) if same_text(t, old) => same += 1,
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
        id: Invariant::Kept,
        name,
        ok,
        detail,
    }
}
