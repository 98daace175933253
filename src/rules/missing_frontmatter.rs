//! `missing-frontmatter` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::meta::Front;

declare_rule! {
    /// ## What it does
    /// Flags a memory file (anything but MEMORY.md) that has no frontmatter block the client
    /// would recognize: a first line `---`, YAML, and a closing `---`.
    ///
    /// ## Why it matters
    /// The client lists topic files to the model by their frontmatter `description`; without a
    /// block, the model sees a bare file name and cannot tell when the memory applies.
    ///
    /// ## Example
    /// ```markdown
    /// # Supabase tab-switch deadlock
    /// Use fetch() against the REST API.
    /// ```
    ///
    /// ## Fix
    /// Open the file with a frontmatter block giving its `name`, `description` and `type`:
    ///
    /// ```markdown
    /// ---
    /// name: supabase-tab-switch-deadlock
    /// description: supabase.from() mutation deadlocks after a tab switch; use fetch()
    /// type: feedback
    /// ---
    /// ```
    pub const RULE = ("missing-frontmatter", Hard, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    if let Some((_, parsed)) = ctx.memory_text(i)
        && parsed.front == Front::Absent
    {
        out.push(ctx.diag(
            &RULE,
            i,
            1,
            "no frontmatter block (`---` … `---` with name, description, type)".into(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("MEMORY.md", "# Index without frontmatter is fine\n"),
            ("user_ok.md", &(fm("user", "") + "x\n")),
            ("user_bare.md", "# Bare\ntext\n"),
            ("user_unclosed.md", "---\nname: a\n"),
        ]);
        assert_eq!(
            f.paths("missing-frontmatter"),
            ["user_bare.md", "user_unclosed.md"]
        );
    }
}
