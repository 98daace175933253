//! `file-over-size-warning` (soft).

use super::ByPlace;
use crate::load::size;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an instruction file larger than the client's own per-file warning:
    /// `max(40,000, context window × 0.05 × characters per token)` characters, which is 40,000
    /// for a 200,000-token model counted at 4 characters per token. The model assumed is
    /// printed with every report and set with `--context-window` / `--chars-per-token`.
    ///
    /// ## Why it matters
    /// The client warns "Large CLAUDE.md will impact performance" and loads the file whole:
    /// every session pays for all of it, relevant or not.
    ///
    /// ## Example
    /// A 55,000-character `CLAUDE.md` that holds the whole style guide.
    ///
    /// ## Fix
    /// Split it: move sections into `.claude/rules/` files with `paths:`, which load only when
    /// the model works on matching files.
    pub const RULE = ("file-over-size-warning", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let limit = ctx.size.file_limit();
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        for (e, n) in size::warnings(&s.session.entries, &ctx.size).large {
            if ctx.repo.rel(&e.path).is_none() {
                continue;
            }
            by.add((ctx.repo.show(&e.path).into_owned(), 1, String::new()), &s.start.dir, || {
                ctx.finding(&RULE, &e.path, 1, crate::receipt::group(n), "split it: move sections into .claude/rules/ files with `paths:` so they load only where they apply".into())
            });
        }
    }
    let model = ctx.size.describe();
    by.finish(out, |f, dirs| {
        format!(
            "{} characters, over the client's per-file warning at {} (assuming {model}); it loads whole in sessions started in {}",
            f.message,
            crate::receipt::group(limit),
            dirs
        )
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn over_and_at_the_limit() {
        let over = "x".repeat(40_001);
        let at = "y".repeat(40_000);
        let f = Fixture::new(&[("CLAUDE.md", &over), ("a/CLAUDE.md", &at)]);
        assert_eq!(
            f.found("file-over-size-warning"),
            [("CLAUDE.md".to_owned(), 1)]
        );
    }
}
