//! `import-outside-start-dir` (hard).

use super::{ByPlace, import_skips, token};
use crate::constants::CLAUDE_MD;
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `@import` that is not expanded when a session starts in some directory of the
    /// repository, because its target lies outside that start directory and external imports
    /// are not approved there. Only a target that is a file of the repository counts: a `~/`
    /// import of a personal file is outside every start directory by design, and an `@` token
    /// naming nothing (an npm scope in prose, a decorator) is not an import.
    ///
    /// ## Why it matters
    /// The client expands an import only when the target is the start directory or below it
    /// (or the user approved external imports for the project). A root `CLAUDE.md` that says
    /// `See @AGENTS.md` loads everywhere below the root, but from `packages/web` the import is
    /// external: the model gets the literal text "See @AGENTS.md" and none of the guide.
    ///
    /// ## Example
    /// ```markdown
    /// <!-- CLAUDE.md at the root -->
    /// See @AGENTS.md
    /// ```
    /// A session started in `packages/web` loads this line and not `AGENTS.md`.
    ///
    /// ## Fix
    /// Put the text where every start directory reaches it: inline it into the importing file,
    /// or, when a `CLAUDE.md` only imports `AGENTS.md`, make it a symlink
    /// (`ln -sf AGENTS.md CLAUDE.md`): a linked `CLAUDE.md` loads from every directory below.
    pub const RULE = ("import-outside-start-dir", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for (s, k, from, line) in import_skips(ctx) {
        if !matches!(k.why, SkipWhy::ExternalNotApproved { .. }) {
            continue;
        }
        // Only a real file of the repository is an import lost here. A `~/` import of a
        // personal file lies outside every start directory by design, and a token naming
        // nothing (`@tresjs/core` in prose, `@Value(…)`) is no import at all.
        if ctx.repo.rel(&k.path).is_none() || !std::path::Path::new(&k.path).is_file() {
            continue;
        }
        let target = k.path.clone();
        by.add((from.to_owned(), line, target.clone()), &s.start.dir, || {
            let tok = token(ctx, from, line, &target);
            let only_import = ctx
                .text(from)
                .is_some_and(|t| t.lines().filter(|l| !l.trim().is_empty()).count() <= 3);
            let shown_target = ctx.repo.show(&target).into_owned();
            let fix = if only_import && from.ends_with(CLAUDE_MD) && ctx.repo.rel(&target).is_some() {
                let importer = ctx.repo.show(from);
                format!(
                    "make {importer} a symlink to the file it imports ({}): a linked CLAUDE.md loads from every start directory below",
                    super::command(&["ln", "-sf", &relative(crate::repo::walk::split(&importer).0, &shown_target), &importer])
                )
            } else {
                format!(
                    "inline {shown_target} into {}, or keep the imported file inside every start directory that needs it",
                    ctx.repo.show(from)
                )
            };
            match tok {
                Some(t) => ctx.finding_at(&RULE, from, t.span, shown_target, fix),
                None => ctx.finding(&RULE, from, line, shown_target, fix),
            }
        });
    }
    by.finish(out, |f, dirs| {
        format!(
            "this import of {} is not expanded in sessions started in {}: the target lies outside the start directory and external imports are not approved, so the model gets the literal `@` text",
            f.message,
            dirs
        )
    });
}

/// `target` (relative to the root) as seen from directory `dir` (relative to the root).
fn relative(dir: &str, target: &str) -> String {
    let from: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    let to: Vec<&str> = target.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(&to[common..]);
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn fires_below_the_root_not_at_it() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "# Repo\n\nSee @AGENTS.md\n"),
            ("AGENTS.md", "guide\n"),
            ("packages/web/package.json", "{}"),
        ]);
        let found = f.found("import-outside-start-dir");
        assert_eq!(found, [("CLAUDE.md".to_owned(), 3)]);
        let r = f.check();
        let d = r
            .findings
            .iter()
            .find(|d| d.rule == "import-outside-start-dir")
            .unwrap();
        assert_eq!(d.start_dirs, ["packages/web"]);
        assert_eq!(d.column, Some(5));
        assert!(
            d.fix().contains("`ln -sf AGENTS.md CLAUDE.md`"),
            "{}",
            d.fix()
        );
        assert_eq!(super::relative("a/b", "a/c/x.md"), "../c/x.md");
    }

    #[test]
    fn tokens_naming_nothing_and_home_imports_are_not_lost_imports() {
        let f = Fixture::new(&[
            (
                "CLAUDE.md",
                "Use **@tresjs/core** and @vueuse/core.\n\nSee @~/.claude/prefs.md\n",
            ),
            ("packages/web/package.json", "{}"),
        ]);
        assert!(f.found("import-outside-start-dir").is_empty());
    }

    #[test]
    fn near_miss_an_import_inside_every_start_directory() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/a.md\n"),
            ("docs/a.md", "a\n"),
            ("packages/web/CLAUDE.md", "See @notes.md\n"),
            ("packages/web/notes.md", "n\n"),
        ]);
        // docs/a.md is outside packages/web: that one fires; notes.md is inside: it does not.
        assert_eq!(
            f.found("import-outside-start-dir"),
            [("CLAUDE.md".to_owned(), 1)]
        );
        let g = Fixture::new(&[("CLAUDE.md", "See @docs/a.md\n"), ("docs/a.md", "a\n")]);
        assert!(g.found("import-outside-start-dir").is_empty());
    }
}
