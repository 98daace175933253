//! `missing-modified` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::{Role, line_of};

declare_rule! {
    /// ## What it does
    /// Flags memory files whose frontmatter has no `modified` (nor `metadata.modified`), in
    /// a library where other files have one. When no memory file has one at all, the library
    /// simply does not use the field, and that is no finding: the field is optional, the
    /// client stamps it on its next write, and nobody adds dates by hand (hubs do not count: a
    /// hub `tier` wrote with a date does not make the library use it).
    ///
    /// ## Why it matters
    /// File times change on every checkout, copy or sync, so they cannot tell when a memory was
    /// last true; `modified` can. Without it, `stale-entry` falls back to the file time and the
    /// dates written in the text. The client's own writer stamps `metadata.modified` on every
    /// write, so in a library that uses it, a file without it was written another way.
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
    pub const RULE = ("missing-modified", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut with = 0;
    let mut without = Vec::new();
    for (i, file) in ctx.lib.files.iter().enumerate() {
        if file.role == Role::Index {
            continue;
        }
        let Some(meta) = file.meta() else { continue };
        if meta.modified.as_deref().is_none_or(|m| m.trim().is_empty()) {
            without.push(i);
        } else if !matches!(file.role, Role::Hub { .. }) {
            // A hub `tier` or `add` stamped does not make the library one that uses `modified`.
            with += 1;
        }
    }
    if with == 0 {
        return;
    }
    for i in without {
        let Some((text, parsed)) = ctx.lib.files[i].parsed() else {
            continue;
        };
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

    #[test]
    fn a_library_that_never_uses_modified_is_not_a_finding() {
        let e = "---\nname: a\ndescription: d\ntype: user\n---\nx\n";
        let f = Fixture::new(&[
            ("MEMORY.md", "- [a](user_a.md)\n"),
            ("user_a.md", e),
            ("user_b.md", e),
            ("user_c.md", e),
        ]);
        assert!(f.found("missing-modified").is_empty());
        let hub = "---\nname: h\ndescription: d\ntype: reference\nmodified: 2026-12-01\n---\n";
        let f = Fixture::new(&[
            ("MEMORY.md", "- [h](reference_h_hub.md)\n"),
            ("reference_h_hub.md", hub),
            ("user_a.md", e),
            ("user_b.md", e),
        ]);
        assert!(
            f.found("missing-modified").is_empty(),
            "a stamped hub (tier's) does not make the library one that uses `modified`"
        );
    }
}
