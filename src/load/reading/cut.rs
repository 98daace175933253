//! The size cut of a lazily attached file (`Wvt` limit, `Ics` text).
//!
//! A non-managed file whose trimmed content is longer than the limit (UTF-16 units) is cut at
//! the last newline at or before the limit and gets a tail telling the model how to read the
//! rest. The limit is `max(40,000, context window × 0.05 × chars-per-token)`; for the client's
//! default model in 2.1.332 (1M-token window, 3 chars per token) it is 150,000, measured with a
//! 208,000-character nested CLAUDE.md cut after 149,967 characters.

use crate::text::js;

/// The tail the client appends right after the kept part (`xtt`).
const NOTICE: &str = "\n\n> Only the start of this file is shown.";

/// The attached content of `content` (already processed), or `None` when it is not cut.
pub(super) fn cut(content: &str, path: &str, limit_utf16: usize) -> Option<String> {
    let text = js::trim(content);
    if js::utf16_len(text) <= limit_utf16 {
        return None;
    }
    let newline = last_newline_at_or_before(text, limit_utf16).filter(|&i| i > 0);
    let kept = &text[..newline.unwrap_or_else(|| byte_at_utf16(text, limit_utf16))];
    let offset = match newline {
        Some(_) => kept.matches('\n').count() + 2,
        None => 1,
    };
    Some(format!(
        "{kept}{NOTICE} For the rest, call Read on {path} with offset={offset} and a limit."
    ))
}

/// `lastIndexOf("\n", limit)` as a byte offset.
fn last_newline_at_or_before(text: &str, limit_utf16: usize) -> Option<usize> {
    let upto = byte_at_utf16(text, limit_utf16 + 1);
    text[..upto].rfind('\n')
}

/// The byte offset of UTF-16 unit `n` (not splitting a character).
fn byte_at_utf16(text: &str, n: usize) -> usize {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > n {
            return i;
        }
        units += c.len_utf16();
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_content_is_not_cut() {
        assert_eq!(cut("  abc\n", "/p", 3), None);
    }

    #[test]
    fn cut_at_last_newline_with_read_offset() {
        let text: String = (0..4000)
            .map(|i| format!("line {i:05} {}\n", "x".repeat(40)))
            .collect();
        let got = cut(
            &text,
            "/r/a/CLAUDE.md",
            crate::constants::LAZY_FILE_LIMIT_UTF16,
        )
        .unwrap();
        assert!(got.contains("line 02883 "));
        assert!(!got.contains("line 02884 "));
        assert!(got.ends_with(
            "x\n\n> Only the start of this file is shown. For the rest, call Read on /r/a/CLAUDE.md with offset=2885 and a limit."
        ));
    }

    #[test]
    fn no_newline_cuts_at_the_limit() {
        let got = cut("abcdefgh", "/p", 4).unwrap();
        assert!(got.starts_with("abcd\n\n> Only"));
        assert!(got.ends_with("offset=1 and a limit."));
    }
}
