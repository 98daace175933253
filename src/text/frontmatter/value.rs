//! The value a frontmatter block becomes in the client: a JavaScript value as `Bun.YAML.parse`
//! builds it. Two JavaScript rules shape it and are kept here:
//! - an object's own keys are ordered as the engine orders them (`OrdinaryOwnPropertyKeys`):
//!   array-index keys (`"0"` … `"4294967294"`) first, ascending, then the other keys in the
//!   order they were first set; setting a key again keeps its place;
//! - mapping keys are strings: a number key is written as JavaScript writes numbers
//!   (`Number::toString`: `1e+21`, `Infinity`, `0.1`), an array key as its elements joined
//!   with `,`, an object key as `[object Object]`.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

mod object;

pub use object::Object;

/// A JavaScript value as the client's YAML parser returns it.
///
/// Arrays and objects are shared, as in the client: an alias is the very collection its anchor
/// names (`Bun.YAML.parse` hands every alias the same object), so cloning one is a reference
/// count, and a value can name far more nodes than it holds (an alias bomb of a few hundred bytes
/// names millions; [`super::yaml`] caps them as Bun does). Whatever walks a value whole must
/// therefore be bounded by what it holds, not by what it names: [`Value::write_json`] stops at a
/// length, [`Value::key`] measures before it builds.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (also an empty document or an empty value).
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number (an IEEE double: `NaN`, `±Infinity` and `-0` included).
    Number(f64),
    /// A string.
    String(String),
    /// An array (a sequence, or the documents of a multi-document stream).
    Array(Arc<Vec<Value>>),
    /// An object (a mapping).
    Object(Arc<Object>),
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(Arc::new(items))
    }
}

impl From<Object> for Value {
    fn from(object: Object) -> Self {
        Value::Object(Arc::new(object))
    }
}

/// Longest key made from an array that is kept as its text, in bytes. A longer one (only an
/// alias or a huge flow collection used as a key makes one) is kept as [`Key::Long`]'s stand-in:
/// no key the client or ccmem looks up is that long, and two long keys are one key exactly when
/// their texts are equal (up to a 64-bit hash), so what a mapping keeps stays the client's.
pub const KEY_TEXT_MAX_BYTES: u64 = 1024;

/// JavaScript's longest string, in UTF-16 units (JavaScriptCore's `String::MaxLength`,
/// 2³¹ − 1): the client fails to make a longer key with `RangeError: Out of memory` (measured:
/// a 656-million-unit key is made, in 18 s and 5 GB; a 5.9-billion-unit one fails).
pub const JS_MAX_STRING_UTF16: u64 = (1 << 31) - 1;

/// The object key a value becomes (`String(value)`), measured before it is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Key {
    /// The key's text.
    Text(String),
    /// A key longer than [`KEY_TEXT_MAX_BYTES`]: a stand-in naming its length and the hash of
    /// its text (a noncharacter first, so it equals no key written in a file).
    Long(String),
    /// Longer than JavaScript allows ([`JS_MAX_STRING_UTF16`]).
    TooLong,
}

/// The measure of a key's text: its UTF-8 and UTF-16 lengths and a polynomial hash of its bytes
/// (`hash = Σ b·B^k`, `pow = B^len`, all mod 2⁶⁴), which two texts joined combine without
/// building the joined text.
#[derive(Debug, Clone, Copy)]
struct Measure {
    bytes: u64,
    utf16: u64,
    hash: u64,
    pow: u64,
}

const HASH_BASE: u64 = 0x0000_0100_0000_01b3;

impl Measure {
    const EMPTY: Measure = Measure {
        bytes: 0,
        utf16: 0,
        hash: 0,
        pow: 1,
    };

    fn of(text: &str) -> Measure {
        let (hash, pow) = text.bytes().fold((0u64, 1u64), |(h, p), b| {
            (
                h.wrapping_mul(HASH_BASE).wrapping_add(u64::from(b)),
                p.wrapping_mul(HASH_BASE),
            )
        });
        Measure {
            bytes: text.len() as u64,
            utf16: crate::text::js::utf16_len(text) as u64,
            hash,
            pow,
        }
    }

    fn then(self, next: Measure) -> Measure {
        Measure {
            bytes: self.bytes.saturating_add(next.bytes),
            utf16: self.utf16.saturating_add(next.utf16),
            hash: self.hash.wrapping_mul(next.pow).wrapping_add(next.hash),
            pow: self.pow.wrapping_mul(next.pow),
        }
    }
}

/// What [`Value::key`] has measured of shared arrays, by address: a parse keeps one for all its
/// keys, so each array is measured once however often aliases name it. The memo holds each
/// array it measured, so no other array can be at that address while it lives.
#[derive(Debug, Default)]
pub struct KeyMemo(HashMap<usize, (Arc<Vec<Value>>, Measure)>);

/// `String({})`.
const OBJECT_KEY: &str = "[object Object]";

impl Value {
    /// The string, when the value is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The object, when the value is one.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(o) => Some(o),
            _ => None,
        }
    }

    /// JavaScript truthiness (`false`, `0`, `-0`, `NaN`, `""` and `null` are falsy).
    pub fn is_truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Number(n) => *n != 0.0 && !n.is_nan(),
            Value::String(s) => !s.is_empty(),
            Value::Array(_) | Value::Object(_) => true,
        }
    }

    /// `String(value)` as the engine writes it when the value becomes an object key: an array
    /// is its elements joined with `,` (`null` elements empty), an object `[object Object]`.
    /// A key too long to keep is its [`Key::Long`] stand-in.
    pub fn to_key(&self) -> String {
        match self.key(&mut KeyMemo::default()) {
            Key::Text(s) | Key::Long(s) => s,
            Key::TooLong => "\u{FDD1}too long".to_owned(),
        }
    }

    /// [`Value::to_key`], measured first: what is built is at most [`KEY_TEXT_MAX_BYTES`], and
    /// the work is the arrays `memo` has not measured yet.
    pub fn key(&self, memo: &mut KeyMemo) -> Key {
        match self {
            Value::Null => Key::Text("null".to_owned()),
            Value::Bool(b) => Key::Text(b.to_string()),
            Value::Number(n) => Key::Text(js_number(*n)),
            Value::String(s) => Key::Text(s.clone()),
            Value::Object(_) => Key::Text(OBJECT_KEY.to_owned()),
            Value::Array(_) => {
                let m = self.measure(memo);
                if m.utf16 > JS_MAX_STRING_UTF16 {
                    Key::TooLong
                } else if m.bytes > KEY_TEXT_MAX_BYTES {
                    Key::Long(format!("\u{FDD1}{} bytes #{:016x}", m.bytes, m.hash))
                } else {
                    let mut out = String::with_capacity(m.bytes as usize);
                    self.join_into(&mut out);
                    Key::Text(out)
                }
            }
        }
    }

    /// The measure of the value's text as an element of a joined array (`null` is empty).
    fn measure(&self, memo: &mut KeyMemo) -> Measure {
        match self {
            Value::Null => Measure::EMPTY,
            Value::Bool(b) => Measure::of(if *b { "true" } else { "false" }),
            Value::Number(n) => Measure::of(&js_number(*n)),
            Value::String(s) => Measure::of(s),
            Value::Object(_) => Measure::of(OBJECT_KEY),
            Value::Array(items) => {
                let at = Arc::as_ptr(items) as usize;
                if let Some((_, m)) = memo.0.get(&at) {
                    return *m;
                }
                let comma = Measure::of(",");
                let mut m = Measure::EMPTY;
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        m = m.then(comma);
                    }
                    m = m.then(item.measure(memo));
                }
                memo.0.insert(at, (Arc::clone(items), m));
                m
            }
        }
    }

    fn join_into(&self, out: &mut String) {
        match self {
            Value::Null => {}
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => out.push_str(&js_number(*n)),
            Value::String(s) => out.push_str(s),
            Value::Object(_) => out.push_str(OBJECT_KEY),
            Value::Array(items) => {
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    item.join_into(out);
                }
            }
        }
    }

    /// The value as `JSON.stringify` writes it (`NaN` and `±Infinity` become `null`), at most
    /// `max_bytes` of it: a longer text is cut there (on a character boundary) and ends in `…`.
    /// The work is bounded by `max_bytes` too, however many nodes the value names.
    pub fn write_json(&self, max_bytes: usize) -> String {
        let mut out = String::new();
        if !self.json_into(&mut out, max_bytes) {
            let mut cut = max_bytes.min(out.len());
            while !out.is_char_boundary(cut) {
                cut -= 1;
            }
            out.truncate(cut);
            out.push('…');
        }
        out
    }

    /// Appends the JSON text; `false` once `out` is past `max`.
    fn json_into(&self, out: &mut String, max: usize) -> bool {
        if out.len() > max {
            return false;
        }
        let string = |out: &mut String, s: &str| {
            // At most what is left of the room (and a little: the cut is made by the caller).
            let room = max.saturating_sub(out.len()).saturating_add(1);
            let cut = s.char_indices().nth(room).map_or(s.len(), |(at, _)| at);
            out.push_str(&serde_json::Value::from(&s[..cut]).to_string());
        };
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) if n.is_finite() => out.push_str(&js_number(*n)),
            Value::Number(_) => out.push_str("null"),
            Value::String(s) => string(out, s),
            Value::Array(items) => {
                out.push('[');
                for (k, item) in items.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    if !item.json_into(out, max) {
                        return false;
                    }
                }
                out.push(']');
            }
            Value::Object(o) => {
                out.push('{');
                for (k, (key, v)) in o.iter().enumerate() {
                    if k > 0 {
                        out.push(',');
                    }
                    string(out, key);
                    out.push(':');
                    if !v.json_into(out, max) {
                        return false;
                    }
                }
                out.push('}');
            }
        }
        out.len() <= max
    }
}

/// `Number::toString(10)` (ECMA-262 §6.1.6.1.20): the shortest digits that read back as `n`,
/// in fixed notation for exponents −7 < e < 21 and `1.5e+21` style otherwise.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".to_owned();
    }
    if n == 0.0 {
        return "0".to_owned();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    // Rust's `{:e}` prints the shortest round-trip digits: `d.ddde±x`.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let e: i32 = exp.parse().unwrap_or(0);
    let point = e + 1; // `n` in the spec: the decimal point sits after `point` digits
    if k <= point && point <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_javascript_writes_them() {
        for (n, s) in [
            (1.0, "1"),
            (-0.0, "0"),
            (0.1, "0.1"),
            (1500.0, "1500"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-6, "0.000001"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (f64::NAN, "NaN"),
            (18446744073709552000.0, "18446744073709552000"),
            (1.2345678901234568e29, "1.2345678901234568e+29"),
        ] {
            assert_eq!(js_number(n), s, "{n}");
        }
    }

    #[test]
    fn keys_from_non_strings() {
        let arr = Value::from(vec![
            Value::Number(1.0),
            Value::Null,
            Value::from(vec![Value::Bool(true), Value::String("x".into())]),
        ]);
        assert_eq!(arr.to_key(), "1,,true,x");
        assert_eq!(Value::from(Object::new()).to_key(), "[object Object]");
        assert_eq!(Value::Number(f64::INFINITY).to_key(), "Infinity");
    }

    /// An array naming ten levels of nine copies of the one below: 3.5 billion elements in
    /// a value of eleven arrays.
    fn bomb(levels: usize, leaf: &str) -> Value {
        let mut v = Value::from(vec![Value::String(leaf.to_owned())]);
        for _ in 0..levels {
            v = Value::from(vec![v; 9]);
        }
        v
    }

    #[test]
    fn long_keys_are_measured_not_built() {
        let mut memo = KeyMemo::default();
        // 9^5 "ab" joined: 59,049 · 2 + 59,048 commas.
        let Key::Long(k) = bomb(5, "ab").key(&mut memo) else {
            panic!("a long key")
        };
        assert_eq!(k.split(" bytes").next(), Some("\u{FDD1}177146"));
        // The same text reached another way is the same key; another text another key.
        let flat = Value::from(vec![Value::String(vec!["ab"; 59_049].join(","))]);
        assert_eq!(flat.key(&mut memo), Key::Long(k.clone()));
        assert_ne!(bomb(5, "ac").key(&mut memo), Key::Long(k));
        // 9^10 · 4 units: more than JavaScript's longest string.
        assert_eq!(bomb(10, "abc").key(&mut memo), Key::TooLong);
        // At the cut, the text is kept.
        let at = Value::from(vec![Value::String("x".repeat(1024))]);
        assert_eq!(at.key(&mut memo), Key::Text("x".repeat(1024)));
    }

    #[test]
    fn json_of_a_value_naming_billions_is_cut_at_its_length() {
        let json = bomb(10, "abc").write_json(100);
        assert!(json.starts_with("[[[[[[[[[[[\"abc\"],[\"abc\"]"), "{json}");
        assert!(
            json.ends_with('…') && json.len() <= 100 + '…'.len_utf8(),
            "{json}"
        );
        let mut o = Object::new();
        o.set("k".into(), Value::Number(f64::NAN));
        o.set("s".into(), Value::String("é\"".into()));
        assert_eq!(Value::from(o).write_json(100), r#"{"k":null,"s":"é\""}"#);
    }
}
