//! The audit's findings as the proof counts them (by rule and message, so a finding that moved
//! with its line is the same finding), and what of a library's findings holds, without running
//! the rules again, for a library made from it.

use std::collections::BTreeMap;
use std::sync::Arc;

use rayon::prelude::*;

use crate::memory::file::Role;
use crate::memory::{Library, similar};
use crate::rules::{self, Check as RuleCheck, Ctx, Diagnostic};

/// The findings of audit rules the library's spec runs, counted by what identifies them
/// across a move: their rule and message (as `scripts/bench/tier_curated.py` judges them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    pub(super) counts: BTreeMap<Key, usize>,
    /// `near-duplicate`'s findings are counted (else the library's compared files are the
    /// baseline's, and so are its findings: see [`super::Baseline`]).
    pub(super) near: bool,
}

/// Which rules [`Findings::of_rules`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Rules {
    All,
    /// Every rule but `near-duplicate`.
    AllButNear,
    /// The file rules alone (`near-duplicate` is a library rule).
    FileOnly,
    Near,
}

/// The files whose file rules [`Findings::of_rules`] runs.
#[derive(Debug, Clone, Copy)]
pub(super) enum Files<'a> {
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
    pub(super) fn add(&mut self, other: Findings) {
        for (k, n) in other.counts {
            *self.counts.entry(k).or_default() += n;
        }
        self.near |= other.near;
    }

    /// Runs the audit rules `which` selects on `lib`: the library rules, and the file rules on
    /// the files `files` selects, in parallel.
    pub(super) fn of_rules(lib: &Library, which: Rules, files: Files<'_>) -> Findings {
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
pub(super) type Key = (&'static str, String);

fn key(d: Diagnostic) -> Key {
    if d.rule.starts_with("index-over-") {
        ("index-over-*", String::new())
    } else {
        (d.rule, d.message)
    }
}

/// The rule whose findings are reused when the files it compares are the same.
pub(super) const NEAR: &str = "near-duplicate";

/// What of a library's findings holds for a library made from it by a plan (or read back after
/// writing one), without running the rules again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reuse {
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
    pub(super) fn of(before: &Library, after: &Library) -> Reuse {
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
pub(super) fn same_settings(before: &Library, after: &Library) -> bool {
    before.config.audit == after.config.audit && before.spec() == after.spec()
}
