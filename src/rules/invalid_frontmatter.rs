//! `invalid-frontmatter` (hard).

use super::{Check, Ctx, Diagnostic, declare_rule};
use crate::memory::file::line_of;
use crate::memory::meta::Front;

declare_rule! {
    /// ## What it does
    /// Flags a frontmatter block the client cannot read either: YAML that does not parse even
    /// after the client's own lenient retry (2.1.332 `qd` → `DDr`: on a YAML error it quotes
    /// every `key: value` whose value holds YAML syntax, `: ` included, turns leading tabs into
    /// spaces, and parses again), or that is not a mapping of keys to values. A block the
    /// client reads after that retry is valid: `description: Wanneer X: schrijf "y"` is fine.
    /// The file's other checks run either way (its type then comes from its name).
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
    pub const RULE = ("invalid-frontmatter", Hard, Both, Check::File(check));
}

fn check(ctx: &Ctx, i: usize, out: &mut Vec<Diagnostic>) {
    let file = &ctx.lib.files[i];
    if let Some((text, parsed)) = file.parsed()
        && let Front::Invalid { error, line } = &parsed.front
    {
        let first = line_of(text, parsed.yaml_start);
        let (at, message) = match line {
            Some(n) => (
                first + n - 1,
                format!("frontmatter is not valid YAML, even as the client retries it: {error}"),
            ),
            None => (
                first,
                format!("{error}; the client reads it as no frontmatter"),
            ),
        };
        out.push(ctx.diag(&RULE, i, at, message));
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{Fixture, fm};

    #[test]
    fn vectors() {
        let f = Fixture::new(&[
            ("user_ok.md", &(fm("user", "") + "x\n")),
            ("user_bad.md", "---\nname: x\n  - nested: [\n---\nx\n"),
            ("user_list.md", "---\n- a\n---\nx\n"),
            (
                "user_lenient.md",
                "---\nname: [unclosed\ndescription: a: b \"c\"\ntype: user\n---\nx\n",
            ),
        ]);
        assert_eq!(
            f.found("invalid-frontmatter"),
            [
                ("user_bad.md".to_owned(), 3),
                ("user_list.md".to_owned(), 2)
            ],
            "at the line where the client's parser stopped"
        );
        assert!(
            f.found("missing-field")
                .iter()
                .all(|(p, _)| p != "user_lenient.md")
        );
    }
}
