//! `invalid-paths-pattern` (hard).

use super::{key_line, rule_files};
use crate::load::rule_paths::gitignore::{self, Unusable};
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a `paths:` pattern the client cannot use: one its matcher rejects (dropped with
    /// a warning only the debug log shows) or one with an unclosed `[`, which never matches.
    ///
    /// ## Why it matters
    /// A rule whose only pattern is `src/[abc` never attaches; in a list, the bad pattern is
    /// silently missing. Nothing in a session tells the author.
    ///
    /// ## Example
    /// `paths: src/[abc/*.ts`
    ///
    /// ## Fix
    /// Close the bracket (`src/[abc]/*.ts`) or escape it (`src/\[abc/*.ts`).
    pub const RULE = ("invalid-paths-pattern", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (f, text, patterns) in rule_files(ctx) {
        for p in patterns.unwrap_or_default() {
            let why = match gitignore::check(&p) {
                Err(Unusable::Invalid(e)) => {
                    format!("the client drops `{p}`: not a valid pattern ({e})")
                }
                Err(Unusable::TooCostly(e)) => {
                    format!(
                        "ccmem does not run `{p}` and it never matches here: {e} (the client would hang on a long path)"
                    )
                }
                Ok(()) if unclosed_bracket(&p) => {
                    format!("`{p}` has an unclosed `[` and never matches")
                }
                _ => continue,
            };
            let Some((_, span)) = key_line(&text, "paths") else {
                continue;
            };
            out.push(ctx.finding_at(
                &RULE,
                &f.rel,
                span,
                why,
                "close the bracket (`[abc]`) or escape it (`\\[`)".into(),
            ));
        }
    }
}

/// An unescaped `[` with no `]` after it.
pub fn unclosed_bracket(p: &str) -> bool {
    let mut escaped = false;
    for (i, c) in p.char_indices() {
        match c {
            '\\' if !escaped => escaped = true,
            '[' if !escaped => {
                if !p[i + 1..].contains(']') {
                    return true;
                }
                escaped = false;
            }
            _ => escaped = false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::unclosed_bracket;
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn unclosed_and_closed() {
        let f = Fixture::new(&[
            (".claude/rules/bad.md", "---\npaths: src/[abc\n---\nx\n"),
            (
                ".claude/rules/ok.md",
                "---\npaths: src/[abc]/*.ts\n---\nx\n",
            ),
            (".claude/rules/esc.md", "---\npaths: src/\\[abc\n---\nx\n"),
        ]);
        assert_eq!(
            f.found("invalid-paths-pattern"),
            [(".claude/rules/bad.md".to_owned(), 2)]
        );
        assert!(unclosed_bracket("a[b"));
        assert!(!unclosed_bracket("a[b]"));
        assert!(!unclosed_bracket("a\\[b"));
    }
}
