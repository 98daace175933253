//! `interrupted-write` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a ccmem write (`tier --write`, `add`, `undo`) that was interrupted in this
    /// library: killed, or the machine stopped, between its first and its last rename. Its
    /// journal (`.ccmem/journal.json`) says what each file will hold once it is recovered, and
    /// in a folder of your own the rest of this audit is of that state, not of the half-written
    /// files on disk. In a checked-in folder (a subagent's memory, anything inside a git work
    /// tree) a journal may have come with the repository: ccmem never applies it by itself, and
    /// the audit is of the files on disk. A journal that breaks ccmem's rules (a file outside the
    /// folder, a temp name ccmem does not make, a state folder that is not ccmem's own) is
    /// reported, and nothing is ever done with it.
    ///
    /// ## Why it matters
    /// Half of a restructure looks like a broken library: links to hubs not yet written, files
    /// no longer reachable. Auditing that would report problems that recovery removes, and hide
    /// the real ones. And a journal is an instruction to rename and remove files: one that ccmem
    /// did not write must not be followed blindly.
    ///
    /// ## Example
    /// `an interrupted `tier` left 3 file(s) (MEMORY.md, reference_build_hub.md,
    /// reference_deploy_hub.md) half-written; recovery will finish it`
    ///
    /// ## Fix
    /// See what recovery would do with `ccmem undo --status DIR`, then apply it (`ccmem undo
    /// --recover DIR`) or drop it (`ccmem undo --discard DIR`).
    ///
    /// In a folder of your own that is not checked in, the next ccmem write there applies it
    /// first by itself; dropping it leaves the files as they are.
    pub const RULE = ("interrupted-write", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    if let Some(p) = &ctx.lib.pending {
        out.push(ctx.library_diag(&RULE, p.message()));
    }
}
