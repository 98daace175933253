//! JavaScript string semantics the client relies on: `String.prototype.trim`, `.length` in
//! UTF-16 code units, `JSON.stringify` of a string, and the compact number format of its
//! messages.

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

/// A count as the client's messages print it (`tu`: `Intl.NumberFormat("en-US", {notation:
/// "compact", maximumFractionDigits: 1})`, with one fraction digit from 1,000 on, lower-cased):
/// `999`, `1.0k`, `1.1k` for 1,050 (halves round away from zero), `150.0k`, and `1.0m` for
/// 999,950 (rounding carries into the next unit).
pub fn compact(n: u64) -> String {
    if n < 1000 {
        return n.to_string();
    }
    const UNITS: [(u64, char); 4] = [
        (1_000, 'k'),
        (1_000_000, 'm'),
        (1_000_000_000, 'b'),
        (1_000_000_000_000, 't'),
    ];
    let (tenths, suffix) = UNITS
        .iter()
        .map(|&(unit, s)| (n.saturating_add(unit / 20) / (unit / 10), s))
        .find(|&(tenths, s)| tenths < 10_000 || s == 't')
        .unwrap_or((n, 't'));
    format!("{}.{}{suffix}", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors printed by the client's `tu` inside its own runtime (2.1.332).
    #[test]
    fn compact_matches_the_clients_tu() {
        let vectors = [
            (0, "0"),
            (1, "1"),
            (999, "999"),
            (1000, "1.0k"),
            (1049, "1.0k"),
            (1050, "1.1k"),
            (1234, "1.2k"),
            (1950, "2.0k"),
            (9999, "10.0k"),
            (12345, "12.3k"),
            (40000, "40.0k"),
            (99949, "99.9k"),
            (99950, "100.0k"),
            (123456, "123.5k"),
            (150000, "150.0k"),
            (206000, "206.0k"),
            (999949, "999.9k"),
            (999950, "1.0m"),
            (999999, "1.0m"),
            (1049999, "1.0m"),
            (1050000, "1.1m"),
            (1234567, "1.2m"),
            (2097152, "2.1m"),
            (12345678, "12.3m"),
            (999999999, "1.0b"),
            (1234567890, "1.2b"),
        ];
        for (n, want) in vectors {
            assert_eq!(compact(n), want, "{n}");
        }
    }

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
