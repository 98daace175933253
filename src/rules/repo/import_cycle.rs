//! `import-cycle` (soft).

use super::{ByPlace, at_import, chain, import_skips};
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `@path` import that closes a cycle: the file it imports is already one of the
    /// files that imported this one.
    ///
    /// ## Why it matters
    /// The client loads every file once, so a cycle costs nothing at start, but it is a sign
    /// the files do not say what the author thinks: the back edge never loads anything, and
    /// which file comes first changes with the start directory.
    ///
    /// ## Example
    /// `a.md` imports `@b.md` and `b.md` imports `@a.md`.
    ///
    /// ## Fix
    /// Remove the back edge: keep the import in the file that is loaded first.
    pub const RULE = ("import-cycle", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for (s, k, from, line) in import_skips(ctx) {
        if k.why != SkipWhy::Duplicate {
            continue;
        }
        let hops = chain(s, from);
        let Some(at) = hops.iter().position(|p| *p == k.path) else {
            continue;
        };
        by.add((from.to_owned(), line, k.path.clone()), "", || {
            let cycle: Vec<std::borrow::Cow<str>> = hops[at..].iter().chain([&k.path]).map(|p| ctx.repo.show(p)).collect();
            let message = format!("this import closes the cycle {} (each file loads once, the back edge loads nothing)", cycle.join(" → "));
            let fix = format!("remove this import: {} is already loaded before {}", ctx.repo.show(&k.path), ctx.repo.show(from));
            at_import(ctx, &RULE, (from, line, &k.path), message, fix)
        });
    }
    by.finish_plain(out);
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn a_back_edge() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "@a.md\n"),
            ("a.md", "a @b.md\n"),
            ("b.md", "b\n@a.md\n"),
        ]);
        assert_eq!(f.found("import-cycle"), [("b.md".to_owned(), 2)]);
    }

    #[test]
    fn near_miss_a_diamond() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "@a.md @b.md\n"),
            ("a.md", "a @c.md\n"),
            ("b.md", "b @c.md\n"),
            ("c.md", "c\n"),
        ]);
        assert!(f.found("import-cycle").is_empty());
    }
}
