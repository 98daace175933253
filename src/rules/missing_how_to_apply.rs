//! `missing-how-to-apply` (soft).

use std::sync::LazyLock;

use regex::Regex;

use super::line_start::any_line_matches;
use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::Role;

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` or `project` memory without a **How to apply:** line (or a
    /// `## How to apply` heading), which the client's template asks for after the **Why:**
    /// line: "for feedback/project types, structure as: rule/fact, then **Why:** and **How to
    /// apply:** lines".
    ///
    /// ## Why it matters
    /// The rule says what; How to apply says when and where it kicks in. Without it the model
    /// has to guess the scope of a lesson, and applies it too widely or not at all.
    ///
    /// ## Example
    /// ```markdown
    /// Integration tests hit a real database.
    ///
    /// **Why:** mocked tests passed while the prod migration failed.
    /// ```
    ///
    /// ## Fix
    /// Add `**How to apply:** any test under tests/integration/; unit tests may mock.`
    pub const RULE = ("missing-how-to-apply", Soft, Client, Check::File(check));
}

static HOW: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?im)^[ \t]*(?:\*\*how to apply(?::\*\*|\*\*[ \t]*:)|#{2,3}[ \t]+how to apply(?-u:\b)|how to apply:)")
        .expect("valid regex")
});

/// What a line [`HOW`] matches opens with after its spaces and tabs: `**`, `##` or `how to
/// apply:` (`h` and `H` have no other case).
const HOW_LEAD: &[u8] = b"*#hH";

/// The words every match of [`HOW`] holds, with its flags.
static HOW_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("(?i)how to apply").expect("valid regex"));

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if file.role == Role::Index || !matches!(file.kind(), Some("feedback" | "project")) {
        return;
    }
    let Some((text, parsed)) = file.parsed() else {
        return;
    };
    if !any_line_matches(&text[parsed.body_start..], &HOW_KEY, HOW_LEAD, &HOW) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            format!(
                "{} memory has no **How to apply:** line",
                file.kind().unwrap_or("feedback")
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::HOW;
    use crate::rules::testing::Fixture;

    proptest::proptest! {
        #[test]
        fn searching_led_lines_is_searching_the_text(
            text in "(## |### |#|\\*\\*|\\*|How|how|HOW|hOw| to apply| To Apply|:|\\*\\*:|x|  |\t|\n|\r\n|-)*",
        ) {
            proptest::prop_assert_eq!(
                super::any_line_matches(&text, &super::HOW_KEY, super::HOW_LEAD, &HOW),
                HOW.is_match(&text)
            );
        }
    }

    #[test]
    fn accepted_forms() {
        for ok in [
            "**How to apply:** x",
            "**How to apply**: x",
            "## How to apply",
            "How to apply: x",
        ] {
            assert!(HOW.is_match(ok), "{ok}");
        }
        assert!(!HOW.is_match("how to apply it is unclear"));
    }

    #[test]
    fn vectors() {
        let client = |kind: &str, body: &str| {
            format!("---\nname: x\ndescription: d\nmetadata:\n  type: {kind}\n---\n{body}\n")
        };
        let f = Fixture::new(&[
            (
                "feedback_ok.md",
                &client("feedback", "R.\n**Why:** w\n**How to apply:** h"),
            ),
            ("feedback_no.md", &client("feedback", "R.\n**Why:** w")),
            ("user_x.md", &client("user", "no structure needed")),
        ]);
        assert_eq!(f.paths("missing-how-to-apply"), ["feedback_no.md"]);
    }
}
