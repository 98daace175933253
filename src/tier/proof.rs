//! The five invariants, checked on the planned library and again on the files read back from
//! disk after writing. Reach and links are the library model's ([`Library::reach`]), and the
//! last invariant runs the audit's own rules, so tier proves exactly what `ccmem audit` will
//! find:
//!
//! 1. MEMORY.md is within the target and within the client's cap, measured as the loader does.
//! 2. Bulk lives in topic/hub files: MEMORY.md holds no more entry lines (and notes of dated
//!    or read-on-demand sections) than before, and no
//!    line tier wrote into it is longer than the client calls too long (200 UTF-16 units).
//!    Long lines the user wrote stay as written (they are reported, not refused).
//! 3. Every file the loaded part of MEMORY.md reached before (directly or through a hub it
//!    links) is reached after, and so is every file only lines past the client's cut reached;
//!    after the plan nothing is past the cut.
//! 4. Nothing is deleted: the multiset of non-blank lines of all files before, plus the lines the
//!    plan generated, equals the multiset after; every file other than MEMORY.md is unchanged
//!    or a superset (its old text is a prefix of its new text).
//! 5. The audit agrees: no finding of any rule `ccmem audit` runs (the library's spec, its
//!    `ccmem.toml`) that was not there before; a finding is known by its rule and message, so
//!    one that moved with its line into a hub is the same finding. A hub over
//!    `max-file-lines` is a new `oversized-file`, as `ccmem audit` would say right after.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use serde::Serialize;

use super::budget::{CAP, Size};
use super::parse::{Kind, parse, split_lines};
use super::plan::{Plan, Suggestion};
use super::{Target, is_hub, text_of, topic};
use crate::constants::{Count, INDEX_LINE_LONG_UTF16};
use crate::memory::file::Role;
use crate::memory::library::Reach;
use crate::memory::{Library, similar};
use crate::rules::{self, Check as RuleCheck, Ctx, Diagnostic};
use crate::text::js::utf16_len;

/// The audit rules whose findings tier's proof names first (it runs every rule of `ccmem
/// audit`; these are the ones a restructure could add): reach, naming, links, the frontmatter
/// of the hubs it writes.
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

/// The five invariants, in the order they are checked and numbered (1–5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Invariant {
    /// 1: MEMORY.md within the target and the client's cap.
    Size = 1,
    /// 2: bulk lives in topic and hub files.
    Bulk = 2,
    /// 3: every file still reached from the loaded index, no deeper.
    Reach = 3,
    /// 4: nothing deleted.
    Kept = 4,
    /// 5: the audit finds nothing new.
    Audit = 5,
}

impl Invariant {
    /// Its number, 1–5, as the proof prints it.
    pub fn number(self) -> u8 {
        self as u8
    }
}

/// The JSON has the number (`"id": 3`).
impl Serialize for Invariant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.number())
    }
}

/// One invariant's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// Which invariant.
    pub id: Invariant,
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

    /// The check of invariant `which`.
    pub fn check(&self, which: Invariant) -> &Check {
        self.checks
            .iter()
            .find(|c| c.id == which)
            .expect("a proof checks every invariant")
    }

    /// The check of invariant `which`, to amend.
    pub fn check_mut(&mut self, which: Invariant) -> &mut Check {
        self.checks
            .iter_mut()
            .find(|c| c.id == which)
            .expect("a proof checks every invariant")
    }
}

/// What the proof holds a plan to, found once per library read: the files the loaded part of
/// MEMORY.md reached and the library rules' findings before the plan. `tier --write` proves the
/// planned library and then the files read back from disk against the same baseline.
///
/// The audit's verdict is a comparison ([`audit_check`]: a finding is new when there are more
/// of it after than before), so what both libraries find alike cancels out and is not looked
/// for ([`Compared`]): a file rule looks at one file ([`rules::Check::File`]), so its findings
/// on a file both libraries share (the same [`Arc`]: the same bytes, name and settings) are the
/// same on both sides. The file rules run on the files a plan writes or removes, never on the
/// thousands it leaves as they were; the library rules (reach, links, the index, groups) look
/// across files and run on both libraries.
///
/// `near-duplicate` (the costliest rule: a signature of every memory) runs only when a proof
/// needs it: when every file it compares is the baseline's ([`Reuse`]), its findings after are
/// its findings before by construction, so neither side runs it.
pub struct Baseline<'a> {
    lib: &'a Library,
    reached: Reached<'a>,
    /// The library rules' findings but `near-duplicate`'s.
    library: Findings,
    /// `near-duplicate`'s, found the first time a proof needs them.
    near: OnceLock<Findings>,
}

/// The audit's findings before and after a plan, on what the plan can change: the library
/// rules on the whole of both libraries, the file rules on the files one holds and the other
/// does not hold as they were ([`Baseline`]). Any finding left out is on both sides alike, so
/// `now − was` per finding is the full audit's ([`Compared::check_against_full`] holds it to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// Before the plan.
    was: Findings,
    /// After it.
    now: Findings,
    /// Files left as they were (their file rules' findings cancel out, not looked for).
    shared: usize,
}

impl Compared {
    /// Whether `near-duplicate`'s findings are counted.
    pub fn has_near(&self) -> bool {
        self.now.near
    }

    /// Holds these findings (a proof's, between `before` and `after`, a library made from it) to
    /// those of every rule run on the whole of both: per finding, as many more (or fewer) after
    /// than before; and when `near-duplicate` was not run, its findings are the same on both.
    #[cfg(test)]
    pub(crate) fn check_against_full(
        &self,
        before: &Library,
        after: &Library,
    ) -> Result<(), String> {
        let (was, now) = (Findings::of(before), Findings::of(after));
        if !self.has_near() && now.near_part() != was.near_part() {
            return Err(format!(
                "near-duplicate differs: {:?} != {:?}",
                now.near_part(),
                was.near_part()
            ));
        }
        let delta = |now: &Findings, was: &Findings| -> BTreeMap<Key, isize> {
            let mut d = BTreeMap::new();
            for (k, n) in &now.counts {
                *d.entry(k.clone()).or_default() += *n as isize;
            }
            for (k, n) in &was.counts {
                *d.entry(k.clone()).or_default() -= *n as isize;
            }
            d.retain(|_, n| *n != 0);
            d
        };
        let (mine, full) = (delta(&self.now, &self.was), delta(&now, &was));
        (mine == full)
            .then_some(())
            .ok_or(format!("after − before differs: {mine:?} != {full:?}"))
    }
}

impl<'a> Baseline<'a> {
    /// The baseline of `before` (its reach, and the library rules run on it once,
    /// `near-duplicate` left until needed).
    pub fn of(before: &'a Library) -> Self {
        let (reached, library) = rayon::join(
            || reached(before),
            || Findings::of_rules(before, Rules::AllButNear, Files::None),
        );
        Baseline {
            lib: before,
            reached,
            library,
            near: OnceLock::new(),
        }
    }

    /// The baseline of `before`, and the audit's findings on `after` (a library made from
    /// `before` by a plan) compared with those on `before` ([`Baseline::audit`]).
    pub fn with_audit(before: &'a Library, after: &Library) -> (Self, Compared) {
        let baseline = Baseline::of(before);
        let compared = baseline.audit(after);
        (baseline, compared)
    }

    /// The audit's findings on `after`, a library made from the baseline's, beside those on
    /// the baseline's library, both on what the plan can change ([`Compared`]): the rules whose
    /// findings the plan cannot change ([`Reuse`]) are not run again, nor the file rules on
    /// the files the plan left as they were.
    pub fn audit(&self, after: &Library) -> Compared {
        let before = self.lib;
        if !same_settings(before, after) {
            // Other settings (a rule's limits, the write spec) find other things in a file:
            // every rule on every file of both.
            let (was, now) = rayon::join(|| Findings::of(before), || Findings::of(after));
            return Compared {
                was,
                now,
                shared: 0,
            };
        }
        let reuse = Reuse::of(before, after);
        if reuse == Reuse::All {
            return Compared {
                was: self.library.clone(),
                now: self.library.clone(),
                shared: before.files.len(),
            };
        }
        let ids = |lib: &Library| -> foldhash::HashSet<usize> {
            lib.files.iter().map(|f| Arc::as_ptr(f) as usize).collect()
        };
        let (in_before, in_after) = rayon::join(|| ids(before), || ids(after));
        let (now, was_files) = rayon::join(
            || Findings::of_rules(after, Rules::AllButNear, Files::Not(&in_before)),
            || Findings::of_rules(before, Rules::FileOnly, Files::Not(&in_after)),
        );
        let mut was = self.library.clone();
        was.add(was_files);
        let shared = (before.files.iter())
            .filter(|f| in_after.contains(&(Arc::as_ptr(f) as usize)))
            .count();
        let mut compared = Compared { was, now, shared };
        if reuse == Reuse::Nothing {
            let (near_now, near_was) = rayon::join(
                || Findings::of_rules(after, Rules::Near, Files::None),
                || self.near(),
            );
            compared.now.add(near_now);
            compared.was.add(near_was.clone());
        }
        compared
    }

    /// `near-duplicate`'s findings on the baseline's library.
    fn near(&self) -> &Findings {
        self.near
            .get_or_init(|| Findings::of_rules(self.lib, Rules::Near, Files::None))
    }

    /// Checks the invariants between the baseline and `after`, with `after_size` measured on
    /// whatever `after` came from (the plan, or the disk), and `audited` the audit's findings
    /// on `after` beside those before ([`Baseline::audit`]).
    pub fn prove(
        &self,
        after: &Library,
        audited: &Compared,
        plan: &Plan,
        after_size: Size,
    ) -> Proof {
        let before = self.lib;
        // The checks are independent: the one that looks at every file runs beside the others.
        let ((size, bulk, reach), kept) = rayon::join(
            || {
                (
                    size_check(plan.target, after_size),
                    bulk_check(before, after, plan),
                    reach_check(&self.reached, after),
                )
            },
            || kept_check(before, after, plan),
        );
        let audit = audit_check(before, after, audited);
        Proof {
            checks: vec![size, bulk, reach, kept, audit],
        }
    }
}

/// Checks the invariants between `before` and `after`, with `after_size` measured on whatever
/// `after` came from (the plan, or the disk).
pub fn prove(before: &Library, after: &Library, plan: &Plan, after_size: Size) -> Proof {
    let (baseline, audited) = Baseline::with_audit(before, after);
    baseline.prove(after, &audited, plan, after_size)
}

fn size_check(target: Target, s: Size) -> Check {
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
/// read-on-demand sections, [`super::groups::is_note`]).
fn entry_count(text: &str) -> usize {
    let idx = parse(text);
    (0..idx.lines.len())
        .filter(|&i| idx.lines[i].kind == Kind::Entry || super::groups::is_note(&idx, i))
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
        id: Invariant::Bulk,
        name,
        ok,
        detail,
    }
}

/// Files by how the loaded part of MEMORY.md reaches them: (reached directly or through a hub,
/// reached only past the cut).
type Reached<'a> = (Vec<&'a str>, Vec<&'a str>);

fn reached(lib: &Library) -> Reached<'_> {
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

fn reach_check(before: &Reached<'_>, after: &Library) -> Check {
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

fn fail(id: Invariant, name: &'static str, detail: String) -> Check {
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
        id: Invariant::Kept,
        name,
        ok,
        detail,
    }
}

/// The findings of audit rules the library's spec runs, counted by what identifies them
/// across a move: their rule and message (as `scripts/bench/tier_curated.py` judges them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    counts: BTreeMap<Key, usize>,
    /// `near-duplicate`'s findings are counted (else the library's compared files are the
    /// baseline's, and so are its findings: see [`Baseline`]).
    near: bool,
}

/// Which rules [`Findings::of_rules`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rules {
    All,
    /// Every rule but `near-duplicate`.
    AllButNear,
    /// The file rules alone (`near-duplicate` is a library rule).
    FileOnly,
    Near,
}

/// The files whose file rules [`Findings::of_rules`] runs.
#[derive(Debug, Clone, Copy)]
enum Files<'a> {
    All,
    None,
    /// Those that are not in the set (of [`Arc`] addresses: files another library shares).
    Not(&'a foldhash::HashSet<usize>),
}

impl Findings {
    /// Runs every audit rule on the whole of `lib`.
    pub fn of(lib: &Library) -> Findings {
        Findings::of_rules(lib, Rules::All, Files::All)
    }

    /// `near-duplicate`'s findings alone.
    #[cfg(test)]
    pub(crate) fn near_part(&self) -> Vec<(&String, usize)> {
        (self.counts.iter())
            .filter(|((rule, _), _)| *rule == NEAR)
            .map(|((_, what), n)| (what, *n))
            .collect()
    }

    /// Counts `other`'s findings too.
    fn add(&mut self, other: Findings) {
        for (k, n) in other.counts {
            *self.counts.entry(k).or_default() += n;
        }
        self.near |= other.near;
    }

    /// Runs the audit rules `which` selects on `lib`: the library rules, and the file rules on
    /// the files `files` selects, in parallel.
    fn of_rules(lib: &Library, which: Rules, files: Files<'_>) -> Findings {
        let ctx = Ctx::new(lib, jiff::Timestamp::UNIX_EPOCH);
        let (mut file_rules, mut library_rules) = (Vec::new(), Vec::new());
        for rule in rules::of(rules::Command::Audit) {
            let wanted = match which {
                Rules::All => true,
                Rules::AllButNear | Rules::FileOnly => rule.name != NEAR,
                Rules::Near => rule.name == NEAR,
            };
            if !lib.config.audit.enabled(rule.name) || !wanted {
                continue;
            }
            match rule.library_check(lib.spec()) {
                Some(RuleCheck::File(check)) => file_rules.push(check),
                Some(RuleCheck::Library(check)) if which != Rules::FileOnly => {
                    library_rules.push(check)
                }
                _ => {}
            }
        }
        let audited: Vec<usize> = match files {
            _ if file_rules.is_empty() => Vec::new(),
            Files::None => Vec::new(),
            Files::All => (0..lib.files.len()).collect(),
            Files::Not(shared) => (0..lib.files.len())
                .filter(|&i| !shared.contains(&(Arc::as_ptr(&lib.files[i]) as usize)))
                .collect(),
        };
        let (per_file, library) = rayon::join(
            || {
                (audited.into_par_iter())
                    .flat_map_iter(|i| {
                        let mut diags = Vec::new();
                        for check in &file_rules {
                            check(&ctx, i, &mut diags);
                        }
                        diags
                    })
                    .collect::<Vec<Diagnostic>>()
            },
            || {
                let mut diags = Vec::new();
                for check in &library_rules {
                    check(&ctx, &mut diags);
                }
                diags
            },
        );
        let mut counts = BTreeMap::new();
        for k in per_file.into_iter().chain(library).map(key) {
            *counts.entry(k).or_default() += 1;
        }
        Findings {
            counts,
            near: matches!(which, Rules::All | Rules::Near),
        }
    }
}

/// What identifies a finding across a move: its rule and message. MEMORY.md's size findings
/// (over the cap, the safety line, the target) say its size: one finding whatever the size
/// (invariant 1 judges the size, and tier never grows the index).
type Key = (&'static str, String);

fn key(d: Diagnostic) -> Key {
    if d.rule.starts_with("index-over-") {
        ("index-over-*", String::new())
    } else {
        (d.rule, d.message)
    }
}

/// The rule whose findings are reused when the files it compares are the same.
const NEAR: &str = "near-duplicate";

/// What of a library's findings holds for a library made from it by a plan (or read back after
/// writing one), without running the rules again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reuse {
    /// Everything: the two libraries have the very same files (a plan that changes nothing),
    /// and the same settings, so every rule finds the same.
    All,
    /// `near-duplicate`'s findings: every file whose signature it compares is the same, under
    /// the same name, in the same order (the plan wrote only MEMORY.md, hubs and files whose
    /// description and body it left as they were). Its messages name files and similarities,
    /// never lines.
    NearDuplicates,
    /// Nothing: every rule runs again.
    Nothing,
}

impl Reuse {
    fn of(before: &Library, after: &Library) -> Reuse {
        if !same_settings(before, after) {
            return Reuse::Nothing;
        }
        let same_files = before.files.len() == after.files.len()
            && (before.files.iter().zip(&after.files)).all(|(a, b)| Arc::ptr_eq(a, b));
        if same_files {
            return Reuse::All;
        }
        // The files with a signature, by name, in both: those that are not shared are compared.
        let signed = |lib: &Library| -> Vec<(usize, String)> {
            (lib.files.iter().enumerate())
                .filter(|(_, f)| !matches!(f.role, Role::Index | Role::Hub { .. }))
                .map(|(i, f)| (i, f.rel.clone()))
                .collect()
        };
        let (was, now) = (signed(before), signed(after));
        let same = was.len() == now.len()
            && was.iter().zip(&now).all(|(&(i, ref a), &(j, ref b))| {
                let (x, y) = (&before.files[i], &after.files[j]);
                a == b && (Arc::ptr_eq(x, y) || similar::of_memory(x) == similar::of_memory(y))
            });
        if same {
            Reuse::NearDuplicates
        } else {
            Reuse::Nothing
        }
    }
}

/// Whether the audit runs on both libraries with the same settings and write spec.
fn same_settings(before: &Library, after: &Library) -> bool {
    before.config.audit == after.config.audit && before.spec() == after.spec()
}

fn audit_check(before: &Library, after: &Library, compared: &Compared) -> Check {
    let name = "the audit finds nothing new";
    let (was, now) = (&compared.was, &compared.now);
    let new: Vec<String> = (now.counts.iter())
        .filter(|(k, n)| was.counts.get(*k).is_none_or(|w| w < n))
        .map(|((rule, what), _)| format!("{rule}: {what}"))
        .collect();
    if !new.is_empty() {
        return fail(Invariant::Audit, name, format!("new findings: {new:?}"));
    }
    if before.spec() != after.spec() {
        return fail(
            Invariant::Audit,
            name,
            format!(
                "the library would be audited against another write spec ({} instead of {})",
                after.spec(),
                before.spec()
            ),
        );
    }
    let total: usize = was.counts.values().sum();
    let shared = match compared.shared {
        0 => String::new(),
        n => format!("; the file rules not run again on the {n} files it leaves as they were"),
    };
    let near = if now.near {
        ""
    } else {
        "; near-duplicate not run: the plan rewrites no file it compares"
    };
    Check {
        id: Invariant::Audit,
        name,
        ok: true,
        detail: format!(
            "no new finding of any audit rule ({} first among them; {total} there before across \
             the library and in the files the plan writes, kept as they were{shared}{near})",
            AGREE.join(", ")
        ),
    }
}

/// `--compress`'s suggestions for `index` (see [`super::compress`]).
pub fn compress_suggestions(index: &str) -> Vec<Suggestion> {
    super::compress::suggestions(index).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tier::tests::lib;

    /// A file replaced or created (`Some(text)`) or removed (`None`), as [`Library::with`] takes it.
    type Change<'a> = (&'a str, Option<&'a str>);

    /// Two entries that say nearly the same, and an index that links them.
    fn twins() -> Library {
        let body = "Deploys go through the staging cluster first; a release that skips staging is \
                    rolled back by the on-call engineer without asking.";
        let entry = |n: &str, extra: &str| {
            format!(
                "---\nname: {n}\ndescription: staging first\ntype: feedback\n---\n{body}{extra}\n"
            )
        };
        lib(
            "# Memory\n- [a](feedback_a.md) — staging\n- [b](feedback_b.md) — staging\n",
            &[
                ("feedback_a.md", entry("a", "")),
                ("feedback_b.md", entry("b", " Always.")),
                (
                    "reference_deploy_hub.md",
                    "---\nname: hub\ndescription: h\ntype: reference\n---\n- [a](feedback_a.md)\n"
                        .to_owned(),
                ),
            ],
        )
    }

    #[test]
    fn reused_findings_are_those_of_every_rule_run_again() {
        let l = twins();
        assert!(
            !Findings::of(&l).near_part().is_empty(),
            "the library has a near-duplicate finding"
        );
        let cases: [(&str, Vec<Change>, Reuse); 4] = [
            ("nothing changed", vec![], Reuse::All),
            (
                "MEMORY.md and a hub rewritten",
                vec![
                    (
                        "MEMORY.md",
                        Some("# Memory\n- [deploy](reference_deploy_hub.md) — staging\n"),
                    ),
                    (
                        "reference_deploy_hub.md",
                        Some(
                            "---\nname: hub\ndescription: h\ntype: reference\n---\n- [a](feedback_a.md)\n- [b](feedback_b.md)\n",
                        ),
                    ),
                ],
                Reuse::NearDuplicates,
            ),
            (
                "an entry's body changed",
                vec![(
                    "feedback_b.md",
                    Some("---\nname: b\ndescription: other\ntype: feedback\n---\nTabs.\n"),
                )],
                Reuse::Nothing,
            ),
            (
                "an entry created",
                vec![(
                    "feedback_c.md",
                    Some("---\nname: c\ndescription: c\ntype: feedback\n---\nc\n"),
                )],
                Reuse::Nothing,
            ),
        ];
        for (what, changes, reuse) in cases {
            let after = l.with(changes);
            assert_eq!(Reuse::of(&l, &after), reuse, "{what}");
            let (baseline, found) = Baseline::with_audit(&l, &after);
            assert_eq!(found.has_near(), reuse == Reuse::Nothing, "{what}");
            found
                .check_against_full(&l, &after)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(baseline.audit(&after), found, "{what}");
            assert_eq!(found.was.near, found.now.near, "{what}");
        }
    }

    #[test]
    fn the_file_rules_run_only_on_the_files_a_plan_writes_or_removes_and_find_what_they_change() {
        let l = twins();
        let no_name = "---\ndescription: staging first\ntype: feedback\n---\nDeploys.\n";
        let cases: [(&str, Vec<Change>, bool); 3] = [
            // A finding the plan adds, in a file it writes.
            (
                "a field dropped",
                vec![("feedback_b.md", Some(no_name))],
                false,
            ),
            // One it takes away (a file with a finding removed) is not new.
            (
                "a file removed",
                vec![("reference_deploy_hub.md", None)],
                true,
            ),
            (
                "a hub rewritten",
                vec![(
                    "reference_deploy_hub.md",
                    Some(
                        "---\nname: hub\ndescription: h\ntype: reference\n---\n- [b](feedback_b.md)\n",
                    ),
                )],
                true,
            ),
        ];
        for (what, changes, ok) in cases {
            let after = l.with(changes);
            let (_, found) = Baseline::with_audit(&l, &after);
            found
                .check_against_full(&l, &after)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let written = l.files.len() - found.shared;
            assert!(written <= 1, "{what}: {written} files audited again");
            let check = audit_check(&l, &after, &found);
            assert_eq!(check.ok, ok, "{what}: {}", check.detail);
        }
        // Other settings: every rule on every file of both libraries.
        let mut other = l.with([("feedback_b.md", Some(no_name))]);
        other.config.audit.max_file_lines = 1;
        let (_, found) = Baseline::with_audit(&l, &other);
        assert_eq!(found.shared, 0);
        found.check_against_full(&l, &other).unwrap();
        assert!(!audit_check(&l, &other, &found).ok);
    }

    #[test]
    fn a_near_duplicate_the_plan_makes_is_new_though_the_baseline_left_the_rule_for_later() {
        let l = twins();
        let (baseline, _) = Baseline::with_audit(&l, &l);
        assert!(
            baseline.near.get().is_none(),
            "not run for a plan that changes nothing"
        );
        let copy = text_of(topic(&l, "feedback_a.md").unwrap()).replace("name: a", "name: c");
        let after = l.with([("feedback_c.md", Some(copy.as_str()))]);
        let found = baseline.audit(&after);
        let check = audit_check(&l, &after, &found);
        assert!(!check.ok && check.detail.contains(NEAR), "{}", check.detail);
    }
}

#[cfg(test)]
mod corpus_tests {
    use std::path::Path;

    use super::*;
    use crate::tier::{Options, applied, plan};

    /// Every curated library (tests/fixtures/curated/) and every corpus library
    /// (tests/fixtures/libraries/), planned at each target its `expect.toml` states and at the
    /// default: the proof's findings, which leave out the file rules on the files the plan left
    /// as they were, find per finding as many more (or fewer) as the whole audit run on both
    /// libraries, and so the same verdict.
    #[test]
    #[cfg_attr(
        not(ccmem_repository),
        ignore = "reads tests/fixtures/curated/ and tests/fixtures/libraries/, which only the repository holds"
    )]
    #[allow(clippy::disallowed_methods, reason = "test fixtures")]
    fn the_proof_audit_agrees_with_the_whole_audit_on_the_corpus() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut libraries = Vec::new();
        for corpus in ["curated", "libraries"] {
            for entry in std::fs::read_dir(root.join(corpus)).unwrap() {
                let dir = entry.unwrap().path();
                let memory = if dir.join("memory").is_dir() {
                    dir.join("memory")
                } else {
                    dir.clone()
                };
                if memory.join(crate::constants::INDEX_FILE).is_file() {
                    libraries.push((dir, memory));
                }
            }
        }
        libraries.sort();
        assert!(libraries.len() >= 20, "{libraries:?}");
        let (mut planned, mut written) = (0, 0);
        for (dir, memory) in &libraries {
            let lib =
                Library::load_configured(memory, crate::config::Config::default(), None).unwrap();
            let mut targets = vec![Options::default().target];
            if let Ok(expect) = std::fs::read_to_string(dir.join("expect.toml")) {
                let expect: toml::Table = toml::from_str(&expect).unwrap();
                for t in (expect.get("targets").and_then(|t| t.as_array()))
                    .into_iter()
                    .flatten()
                {
                    targets.push(Target {
                        lines: t["lines"].as_integer().unwrap() as usize,
                        utf16: t["utf16"].as_integer().unwrap() as usize,
                    });
                }
            }
            for target in targets {
                let opts = Options {
                    target,
                    ..Options::default()
                };
                let Ok(p) = plan::plan(&lib, &opts) else {
                    continue;
                };
                let after = applied(&lib, &p);
                let (_, found) = Baseline::with_audit(&lib, &after);
                found
                    .check_against_full(&lib, &after)
                    .unwrap_or_else(|e| panic!("{} at {target:?}: {e}", dir.display()));
                planned += 1;
                written += usize::from(!p.is_noop());
            }
        }
        assert!(
            planned >= 40 && written >= 20,
            "{planned} plans, {written} writing"
        );
    }
}
