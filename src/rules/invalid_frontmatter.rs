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
        let yaml = &text[parsed.yaml_start..parsed.yaml_start + parsed.yaml_len];
        let (at, message) = match line {
            Some(n) => (
                first + n - 1,
                format!(
                    "frontmatter is not valid YAML, even as the client retries it: {error}{}",
                    crlf_cause(yaml)
                ),
            ),
            None => (
                first,
                format!("{error}; the client reads it as no frontmatter"),
            ),
        };
        out.push(ctx.diag(&RULE, i, at, message));
    }
}

/// When only the file's CRLF line endings stand in the way, says so: the client's `_u` retry
/// never quotes a CRLF line (its `(\S.*)$` refuses a value holding `\r`; see
/// `text::frontmatter::lenient`), and the same block with LF endings reads.
fn crlf_cause(yaml: &str) -> &'static str {
    if yaml.contains("\r\n") && crate::text::frontmatter::parse(&yaml.replace("\r\n", "\n")).is_ok()
    {
        "; the block reads with LF line endings: its CRLF endings defeat the client's retry \
         (convert the file to LF)"
    } else {
        ""
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

    #[test]
    fn crlf_endings_that_defeat_the_retry_are_named() {
        let lf = "---\nname: x\ndescription: a: b \"c\"\ntype: user\n---\nx\n";
        let f = Fixture::new(&[
            ("user_lf.md", lf),
            ("user_crlf.md", &lf.replace('\n', "\r\n")),
        ]);
        assert_eq!(
            f.found("invalid-frontmatter"),
            [("user_crlf.md".to_owned(), 3)]
        );
        let m = &f.messages("invalid-frontmatter")[0];
        assert!(m.contains("CRLF endings defeat the client's retry"), "{m}");
        let bad = "---\r\nname: x\r\n  - nested: [\r\n---\r\nx\r\n";
        let f = Fixture::new(&[("user_bad.md", bad)]);
        assert!(!f.messages("invalid-frontmatter")[0].contains("CRLF"));
    }
}
