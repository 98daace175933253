//! `import-cut-at-space` (hard).

use super::{ByPlace, Token, missing_imports};
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `@path` import cut short at an unescaped space: the file it names exists once
    /// the words after the space are added back.
    ///
    /// ## Why it matters
    /// The client's import path ends at the first whitespace: `@docs/Design Notes.md`
    /// imports `docs/Design`, which does not exist, and nothing loads.
    ///
    /// ## Example
    /// `See @docs/Design Notes.md`
    ///
    /// ## Fix
    /// Escape the space with a backslash: `@docs/Design\ Notes.md`.
    pub const RULE = ("import-cut-at-space", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for (s, k, from, line, tok) in missing_imports(ctx) {
        let Some(full) = extended(from, &tok) else {
            continue;
        };
        by.add((from.to_owned(), line, k.path.clone()), &s.start.dir, || {
            let escaped = full.replace(' ', "\\ ");
            ctx.finding_at(
                &RULE,
                from,
                tok.span.clone(),
                format!("`@{}` ends at the space: the client imports `{}`, which does not exist, not `{full}`", tok.raw, tok.raw),
                format!("escape the space: `@{escaped}`"),
            )
        });
    }
    by.finish_plain(out);
}

/// The path the token names once up to four following words are added back, when that file
/// exists (relative to the importer's real folder).
pub fn extended(importer: &str, tok: &Token) -> Option<String> {
    if !tok.rest.starts_with(' ') {
        return None;
    }
    let real = std::fs::canonicalize(importer).ok()?;
    let dir = real.parent()?;
    let mut path = tok.raw.clone();
    for word in tok.rest.split(' ').skip(1).take(4) {
        if word.is_empty() {
            return None;
        }
        path = format!("{path} {word}");
        let candidate = path.split('#').next().unwrap_or(&path);
        let trimmed = candidate.trim_end_matches(['.', ',', ';', ':', ')', '`', '"', '\'']);
        for c in [candidate, trimmed] {
            if dir.join(c).is_file() {
                return Some(c.to_owned());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn a_path_with_a_space() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/Design Notes.md for more.\n"),
            ("docs/Design Notes.md", "d\n"),
        ]);
        assert_eq!(
            f.found("import-cut-at-space"),
            [("CLAUDE.md".to_owned(), 1)]
        );
        assert_eq!(
            f.fixes("import-cut-at-space"),
            ["escape the space: `@docs/Design\\ Notes.md`"]
        );
        assert!(f.found("import-target-missing").is_empty());
    }

    #[test]
    fn near_miss_escaped_space() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/Design\\ Notes.md for more.\n"),
            ("docs/Design Notes.md", "d\n"),
        ]);
        assert!(f.found("import-cut-at-space").is_empty());
    }
}
