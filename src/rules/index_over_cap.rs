//! `index-over-cap` (hard): entries going dark is the loss ccmem exists to prevent.

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::constants::{Count, INDEX_MAX_LINES, INDEX_MAX_UTF16_WORDS, MAX_FILE_SIZE};
use crate::load::automem::{IndexState, Measure};
use crate::text::links;

declare_rule! {
    /// ## What it does
    /// Flags MEMORY.md when the client cuts it: more than 200 lines or 25,000 UTF-16 units,
    /// measured exactly as the client measures it (after removing frontmatter and block HTML
    /// comments), or larger than 4 MiB (skipped whole). The finding points at the first line
    /// that goes dark and names the entries the model never sees.
    ///
    /// ## Why it matters
    /// Everything past the cut is invisible at session start: those memories exist on disk
    /// but the model does not know they are there, and only the model is told. It is an error
    /// (exit 1), as it is for `receipt`, `budget` and `tier --check`: those rules are not in
    /// force.
    ///
    /// ## Example
    /// A MEMORY.md of 230 lines: lines 201–230 are dark.
    ///
    /// ## Fix
    /// Run `ccmem tier` to see the plan that brings every entry back under the cap, then
    /// `ccmem tier --write` to apply it.
    ///
    /// It moves groups into hubs (one pointer line each in MEMORY.md) and proves every file
    /// stays reachable. By hand: do the same, shorten descriptions, and keep the index under
    /// the target line (`index-over-target-line`).
    pub const RULE = ("index-over-cap", Hard, Both, Check::Library(check));
}

/// The measure of MEMORY.md, when it was read.
/// Where a finding about MEMORY.md over a budget points: the file line of the first line the
/// client counts past `lines` / `utf16`, else line 1.
pub(crate) fn over_line(ctx: &Ctx, index: usize, lines: usize, utf16: usize) -> usize {
    (ctx.lib.files[index].text())
        .and_then(|t| crate::load::automem::first_line_over(t, lines, utf16))
        .unwrap_or(1)
}

pub(crate) fn measure<'a>(ctx: &Ctx<'a>) -> Option<&'a Measure> {
    match ctx.index_state {
        IndexState::Loaded(m) | IndexState::FromEnv(m) => Some(m),
        _ => None,
    }
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let Some(index) = ctx.lib.index() else { return };
    if let IndexState::TooLarge { bytes } = ctx.index_state {
        out.push(Diagnostic {
            fix: Some(tier_fix(ctx)),
            ..ctx.diag(
                &RULE,
                index,
                1,
                format!(
                    "MEMORY.md is {} bytes, over the client's {MAX_FILE_SIZE} limit: it is skipped whole",
                    Count(*bytes as usize)
                ),
            )
        });
        return;
    }
    let Some(m) = measure(ctx) else { return };
    let Some(cut) = &m.cut else { return };
    let Some(first) = cut.dark.first() else {
        return;
    };
    let mut why = Vec::new();
    if cut.line_over {
        why.push(format!(
            "{} lines (the client loads {INDEX_MAX_LINES})",
            m.lines
        ));
    }
    if cut.size_over {
        why.push(format!(
            "{} UTF-16 units (the client loads {INDEX_MAX_UTF16_WORDS})",
            Count(m.utf16)
        ));
    }
    let names: Vec<String> = cut
        .dark
        .iter()
        .flat_map(|d| links::links(&d.text))
        .map(|l| l.target)
        .collect();
    let shown: Vec<&str> = names.iter().take(10).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    let mut msg = format!(
        "MEMORY.md is over the client's cap ({}): {} line(s) from line {} go dark",
        why.join(", "),
        cut.dark.len(),
        first.line
    );
    if !shown.is_empty() {
        msg += &format!("; dark entries: {}", shown.join(", "));
        if more > 0 {
            msg += &format!(" and {more} more");
        }
    }
    out.push(Diagnostic {
        fix: Some(tier_fix(ctx)),
        ..ctx.diag(&RULE, index, first.line, msg)
    });
}

/// The fix of a finding, as a command to run on this folder (the rule's own fix, with the
/// folder named as one shell word).
fn tier_fix(ctx: &Ctx) -> String {
    let folder = ctx.lib.root.to_string_lossy();
    let folder = shell_words::quote(&folder);
    format!(
        "Run `ccmem tier {folder}` to see the plan that brings every entry back under the cap, \
         then `ccmem tier {folder} --write` to apply it."
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::load::automem::{Cut, DarkLine};
    use crate::rules::testing::Fixture;

    pub(crate) fn run_with(state: IndexState) -> Vec<Diagnostic> {
        let f = Fixture::new(&[("MEMORY.md", "# I\n")]);
        let audit = f.audit();
        let cfg = crate::config::AuditConfig::default();
        let ctx = Ctx {
            lib: &audit.lib,
            cfg: &cfg,
            now: f.now,
            index_state: &state,
            reach: audit.lib.reach(),
        };
        let mut out = Vec::new();
        for rule in crate::rules::RULES
            .iter()
            .filter(|r| r.name.starts_with("index-over"))
        {
            if let crate::rules::Target::Library(_, crate::rules::Check::Library(c)) = rule.target {
                c(&ctx, &mut out);
            }
        }
        out
    }

    fn loaded(lines: usize, utf16: usize, cut: Option<Cut>) -> IndexState {
        IndexState::Loaded(Measure {
            lines,
            utf16,
            cut,
            ..Measure::default()
        })
    }

    #[test]
    fn over_cap_lists_dark_entries_and_nothing_else() {
        let dark = (201..=203)
            .map(|n| DarkLine {
                line: n,
                text: format!("- [e{n}](user_e{n}.md)"),
                partial: false,
            })
            .collect();
        let cut = Cut {
            line_over: true,
            dark,
            ..Cut::default()
        };
        let out = run_with(loaded(203, 9000, Some(cut)));
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].rule, out[0].line), ("index-over-cap", 201));
        assert_eq!(out[0].severity, crate::rules::Severity::Error);
        assert!(
            out[0].fix().starts_with("Run `ccmem tier ") && out[0].fix().contains(" --write`"),
            "{}",
            out[0].fix()
        );
        assert!(
            out[0]
                .message
                .contains("user_e201.md, user_e202.md, user_e203.md"),
            "{}",
            out[0].message
        );
    }

    #[test]
    fn too_large_and_under_cap() {
        let out = run_with(IndexState::TooLarge { bytes: 5 << 20 });
        assert_eq!(out.len(), 1);
        assert!(out[0].message.contains("skipped whole"));
        assert!(run_with(loaded(100, 9000, None)).is_empty());
    }
}
