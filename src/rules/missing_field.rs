//! `missing-field` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::line_of;

declare_rule! {
    /// ## What it does
    /// Flags a memory file whose frontmatter lacks `name`, `description` or `type`, or leaves
    /// one empty (one finding per field). `type` may also be nested as `metadata.type`, the
    /// form the client writes since 2.1.214.
    ///
    /// ## Why it matters
    /// `description` is the only thing the model reads to decide whether to open a topic
    /// file; `name` and `type` keep the library searchable and typed.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: stripe-webhook-replays
    /// type: feedback
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Add the missing field to the frontmatter, with a value:
    ///
    /// ```markdown
    /// ---
    /// name: stripe-webhook-replays
    /// description: Stripe webhook replays double-charge without an idempotency key
    /// type: feedback
    /// ---
    /// ```
    pub const RULE = ("missing-field", Hard, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let Some((meta, text, parsed)) = ctx.memory_front(i) else {
        return;
    };
    let line = line_of(text, parsed.yaml_start);
    for (field, value) in [
        ("name", &meta.name),
        ("description", &meta.description),
        ("type", &meta.kind),
    ] {
        match value.as_deref().map(str::trim) {
            None => out.push(ctx.diag(&RULE, i, line, format!("frontmatter has no `{field}`"))),
            Some("") => {
                out.push(ctx.diag(&RULE, i, line, format!("frontmatter `{field}` is empty")))
            }
            Some(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            (
                "user_ok.md",
                "---\nname: a\ndescription: d\ntype: user\n---\nx\n",
            ),
            (
                "user_nested.md",
                "---\nname: a\ndescription: d\nmetadata:\n  node_type: memory\n  type: user\n---\nx\n",
            ),
            ("user_nodesc.md", "---\nname: a\ntype: user\n---\nx\n"),
            (
                "user_empty.md",
                "---\nname: ''\ndescription: d\ntype:\n---\nx\n",
            ),
        ]);
        assert_eq!(
            f.found("missing-field"),
            [
                ("user_empty.md".to_owned(), 2),
                ("user_empty.md".to_owned(), 2),
                ("user_nodesc.md".to_owned(), 2)
            ]
        );
        assert!(
            f.messages("missing-field")
                .contains(&"frontmatter has no `description`".to_owned())
        );
    }
}
