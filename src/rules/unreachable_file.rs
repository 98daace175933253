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
    // An index that is not text to ccmem (a UTF-16 MEMORY.md) reaches what its links reach
    // as the client decodes it (`Content::Decoded`); one the client cannot read either (a
    // FIFO, a loop) reaches nothing.
    let has_index = ctx.lib.index().is_some();
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

    /// A UTF-16 MEMORY.md (either byte order, with its BOM) reaches what its links reach as
    /// the client decodes it: the NUL bytes dropped, the ASCII links intact.
    #[test]
    fn a_utf16_index_reaches_what_its_links_name() {
        let e = fm("user", "") + "x\n";
        let index = "- [a](user_a.md) — 日本語\n- [[user_b]] 한국어\n";
        let le = index.encode_utf16().flat_map(u16::to_le_bytes);
        let be = index.encode_utf16().flat_map(u16::to_be_bytes);
        for bytes in [
            [0xFF, 0xFE].into_iter().chain(le).collect::<Vec<u8>>(),
            [0xFE, 0xFF].into_iter().chain(be).collect(),
        ] {
            let f = Fixture::new(&[("user_a.md", &e), ("user_b.md", &e), ("user_c.md", &e)]);
            std::fs::write(f.dir.path().join("MEMORY.md"), bytes).unwrap();
            assert_eq!(f.paths("unreachable-file"), ["user_c.md"]);
            assert_eq!(f.paths("index-encoding"), ["MEMORY.md"]);
            assert!(f.paths("unreadable-file").is_empty());
        }
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
