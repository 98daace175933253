//! `index-over-target-line` (soft).

use super::index_over_cap::{measure, over_line};
use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::constants::Count;

declare_rule! {
    /// ## What it does
    /// Flags MEMORY.md over the target line, `target-lines` (120) lines or `target-utf16`
    /// (16,000) UTF-16 units on the client's own measure, when it is not already over the
    /// safety line or the cap. The finding points at the first line past the target (its line
    /// number in the file, frontmatter and comments included).
    ///
    /// ## Why it matters
    /// MEMORY.md is loaded into every session: each line costs context whether or not it is
    /// needed. A hub-first index stays well under the target and has room to grow.
    ///
    /// ## Example
    /// A MEMORY.md of 150 counted lines, most of them one entry each.
    ///
    /// ## Fix
    /// Run `ccmem tier` (then `ccmem tier --write`): it keeps crown entries (⭐, ⚠️) and one
    /// pointer line per group in MEMORY.md and moves the rest to hubs.
    pub const RULE = ("index-over-target-line", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let (Some(index), Some(m)) = (ctx.lib.index(), measure(ctx)) else {
        return;
    };
    let c = ctx.cfg;
    let over_safety = m.lines > c.safety_lines || m.utf16 > c.safety_utf16;
    if m.cut.is_some() || over_safety {
        return;
    }
    if m.lines > c.target_lines || m.utf16 > c.target_utf16 {
        out.push(ctx.diag(
            &RULE,
            index,
            over_line(ctx, index, c.target_lines, c.target_utf16),
            format!(
                "MEMORY.md is {} lines / {} UTF-16 units, over the target ({} / {})",
                m.lines,
                Count(m.utf16),
                c.target_lines,
                Count(c.target_utf16)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::load::automem::{IndexState, Measure};
    use crate::rules::index_over_cap::tests::run_with;

    #[test]
    fn vectors() {
        let at = |lines, utf16| {
            run_with(IndexState::Loaded(Measure {
                lines,
                utf16,
                ..Measure::default()
            }))
            .into_iter()
            .map(|d| d.rule)
            .collect::<Vec<_>>()
        };
        assert_eq!(at(121, 10), ["index-over-target-line"]);
        assert_eq!(at(10, 16_001), ["index-over-target-line"]);
        assert!(at(120, 16_000).is_empty());
    }

    #[test]
    fn points_at_the_first_line_past_the_target() {
        use crate::rules::testing::Fixture;
        let mut index = String::from("---\nname: i\n---\n# Index\n");
        for i in 1..=140 {
            index.push_str(&format!("- note {i}\n"));
        }
        let f = Fixture::new(&[("MEMORY.md", &index)]);
        // 3 frontmatter lines; counted line 121 (`- note 120`) is file line 124.
        assert_eq!(
            f.found("index-over-target-line"),
            [("MEMORY.md".to_string(), 124)]
        );
    }
}
