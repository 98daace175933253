//! `import-in-code` (soft).

use std::collections::HashSet;

use pulldown_cmark::{Event, Parser};

use crate::rules::repo::Ctx;
use crate::rules::{Diagnostic, declare_rule};
use crate::text::{frontmatter, markdown};

declare_rule! {
    /// ## What it does
    /// Flags an `@path` inside a code span that names an existing file. A fenced or indented
    /// code block is left alone: a block of `@path` lines is how people show the import syntax
    /// on purpose.
    ///
    /// ## Why it matters
    /// The client never imports from code: `` `@docs/api.md` `` and fenced blocks are skipped.
    /// An author who wraps an import in backticks to make it stand out gets the literal text
    /// and not the file.
    ///
    /// ## Example
    /// ```markdown
    /// Read `@docs/api.md` before changing the API.
    /// ```
    ///
    /// ## Fix
    /// Write the import outside the backticks to load the file; if the code is meant as an
    /// example, silence the finding with `<!-- ccmem-ignore: import-in-code -->`.
    pub const RULE = ("import-in-code", Soft, check);
}

fn check(ctx: &Ctx, out: &mut Vec<Diagnostic>) {
    let mut files: Vec<String> = ctx
        .repo
        .instructions
        .iter()
        .map(|f| ctx.abs(&f.rel))
        .collect();
    for s in ctx.sessions {
        files.extend(
            s.session
                .entries
                .iter()
                .filter(|e| ctx.repo.rel(&e.path).is_some())
                .map(|e| e.path.clone()),
        );
    }
    let mut seen = HashSet::new();
    let home = ctx.home();
    for abs in files.into_iter().filter(|f| f.ends_with(".md")) {
        if !seen.insert(abs.clone()) {
            continue;
        }
        let Some(text) = ctx.text(&abs) else {
            continue;
        };
        if !text.contains('@') {
            continue;
        }
        let split = frontmatter::split(&text);
        let accepted: HashSet<usize> = markdown::imports(split.body)
            .into_iter()
            .map(|r| r.offset)
            .collect();
        let code = code_ranges(split.body);
        let Ok(real) = std::fs::canonicalize(&abs) else {
            continue;
        };
        let real = real.to_string_lossy();
        for c in code.iter().flat_map(|r| in_code(split.body, r.clone())) {
            if accepted.contains(&c.offset) {
                continue;
            }
            let target =
                crate::load::instructions::imports::resolve(ctx.platform(), &c.path, &real, &home);
            if !std::path::Path::new(&target).is_file() {
                continue;
            }
            let start = split.body_start + c.offset;
            let end = start + 1 + c.path.len();
            out.push(ctx.finding_at(
                &RULE,
                &abs,
                start..end.min(text.len()),
                format!("`@{}` is inside code, so it is not imported, though {} exists", c.path, ctx.repo.show(&target)),
                "write it outside the backticks to import the file (or silence this if it is an example)".into(),
            ));
        }
    }
}

/// The `@path` candidates of one code range, read as plain text (backticks as spaces, so an
/// `@` right after the opening backtick counts), offsets in the body.
fn in_code(body: &str, range: std::ops::Range<usize>) -> Vec<markdown::ImportRef> {
    let plain = body[range.clone()].replace('`', " ");
    let mut found = markdown::candidates(&plain);
    for c in &mut found {
        c.offset += range.start;
    }
    found
}

/// Byte ranges of code spans (CommonMark, for naming the context only: the
/// client's own lexer decides what is imported).
fn code_ranges(body: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for (event, range) in Parser::new(body).into_offset_iter() {
        if let Event::Code(_) = event {
            out.push(range);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::rules::repo::testing::Fixture;

    #[test]
    fn spans_naming_files_not_example_blocks() {
        let f = Fixture::new(&[
            (
                "CLAUDE.md",
                "Read `@docs/api.md` first.\n\n```\n@docs/api.md\n```\n\n`@docs/none.md`\n",
            ),
            ("docs/api.md", "api\n"),
        ]);
        assert_eq!(f.found("import-in-code"), [("CLAUDE.md".to_owned(), 1)]);
    }

    #[test]
    fn near_miss_a_real_import() {
        let f = Fixture::new(&[
            ("CLAUDE.md", "Read @docs/api.md first.\n"),
            ("docs/api.md", "api\n"),
        ]);
        assert!(f.found("import-in-code").is_empty());
    }
}
