//! `missing-how-to-apply` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule, labels};

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` memory without a How to apply part, which the client's template asks
    /// for after the **Why:** line: "for feedback/project types, structure as: rule/fact, then
    /// **Why:** and **How to apply:** lines". It counts in any form and language: a heading, a
    /// bold or plain label, a list item (`- **How to apply**: …`), `**Cómo aplicarlo:**`,
    /// `**Wie anwenden:**`, `**적용:**` …. A `project` memory records a fact or a decision whose
    /// scope is the project: it is not asked for one.
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

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let Some((text, parsed)) = ctx.memory_text(i) else {
        return;
    };
    if file.kind() != Some("feedback") {
        return;
    }
    if !labels::has_how_to_apply(&text[parsed.body_start..]) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            "feedback memory does not say when it applies: add a **How to apply:** line".to_owned(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

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
