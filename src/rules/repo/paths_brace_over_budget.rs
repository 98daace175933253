//! `paths-brace-over-budget` (hard).

use super::{key_line, rule_files};
use crate::constants::{
    BRACE_BUDGET_RESULTS as BUDGET_RESULTS, BRACE_BUDGET_UTF16 as BUDGET_UTF16,
};
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a rule whose `paths:` brace expansion passes the client's budget, so a pattern is
    /// kept as written, braces and all.
    ///
    /// ## Why it matters
    /// The client expands `{a,b}` alternatives with a budget shared by one `paths:` value
    /// (1,000 patterns, 4,194,304 characters). Past it the pattern stays unexpanded and only
    /// matches a file literally named `src/{a,b,…}.ts`: the rule never attaches (or, for a
    /// list of `**`, stops loading at start).
    ///
    /// ## Example
    /// `paths: "{a,b,c,…}/{x,y,z,…}/*.ts"` with 40 × 40 alternatives.
    ///
    /// ## Fix
    /// Use fewer alternatives: a folder pattern (`src/**`) or several shorter patterns.
    pub const RULE = ("paths-brace-over-budget", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    for (f, text, patterns) in rule_files(ctx) {
        let Some(kept) = patterns
            .unwrap_or_default()
            .into_iter()
            .find(|p| unexpanded(p))
        else {
            continue;
        };
        let Some((_, span)) = key_line(&text, "paths") else {
            continue;
        };
        let shown: String = kept.chars().take(60).collect();
        out.push(ctx.finding_at(
            &RULE,
            &f.rel,
            span,
            format!(
                "the brace expansion of `paths:` passes the client's budget ({} patterns, {} characters): `{shown}…` is kept as written and matches only a file of that literal name",
                crate::receipt::group(BUDGET_RESULTS as usize),
                crate::receipt::group(BUDGET_UTF16 as usize)
            ),
            "use fewer alternatives: a folder pattern (`src/**`) or several shorter patterns".into(),
        ));
    }
}

/// A pattern that still holds a `{…,…}` group after the client's expansion was kept whole.
fn unexpanded(p: &str) -> bool {
    p.find('{').is_some_and(|open| {
        p[open..]
            .find('}')
            .is_some_and(|close| p[open..open + close].contains(','))
    })
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn over_and_under_the_budget() {
        let big: Vec<String> = (0..40).map(|i| format!("d{i}")).collect();
        let over = format!(
            "---\npaths: \"{{{0}}}/{{{0}}}/*.ts\"\n---\nx\n",
            big.join(",")
        );
        let small = "---\npaths: \"{a,b}/{c,d}/*.ts\"\n---\nx\n";
        let f = Fixture::new(&[
            (".claude/rules/over.md", &over),
            (".claude/rules/ok.md", small),
        ]);
        assert_eq!(
            f.found("paths-brace-over-budget"),
            [(".claude/rules/over.md".to_owned(), 2)]
        );
    }
}
