//! `import-target-missing` (hard).

use super::{ByPlace, missing_imports};
use crate::check::registry::declare_check;
use crate::check::{Ctx, Finding};

declare_check! {
    /// ## What it does
    /// Flags an `@path` import whose target does not exist.
    ///
    /// ## Why it matters
    /// The client skips a missing import without a word; the model gets the literal `@path`
    /// and none of what it was meant to say. Renamed and moved files leave these behind.
    /// Only tokens that look like paths (with a `/` or an extension) are reported, so
    /// `@alice` in prose is not.
    ///
    /// ## Example
    /// `See @docs/setup.md` after `docs/setup.md` became `docs/install.md`.
    ///
    /// ## Fix
    /// Correct the path (relative to the importing file) or remove the `@`.
    pub const RULE = ("import-target-missing", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Finding>) {
    let mut by = ByPlace::default();
    for (s, k, from, line, tok) in missing_imports(ctx) {
        let looks_like_path =
            tok.raw.contains('/') || crate::load::instructions::paths::extname(&tok.raw).len() > 1;
        if !looks_like_path || super::import_cut_at_space::extended(from, &tok).is_some() {
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

#[cfg(test)]
mod tests {
    use crate::check::testing::Fixture;

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
    fn near_miss_existing_target() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "See @docs/setup.md\n"),
            ("docs/setup.md", "s\n"),
        ]);
        assert!(f.found("import-target-missing").is_empty());
    }
}
