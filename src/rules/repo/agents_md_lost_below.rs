//! `agents-md-lost-below` (hard).

use super::ByPlace;
use crate::constants::{CLAUDE_LOCAL_MD, CLAUDE_MD};
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `AGENTS.md` that loads when a session starts at the root but disappears in a
    /// directory below it, because a `CLAUDE.md` lies on the path from there.
    ///
    /// ## Why it matters
    /// In its default mode the client reads `AGENTS.md` only as a fallback: when no ancestor
    /// of the start directory has a `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` that
    /// loads. One package with its own `CLAUDE.md` turns the team's root guide off for every
    /// session started in that package.
    ///
    /// ## Example
    /// `AGENTS.md` at the root, `packages/api/CLAUDE.md`: a session in `packages/api` loads
    /// only the package's file.
    ///
    /// ## Fix
    /// Give the root a `CLAUDE.md` that is the guide: `ln -s AGENTS.md CLAUDE.md` (a
    /// `CLAUDE.md` loads from every start directory below, the guide stays where other tools
    /// look for it).
    pub const RULE = ("agents-md-lost-below", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions.iter().skip(1) {
        for l in &s.lost {
            let Some(SkipWhy::AgentsSuppressed { by: sup }) = &l.reason else {
                continue;
            };
            if super::is_named(sup, CLAUDE_LOCAL_MD) {
                continue;
            }
            by.add((l.path.clone(), 1, String::new()), &s.start.dir, || {
                let dir = crate::repo::walk::split(&l.path).0;
                let dir = dir
                    .strip_suffix("/.claude")
                    .or(dir.strip_suffix(".claude"))
                    .unwrap_or(dir);
                let fix = format!(
                    "{}: a CLAUDE.md loads from every start directory below",
                    super::command(&["ln", "-s", "AGENTS.md", &super::join(dir, CLAUDE_MD)])
                );
                ctx.finding(&RULE, &l.path, 1, ctx.repo.show(sup).into_owned(), fix)
            });
        }
    }
    by.finish(out, |f, dirs| {
        format!(
            "{} loads for a session started at the root but not in {}: {} is on the path there, and AGENTS.md is only the fallback for when no CLAUDE.md loads",
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
    fn fires_where_a_claude_md_is_on_the_path() {
        let f = Fixture::new(&[
            ("AGENTS.md", "guide\n"),
            ("packages/api/CLAUDE.md", "api\n"),
            ("packages/cli/Cargo.toml", ""),
        ]);
        let r = f.check();
        let d: Vec<_> = r
            .findings
            .iter()
            .filter(|d| d.rule == "agents-md-lost-below")
            .collect();
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].path.as_str(), d[0].start_dirs.clone()),
            ("AGENTS.md", vec!["packages/api".to_owned()])
        );
    }

    // Unix only: symbolic links (Fixture::link).
    #[cfg(unix)]
    #[test]
    fn near_miss_a_root_claude_md_link() {
        let f = Fixture::new(&[
            ("AGENTS.md", "guide\n"),
            ("packages/api/CLAUDE.md", "api\n"),
        ]);
        f.link("AGENTS.md", "CLAUDE.md");
        assert!(f.found("agents-md-lost-below").is_empty());
    }
}
