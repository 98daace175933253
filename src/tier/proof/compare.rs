//! Invariant 5, the audit agrees: the audit's findings on the library after a plan beside those
//! on the baseline's library, found only where the plan can change them.

use std::sync::Arc;

use super::findings::{Files, Findings, Reuse, Rules, same_settings};
use super::{AGREE, Baseline, Check, Invariant};
use crate::memory::Library;

/// The audit's findings before and after a plan, on what the plan can change: the library
/// rules on the whole of both libraries, the file rules on the files one holds and the other
/// does not hold as they were ([`Baseline`]). Any finding left out is on both sides alike, so
/// `now − was` per finding is the full audit's ([`Compared::check_against_full`] holds it to it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compared {
    /// Before the plan.
    pub(super) was: Findings,
    /// After it.
    pub(super) now: Findings,
    /// Files left as they were (their file rules' findings cancel out, not looked for).
    pub(super) shared: usize,
}

impl Compared {
    /// Holds these findings (a proof's, between `before` and `after`, a library made from it) to
    /// those of every rule run on the whole of both: per finding, as many more (or fewer) after
    /// than before; and when `near-duplicate` was not run, its findings are the same on both.
    #[cfg(test)]
    pub(crate) fn check_against_full(
        &self,
        before: &Library,
        after: &Library,
    ) -> Result<(), String> {
        use super::findings::Key;
        use std::collections::BTreeMap;

        let (was, now) = (Findings::of(before), Findings::of(after));
        if !self.now.near && now.near_part() != was.near_part() {
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
impl Baseline<'_> {
    /// The audit's findings on `after`, a library made from the baseline's, beside those on
    /// the baseline's library, both on what the plan can change ([`Compared`]): the rules whose
    /// findings the plan cannot change ([`super::findings::Reuse`]) are not run again, nor the
    /// file rules on the files the plan left as they were.
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
}

fn fail(id: Invariant, name: &'static str, detail: String) -> Check {
    Check {
        id,
        name,
        ok: false,
        detail,
    }
}

pub(super) fn audit_check(before: &Library, after: &Library, compared: &Compared) -> Check {
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
