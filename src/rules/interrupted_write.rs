//! `interrupted-write` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a ccmem write (`tier --write`, `add`, `undo`) that was interrupted in this
    /// library: killed, or the machine stopped, between its first and its last rename. Its
    /// journal (`.ccmem/journal.json`) says what each file will hold once it is recovered, and
    /// the rest of this audit is of that state, not of the half-written files on disk.
    ///
    /// ## Why it matters
    /// Half of a restructure looks like a broken library: links to hubs not yet written, files
    /// no longer reachable. Auditing that would report problems that recovery removes, and hide
    /// the real ones.
    ///
    /// ## Example
    /// `an interrupted `tier` left 3 file(s) half-written (MEMORY.md, reference_build_hub.md,
    /// reference_deploy_hub.md); recovery will finish it`
    ///
    /// ## Fix
    /// Run any ccmem write in the folder (`ccmem tier --write`, `ccmem add`, `ccmem undo`): it
    /// completes or rolls back the interrupted operation before doing anything else.
    pub const RULE = ("interrupted-write", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    if let Some(p) = &ctx.lib.pending {
        out.push(ctx.library_diag(&RULE, p.message()));
    }
}
