//! `missing-why` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule, labels};
use crate::memory::Spec;

declare_rule! {
    /// ## What it does
    /// Flags a `feedback` memory with no reason, and, in the client's spec, a `project` memory
    /// that records a decision (something chosen, replaced, moved or dropped) with none: the
    /// client's template asks for a **Why:** line in both. A project memory that records a state
    /// (a sprint list, an on-call rota, a map of paths) is left alone. A reason counts in any
    /// form and language people write it: a heading (`## Why`, `## Root cause`, `## 根因`), a bold
    /// or plain label (`**Why:**`, `**Why**:`, `Why:`), as a list item (`- **Why**: …`) or in a
    /// quote, and in other languages (`**Warum:**`, `**이유:**`, `**原因：**`, `**Waarom:**`,
    /// `**Por qué:**`, `**Почему:**` …). The type is the frontmatter's, or the file name's
    /// `<type>_` prefix when the frontmatter cannot be read, so a broken block does not hide a
    /// missing reason. A warning: nothing is broken or lost, the memory is weaker.
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
    pub const RULE = ("missing-why", Soft, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    let Some((text, parsed)) = ctx.memory_text(i) else {
        return;
    };
    let body = &text[parsed.body_start..];
    let needs_why = match file.kind() {
        Some("feedback") => true,
        // A project memory owes its reason when it records a decision; a state (a sprint
        // list, an on-call rota, a map of paths, a log) has none to give.
        Some("project") => {
            ctx.spec() == Spec::Client && !labels::wip_note(file) && labels::states_a_decision(body)
        }
        _ => false,
    };
    if needs_why && !labels::has_why(body) {
        out.push(ctx.diag(
            &RULE,
            i,
            file.body_line(),
            format!(
                "{} memory gives no reason: add a {} line saying why",
                file.kind().unwrap_or("feedback"),
                match ctx.spec() {
                    Spec::Client => "**Why:**",
                    Spec::Manager => "## Why",
                }
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

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
                &client(
                    "project",
                    "We decided to freeze merges from 2026-03-05 instead of branching.",
                ),
            ),
            (
                "project_rota.md",
                &client("project", "- This week: Dana\n- Next week: Femi"),
            ),
            (
                "project_listed.md",
                &client(
                    "project",
                    "Replaced Photon by NGO.\n\n- **Why**: Photon's pricing.",
                ),
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
