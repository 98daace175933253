//! `import-target-missing` (hard).

use super::{ByPlace, missing_imports};
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `@path` import whose target does not exist.
    ///
    /// ## Why it matters
    /// The client skips a missing import without a word; the model gets the literal `@path`
    /// and none of what it was meant to say. Renamed and moved files leave these behind.
    /// Only tokens that name a file are reported: the last part has an extension
    /// (`@docs/setup.md`, `@notes.txt`). `@alice`, npm packages (`@acme/ui`, `@types/react`,
    /// `**@tresjs/core**`), decorators (`@Value("${...}")`, `@Input()`) and the like are prose
    /// or code, not imports.
    ///
    /// ## Example
    /// `See @docs/setup.md` after `docs/setup.md` became `docs/install.md`.
    ///
    /// ## Fix
    /// Correct the path (relative to the importing file) or remove the `@`.
    pub const RULE = ("import-target-missing", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for (s, k, from, line, tok) in missing_imports(ctx) {
        if !names_a_file(&tok.raw) || super::import_cut_at_space::extended(from, &tok).is_some() {
            continue;
        }
        by.add(
            (from.to_owned(), line, k.path.clone()),
            &s.start.dir,
            || {
                let message = format!(
                    "`@{}` imports {}, which does not exist",
                    tok.raw,
                    ctx.repo.show(&k.path)
                );
                ctx.finding_at(
                    &RULE,
                    from,
                    tok.span.clone(),
                    message,
                    "correct the path (relative to the importing file) or remove the `@`".into(),
                )
            },
        );
    }
    by.finish_plain(out);
}

/// Whether an `@` token (as written, after the `@`) names a file: its last part, without the
/// sentence punctuation that follows a word in prose, has a stem and an extension of letters
/// and digits, and it holds none of the characters of code (`(`, `"`, `$`, `{`, `<`, `=`).
fn names_a_file(raw: &str) -> bool {
    let raw = raw.trim_end_matches([
        '.', ',', ';', ':', '!', '?', ')', ']', '*', '_', '\'', '"', '`',
    ]);
    if raw.contains(['(', ')', '"', '$', '{', '}', '<', '>', '=', '\'']) {
        return false;
    }
    let last = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    match last.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=10).contains(&ext.len())
                && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn missing_targets_that_look_like_paths() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/setup.md\nping @alice\n@notes.md\n"),
            ("docs/install.md", ""),
        ]);
        assert_eq!(
            f.found("import-target-missing"),
            [("CLAUDE.md".to_owned(), 1), ("CLAUDE.md".to_owned(), 3)]
        );
    }

    #[test]
    fn packages_and_decorators_are_not_imports() {
        for raw in [
            "acme/ui,",
            "acme/tokens.",
            "types/react",
            "tresjs/core**",
            "Value(\"${...}\")",
            "Input()",
            "alice",
        ] {
            assert!(!super::names_a_file(raw), "{raw}");
        }
        for raw in [
            "docs/setup.md",
            "notes.md",
            "docs/api.md.",
            "config/app.yaml",
        ] {
            assert!(super::names_a_file(raw), "{raw}");
        }
        let f = Fixture::new(&[(
            "CLAUDE.md",
            "Components come from @acme/ui, icons from @acme/icons and @types/react.\n",
        )]);
        assert!(f.found("import-target-missing").is_empty());
    }

    #[test]
    fn near_miss_existing_target() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/setup.md\n"),
            ("docs/setup.md", "s\n"),
        ]);
        assert!(f.found("import-target-missing").is_empty());
    }
}
