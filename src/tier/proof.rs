//! The five invariants, checked on the planned library and again on the files read back from
//! disk after writing. Reach and links are the library model's ([`Library::reach`]), and the
//! last invariant runs the audit's own rules, so tier proves exactly what `ccmem audit` will
//! find:
//!
//! 1. MEMORY.md is within the target and within the client's cap, measured as the loader does.
//! 2. Bulk lives in topic/hub files: MEMORY.md holds no more entry lines than before, and no
//!    line tier wrote into it is longer than the client calls too long (200 UTF-16 units).
//!    Long lines the user wrote stay as written (they are reported, not refused).
//! 3. Every file the loaded part of MEMORY.md reached before (directly or through a hub it
//!    links) is reached after, and so is every file only lines past the client's cut reached;
//!    after the plan nothing is past the cut.
//! 4. Nothing is deleted: the multiset of non-blank lines of all files before, plus the lines the
//!    plan generated, equals the multiset after; every file other than MEMORY.md is unchanged
//!    or a superset (its old text is a prefix of its new text).
//! 5. The audit agrees: no finding of [`AGREE`] that was not there before (a broken link that
//!    moved into a hub is the same finding).

use std::collections::BTreeMap;

use serde::Serialize;

use super::budget::{CAP, Size};
use super::parse::{Kind, parse, split_lines};
use super::plan::{Plan, Suggestion};
use super::{Target, is_hub, text_of, topic};
use crate::constants::{INDEX_LINE_GUIDE_UTF16, INDEX_LINE_LONG_UTF16};
use crate::memory::Library;
use crate::memory::library::Reach;
use crate::rules::{self, Check as RuleCheck, Ctx, Diagnostic};
use crate::text::js::utf16_len;

/// The audit rules whose findings tier must never add: reach, naming, links, and the
/// frontmatter of the hubs it writes.
pub const AGREE: [&str; 8] = [
    "unreachable-file",
    "bad-file-name",
    "name-not-slug",
    "broken-link",
    "missing-field",
    "missing-frontmatter",
    "invalid-frontmatter",
    "invalid-type",
];

/// One invariant's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// 1–5.
    pub id: u8,
    /// Short name.
    pub name: &'static str,
    /// Whether it holds.
    pub ok: bool,
    /// The evidence, in words.
    pub detail: String,
}

/// The five checks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proof {
    /// In order 1–5.
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
    // The checks are independent: the two that look at every file run beside the others.
    let ((size, bulk, reach), (kept, audit)) = rayon::join(
        || {
            (
                size_check(plan.target, after_size),
                bulk_check(before, after, plan),
                reach_check(before, after),
            )
        },
        || {
            rayon::join(
                || kept_check(before, after, plan),
                || audit_check(before, after),
            )
        },
    );
    Proof {
        checks: vec![size, bulk, reach, kept, audit],
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

fn entry_count(text: &str) -> usize {
    (parse(text).lines.iter())
        .filter(|l| l.kind == Kind::Entry)
        .count()
}

fn bulk_check(before: &Library, after: &Library, plan: &Plan) -> Check {
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
        id: 2,
        name,
        ok,
        detail,
    }
}

/// Files by how the loaded part of MEMORY.md reaches them: (reached directly or through a hub,
/// reached only past the cut).
fn reached(lib: &Library) -> (Vec<&str>, Vec<&str>) {
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

fn reach_check(before: &Library, after: &Library) -> Check {
    let name = "every file still reached from the loaded index, no deeper";
    let (was, was_dark) = reached(before);
    let (now, now_dark) = reached(after);
    let lost: Vec<&str> = (was.iter().chain(&was_dark))
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
        id: 3,
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

fn kept_check(before: &Library, after: &Library, plan: &Plan) -> Check {
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
        id: 4,
        name,
        ok,
        detail,
    }
}

/// The findings of the [`AGREE`] rules the library's spec runs, counted by what identifies
/// them across a move: a broken link by its message (it names the target), anything else by
/// its file and message.
fn agreed_findings(lib: &Library) -> BTreeMap<(&'static str, String), usize> {
    let ctx = Ctx::new(lib, jiff::Timestamp::UNIX_EPOCH);
    let mut diags: Vec<Diagnostic> = Vec::new();
    for rule in AGREE.iter().filter_map(|n| rules::find(n)) {
        if !rule.applies.to(lib.spec()) || !lib.config.audit.enabled(rule.name) {
            continue;
        }
        match rule.check {
            RuleCheck::File(check) => (0..lib.files.len()).for_each(|i| check(&ctx, i, &mut diags)),
            RuleCheck::Library(check) => check(&ctx, &mut diags),
        }
    }
    let mut out = BTreeMap::new();
    for d in diags {
        let key = if d.rule == "broken-link" {
            d.message
        } else {
            format!("{}: {}", d.path, d.message)
        };
        *out.entry((d.rule, key)).or_default() += 1;
    }
    out
}

fn audit_check(before: &Library, after: &Library) -> Check {
    let name = "the audit finds nothing new";
    let (was, now) = rayon::join(|| agreed_findings(before), || agreed_findings(after));
    let new: Vec<String> = (now.iter())
        .filter(|(k, n)| was.get(*k).is_none_or(|w| w < n))
        .map(|((rule, what), _)| format!("{rule}: {what}"))
        .collect();
    if !new.is_empty() {
        return fail(5, name, format!("new findings: {new:?}"));
    }
    if before.spec() != after.spec() {
        return fail(
            5,
            name,
            format!(
                "the library would be audited against another write spec ({} instead of {})",
                after.spec(),
                before.spec()
            ),
        );
    }
    let total: usize = now.values().sum();
    Check {
        id: 5,
        name,
        ok: true,
        detail: format!(
            "no new finding of {} ({total} there before, kept as they were)",
            AGREE.join(", ")
        ),
    }
}

/// `--compress`: for entry lines of `index` longer than the client's guide (150 UTF-16 units), a version whose
/// description (the text after ` — ` or ` - `) is cut to fit, ending in `…`.
pub fn compress_suggestions(index: &str) -> Vec<Suggestion> {
    let idx = parse(index);
    let mut out = Vec::new();
    for line in &idx.lines {
        if line.kind != Kind::Entry || utf16_len(line.text) <= INDEX_LINE_GUIDE_UTF16 {
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
