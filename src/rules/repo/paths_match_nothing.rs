//! `paths-match-nothing` (soft).

use super::{key_line, rule_files};
use crate::load::rule_paths::Matcher;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a path-scoped rule (`paths:`) whose patterns match no file of the repository, so
    /// the rule never attaches.
    ///
    /// ## Why it matters
    /// The client attaches a rule with `paths:` when the model reads a matching file, testing
    /// the file's path relative to the folder that holds `.claude` (gitignore-style patterns,
    /// case-insensitive). A pattern written from the repository root inside a package's rules
    /// (`packages/api/src/**` in `packages/api/.claude/rules/`), or for a renamed folder,
    /// never matches anything.
    ///
    /// ## Example
    /// `packages/api/.claude/rules/db.md` with `paths: packages/api/src/db/**`.
    ///
    /// ## Fix
    /// Write the patterns relative to the folder holding `.claude` (`src/db/**`), or delete
    /// the rule. Files the walk ignores (`.gitignore`) are not counted.
    pub const RULE = ("paths-match-nothing", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (f, text, patterns) in rule_files(ctx) {
        // Conditional exactly when the client says so (`is_conditional`): some pattern not `**`.
        let Some(globs) = patterns.filter(|g| g.iter().any(|p| p != "**")) else {
            continue;
        };
        let matcher = Matcher::new(&globs);
        if matcher.is_empty() {
            continue; // invalid-paths-pattern
        }
        let prefix = if f.dir.is_empty() {
            String::new()
        } else {
            format!("{}/", f.dir)
        };
        let hit = ctx
            .repo
            .files
            .iter()
            .filter_map(|p| p.strip_prefix(prefix.as_str()))
            .any(|rel| matcher.matched(rel).is_some());
        let refused = matcher.refused();
        if hit && refused.is_empty() {
            continue;
        }
        let Some((_, span)) = key_line(&text, "paths") else {
            continue;
        };
        let base = if f.dir.is_empty() {
            "the root".to_owned()
        } else {
            f.dir.clone()
        };
        if !refused.is_empty() {
            out.push(ctx.finding_at(
                &RULE,
                &f.rel,
                span,
                format!(
                    "`{}` was not tried on every file: its backtracking would go over ccmem's step budget, so it is taken as not matching there",
                    shown_list(&refused)
                ),
                "write the pattern without escaped backslashes (`\\\\`), which put regular-expression syntax into it".into(),
            ));
            continue;
        }
        out.push(ctx.finding_at(
            &RULE,
            &f.rel,
            span,
            format!(
                "no file of the repository matches `{}` (relative to {base}): this rule never attaches",
                globs.join(", ")
            ),
            format!("write the patterns relative to {base} (the folder holding .claude), or delete the rule"),
        ));
    }
}

/// At most five patterns, then how many more (a rule past the bound of compiled patterns
/// refuses thousands).
fn shown_list(patterns: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut text = patterns[..patterns.len().min(SHOWN)].join(", ");
    if patterns.len() > SHOWN {
        text.push_str(&format!(" and {} more", patterns.len() - SHOWN));
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn patterns_relative_to_the_folder_holding_claude() {
        let f = Fixture::new(&[
            (
                "packages/api/.claude/rules/db.md",
                "---\npaths: packages/api/src/db/**\n---\nx\n",
            ),
            (
                "packages/api/.claude/rules/ok.md",
                "---\npaths: src/db/**\n---\nx\n",
            ),
            (".claude/rules/star.md", "---\npaths: \"*.py\"\n---\nx\n"),
            ("packages/api/src/db/models.py", ""),
        ]);
        assert_eq!(
            f.found("paths-match-nothing"),
            [("packages/api/.claude/rules/db.md".to_owned(), 2)]
        );
    }

    #[test]
    fn near_miss_unconditional_rules() {
        let f = Fixture::new(&[
            (".claude/rules/a.md", "---\npaths: \"**\"\n---\nx\n"),
            (".claude/rules/b.md", "x\n"),
        ]);
        assert!(f.found("paths-match-nothing").is_empty());
    }
}
