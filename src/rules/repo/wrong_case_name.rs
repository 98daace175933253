//! `wrong-case-name` (hard).

use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a file named like an instruction file in the wrong letter case: `claude.md`,
    /// `Claude.md`, `agents.md`, `CLAUDE.MD`, `claude.local.md`, a rule ending in `.MD`.
    ///
    /// ## Why it matters
    /// The client looks for the exact names `CLAUDE.md`, `AGENTS.md`, `CLAUDE.local.md` and
    /// rule files ending in `.md`. On a case-sensitive file system (Linux, most CI runners and
    /// containers) a `claude.md` never loads; on a default macOS or Windows disk it does. The
    /// same checkout behaves differently for each teammate.
    ///
    /// ## Example
    /// `claude.md`, `docs/Agents.md`, `.claude/rules/Style.MD`
    ///
    /// ## Fix
    /// Rename it to the exact name: `git mv claude.md CLAUDE.md`. A file that only documents
    /// something called "claude" or "agents" can be silenced with `per-file-ignores`.
    pub const RULE = ("wrong-case-name", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for m in ctx.repo.near_misses.iter().filter(|m| m.case_only) {
        let exists = ctx.repo.files.contains(&m.wanted);
        let fix = if exists {
            format!("merge it into {} and delete it (both exist)", m.wanted)
        } else {
            format!("`git mv {} {}`", m.rel, m.wanted)
        };
        out.push(ctx.finding(
            &RULE,
            &m.rel,
            1,
            format!(
                "{} never loads on a case-sensitive file system (Linux, CI): the client looks for {}",
                m.rel,
                crate::repo::walk::split(&m.wanted).1
            ),
            fix,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn case_variants() {
        let f = Fixture::new(&[
            ("claude.md", "x\n"),
            ("docs/Agents.md", "x\n"),
            ("a/CLAUDE.MD", "x\n"),
            ("a/claude.local.md", "x\n"),
            (".claude/rules/Style.MD", "x\n"),
            (".claude/Claude.md", "x\n"),
        ]);
        let mut got: Vec<String> = f
            .found("wrong-case-name")
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                ".claude/Claude.md",
                ".claude/rules/Style.MD",
                "a/CLAUDE.MD",
                "a/claude.local.md",
                "claude.md",
                "docs/Agents.md"
            ]
        );
        assert!(
            f.fixes("wrong-case-name")
                .iter()
                .any(|x| x == "`git mv claude.md CLAUDE.md`")
        );
    }

    #[test]
    fn near_miss_exact_names_and_lookalikes() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "x\n"),
            ("docs/claude-code.md", "x\n"),
            ("AGENTS.md.bak", "x\n"),
            (".claude/rules/a.md", "x\n"),
            (".claude/rules/notes.txt", "x\n"),
        ]);
        assert!(f.found("wrong-case-name").is_empty());
    }
}
