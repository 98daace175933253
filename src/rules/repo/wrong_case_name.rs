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
    /// A `claude.md` or `agents.md` in a documentation folder (`docs/`, `doc/`, `wiki/`,
    /// `guides/` …, outside `.claude/`) is a document named after its subject, the app's
    /// Claude API integration or its agents, as its siblings are named after theirs: it is not
    /// reported.
    ///
    /// ## Example
    /// `claude.md`, `src/Agents.md`, `.claude/rules/Style.MD`
    ///
    /// ## Fix
    /// Rename it to the exact name: `git mv claude.md CLAUDE.md`. A file that only documents
    /// something called "claude" or "agents" can be silenced with `per-file-ignores`.
    pub const RULE = ("wrong-case-name", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for m in (ctx.repo.near_misses.iter()).filter(|m| m.case_only && !documentation(&m.rel)) {
        let exists = ctx.has_file(&m.wanted);
        let fix = if exists {
            format!("merge it into {} and delete it (both exist)", m.wanted)
        } else {
            super::command(&["git", "mv", &m.rel, &m.wanted])
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

/// Folders of documents (compared without case).
const DOC_FOLDERS: &[&str] = &[
    "docs",
    "doc",
    "documentation",
    "wiki",
    "guides",
    "guide",
    "handbook",
    "manual",
];

/// Whether `rel` lies in a documentation folder and not in a `.claude` folder.
fn documentation(rel: &str) -> bool {
    let dirs: Vec<&str> = rel.split('/').rev().skip(1).collect();
    !dirs.contains(&crate::constants::CLAUDE_DIR)
        && dirs
            .iter()
            .any(|d| DOC_FOLDERS.iter().any(|f| d.eq_ignore_ascii_case(f)))
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn case_variants() {
        let f = Fixture::new(&[
            ("claude.md", "x\n"),
            ("src/Agents.md", "x\n"),
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
                "src/Agents.md"
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

    /// A Flask app's docs/claude.md documents its Claude API integration; its root claude.md
    /// is the instruction file that never loads. Documents in any documentation folder are
    /// named after their subject; a `.claude` folder is never documentation.
    #[test]
    fn documents_named_after_their_subject_are_not_instruction_files() {
        let f = Fixture::new(&[
            (
                "claude.md",
                "# RecipeBox\n- Run `flask --app recipebox run`.\n",
            ),
            (
                "docs/claude.md",
                "# Claude integration\n\nRecipe import uses the Anthropic API.\n",
            ),
            (
                "docs/api/agents.md",
                "# Agents\n\nThe support agents' endpoints.\n",
            ),
            ("Documentation/Claude.md", "# Claude\n"),
            ("wiki/.claude/Claude.md", "x\n"),
        ]);
        let mut got: Vec<String> = (f.found("wrong-case-name").into_iter())
            .map(|(p, _)| p)
            .collect();
        got.sort();
        assert_eq!(got, ["claude.md", "wiki/.claude/Claude.md"]);
    }
}
