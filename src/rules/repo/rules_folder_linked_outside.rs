//! `rules-folder-linked-outside` (hard).

use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a `.claude` or `.claude/rules` folder that is a symlink to a place outside the
    /// repository.
    ///
    /// ## Why it matters
    /// The client skips a rules folder linked outside the start directory: its rules load at
    /// start only when the user approved external imports for the project, and its
    /// path-scoped rules (`paths:`) never attach on a read, approved or not. Rules kept in a
    /// dotfiles folder and linked in go quiet.
    ///
    /// ## Example
    /// `.claude/rules -> ~/dotfiles/claude/rules`
    ///
    /// ## Fix
    /// Keep a real `.claude/rules/` folder in the repository (copy the rules in); link single
    /// files from your user rules (`~/.claude/rules/`) instead, which may point anywhere.
    pub const RULE = ("rules-folder-linked-outside", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for link in &ctx.repo.links {
        let outside = link
            .target
            .as_ref()
            .is_none_or(|t| !t.starts_with(&ctx.repo.root));
        if !outside {
            continue;
        }
        let target = link
            .target
            .as_ref()
            .map_or("a missing target".to_owned(), |t| t.display().to_string());
        let rules_dir = ctx.abs(&super::join(&link.dir, ".claude/rules"));
        let skipped_at_start = ctx
            .sessions
            .iter()
            .find(|s| s.start.dir == link.dir)
            .is_some_and(|s| {
                s.session.skipped.iter().any(|k| {
                    k.path == rules_dir && matches!(k.why, SkipWhy::ExternalNotApproved { .. })
                })
            });
        let start = if skipped_at_start {
            "its rules do not load at start (external imports are not approved)"
        } else {
            "its rules load at start only with external imports approved"
        };
        out.push(ctx.finding(
            &RULE,
            &link.rel,
            1,
            format!(
                "{} links to {target}, outside the repository: {start}, and its path-scoped rules never attach on a read",
                link.rel
            ),
            format!("replace the link by a real folder: copy the rules into {}", super::join(&link.dir, ".claude/rules/")),
        ));
    }
}

// Unix only: symbolic links (`Fixture::link`).
#[cfg(all(test, unix))]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn a_rules_folder_linked_out() {
        let f = Fixture::new(&[
            ("repo/CLAUDE.md", "x\n"),
            ("dotfiles/rules/a.md", "a\n"),
            ("repo/.claude/settings.json", "{}"),
        ]);
        f.link("../../dotfiles/rules", "repo/.claude/rules");
        let r = f.check_at("repo");
        let found: Vec<_> = r
            .findings
            .iter()
            .filter(|d| d.rule == "rules-folder-linked-outside")
            .collect();
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.contains("do not load at start"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn near_miss_linked_inside_the_repository() {
        let f = Fixture::new(&[
            ("config/rules/a.md", "a\n"),
            (".claude/settings.json", "{}"),
        ]);
        f.link("../config/rules", ".claude/rules");
        assert!(f.found("rules-folder-linked-outside").is_empty());
    }
}
