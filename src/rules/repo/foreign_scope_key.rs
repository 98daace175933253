//! `foreign-scope-key` (soft).

use super::{key_line, rule_files};
use crate::load::rule_paths;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a rule in `.claude/rules/` scoped with another tool's frontmatter key (Cursor's
    /// `globs:` or `alwaysApply: false`, Copilot's `applyTo:`) and no `paths:`.
    ///
    /// ## Why it matters
    /// Claude Code reads only `paths:`; every other key is ignored. A rule copied from
    /// `.cursor/rules` or `.github/instructions` and meant for `*.tsx` files loads in every
    /// session instead, spending context on work it is not about.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// globs: src/**/*.tsx
    /// ---
    /// Use function components.
    /// ```
    ///
    /// ## Fix
    /// Rename the key to `paths:` (`paths: src/**/*.tsx`); keep both if the file is shared
    /// with the other tool.
    pub const RULE = ("foreign-scope-key", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (f, text, _) in rule_files(ctx) {
        let yaml = crate::text::frontmatter::split(&text).yaml;
        if rule_paths::is_conditional(yaml).is_some() {
            continue;
        }
        for (key, tool) in [
            ("globs", "Cursor"),
            ("applyTo", "GitHub Copilot"),
            ("alwaysApply", "Cursor"),
        ] {
            let Some((_, span)) = key_line(&text, key) else {
                continue;
            };
            let value = text[span.clone()]
                .split_once(':')
                .map_or("", |(_, v)| v.trim());
            let value = value.trim_matches(['"', '\'']);
            if matches!(value, "**" | "**/*" | "*" | "**/*.*" | "**/**") {
                continue; // loading everywhere is what the author asked for
            }
            let fix = if key == "alwaysApply" {
                if !value.eq_ignore_ascii_case("false") {
                    continue; // always applies: loading in every session is what it asks for
                }
                "replace `alwaysApply: false` by `paths:` listing the files the rule is for"
                    .to_owned()
            } else {
                format!("rename `{key}:` to `paths:` (`paths: {value}`)")
            };
            out.push(ctx.finding_at(
                &RULE,
                &f.rel,
                span,
                format!("`{key}:` is {tool}'s key; Claude Code reads only `paths:`, so this rule loads in every session"),
                fix,
            ));
            break; // one finding per file: one problem, however many foreign keys say it
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn cursor_and_copilot_keys() {
        let f = Fixture::new(&[
            (".claude/rules/a.md", "---\nglobs: src/**/*.tsx\n---\nx\n"),
            (
                ".claude/rules/b.md",
                "---\ndescription: d\napplyTo: \"**/*.py\"\n---\nx\n",
            ),
            (".claude/rules/c.md", "---\nalwaysApply: false\n---\nx\n"),
        ]);
        assert_eq!(
            f.found("foreign-scope-key"),
            [
                (".claude/rules/a.md".to_owned(), 2),
                (".claude/rules/b.md".to_owned(), 3),
                (".claude/rules/c.md".to_owned(), 2)
            ]
        );
        assert!(f.fixes("foreign-scope-key")[0].contains("`paths: src/**/*.tsx`"));
    }

    #[test]
    fn near_miss_paths_present_or_always_apply_true() {
        let f = Fixture::new(&[
            (
                ".claude/rules/a.md",
                "---\npaths: src/**\nglobs: src/**\n---\nx\n",
            ),
            (".claude/rules/b.md", "---\nalwaysApply: true\n---\nx\n"),
            ("CLAUDE.md", "---\nglobs: x\n---\nnot a rule\n"),
        ]);
        assert!(f.found("foreign-scope-key").is_empty());
    }
}
