//! `index-over-safety-line` (soft).

use super::index_over_cap::{measure, over_line};
use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::constants::{Count, INDEX_MAX_LINES, INDEX_MAX_UTF16_WORDS};

declare_rule! {
    /// ## What it does
    /// Flags MEMORY.md when it is within the client's cap but over the safety line:
    /// `safety-lines` (190) lines or `safety-utf16` (23,000) UTF-16 units, on the client's own
    /// measure. Not reported when `index-over-cap` already is. The finding points at the first
    /// line past the safety line.
    ///
    /// ## Why it matters
    /// A few more entries and the client starts cutting the index silently. The safety line
    /// leaves room for a session's worth of new memories.
    ///
    /// ## Example
    /// A MEMORY.md of 195 counted lines.
    ///
    /// ## Fix
    /// Run `ccmem tier` (then `ccmem tier --write`) to move groups into hubs now, before the
    /// cut hides entries.
    pub const RULE = ("index-over-safety-line", Soft, Both, Check::Library(check));
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let (Some(index), Some(m)) = (ctx.lib.index(), measure(ctx)) else {
        return;
    };
    if m.cut.is_some() {
        return;
    }
    let (lines, utf16) = (ctx.cfg.safety_lines, ctx.cfg.safety_utf16);
    if m.lines > lines || m.utf16 > utf16 {
        out.push(ctx.diag(
            &RULE,
            index,
            over_line(ctx, index, lines, utf16),
            format!(
                "MEMORY.md is {} lines / {} UTF-16 units, over the safety line ({lines} / {}); the client cuts at {INDEX_MAX_LINES} / {INDEX_MAX_UTF16_WORDS}",
                m.lines,
                Count(m.utf16),
                Count(utf16)
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::load::automem::{Cut, IndexState, Measure};
    use crate::rules::index_over_cap::tests::run_with;

    fn rules(lines: usize, utf16: usize, cut: bool) -> Vec<&'static str> {
        let cut = cut.then(|| Cut {
            dark: vec![],
            ..Cut::default()
        });
        run_with(IndexState::Loaded(Measure {
            lines,
            utf16,
            cut,
            ..Measure::default()
        }))
        .into_iter()
        .map(|d| d.rule)
        .collect()
    }

    #[test]
    fn vectors() {
        assert_eq!(rules(191, 100, false), ["index-over-safety-line"]);
        assert_eq!(rules(10, 23_001, false), ["index-over-safety-line"]);
        assert_eq!(rules(190, 23_000, false), ["index-over-target-line"]);
        assert!(rules(199, 100, true).is_empty());
    }
}
