//! Frontmatter removal with the client's loose regex (`qd()` in chunk-757mw3zq):
//!
//! ```js
//! let g = e; e = eC(e);                       // one leading U+FEFF removed
//! let h = e.indexOf("---", 3) < 0 ? null : e.match(/^---\s*\n([\s\S]*?)---\s*\n?/);
//! if (!h) return { content: g };              // the ORIGINAL text, BOM included
//! return { yaml: h[1], content: e.slice(h[0].length) };
//! ```
//!
//! The regex is evaluated by hand with JavaScript backtracking semantics (`\s` is JS
//! whitespace, which includes U+FEFF, U+00A0, U+2028 …):
//! - after the opening `---`, the greedy `\s*\n` ends at the LAST `\n` of the whitespace run
//!   that follows (no `\n` in that run → no match);
//! - the lazy group runs to the first `---` at or after that point (none → no match; a
//!   shorter `\s*` cannot help because the skipped characters are all whitespace);
//! - the trailing `\s*\n?` eats every whitespace character after the closing `---`.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use crate::text::js::is_js_space;

/// The closing `---` (memchr's searcher, built once: `str::find` sets up a two-way search on
/// every call).
static FENCE: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("---"));

/// The result of stripping: the YAML text (if any) and the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split<'a> {
    /// The text between the fences, when a frontmatter block was removed.
    pub yaml: Option<&'a str>,
    /// Byte offset in the input where the body starts.
    pub body_start: usize,
    /// The body (always `&text[body_start..]`).
    pub body: &'a str,
}

/// Splits `text` as the client does (one leading U+FEFF removed first when a block matches).
pub fn split(text: &str) -> Split<'_> {
    let unmatched = Split {
        yaml: None,
        body_start: 0,
        body: text,
    };
    let bom = if text.starts_with('\u{FEFF}') {
        '\u{FEFF}'.len_utf8()
    } else {
        0
    };
    let e = &text[bom..];
    // `e.indexOf("---", 3) < 0` needs no search of its own: the regex can match only when `e`
    // starts with `---`, and then only with a closing `---` after the opener's newline, past
    // index 3 (the first three units are ASCII, so index 3 is byte 3 too).
    if !e.starts_with("---") {
        return unmatched;
    }
    let after_open = &e[3..];
    let run_len = after_open
        .find(|c: char| !is_js_space(c))
        .unwrap_or(after_open.len());
    let Some(last_nl) = after_open[..run_len].rfind('\n') else {
        return unmatched;
    };
    let yaml_start = 3 + last_nl + 1;
    let Some(close_rel) = FENCE.find(&e.as_bytes()[yaml_start..]) else {
        return unmatched;
    };
    let yaml_end = yaml_start + close_rel;
    let rest = &e[yaml_end + 3..];
    let trailing = rest.len() - rest.trim_start_matches(is_js_space).len();
    let body_start = bom + yaml_end + 3 + trailing;
    Split {
        yaml: Some(&e[yaml_start..yaml_end]),
        body_start,
        body: &text[body_start..],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(t: &str) -> &str {
        split(t).body
    }

    #[test]
    fn strips_basic_block() {
        let s = split("---\nname: x\n---\nbody\n");
        assert_eq!(s.yaml, Some("name: x\n"));
        assert_eq!(s.body, "body\n");
        assert_eq!(s.body_start, 16);
    }

    #[test]
    fn bom_and_crlf() {
        let t = "\u{feff}---\r\nname: x\r\n---\r\nbody\r\n";
        let s = split(t);
        assert_eq!(s.yaml, Some("name: x\r\n"));
        assert_eq!(s.body, "body\r\n");
        assert_eq!(&t[s.body_start..], s.body);
    }

    #[test]
    fn unmatched_keeps_original_text_with_bom() {
        let t = "\u{feff}---\nname: x\n";
        assert_eq!(
            split(t),
            Split {
                yaml: None,
                body_start: 0,
                body: t
            }
        );
        assert_eq!(body("\u{feff}hello ---"), "\u{feff}hello ---");
    }

    #[test]
    fn closing_midline_and_trailing_text() {
        assert_eq!(body("---\nname: a---b\nrest"), "b\nrest");
        assert_eq!(split("---\nname: a---b\n").yaml, Some("name: a"));
        assert_eq!(body("---\na: 1\n--- trailing\nx"), "trailing\nx");
    }

    #[test]
    fn not_at_start_or_four_dashes_or_unterminated() {
        assert_eq!(body("\n---\na: 1\n---\nx"), "\n---\na: 1\n---\nx");
        assert_eq!(body(" ---\na: 1\n---\nx"), " ---\na: 1\n---\nx");
        assert_eq!(
            body("<!-- c -->\n---\na\n---\nx"),
            "<!-- c -->\n---\na\n---\nx"
        );
        assert_eq!(body("----\na: 1\n---\nx"), "----\na: 1\n---\nx");
        assert_eq!(body("---\na: 1\n...\nx"), "---\na: 1\n...\nx");
    }

    #[test]
    fn three_rules() {
        assert_eq!(body("---\n---\n---\n- a"), "---\n- a");
        assert_eq!(split("---\n---\n---\n- a").yaml, Some(""));
    }

    #[test]
    fn opener_needs_newline_in_its_whitespace_run() {
        assert_eq!(body("--- x\n---\ny"), "--- x\n---\ny");
        assert_eq!(body("---   \t\n---\ny"), "y");
        // The opener run ends at its last newline; spaces before the closing `---` belong to
        // the YAML; blank lines after the closing fence are eaten by the trailing `\s*`.
        let s = split("---\n\n  ---\n\n\n  # T");
        assert_eq!(s.yaml, Some("  "));
        assert_eq!(s.body, "# T");
        // The close can sit on the opener's line run only after a newline.
        assert_eq!(split("---\n\n---x").body, "x");
    }

    #[test]
    fn unicode_whitespace_counts_as_js_space() {
        // U+2028 and U+00A0 are `\s` in JavaScript; U+0085 is not.
        assert_eq!(body("---\u{a0}\n---\u{2028}\u{3000}x"), "x");
        assert_eq!(body("---\u{85}\n---\nx"), "---\u{85}\n---\nx");
        // A leading U+FEFF counts once; a second one is whitespace only after the opener.
        assert_eq!(
            body("\u{feff}\u{feff}---\n---\nx"),
            "\u{feff}\u{feff}---\n---\nx"
        );
        assert_eq!(body("\u{feff}---\u{feff}\n---\nx"), "x");
    }

    #[test]
    fn index_of_from_three() {
        // `---` must occur at index >= 3 of the BOM-stripped text; the opener alone does not count.
        assert_eq!(body("---\n"), "---\n");
        assert_eq!(body("---\n--"), "---\n--");
        assert_eq!(body("------\nx"), "------\nx");
    }
}
