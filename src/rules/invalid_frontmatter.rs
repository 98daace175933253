//! `invalid-frontmatter` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::line_of;
use crate::memory::meta::Front;

declare_rule! {
    /// ## What it does
    /// Flags a frontmatter block whose YAML does not parse, or is not a mapping of keys to
    /// values.
    ///
    /// ## Why it matters
    /// A block that does not parse gives the file no name, description or type: every tool
    /// that reads it (the client's listing, this audit) sees no metadata at all.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// name: [unclosed
    /// description: d
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Quote values that contain YAML syntax (`: `, `[`, `{`, `#`), or fix the indentation:
    /// ```markdown
    /// ---
    /// name: "[unclosed"
    /// description: d
    /// ---
    /// ```
    pub const RULE = ("invalid-frontmatter", Hard, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if let Some((text, parsed)) = file.parsed()
        && let Front::Invalid { error } = &parsed.front
    {
        let line = line_of(text, parsed.yaml_start);
        out.push(ctx.diag(
            &RULE,
            i,
            line,
            format!("frontmatter is not valid YAML: {error}"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("user_ok.md", &(fm("user", "") + "x\n")),
            ("user_bad.md", "---\nname: [unclosed\n---\nx\n"),
            ("user_list.md", "---\n- a\n---\nx\n"),
        ]);
        assert_eq!(
            f.found("invalid-frontmatter"),
            [
                ("user_bad.md".to_owned(), 2),
                ("user_list.md".to_owned(), 2)
            ]
        );
    }
}
