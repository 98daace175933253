//! `missing-why` (hard).

use std::sync::LazyLock;

use regex::Regex;

use super::{Check, Ctx, Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` memory with no Why section: a `## Why`, `## Root cause`, `## 根因`,
    /// `## 教训`, `## 原因` or `## 为什么` heading (`###` too, with or without a colon), an
    /// inline `**Why**:` / `**Why:**` (or `**根因**:`, `**为什么**:`), or a line starting `Why:`.
    ///
    /// ## Why it matters
    /// A lesson without its reason gets argued away: the next session sees the rule, not the
    /// incident behind it, and undoes it. The reason is what makes feedback durable.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// type: feedback
    /// ---
    /// Always use fetch() for mutations.
    /// ```
    ///
    /// ## Fix
    /// ```markdown
    /// Always use fetch() for mutations.
    ///
    /// ## Why
    /// supabase.from() waits on a Web Lock that a hidden tab never gets.
    /// ```
    pub const RULE = ("missing-why", Hard, Check::File(check));
}

static WHY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[ \t]*(?:#{2,3}[ \t]+(?:why|root[ \t]+cause|为什么|根因|原因|教训)(?:[ \t:：]|$)|\*\*(?:why|root[ \t]+cause|根因|为什么|原因|教训)(?:\*\*[ \t]*[:：]|[:：]\*\*)|why[:：])",
    )
    .expect("valid regex")
});

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let (Some(meta), Some((text, parsed))) = (file.meta(), file.parsed()) else {
        return;
    };
    if meta.kind.as_deref().map(str::trim) != Some("feedback") {
        return;
    }
    if !WHY.is_match(&text[parsed.body_start..]) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            "feedback memory has no Why section (`## Why`, `**Why**:`, `## Root cause`, `## 根因` …)"
                .into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::WHY;
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn accepted_forms() {
        for ok in [
            "## Why",
            "## Why:",
            "### why",
            "## Root cause",
            "## 根因:",
            "## 教训",
            "**Why**: because",
            "**Why:** because",
            "**根因**:x",
            "Why: because",
            "  ## 为什么",
        ] {
            assert!(WHY.is_match(ok), "{ok}");
        }
        for bad in [
            "# Why",
            "## Whyever",
            "## How to apply",
            "the why is",
            "#### Why",
        ] {
            assert!(!WHY.is_match(bad), "{bad}");
        }
    }

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            (
                "feedback_ok.md",
                &(fm("feedback", "") + "rule\n\n## Why\nreason\n"),
            ),
            (
                "feedback_no.md",
                &(fm("feedback", "") + "rule\n\n## How to apply\nx\n"),
            ),
            ("project_no.md", &(fm("project", "") + "no why needed\n")),
            (
                "feedback_nested.md",
                "---\nname: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: feedback\n---\nrule\n",
            ),
        ]);
        assert_eq!(
            f.found("missing-why"),
            [
                ("feedback_nested.md".to_owned(), 8),
                ("feedback_no.md".to_owned(), 7)
            ]
        );
    }
}
