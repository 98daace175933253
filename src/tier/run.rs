//! `ccmem tier` end to end, as the command runs it: read the library once, plan, prove, and
//! (given the folder's lock) write the plan and prove it again on the files read back from
//! disk. The command only resolves its arguments, takes the lock and renders the [`Outcome`].
//!
//! A file that changes between the read and the write (the client adding an entry) makes the
//! plan stale: nothing is written, and tier reads and plans again, up to [`STALE_RETRIES`]
//! times. After writing, only the files the plan wrote are read again ([`Library::reread`]):
//! the others are the ones the plan was made from. The audit's findings before the plan are
//! found once ([`Baseline`]) and serve both proofs; the findings after it are found once too
//! when the files on disk are the planned ones.

use std::fmt;

use super::budget::{self, CAP, Size, Target};
use super::plan::{self, Plan};
use super::proof::{Baseline, Compared, Invariant, Proof};
use super::usage::Reads;
use super::{
    ClientLinks, Error, Folder, Options, Refusal, Skipped, applied, check_readable, check_writes,
    link_target, text_of, topic,
};
use crate::constants::INDEX_FILE;
use crate::env::ClientEnv;
use crate::memory::Library;
use crate::memory::library::LoadError;
use crate::write::{self, Applied, Change, Hash, Lock, WriteError};

/// How many times `tier --write` plans again when a file changed under a plan.
pub const STALE_RETRIES: usize = 3;

/// What to restructure, and how.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The memory folder.
    pub folder: &'a Folder,
    /// The planning options.
    pub opts: Options,
    /// The target was given on the command line: a demand (unreachable: refused), where the
    /// default or `ccmem.toml`'s target is a goal (see [`plan_within_reach`]).
    pub explicit: bool,
    /// The client's environment whose project's transcripts say which files of the folder
    /// the model read: they order the moves within a rank ([`super::usage`]; `None`, or no
    /// recorded read: the plan made without evidence).
    pub usage: Option<&'a ClientEnv>,
}

/// What tier planned and, with the lock, wrote.
#[derive(Debug)]
pub struct Outcome {
    /// The library the plan was made from (as read on the last attempt).
    pub lib: Library,
    /// The plan.
    pub plan: Plan,
    /// Per planned file (in the plan's order): the file of the folder a write really changes
    /// when the planned name is a symbolic link ([`link_target`]).
    pub link_to: Vec<Option<String>>,
    /// The proof on the planned library.
    pub proof: Proof,
    /// Files tier could not read, left as they are.
    pub skipped: Vec<Skipped>,
    /// What was written, when the lock was given and the plan proved.
    pub written: Option<Written>,
    /// Why nothing was (in a dry run: would be) written, or why the files written do not
    /// prove; the command exits 2.
    pub failure: Option<Failure>,
}

/// What `tier --write` wrote, and the proof on the files read back.
#[derive(Debug)]
pub struct Written {
    /// The write module's record.
    pub applied: Applied,
    /// The proof on the files as they are on disk after the write.
    pub proof_on_disk: Proof,
    /// Files another writer added lines to after tier wrote them (kept; not a proof failure).
    pub changed_since: Vec<String>,
}

/// Why `tier` writes nothing, or left files that do not prove.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// An invariant other than the size fails.
    NotProved,
    /// The most tier can do is still over the client's cap.
    OverCap {
        /// What the plan reaches.
        after: Size,
    },
    /// The most tier can do is over the target (one given on the command line).
    OverTarget {
        /// What the plan reaches.
        after: Size,
        /// The target.
        target: Target,
    },
    /// The files read back after writing do not prove.
    DiskNotProved,
}

impl Failure {
    /// Why a plan that does not prove is not written.
    fn of(plan: &Plan, proof: &Proof) -> Failure {
        let after = plan.after;
        // Over the cap, files reached only past the cut stay there: a consequence of the size.
        let only_size = (proof.checks.iter()).all(|c| {
            c.ok || c.id == Invariant::Size || (c.id == Invariant::Reach && !CAP.fits(after))
        });
        if !only_size {
            Failure::NotProved
        } else if !CAP.fits(after) {
            Failure::OverCap { after }
        } else {
            Failure::OverTarget {
                after,
                target: plan.target,
            }
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::NotProved => {
                f.write_str("the plan does not prove (see above); nothing was written")
            }
            Failure::OverCap { after } => write!(
                f,
                "cannot get within the client's cap ({} lines / {} UTF-16 units): the most tier \
                 can do is {} lines / {} units (prose, rule lines, crowns and pointers stay in \
                 MEMORY.md); nothing was written. Move some rule lines or prose into topic files \
                 by hand, then run `ccmem tier` again",
                CAP.lines, CAP.utf16, after.lines, after.utf16
            ),
            Failure::OverTarget { after, target } => write!(
                f,
                "cannot get within the target ({} lines / {} UTF-16 units): the most tier can do \
                 is {} lines / {} units (prose, rule lines, crowns and pointers stay in \
                 MEMORY.md); nothing was written. To accept that, run again with `--target-lines \
                 {} --target-utf16 {}` (or without either: the default target gives way to what \
                 can be reached)",
                target.lines,
                target.utf16,
                after.lines,
                after.utf16,
                after.lines.max(target.lines),
                after.utf16.max(target.utf16)
            ),
            Failure::DiskNotProved => f.write_str(
                "the files on disk do not prove (see above); run `ccmem undo` to restore",
            ),
        }
    }
}

/// Plans the restructure of `req.folder`, proves it, and with `lock` (the folder's, taken by
/// the caller, who has recovered what an interrupted write left) writes it and proves it
/// again on disk. Without the lock: the dry run, which refuses what the write refuses.
pub fn run(req: &Request<'_>, lock: Option<&Lock>) -> Result<Outcome, Error> {
    run_reading(req, lock, || req.folder.load())
}

/// [`run`], reading the library with `read` on each attempt.
fn run_reading(
    req: &Request<'_>,
    lock: Option<&Lock>,
    mut read: impl FnMut() -> Result<Library, LoadError>,
) -> Result<Outcome, Error> {
    let mut attempts = 0;
    let mut reads: Option<Reads> = None;
    loop {
        let lib = read()?;
        let skipped = check_readable(&lib, false)?.skipped;
        // The transcripts are read once, with MEMORY.md as the library read it.
        let reads = reads.get_or_insert_with(|| {
            req.usage
                .map_or_else(Reads::default, |env| Reads::of_library(env, &lib))
        });
        let plan = plan_within_reach(&lib, &req.opts, req.explicit, reads)?;
        check_writes(&lib, &plan.files, &req.folder.links)?;
        let retry = attempts < STALE_RETRIES;
        let Some((proof, written)) = attempt(&lib, &plan, req, lock, retry)? else {
            attempts += 1;
            continue;
        };
        let failure = if !proof.ok() {
            Some(Failure::of(&plan, &proof))
        } else if written.as_ref().is_some_and(|w| !w.proof_on_disk.ok()) {
            Some(Failure::DiskNotProved)
        } else {
            None
        };
        let link_to = (plan.files.iter())
            .map(|f| link_target(&lib, &f.name))
            .collect();
        return Ok(Outcome {
            lib,
            plan,
            link_to,
            proof,
            skipped,
            written,
            failure,
        });
    }

    /// One plan's proof and, when it proves and the lock is given, its write; `None`: a file
    /// changed under the plan (nothing written) and `retry` allows planning again.
    fn attempt(
        lib: &Library,
        plan: &Plan,
        req: &Request<'_>,
        lock: Option<&Lock>,
        retry: bool,
    ) -> Result<Option<(Proof, Option<Written>)>, Error> {
        let planned = applied(lib, plan);
        let (baseline, audited) = Baseline::with_audit(lib, &planned);
        let proof = baseline.prove(&planned, &audited, plan, plan.after);
        let Some(lock) = lock.filter(|_| !plan.is_noop() && proof.ok()) else {
            return Ok(Some((proof, None)));
        };
        match lock.apply("tier", &changes_of(&plan.files)) {
            Ok(applied) => {
                let on_disk = OnDisk {
                    baseline: &baseline,
                    before: lib,
                    planned: &planned,
                    audited: &audited,
                    plan,
                };
                Ok(Some((
                    proof,
                    Some(on_disk.prove(applied, &req.folder.links)?),
                )))
            }
            Err(WriteError::Conflict { kept: None, .. }) if retry => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// The plan for `opts.target`; when that target cannot be reached but the client's cap can and
/// the target was not given on the command line (`explicit`), the plan for the most tier can
/// do: every entry then loads, which is what the target is for. `reads` orders the moves within
/// a rank ([`plan::plan_with`]).
pub fn plan_within_reach(
    lib: &Library,
    opts: &Options,
    explicit: bool,
    reads: &Reads,
) -> Result<Plan, Refusal> {
    let plan = plan::plan_with(lib, opts, reads)?;
    if explicit || opts.target.fits(plan.after) || !CAP.fits(plan.after) {
        return Ok(plan);
    }
    let reachable = Target {
        lines: opts.target.lines.max(plan.after.lines),
        utf16: opts.target.utf16.max(plan.after.utf16),
    };
    plan::plan_with(
        lib,
        &Options {
            target: reachable,
            ..*opts
        },
        reads,
    )
}

/// The write module's changes for planned files, each expecting the text it was planned from.
pub fn changes_of(files: &[plan::FilePlan]) -> Vec<Change> {
    files
        .iter()
        .map(|f| Change {
            name: f.name.clone(),
            expect: f.old.as_deref().map(|t| Hash::of(t.as_bytes())),
            new: Some(f.new.clone().into_bytes()),
        })
        .collect()
}

/// What the proof after writing compares with.
struct OnDisk<'a> {
    baseline: &'a Baseline<'a>,
    before: &'a Library,
    planned: &'a Library,
    audited: &'a Compared,
    plan: &'a Plan,
}

impl OnDisk<'_> {
    /// Reads the files the plan wrote back and proves the invariants against what is on disk
    /// now. Lines another writer only added to a file (merged in during the write, or written
    /// just after it) are kept and left out of the proof.
    fn prove(&self, applied: Applied, links: &ClientLinks) -> Result<Written, Error> {
        let plan = self.plan;
        let after = self
            .before
            .reread(plan.files.iter().map(|f| f.name.as_str()));
        check_readable(&after, false)?;
        check_writes(&after, &plan.files, links)?;
        let mut changed = Vec::new();
        for f in &plan.files {
            if let Some(now) = now_text(&after, &f.name)
                && now != f.new
                && write::merge::added(f.new.as_bytes(), now.as_bytes()).is_some()
            {
                changed.push(f.name.clone());
            }
        }
        // The lines another writer only added are theirs: the proof looks at tier's version.
        let after = after.with(
            (plan.files.iter())
                .filter(|f| changed.contains(&f.name))
                .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
        );
        let differs: Vec<&str> = (plan.files.iter())
            .filter(|f| now_text(&after, &f.name) != Some(f.new.as_str()))
            .map(|f| f.name.as_str())
            .collect();
        let same_files = self.planned.top_level().count() == after.top_level().count();
        // Read back as planned, the library is the planned one: its findings are known.
        let audited = if differs.is_empty() && same_files {
            self.audited.clone()
        } else {
            self.baseline.audit(&after)
        };
        let size = budget::measure(after.index_text());
        let mut proof = self.baseline.prove(&after, &audited, plan, size);
        if !differs.is_empty() || !same_files {
            let kept = proof.check_mut(Invariant::Kept);
            kept.ok = false;
            kept.detail
                .push_str(&format!("; differ from the plan on disk: {differs:?}"));
        }
        let changed_since = (changed.into_iter())
            .filter(|f| !applied.merged.iter().any(|m| &m.file == f))
            .collect();
        Ok(Written {
            applied,
            proof_on_disk: proof,
            changed_since,
        })
    }
}

/// The text of file `name` (MEMORY.md or a file directly in the folder) of `lib`.
fn now_text<'a>(lib: &'a Library, name: &str) -> Option<&'a str> {
    if name == INDEX_FILE {
        Some(lib.index_text())
    } else {
        topic(lib, name).map(text_of)
    }
}

#[cfg(test)]
mod tests;
