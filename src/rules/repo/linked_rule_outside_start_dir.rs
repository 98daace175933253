//! `linked-rule-outside-start-dir` (hard).

use super::ByPlace;
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an entry of `.claude/rules` that is a symlink to a file or folder outside the
    /// directory a session starts in, so its rules drop out of that session; and a
    /// `.claude/rules` folder that is itself such a link to a folder inside the repository
    /// (`rules-folder-linked-outside` reports one linked out of the repository).
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
            let folder = is_rules_folder(link);
            if l.from.is_some()
                || !(folder || link.contains(".claude/rules/"))
                || !matches!(l.reason, Some(SkipWhy::ExternalNotApproved { .. }))
            {
                continue;
            }
            let real = std::fs::canonicalize(ctx.abs(link)).ok();
            if folder && real.as_ref().is_none_or(|t| !t.starts_with(&ctx.repo.root)) {
                continue; // `rules-folder-linked-outside`'s
            }
            by.add((link.clone(), 1, String::new()), &s.start.dir, || {
                let target = real
                    .map(|t| ctx.repo.show(&t.to_string_lossy()).into_owned())
                    .unwrap_or_else(|| "its target".into());
                let fix = if folder {
                    let copy = shell_words::join(["cp", "-R", target.as_str(), link.as_str()]);
                    format!("replace the link by a real folder holding the rules (`rm {} && {copy}`), so they load from every start directory below", shell_words::quote(link))
                } else {
                    format!("replace the link by the files themselves (copy {target} into .claude/rules/), so they load from every start directory below")
                };
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

/// Whether `rel` is a `.claude/rules` folder or the `.claude` folder holding one (a link to
/// either moves every rule of the folder).
fn is_rules_folder(rel: &str) -> bool {
    let rel = rel.trim_end_matches('/');
    [".claude/rules", ".claude"]
        .iter()
        .any(|end| rel == *end || rel.ends_with(&format!("/{end}")))
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

    /// A Go service syncs its rules from a template: `.claude/rules -> ../.shared/rules`, inside
    /// the repository. A session started in the tool below loses them; one at the root keeps
    /// them.
    #[test]
    fn a_rules_folder_linked_inside_the_repository_drops_out_below() {
        let f = Fixture::new(&[
            ("go.mod", "module example.com/ferry\n"),
            ("CLAUDE.md", "# Ferry\n"),
            (
                ".shared/rules/review.md",
                "# Review\n- Every exported func has a doc comment.\n",
            ),
            (
                "tools/migrate/go.mod",
                "module example.com/ferry/tools/migrate\n",
            ),
        ]);
        f.link("../.shared/rules", ".claude/rules");
        assert_eq!(
            f.found("linked-rule-outside-start-dir"),
            [(".claude/rules".to_owned(), 1)]
        );
        let message = &f.messages("linked-rule-outside-start-dir")[0];
        assert!(
            message.contains("sessions started in tools/migrate"),
            "{message}"
        );
        assert!(f.found("rules-folder-linked-outside").is_empty());
    }

    /// Linked out of the repository, the folder is `rules-folder-linked-outside`'s alone.
    #[test]
    fn a_rules_folder_linked_out_of_the_repository_is_reported_once() {
        let f = Fixture::new(&[
            ("repo/CLAUDE.md", "x\n"),
            ("repo/tools/migrate/go.mod", "module m\n"),
            ("dotfiles/rules/a.md", "a\n"),
        ]);
        f.link("../../dotfiles/rules", "repo/.claude/rules");
        let r = f.check_at("repo");
        let rules: Vec<&str> = r.findings.iter().map(|d| d.rule).collect();
        assert_eq!(rules, ["rules-folder-linked-outside"]);
    }
}
