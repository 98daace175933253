//! `missing-why` (hard).

use std::sync::LazyLock;

use regex::Regex;

use super::line_start::any_line_matches;
use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::Spec;

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` memory (and, in the client's spec, a `project` memory: the client
    /// asks for a **Why:** line in both) with no Why section: a `## Why`, `## Root cause`, `## 根因`,
    /// `## 教训`, `## 原因` or `## 为什么` heading (`###` too, with or without a colon), an
    /// inline `**Why**:` / `**Why:**` (or `**根因**:`, `**为什么**:`), or a line starting `Why:`.
    /// The type is the frontmatter's, or the file name's `<type>_` prefix when the frontmatter
    /// cannot be read, so a broken block does not hide a missing reason.
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
    /// Add the reason under a `## Why` heading (or a `**Why:**` line, the client's form):
    ///
    /// ```markdown
    /// Always use fetch() for mutations.
    ///
    /// ## Why
    /// supabase.from() waits on a Web Lock that a hidden tab never gets.
    /// ```
    pub const RULE = ("missing-why", Hard, Both, Check::File(check));
}

static WHY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?im)^[ \t]*(?:#{2,3}[ \t]+(?:why|root[ \t]+cause|为什么|根因|原因|教训)(?:[ \t:：]|$)|\*\*(?:why|root[ \t]+cause|根因|为什么|原因|教训)(?:\*\*[ \t]*[:：]|[:：]\*\*)|why[:：])",
    )
    .expect("valid regex")
});

/// What a line [`WHY`] matches opens with after its spaces and tabs: `##`, `**` or `why:`
/// (`w` and `W` have no other case).
const WHY_LEAD: &[u8] = b"#*wW";

/// The words one of which every match of [`WHY`] holds, with its flags.
static WHY_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)why|root[ \t]+cause|为什么|根因|原因|教训").expect("valid regex")
});

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let Some((text, parsed)) = file.parsed() else {
        return;
    };
    let needs_why = match file.kind() {
        Some("feedback") => true,
        Some("project") => ctx.spec() == Spec::Client,
        _ => false,
    };
    if !needs_why || file.role == crate::memory::file::Role::Index {
        return;
    }
    if !any_line_matches(&text[parsed.body_start..], &WHY_KEY, WHY_LEAD, &WHY) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            format!(
                "{} memory has no Why section (`{}`)",
                file.kind().unwrap_or("feedback"),
                match ctx.spec() {
                    Spec::Client => "**Why:** line, as the client's template asks",
                    Spec::Manager => "`## Why`, `**Why**:`, `## Root cause`, `## 根因` …",
                }
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::WHY;
    use crate::rules::testing::{Fixture, fm};

    proptest::proptest! {
        #[test]
        fn searching_led_lines_is_searching_the_text(
            text in "(## |### |#|\\*\\*|\\*|Why|why|WHY|wHy|: |：|x|  |\t|\n|\r\n|root|cause|root cause|ROOT\tCAUSE|cauſe|根因|原因|为什么|教训|-)*",
        ) {
            proptest::prop_assert_eq!(
                super::any_line_matches(&text, &super::WHY_KEY, super::WHY_LEAD, &WHY),
                WHY.is_match(&text)
            );
        }
    }

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

    #[test]
    fn a_broken_frontmatter_does_not_hide_a_missing_why() {
        let f = Fixture::new(&[
            (
                "feedback_bad.md",
                "---\nname: x\n- a list item after a key\n---\nrule without a reason\n",
            ),
            ("feedback_bare.md", "no frontmatter, no reason\n"),
            ("user_x.md", &(fm("user", "") + "x\n")),
        ]);
        assert_eq!(
            f.paths("missing-why"),
            ["feedback_bad.md", "feedback_bare.md"]
        );
        assert_eq!(f.paths("invalid-frontmatter"), ["feedback_bad.md"]);
    }

    #[test]
    fn the_clients_spec_asks_project_memories_for_a_why_too() {
        let client = |kind: &str, body: &str| {
            format!("---\nname: x\ndescription: d\nmetadata:\n  type: {kind}\n---\n{body}\n")
        };
        let f = Fixture::new(&[
            (
                "project_freeze.md",
                &client("project", "Merge freeze from 2026-03-05."),
            ),
            (
                "project_ok.md",
                &client(
                    "project",
                    "Freeze.\n\n**Why:** release cut.\n**How to apply:** wait.",
                ),
            ),
            (
                "feedback_ok.md",
                &client("feedback", "Rule.\n**Why:** x\n**How to apply:** y"),
            ),
        ]);
        assert_eq!(f.paths("missing-why"), ["project_freeze.md"]);
    }
}
