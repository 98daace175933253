//! `agents-md-hidden-by-local` (hard).

use super::{ByPlace, is_named, loads_a_claude_md, suppressed_by};
use crate::constants::CLAUDE_LOCAL_MD;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `AGENTS.md` that does not load because of a personal `CLAUDE.local.md`.
    ///
    /// ## Why it matters
    /// The client's `AGENTS.md` fallback is off as soon as any `CLAUDE.md`,
    /// `.claude/CLAUDE.md` or `CLAUDE.local.md` loads. A private `CLAUDE.local.md` (not checked
    /// in, so nobody else sees it) silently takes the team's whole guide away from the person
    /// who wrote a few notes for themselves.
    ///
    /// ## Example
    /// `AGENTS.md` (checked in) and `CLAUDE.local.md` (gitignored) at the root.
    ///
    /// ## Fix
    /// Import the guide from the local file: add a line `@AGENTS.md` to `CLAUDE.local.md`.
    pub const RULE = ("agents-md-hidden-by-local", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        if loads_a_claude_md(s) {
            continue;
        }
        for k in &s.session.skipped {
            let Some(local) = suppressed_by(k).filter(|b| is_named(b, CLAUDE_LOCAL_MD)) else {
                continue;
            };
            if ctx.repo.rel(&k.path).is_none() || s.entry(&k.path).is_some() {
                continue;
            }
            by.add(
                (ctx.repo.show(&k.path).into_owned(), 1, String::new()),
                &s.start.dir,
                || {
                    let local_dir = crate::repo::walk::split(&ctx.repo.show(local)).0.to_owned();
                    let agents = ctx.repo.show(&k.path);
                    let rel = agents
                        .strip_prefix(&format!("{local_dir}/"))
                        .filter(|_| !local_dir.is_empty())
                        .unwrap_or(&agents);
                    let fix = format!("add a line `@{rel}` to {}", ctx.repo.show(local));
                    ctx.finding(&RULE, &k.path, 1, ctx.repo.show(local).into_owned(), fix)
                },
            );
        }
    }
    by.finish(out, |f, dirs| {
        format!(
            "{} does not load in sessions started in {}: the personal {} counts as a CLAUDE.md and turns the AGENTS.md fallback off",
            f.path,
            dirs,
            f.message
        )
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn a_local_file_hides_the_guide() {
        let f = Fixture::new(&[("AGENTS.md", "team\n"), ("CLAUDE.local.md", "mine\n")]);
        assert_eq!(
            f.found("agents-md-hidden-by-local"),
            [("AGENTS.md".to_owned(), 1)]
        );
        assert!(
            f.fixes("agents-md-hidden-by-local")[0].contains("`@AGENTS.md` to CLAUDE.local.md")
        );
    }

    #[test]
    fn near_miss_the_local_file_imports_it() {
        let f = Fixture::new(&[
            ("AGENTS.md", "team\n"),
            ("CLAUDE.local.md", "mine\n@AGENTS.md\n"),
        ]);
        assert!(f.found("agents-md-hidden-by-local").is_empty());
        // …and a CLAUDE.md that suppresses it too is another rule's business.
        let g = Fixture::new(&[
            ("AGENTS.md", "team\n"),
            ("CLAUDE.local.md", "mine\n"),
            ("CLAUDE.md", "c\n"),
        ]);
        assert!(g.found("agents-md-hidden-by-local").is_empty());
    }
}
