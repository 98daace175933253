//! `linked-rule-outside-start-dir` (hard).

use super::ByPlace;
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an entry of `.claude/rules` that is a symlink to a file or folder outside the
    /// directory a session starts in, so its rules drop out of that session.
    ///
    /// ## Why it matters
    /// The client follows rule links, but for project rules only to targets inside the start
    /// directory (unless external imports are approved). Rules shared by linking
    /// `.claude/rules/shared -> ../../shared/rules` load when a session starts at the root and
    /// vanish, silently, for every session started in a package below it.
    ///
    /// ## Example
    /// `.claude/rules/shared -> ../../shared/rules`, a session started in `apps/web`.
    ///
    /// ## Fix
    /// Keep the rule files themselves in `.claude/rules/` (copy them instead of linking), or
    /// link them into each package's own `.claude/rules/`.
    pub const RULE = ("linked-rule-outside-start-dir", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for s in ctx.sessions {
        for l in &s.lost {
            let Some(link) = &l.skipped_as else {
                continue;
            };
            let in_rules = link.contains(".claude/rules/");
            if l.from.is_some()
                || !in_rules
                || !matches!(l.reason, Some(SkipWhy::ExternalNotApproved { .. }))
            {
                continue;
            }
            by.add((link.clone(), 1, String::new()), &s.start.dir, || {
                let target = std::fs::canonicalize(ctx.abs(link))
                    .map(|t| ctx.repo.show(&t.to_string_lossy()).into_owned())
                    .unwrap_or_else(|_| "its target".into());
                let fix = format!("replace the link by the files themselves (copy {target} into .claude/rules/), so they load from every start directory below");
                ctx.finding(&RULE, link, 1, target, fix)
            });
        }
    }
    by.finish(out, |f, dirs| {
        format!(
            "this rule link points to {}, outside the start directory of sessions started in {}: its rules do not load there",
            f.message,
            dirs
        )
    });
}

// Unix only: symbolic links (`Fixture::link`).
#[cfg(all(test, unix))]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn linked_folder_and_file_drop_out_below_the_root() {
        let f = Fixture::new(&[
            (".claude/rules/local.md", "local\n"),
            ("shared/rules/a.md", "a\n"),
            ("docs/style.md", "s\n"),
            ("apps/web/package.json", "{}"),
        ]);
        f.link("../../shared/rules", ".claude/rules/shared");
        f.link("../../docs/style.md", ".claude/rules/style.md");
        let mut found = f.found("linked-rule-outside-start-dir");
        found.sort();
        assert_eq!(
            found,
            [
                (".claude/rules/shared".to_owned(), 1),
                (".claude/rules/style.md".to_owned(), 1)
            ]
        );
    }

    #[test]
    fn near_miss_a_link_inside_the_rules_folder() {
        let f = Fixture::new(&[
            (".claude/rules/real/a.md", "a\n"),
            ("apps/web/package.json", "{}"),
        ]);
        f.link("real", ".claude/rules/alias");
        assert!(f.found("linked-rule-outside-start-dir").is_empty());
    }
}
