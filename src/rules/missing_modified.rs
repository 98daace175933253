//! `missing-modified` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::{Role, line_of};

declare_rule! {
    /// ## What it does
    /// Flags a memory file whose frontmatter has no `modified` (nor `metadata.modified`).
    ///
    /// ## Why it matters
    /// File times change on every checkout, copy or sync, so they cannot tell when a memory was
    /// last true; `modified` can. Without it, `stale-entry` falls back to the file time.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: deploy-freeze
    /// description: no deploys on Friday
    /// type: feedback
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Add `modified: 2026-11-29` (or a full timestamp) and update it with the content.
    pub const RULE = ("missing-modified", Soft, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Index {
        return;
    }
    let (Some(meta), Some((text, parsed))) = (file.meta(), file.parsed()) else {
        return;
    };
    if meta.modified.as_deref().is_none_or(|m| m.trim().is_empty()) {
        let line = line_of(text, parsed.yaml_start);
        out.push(ctx.diag(&RULE, i, line, "frontmatter has no `modified` date".into()));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("MEMORY.md", "---\nname: index\n---\n# I\n"),
            ("user_ok.md", &(fm("user", "") + "x\n")),
            (
                "user_nested.md",
                "---\nname: a\nmetadata:\n  modified: 2026-01-01T00:00:00Z\n---\nx\n",
            ),
            (
                "user_no.md",
                "---\nname: a\ndescription: d\ntype: user\n---\nx\n",
            ),
            ("user_bare.md", "no frontmatter: reported elsewhere\n"),
        ]);
        assert_eq!(f.found("missing-modified"), [("user_no.md".to_owned(), 2)]);
    }
}
