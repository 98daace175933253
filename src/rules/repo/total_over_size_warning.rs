//! `total-over-size-warning` (soft).

use super::ByPlace;
use crate::load::size;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags start directories whose instruction files add up past the client's total
    /// warning: `max(120,000, per-file limit)` characters over the files that are each under
    /// the per-file limit (the client's own sum). The finding points at the largest file.
    ///
    /// ## Why it matters
    /// The client warns "Instruction files will impact performance" and still loads them all;
    /// a monorepo's root file, its rules and a package's files can pass the limit together
    /// where no single file does.
    ///
    /// ## Example
    /// A root `CLAUDE.md` of 50,000 characters, twelve rules of 6,000 each and a package
    /// `CLAUDE.md` of 10,000.
    ///
    /// ## Fix
    /// Move sections into path-scoped rules (`paths:`) so fewer characters load at start.
    pub const RULE = ("total-over-size-warning", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let (limit, total_limit) = (ctx.size.file_limit(), ctx.size.total_limit());
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        let Some(total) = size::warnings(&s.session.entries, &ctx.size).total else {
            continue;
        };
        let under: Vec<(&str, usize)> = total
            .files
            .iter()
            .filter(|(_, n)| *n <= limit)
            .map(|(e, n)| (e.path.as_str(), *n))
            .collect();
        let Some((largest, _)) = under
            .iter()
            .filter(|(p, _)| ctx.repo.rel(p).is_some())
            .max_by_key(|(_, n)| *n)
        else {
            continue;
        };
        by.add((ctx.repo.show(largest).into_owned(), 1, String::new()), &s.start.dir, || {
            let what = format!("{} characters in {} files under the per-file limit", crate::receipt::group(total.under_limit_chars), under.len());
            ctx.finding(&RULE, largest, 1, what, "move sections into path-scoped rules (`paths:`) so fewer characters load at start".into())
        });
    }
    let model = ctx.size.describe();
    by.finish(out, |f, dirs| {
        format!(
            "sessions started in {} load {}, over the client's total warning at {} (assuming {model}); this is the largest",
            dirs,
            f.message,
            crate::receipt::group(total_limit)
        )
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn many_files_under_the_per_file_limit() {
        let big = "x".repeat(39_000);
        let small = "y".repeat(30_000);
        let f = Fixture::new(&[
            ("CLAUDE.md", &big),
            (".claude/rules/a.md", &big),
            (".claude/rules/b.md", &big),
            ("pkg/CLAUDE.md", &small),
        ]);
        let found = f.found("total-over-size-warning");
        assert_eq!(found.len(), 1, "{found:?}");
        let r = f.check();
        let d = r
            .findings
            .iter()
            .find(|d| d.rule == "total-over-size-warning")
            .unwrap();
        assert_eq!(d.start_dirs, ["pkg"]);
    }
}
