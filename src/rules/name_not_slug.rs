//! `name-not-slug` (soft).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::line_of;
use crate::memory::meta::filled;
use crate::memory::spec::is_kebab_slug;

declare_rule! {
    /// ## What it does
    /// Flags a memory whose frontmatter `name:` is not a short kebab-case slug (lower-case
    /// letters and digits in words joined by `-`), the form the client's template asks for:
    /// `name: {{short-kebab-case-slug}}`. A file in the client's older flat format (a top-level
    /// `type:`, what it wrote before 2.1.214) is left alone: that format asked for a free name,
    /// and the client wrote sentence and title-case names in the user's language.
    ///
    /// ## Why it matters
    /// Memories link to each other with `[[name]]`, where `name` is the other memory's `name:`.
    /// A name with spaces, capitals or underscores is one every link has to spell exactly, and
    /// the model writes links as slugs.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: Deploy Freeze
    /// ---
    /// ```
    ///
    /// ## Fix
    /// `name: deploy-freeze`, and update the `[[…]]` links that use the old name.
    pub const RULE = ("name-not-slug", Soft, Client, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let Some((meta, text, parsed)) = ctx.memory_front(i) else {
        return;
    };
    if meta.kind_at == crate::memory::meta::KindAt::Flat {
        return;
    }
    let Some(name) = filled(meta.name.as_deref()) else {
        return;
    };
    if !is_kebab_slug(name) {
        out.push(ctx.diag(
            &RULE,
            i,
            line_of(text, parsed.yaml_start),
            format!("`name: {name}` is not a kebab-case slug (`[[name]]` links use it)"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::Fixture;

    fn client(name: &str) -> String {
        format!("---\nname: {name}\ndescription: d\nmetadata:\n  type: user\n---\nx\n")
    }

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("user_a.md", &client("user-role-2")),
            ("user_b.md", &client("User Role")),
            ("user_c.md", &client("user_role")),
        ]);
        assert_eq!(f.paths("name-not-slug"), ["user_b.md", "user_c.md"]);
    }

    #[test]
    fn not_in_the_managers_spec() {
        let f = Fixture::new(&[(
            "user_b.md",
            "---\nname: User Role\ndescription: d\ntype: user\n---\nx\n",
        )]);
        assert!(f.paths("name-not-slug").is_empty());
    }
}
