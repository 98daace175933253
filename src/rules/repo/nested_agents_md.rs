//! `nested-agents-md` (soft).

use crate::constants::CLAUDE_MD;
use crate::load::reading;
use crate::repo::walk::InstrKind;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `AGENTS.md` below the repository root: it loads only when a session starts
    /// in its directory (or below), never when a session started above reads files there.
    /// One with a `CLAUDE.md` symlink beside it (`CLAUDE.md -> AGENTS.md`) is attached through
    /// the link and not flagged.
    ///
    /// ## Why it matters
    /// A nested `CLAUDE.md` attaches as soon as the model reads a file in its folder; a
    /// nested `AGENTS.md` never does, in any mode. Whoever starts at the root and works in that
    /// package never gets its guide.
    ///
    /// ## Example
    /// `packages/api/AGENTS.md`, a session started at the root that edits
    /// `packages/api/src/main.py`.
    ///
    /// ## Fix
    /// Link a `CLAUDE.md` to it: `ln -s AGENTS.md packages/api/CLAUDE.md`.
    pub const RULE = ("nested-agents-md", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let root = ctx.root();
    let nested = || {
        (ctx.repo.instructions.iter()).filter(|f| f.kind == InstrKind::Agents && !f.dir.is_empty())
    };
    let dirs = ctx.files_in(&nested().map(|f| f.dir.as_str()).collect());
    for f in nested() {
        let abs = ctx.abs(&f.rel);
        if !ctx.loads_anywhere(&abs) {
            continue; // agents-md-never-loads
        }
        // A `CLAUDE.md` beside it that links to it (the fix this rule prints) already
        // attaches it on reads.
        let beside = ctx.abs(&super::join(&f.dir, CLAUDE_MD));
        if let (Ok(a), Ok(b)) = (std::fs::canonicalize(&beside), std::fs::canonicalize(&abs))
            && a == b
        {
            continue;
        }
        // Ask the loader what a read in that folder attaches to a session started at the root.
        let probe = (dirs.get(f.dir.as_str()).into_iter().flatten())
            .find(|p| **p != f.rel)
            .map_or_else(|| f.rel.clone(), |p| (*p).to_owned());
        let env = ctx.env.client_env(ctx.repo.root.clone(), ctx.flags);
        let attached = reading::load(&env, &root.session, &[ctx.abs(&probe)]);
        if attached
            .iter()
            .flatten()
            .any(|e| super::same_file(&e.path, &abs))
        {
            continue;
        }
        let name = crate::repo::walk::split(&f.rel).1;
        out.push(ctx.finding(
            &RULE,
            &f.rel,
            1,
            format!(
                "{} loads only when a session starts in {} or below: a session started above never attaches it when it reads files there",
                f.rel, f.dir
            ),
            format!(
                "{}: a nested CLAUDE.md attaches on reads",
                super::command(&["ln", "-s", name, &super::join(&f.dir, CLAUDE_MD)])
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn fires_on_a_nested_guide() {
        let f = Fixture::new(&[
            ("packages/api/AGENTS.md", "api\n"),
            ("packages/api/main.py", ""),
        ]);
        assert_eq!(
            f.found("nested-agents-md"),
            [("packages/api/AGENTS.md".to_owned(), 1)]
        );
    }

    // Unix only: symbolic links (Fixture::link).
    #[cfg(unix)]
    #[test]
    fn near_miss_root_guide_and_linked_claude_md() {
        let f = Fixture::new(&[("AGENTS.md", "root\n")]);
        assert!(f.found("nested-agents-md").is_empty());
        let g = Fixture::new(&[
            ("packages/api/AGENTS.md", "api\n"),
            ("packages/api/main.py", ""),
        ]);
        g.link("AGENTS.md", "packages/api/CLAUDE.md");
        assert!(g.found("nested-agents-md").is_empty());
    }
}
