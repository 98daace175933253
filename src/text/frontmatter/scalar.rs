//! What a scalar becomes in `Bun.YAML.parse` (the client's YAML parser, Bun 1.4.6): YAML 1.2's
//! core schema with Bun's own edges, found by running the client's runtime on ~14,000 candidate
//! scalars (fuzz/oracle/frontmatter_oracle.js):
//! - null: `null`, `Null`, `NULL`, `~`, empty; booleans: `true`/`True`/`TRUE`,
//!   `false`/`False`/`FALSE` only (`yes`, `on`, `y` are strings);
//! - numbers: decimal `[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?` (leading zeros allowed: `012`
//!   is 12; out of range is `±Infinity`); `[-+]?0x[0-9a-fA-F]+` and `[-+]?0o[0-7]+` (a sign
//!   is allowed, unlike the core schema; lower-case `x`/`o` only) while the magnitude fits in
//!   64 bits, a string beyond; `[-+]?.inf`/`.Inf`/`.INF`, `.nan`/`.NaN`/`.NAN` (no sign).
//!   `1_000`, `0b1`, `0X1F`, dates and times stay strings (no timestamps);
//! - quoted and block scalars are always strings;
//! - tags go by their name after `!` or `!!` (`!int` is `!!int`): `str` makes a string of
//!   anything (an empty one is `""`); `int`, `float`, `bool`, `null` change nothing
//!   (`!!int x` is `"x"`, `!!null x` is `"x"`); any other tag (`!foo`, `!`, `!!binary`, a
//!   verbatim `!<tag:yaml.org,2002:int>`, a named handle) makes a string, except an empty
//!   scalar, which stays `null`. Tags on collections change nothing.

use granit_parser::{ScalarStyle, Tag};

use super::value::Value;

/// The value of a scalar with its style and tag.
pub(super) fn resolve(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    let name = tag.map(|t| match t.original_handle() {
        // Bun goes by the name after `!` or `!!`: `!int 3` is 3 like `!!int 3`, while a
        // verbatim `!<tag:yaml.org,2002:int>` or a named handle is just another tag.
        "!" | "!!" => t.suffix(),
        _ => "",
    });
    if name == Some("str") || style != ScalarStyle::Plain {
        return Value::String(text.to_owned());
    }
    match name {
        None | Some("int" | "float" | "bool" | "null") => plain(text),
        Some(_) if text.is_empty() => Value::Null,
        Some(_) => Value::String(text.to_owned()),
    }
}

/// What a plain scalar with no tag is, without copying its text.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Plain {
    /// `null`, `~`, empty.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number.
    Number(f64),
    /// Anything else: the scalar's text is a string.
    Text,
}

/// Classifies a plain scalar with no tag.
pub(super) fn classify(text: &str) -> Plain {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Plain::Null,
        "true" | "True" | "TRUE" => return Plain::Bool(true),
        "false" | "False" | "FALSE" => return Plain::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Plain::Number(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Plain::Number(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Plain::Number(f64::NAN),
        _ => {}
    }
    number(text).map_or(Plain::Text, Plain::Number)
}

/// A plain scalar with no tag.
pub(super) fn plain(text: &str) -> Value {
    match classify(text) {
        Plain::Null => Value::Null,
        Plain::Bool(b) => Value::Bool(b),
        Plain::Number(n) => Value::Number(n),
        Plain::Text => Value::String(text.to_owned()),
    }
}

fn number(text: &str) -> Option<f64> {
    let (negative, unsigned) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let radix = |prefix: &str, radix: u32| -> Option<Option<f64>> {
        let digits = unsigned.strip_prefix(prefix)?;
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return Some(None);
        }
        // Beyond 64 bits the scalar is a string.
        Some(u64::from_str_radix(digits, radix).ok().map(|n| n as f64))
    };
    let magnitude = if let Some(n) = radix("0x", 16) {
        n?
    } else if let Some(n) = radix("0o", 8) {
        n?
    } else {
        if !is_decimal(unsigned) {
            return None;
        }
        unsigned.parse::<f64>().ok()?
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?`
fn is_decimal(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |mut i: usize| {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        (i, i - start)
    };
    let (mut i, int_digits) = digits(0);
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        (i, frac_digits) = digits(i + 1);
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let (end, exp_digits) = digits(i);
        if exp_digits == 0 {
            return false;
        }
        i = end;
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Option<f64> {
        match plain(s) {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(n("012"), Some(12.0));
        assert_eq!(n("-0x1f"), Some(-31.0));
        assert_eq!(n("+0o17"), Some(15.0));
        assert_eq!(n("1."), Some(1.0));
        assert_eq!(n(".5"), Some(0.5));
        assert_eq!(n("1e400"), Some(f64::INFINITY));
        assert_eq!(n("0xFFFFFFFFFFFFFFFF"), Some(18446744073709551615.0));
        assert!(n("-0").is_some_and(|z| z == 0.0 && z.is_sign_negative()));
        for s in [
            "0X1F",
            "0x",
            "0o8",
            "1_000",
            "0b1",
            "1e",
            "e1",
            ".",
            "+",
            "0x10000000000000000",
            ".iNf",
            "-.nan",
            "inf",
            "1,000",
            "12:30",
            "2026-01-02",
        ] {
            assert_eq!(plain(s), Value::String(s.to_owned()), "{s}");
        }
    }

    #[test]
    fn words() {
        assert_eq!(plain("True"), Value::Bool(true));
        assert_eq!(plain("FALSE"), Value::Bool(false));
        assert_eq!(plain("~"), Value::Null);
        for s in ["yes", "on", "y", "tRue", "nULL"] {
            assert_eq!(plain(s), Value::String(s.to_owned()));
        }
    }
}
