//! `agents-md-never-loads` (hard).

use crate::constants::{CLAUDE_LOCAL_MD, CLAUDE_MD};
use crate::load::SkipWhy;
use crate::repo::walk::InstrKind;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `AGENTS.md` (or `.claude/AGENTS.md`) that loads in no session, wherever in the
    /// repository it starts, because a `CLAUDE.md` is always on the path.
    ///
    /// ## Why it matters
    /// In its default mode the client reads `AGENTS.md` only when no `CLAUDE.md`,
    /// `.claude/CLAUDE.md` or `CLAUDE.local.md` of the start directory or any directory above
    /// it loads. A repository that keeps both files side by side, or an `AGENTS.md` in a
    /// subfolder of a project with a root `CLAUDE.md`, maintains a guide the model never sees.
    ///
    /// ## Example
    /// `CLAUDE.md` and `AGENTS.md` at the root, and `CLAUDE.md` does not import `AGENTS.md`.
    ///
    /// ## Fix
    /// Import it from the `CLAUDE.md` of its directory (`@AGENTS.md`), or, where its directory
    /// has no `CLAUDE.md`, link one to it: `ln -s AGENTS.md CLAUDE.md`.
    pub const RULE = ("agents-md-never-loads", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for f in ctx
        .repo
        .instructions
        .iter()
        .filter(|f| f.kind == InstrKind::Agents)
    {
        let abs = ctx.abs(&f.rel);
        if ctx.loads_anywhere(&abs) {
            continue;
        }
        let Some(own) = ctx.sessions.iter().find(|s| s.start.dir == f.dir) else {
            continue;
        };
        let Some(k) = own.session.skipped.iter().find(|k| k.path == abs) else {
            continue;
        };
        let by = match &k.why {
            SkipWhy::AgentsSuppressed { by } if !super::is_named(by, CLAUDE_LOCAL_MD) => by,
            _ => continue,
        };
        let by = ctx.repo.show(by);
        let claude = super::join(&f.dir, CLAUDE_MD);
        let name = crate::repo::walk::split(&f.rel).1;
        let fix = if by == claude || ctx.has_file(&claude) {
            format!(
                "add a line `@{}` to {claude}",
                f.rel
                    .strip_prefix(&format!("{}/", f.dir))
                    .filter(|_| !f.dir.is_empty())
                    .unwrap_or(&f.rel)
            )
        } else {
            format!(
                "{}: a CLAUDE.md loads where this file does not",
                super::command(&["ln", "-s", name, &claude])
            )
        };
        out.push(ctx.finding(
            &RULE,
            &f.rel,
            1,
            format!(
                "{} never loads: {by} loads in every session that would reach it, and AGENTS.md is only the fallback for when no CLAUDE.md loads",
                f.rel
            ),
            fix,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn side_by_side_and_nested_under_a_root_claude_md() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "root\n"),
            ("AGENTS.md", "guide\n"),
            ("sub/AGENTS.md", "nested\n"),
        ]);
        assert_eq!(
            f.found("agents-md-never-loads"),
            [("AGENTS.md".to_owned(), 1), ("sub/AGENTS.md".to_owned(), 1)]
        );
        let fixes = f.fixes("agents-md-never-loads");
        assert!(fixes[0].contains("`@AGENTS.md` to CLAUDE.md"), "{fixes:?}");
        assert!(
            fixes[1].contains("ln -s AGENTS.md sub/CLAUDE.md"),
            "{fixes:?}"
        );
    }

    #[test]
    fn near_miss_imported_or_alone() {
        let f = Fixture::new(&[("CLAUDE.md", "root @AGENTS.md\n"), ("AGENTS.md", "guide\n")]);
        assert!(f.found("agents-md-never-loads").is_empty());
        let g = Fixture::new(&[("AGENTS.md", "guide\n"), ("sub/AGENTS.md", "nested\n")]);
        assert!(g.found("agents-md-never-loads").is_empty());
    }
}
