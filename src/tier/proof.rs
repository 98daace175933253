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
//!
//! Here: the invariants and the proof's types, and the [`Baseline`] a plan is proved against.
//! Invariants 1–4 are [`checks`]; the audit's comparison (5) is [`compare`], over the findings
//! counted, and reused where a plan cannot change them, in [`findings`].

mod checks;
mod compare;
mod findings;

use std::sync::OnceLock;

use serde::Serialize;

use self::checks::{Reached, bulk_check, kept_check, reach_check, reached, size_check};
pub use self::compare::Compared;
use self::compare::audit_check;
pub use self::findings::Findings;
use self::findings::{Files, Rules};
use super::budget::Size;
use super::plan::Plan;
use crate::memory::Library;

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
/// The audit's verdict is a comparison ([`compare::audit_check`]: a finding is new when there
/// are more of it after than before), so what both libraries find alike cancels out and is not
/// looked for ([`Compared`]): a file rule looks at one file ([`crate::rules::Check::File`]), so
/// its findings on a file both libraries share (the same [`std::sync::Arc`]: the same bytes,
/// name and settings) are the same on both sides. The file rules run on the files a plan writes or removes, never on the
/// thousands it leaves as they were; the library rules (reach, links, the index, groups) look
/// across files and run on both libraries.
///
/// `near-duplicate` (the costliest rule: a signature of every memory) runs only when a proof
/// needs it: when every file it compares is the baseline's ([`findings::Reuse`]), its findings
/// after are its findings before by construction, so neither side runs it.
pub struct Baseline<'a> {
    lib: &'a Library,
    reached: Reached<'a>,
    /// The library rules' findings but `near-duplicate`'s.
    library: Findings,
    /// `near-duplicate`'s, found the first time a proof needs them.
    near: OnceLock<Findings>,
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

#[cfg(test)]
mod tests;
