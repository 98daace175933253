//! Text as the client sees it: JavaScript string semantics (UTF-16 units, `trim`),
//! frontmatter and HTML-comment stripping, the Markdown scan for `@imports`, the MEMORY.md cut
//! and its warning, and sanitizing. Offsets inside Rust are byte offsets; UTF-16 counts are
//! always named `utf16_*`.

pub mod comments;
pub mod cut;
pub mod frontmatter;
pub(crate) mod inline;
pub mod js;
pub mod lexer;
pub mod links;
pub mod markdown;
pub mod sanitize;

/// The 1-based line holding byte `offset` of `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}
