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
    // Every character is one unit (`chars().count()` counts a word of bytes at a time) and a
    // 4-byte one (lead byte 0xF0..=0xF4) is a surrogate pair, one more.
    s.chars().count() + count_bytes(s.as_bytes(), high_nibble_is_f, |b| b >= 0xF0)
}

/// `String::from_utf8_lossy` (invalid sequences become U+FFFD) that checks valid text with the
/// fast validator first: the lossy decoder walks a byte at a time even when nothing is
/// invalid, and MEMORY.md is decoded on every start.
pub fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The number of `\n` in `s` (the client's line count is this + 1), a word at a time.
pub fn newlines(s: &str) -> usize {
    count_bytes(
        s.as_bytes(),
        |w| zero_bytes(w ^ (LOW_BITS * u64::from(b'\n'))),
        |b| b == b'\n',
    )
}

/// 0x0101…01: one in the low bit of every byte of a word.
const LOW_BITS: u64 = u64::from_ne_bytes([1; 8]);

/// Counts the bytes of `bytes` that `byte` accepts, eight at a time with `word` (which counts
/// them in one native-endian word), the tail one by one. Index texts are read on every start,
/// and a byte at a time was the loader's hottest loop.
fn count_bytes(bytes: &[u8], word: impl Fn(u64) -> u32, byte: impl Fn(u8) -> bool) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut n = 0usize;
    for c in &mut chunks {
        let w = u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        n += word(w) as usize;
    }
    n + chunks.remainder().iter().filter(|&&b| byte(b)).count()
}

/// How many bytes of `w` are zero (exact: no carry crosses a byte).
fn zero_bytes(w: u64) -> u32 {
    let high = LOW_BITS * 0x80;
    let low7 = LOW_BITS * 0x7F;
    // The high bit of each byte is set when the byte is non-zero.
    let nonzero = ((w & low7) + low7) | w;
    8 - (nonzero & high).count_ones()
}

/// How many bytes of `w` are 0xF0 or more.
fn high_nibble_is_f(w: u64) -> u32 {
    // A byte is >= 0xF0 exactly when its high nibble is all ones.
    let nibbles = (w >> 4) & (LOW_BITS * 0x0F);
    zero_bytes(nibbles ^ (LOW_BITS * 0x0F))
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
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn word_at_a_time_counts_agree_with_the_plain_ones(
            s in "(\\PC|\n|\u{10000}|\u{10FFFF}|\u{F000}|\u{FFFF}){0,40}"
        ) {
            prop_assert_eq!(utf16_len(&s), s.encode_utf16().count());
            prop_assert_eq!(newlines(&s), s.matches('\n').count());
        }
    }

    #[test]
    fn counts_at_word_edges() {
        for n in 0..20 {
            let s = "\n".repeat(n) + &"😀".repeat(n) + &"é".repeat(n);
            assert_eq!(utf16_len(&s), s.encode_utf16().count(), "{n}");
            assert_eq!(newlines(&s), n);
        }
    }

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
