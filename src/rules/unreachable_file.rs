//! `unreachable-file` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::library::Reach;

declare_rule! {
    /// ## What it does
    /// Flags a memory file that MEMORY.md does not reach: neither linked from MEMORY.md nor
    /// from a hub (`reference_<group>_hub.md`) that MEMORY.md links. Links that name the file
    /// count in every syntax (`[t](x.md)`, `[[x]]`, `[[x.md]]`, `` `x.md` ``); a wiki link that
    /// matches only the file's topic or frontmatter `name` (`[[x-topic]]`) does not, since it
    /// gives the model a name to search for rather than a file to open.
    ///
    /// ## Why it matters
    /// At session start the model sees MEMORY.md and nothing else; a file that is linked only
    /// from another topic file (or from nowhere) is as good as lost.
    ///
    /// ## Example
    /// `feedback_cron_overlap.md` exists, but neither MEMORY.md nor the `infra` hub mentions it.
    ///
    /// ## Fix
    /// Add a line to the group's hub (or, for a crown entry, to MEMORY.md), or delete the file
    /// if it is obsolete.
    pub const RULE = ("unreachable-file", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let has_index = ctx.lib.index().is_some();
    // An index the client reads but ccmem cannot read as text (a UTF-16 MEMORY.md: the client
    // drops its NUL bytes and reads the rest) may well link every file: what it reaches is not
    // known here, and `index-encoding` reports the index itself. One the client cannot read
    // either (a FIFO, a loop) reaches nothing.
    if ctx.lib.index().is_some_and(|i| {
        super::index_encoding::read_by_the_client_anyway(true, &ctx.lib.files[i].content)
    }) {
        return;
    }
    for (i, reach) in ctx.reach.iter().enumerate() {
        if *reach == Reach::Unreachable && ctx.lib.files[i].text().is_some() {
            let why = if has_index {
                "not linked from MEMORY.md or from a hub it links"
            } else {
                "not reachable: the library has no MEMORY.md"
            };
            let line = ctx.lib.files[i].body_line();
            out.push(ctx.diag(&RULE, i, line, why.into()));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn an_index_that_cannot_be_read_hides_nothing() {
        let f = Fixture::new(&[("user_a.md", &(fm("user", "") + "x\n"))]);
        std::fs::write(
            f.dir.path().join("MEMORY.md"),
            b"\xff\xfe-\0 \0[\0a\0]\0(\0u\0s\0e\0r\0_\0a\0.\0m\0d\0)\0",
        )
        .unwrap();
        assert!(f.paths("unreachable-file").is_empty());
        assert_eq!(f.paths("index-encoding"), ["MEMORY.md"]);
    }

    #[test]
    fn vectors() {
        let e = fm("user", "") + "x\n";
        let f = Fixture::new(&[
            ("MEMORY.md", "- [a](user_a.md)\n- [h](reference_g_hub.md)\n"),
            ("user_a.md", &(fm("user", "") + "[b](user_b.md)\n")),
            ("user_b.md", &e),
            (
                "reference_g_hub.md",
                &(fm("reference", "") + "- [[user_c]]\n- [[n]]\n"),
            ),
            ("user_c.md", &e),
            (
                "reference_lost_hub.md",
                &(fm("reference", "") + "- [d](user_d.md)\n"),
            ),
            ("user_d.md", &e),
        ]);
        assert_eq!(
            f.paths("unreachable-file"),
            ["reference_lost_hub.md", "user_b.md", "user_d.md"]
        );
    }
}
