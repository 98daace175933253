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

/// The 1-based line holding byte `offset` of `text`. It counts the line breaks before `offset`:
/// for many offsets in one text, build a [`LineIndex`] once.
pub fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..end]).count() + 1
}

/// The line breaks of a text, found once: [`LineIndex::line_of`] is then a binary search, so a
/// file with a hundred thousand imports or findings is read for its lines once, not once each.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    /// Byte offsets of every `\n`, ascending.
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        }
    }

    /// [`line_of`] the indexed text: the 1-based line holding byte `offset` (past the end, the
    /// last line).
    pub fn line_of(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&n| n < offset) + 1
    }

    /// [`line_at`] the indexed `text`: the byte offset and text (without the newline) of 1-based
    /// line `n`.
    pub fn line<'t>(&self, text: &'t str, n: usize) -> Option<(usize, &'t str)> {
        let start = match n {
            0 => return None,
            1 => 0,
            _ => self.newlines.get(n - 2)? + 1,
        };
        if start >= text.len() {
            return None;
        }
        let end = self.newlines.get(n - 1).map_or(text.len(), |&e| e + 1);
        Some((start, text[start..end].trim_end_matches(['\n', '\r'])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_the_line_line_of_counts() {
        for text in ["", "a", "\n", "a\nbc\r\nd", "\n\nx\n", "日本\n語\n"] {
            let index = LineIndex::new(text);
            for offset in 0..text.len() + 3 {
                assert_eq!(
                    index.line_of(offset),
                    line_of(text, offset),
                    "{text:?} {offset}"
                );
            }
            for n in 0..6 {
                assert_eq!(index.line(text, n), line_at(text, n), "{text:?} {n}");
            }
        }
    }

    #[test]
    fn lines_are_found_by_number() {
        assert_eq!(line_at("a\nbc\r\nd", 2), Some((2, "bc")));
        assert_eq!(line_at("a\n", 2), None);
    }
}
