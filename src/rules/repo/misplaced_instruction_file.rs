//! `misplaced-instruction-file` (hard).

use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an instruction file in a place the client never looks: `.claude/CLAUDE.local.md`,
    /// `.claude/rules.md`, rules under `.claude/rule/` (singular).
    ///
    /// ## Why it matters
    /// The client reads `CLAUDE.local.md` only next to `CLAUDE.md` (not inside `.claude/`),
    /// and rules only from `.claude/rules/**/*.md`. A file one folder off is never loaded and
    /// nothing says so.
    ///
    /// ## Example
    /// `.claude/CLAUDE.local.md`, `.claude/rules.md`, `.claude/rule/testing.md`
    ///
    /// ## Fix
    /// Move it where it loads: `git mv .claude/CLAUDE.local.md CLAUDE.local.md`,
    /// `git mv .claude/rules.md .claude/rules/rules.md`.
    pub const RULE = ("misplaced-instruction-file", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for m in ctx.repo.near_misses.iter().filter(|m| !m.case_only) {
        out.push(ctx.finding(
            &RULE,
            &m.rel,
            1,
            format!(
                "{} is never loaded: the client would read it as {}",
                m.rel, m.wanted
            ),
            super::command(&["git", "mv", &m.rel, &m.wanted]),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn misplaced_files() {
        let f = Fixture::new(&[
            (".claude/CLAUDE.local.md", "x\n"),
            ("pkg/.claude/rules.md", "x\n"),
            (".claude/rule/testing.md", "x\n"),
        ]);
        let mut got = f.fixes("misplaced-instruction-file");
        got.sort();
        assert_eq!(
            got,
            [
                "`git mv .claude/CLAUDE.local.md CLAUDE.local.md`",
                "`git mv .claude/rule/testing.md .claude/rules/testing.md`",
                "`git mv pkg/.claude/rules.md pkg/.claude/rules/rules.md`",
            ]
        );
    }

    #[test]
    fn near_miss_files_where_they_load() {
        let f = Fixture::new(&[
            ("CLAUDE.local.md", "x\n"),
            (".claude/CLAUDE.md", "x\n"),
            (".claude/rules/testing.md", "x\n"),
            (".claude/settings.json", "{}"),
        ]);
        assert!(f.found("misplaced-instruction-file").is_empty());
    }
}
