//! JavaScript string semantics the client relies on: `String.prototype.trim`, `.length` in
//! UTF-16 code units, and `JSON.stringify` of a string.

/// Whether `c` is whitespace for JavaScript's `trim` (WhiteSpace + LineTerminator).
pub fn is_js_space(c: char) -> bool {
    matches!(
        c,
        '\u{9}' | '\u{A}' | '\u{B}' | '\u{C}' | '\u{D}' | ' ' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `String.prototype.trim`.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_js_space)
}

/// `String.prototype.trimEnd`.
pub fn trim_end(s: &str) -> &str {
    s.trim_end_matches(is_js_space)
}

/// `String.prototype.length`: UTF-16 code units.
pub fn utf16_len(s: &str) -> usize {
    // On the UTF-8 bytes (a loop the compiler vectorizes): every byte that starts a character
    // is one unit, and a 4-byte character (a lead byte of 0xF0 or more) is a surrogate pair.
    s.bytes()
        .map(|b| usize::from((b as i8) >= -0x40) + usize::from(b >= 0xF0))
        .sum()
}

/// `JSON.stringify(s)` for a string (the client escapes control characters as `\uXXXX`).
pub fn json_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trim_matches_js() {
        assert_eq!(trim("\u{feff}\u{a0} x \u{2028}\u{3000}"), "x");
        assert_eq!(trim("\u{85}x"), "\u{85}x", "NEL is not JS whitespace");
        assert_eq!(trim_end(" x\t\n"), " x");
    }

    #[test]
    fn utf16_counts_surrogates() {
        assert_eq!(utf16_len("a中😀"), 4);
        assert_eq!(utf16_len("e\u{301}"), 2);
    }

    #[test]
    fn json_quote_escapes_controls() {
        assert_eq!(json_quote("/a\"b\\\u{1}"), "\"/a\\\"b\\\\\\u0001\"");
    }
}
