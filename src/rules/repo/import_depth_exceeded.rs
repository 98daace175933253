//! `import-depth-exceeded` (hard).

use super::{ByPlace, at_import, chain, import_skips};
use crate::constants::MAX_IMPORT_DEPTH;
use crate::load::SkipWhy;
use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};

declare_rule! {
    /// ## What it does
    /// Flags an `@path` import past the client's depth limit: the fifth hop of a chain of
    /// imports.
    ///
    /// ## Why it matters
    /// The client follows four hops of imports from a loaded file and drops the fifth
    /// silently, with everything it imports in turn.
    ///
    /// ## Example
    /// `CLAUDE.md → a.md → b.md → c.md → d.md → e.md`: `e.md` never loads.
    ///
    /// ## Fix
    /// Import the file from one closer to the start of the chain (four hops at most).
    pub const RULE = ("import-depth-exceeded", Hard, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut by = ByPlace::default();
    for (s, k, from, line) in import_skips(ctx) {
        if k.why != SkipWhy::DepthLimit {
            continue;
        }
        by.add(
            (from.to_owned(), line, k.path.clone()),
            &s.start.dir,
            || {
                let hops: Vec<String> = chain(s, from)
                    .iter()
                    .map(|p| ctx.repo.show(p).into_owned())
                    .collect();
                let message = format!(
                    "{} is hop {} of the import chain {} → it: the client follows {} hops",
                    ctx.repo.show(&k.path),
                    hops.len(),
                    hops.join(" → "),
                    MAX_IMPORT_DEPTH - 1
                );
                let fix = format!(
                    "import {} from a file at most {} hops from {}",
                    ctx.repo.show(&k.path),
                    MAX_IMPORT_DEPTH - 2,
                    hops.first().map_or("the loaded file", String::as_str)
                );
                at_import(ctx, &RULE, (from, line, &k.path), message, fix)
            },
        );
    }
    by.finish_plain(out);
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn the_fifth_hop() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "@a.md\n"),
            ("a.md", "a @b.md\n"),
            ("b.md", "b @c.md\n"),
            ("c.md", "c @d.md\n"),
            ("d.md", "d @e.md\n"),
            ("e.md", "e\n"),
        ]);
        assert_eq!(f.found("import-depth-exceeded"), [("d.md".to_owned(), 1)]);
        let g = Fixture::new(&[
            ("CLAUDE.md", "@a.md\n"),
            ("a.md", "a @b.md\n"),
            ("b.md", "b @c.md\n"),
            ("c.md", "c @d.md\n"),
            ("d.md", "d\n"),
        ]);
        assert!(g.found("import-depth-exceeded").is_empty());
    }
}
