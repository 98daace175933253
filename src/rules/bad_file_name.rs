//! `bad-file-name` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a memory file not named `<type>_<topic>.md`, where type is `user`, `feedback`,
    /// `project` or `reference` and topic uses lowercase letters, digits, `_` and `-`.
    /// MEMORY.md is the index and hubs are `reference_<group>_hub.md`.
    ///
    /// ## Why it matters
    /// The name is what the model sees first in a listing and what links point to; a typed
    /// prefix lets both humans and tools find every lesson of a kind at a glance.
    ///
    /// ## Example
    /// `Feedback-Stripe-Webhooks.md`, `note_deploy.md`, `_misc.md`
    ///
    /// ## Fix
    /// Rename (`feedback_stripe_webhooks.md`) and update the links that point to it.
    pub const RULE = ("bad-file-name", Soft, Manager, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Other {
        out.push(ctx.diag(
            &RULE,
            i,
            1,
            format!(
                "`{}` is not named `<type>_<topic>.md` (type: user, feedback, project, reference; topic: a-z 0-9 _ -)",
                file.name()
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let body = fm("feedback", "") + "x\n## Why\ny\n";
        let mut f = Fixture::new(&[
            ("MEMORY.md", "# I\n"),
            ("feedback_ok-2.md", &body),
            ("reference_db_hub.md", &body),
            ("Feedback-Bad.md", &body),
            ("note_x.md", &body),
            ("sub/MEMORY.md", &body),
        ]);
        assert!(
            f.paths("bad-file-name").is_empty(),
            "the client's spec names files freely"
        );
        f.config().spec = crate::config::SpecChoice::Manager;
        assert_eq!(
            f.paths("bad-file-name"),
            ["Feedback-Bad.md", "note_x.md", "sub/MEMORY.md"]
        );
    }
}
