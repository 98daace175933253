//! Text as the client sees it: JavaScript string semantics (UTF-16 units, `trim`),
//! frontmatter and HTML-comment stripping, the Markdown scan for `@imports`, the MEMORY.md cut
//! and its warning, and sanitizing. Offsets inside Rust are byte offsets; UTF-16 counts are
//! always named `utf16_*`.

pub mod comments;
pub mod cut;
pub mod escape;
pub mod frontmatter;
pub(crate) mod inline;
pub mod js;
pub mod lexer;
pub mod links;
pub mod markdown;
pub mod path;
pub mod sanitize;

/// Byte offset and text (without the newline) of 1-based line `n`.
pub fn line_at(text: &str, n: usize) -> Option<(usize, &str)> {
    let mut start = 0;
    for (k, l) in text.split_inclusive('\n').enumerate() {
        if k + 1 == n {
            return Some((start, l.trim_end_matches(['\n', '\r'])));
        }
        start += l.len();
    }
    None
}

/// The 1-based line holding byte `offset` of `text`.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..end]).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_found_by_number() {
        assert_eq!(line_at("a\nbc\r\nd", 2), Some((2, "bc")));
        assert_eq!(line_at("a\n", 2), None);
    }
}
