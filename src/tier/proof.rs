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
//! 5. The audit agrees: no finding of any rule `ccmem audit` runs (the library's spec, its
//!    `ccmem.toml`) that was not there before; a finding is known by its rule and message, so
//!    one that moved with its line into a hub is the same finding. A hub over
//!    `max-file-lines` is a new `oversized-file`, as `ccmem audit` would say right after.

use std::collections::BTreeMap;
use std::sync::Arc;

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
/// MEMORY.md reached and the audit's findings before the plan. `tier --write` proves the
/// planned library and then the files read back from disk against the same baseline.
pub struct Baseline<'a> {
    lib: &'a Library,
    reached: Reached<'a>,
    findings: Findings,
}

impl<'a> Baseline<'a> {
    /// The baseline of `before` (its reach, and the audit run on it once).
    pub fn of(before: &'a Library) -> Self {
        let (reached, findings) = rayon::join(|| reached(before), || Findings::of(before));
        Baseline {
            lib: before,
            reached,
            findings,
        }
    }

    /// The baseline of `before`, and the audit's findings on `after` (a library made from
    /// `before` by a plan), found beside it: the rules whose findings the plan cannot change
    /// ([`Reuse`]) are not run again.
    pub fn with_audit(before: &'a Library, after: &Library) -> (Self, Findings) {
        let reuse = Reuse::of(before, after);
        if reuse == Reuse::All {
            let baseline = Baseline::of(before);
            let findings = baseline.findings.clone();
            return (baseline, findings);
        }
        let (baseline, findings) = rayon::join(
            || Baseline::of(before),
            || Findings::of_rules(after, reuse == Reuse::NearDuplicates),
        );
        let findings = match reuse {
            Reuse::NearDuplicates => findings.with_near_of(&baseline.findings),
            _ => findings,
        };
        (baseline, findings)
    }

    /// The audit's findings on `after`, a library made from the baseline's (see
    /// [`Baseline::with_audit`]).
    pub fn audit(&self, after: &Library) -> Findings {
        Findings::after(self.lib, &self.findings, after)
    }

    /// Checks the invariants between the baseline and `after`, with `after_size` measured on
    /// whatever `after` came from (the plan, or the disk), and `audited` the audit's findings
    /// on `after` ([`Findings::of`]).
    pub fn prove(
        &self,
        after: &Library,
        audited: &Findings,
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
        let audit = audit_check(before, &self.findings, after, audited);
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

/// The findings of every audit rule the library's spec runs, counted by what identifies them
/// across a move: their rule and message (as `scripts/bench/tier_curated.py` judges them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings(BTreeMap<(&'static str, String), usize>);

impl Findings {
    /// Runs every audit rule on `lib`.
    pub fn of(lib: &Library) -> Findings {
        Findings::of_rules(lib, false)
    }

    /// Runs every audit rule on `lib`, but `near-duplicate` when `skip_near` is set.
    fn of_rules(lib: &Library, skip_near: bool) -> Findings {
        let ctx = Ctx::new(lib, jiff::Timestamp::UNIX_EPOCH);
        let mut diags: Vec<Diagnostic> = Vec::new();
        for rule in rules::of(rules::Command::Audit) {
            if !lib.config.audit.enabled(rule.name) || (skip_near && rule.name == NEAR) {
                continue;
            }
            match rule.library_check(lib.spec()) {
                Some(RuleCheck::File(check)) => {
                    (0..lib.files.len()).for_each(|i| check(&ctx, i, &mut diags))
                }
                Some(RuleCheck::Library(check)) => check(&ctx, &mut diags),
                None => {}
            }
        }
        let mut out = BTreeMap::new();
        for d in diags {
            // MEMORY.md's size findings (over the cap, the safety line, the target) say its
            // size: one finding whatever the size (invariant 1 judges the size, and tier never
            // grows the index).
            let key = if d.rule.starts_with("index-over-") {
                ("index-over-*", String::new())
            } else {
                (d.rule, d.message)
            };
            *out.entry(key).or_default() += 1;
        }
        Findings(out)
    }

    /// The findings of `after`, a library made from `before` (whose findings are `was`): the
    /// rules that must run again run; what [`Reuse`] says cannot change is taken from `was`.
    fn after(before: &Library, was: &Findings, after: &Library) -> Findings {
        match Reuse::of(before, after) {
            Reuse::All => was.clone(),
            Reuse::NearDuplicates => Findings::of_rules(after, true).with_near_of(was),
            Reuse::Nothing => Findings::of(after),
        }
    }

    /// These findings with `near-duplicate`'s taken from `was`.
    fn with_near_of(mut self, was: &Findings) -> Findings {
        let near = (was.0.iter()).filter(|((rule, _), _)| *rule == NEAR);
        self.0.extend(near.map(|(k, n)| (k.clone(), *n)));
        self
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
        if before.config.audit != after.config.audit || before.spec() != after.spec() {
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

fn audit_check(before: &Library, was: &Findings, after: &Library, now: &Findings) -> Check {
    let name = "the audit finds nothing new";
    let new: Vec<String> = (now.0.iter())
        .filter(|(k, n)| was.0.get(*k).is_none_or(|w| w < n))
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
    let total: usize = now.0.values().sum();
    Check {
        id: Invariant::Audit,
        name,
        ok: true,
        detail: format!(
            "no new finding of any audit rule ({} first among them; {total} there before, kept as they were)",
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
            Findings::of(&l).0.keys().any(|(rule, _)| *rule == NEAR),
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
            assert_eq!(found, Findings::of(&after), "{what}");
            assert_eq!(baseline.audit(&after), found, "{what}");
        }
    }
}
