//! The value a frontmatter block becomes in the client: a JavaScript value as `Bun.YAML.parse`
//! builds it. Two JavaScript rules shape it and are kept here:
//! - an object's own keys are ordered as the engine orders them (`OrdinaryOwnPropertyKeys`):
//!   array-index keys (`"0"` … `"4294967294"`) first, ascending, then the other keys in the
//!   order they were first set; setting a key again keeps its place;
//! - mapping keys are strings: a number key is written as JavaScript writes numbers
//!   (`Number::toString`: `1e+21`, `Infinity`, `0.1`), an array key as its elements joined
//!   with `,`, an object key as `[object Object]`.

use std::fmt::Write;

/// A JavaScript value as the client's YAML parser returns it.
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
    Array(Vec<Value>),
    /// An object (a mapping).
    Object(Object),
}

/// An object's own properties, in the engine's key order (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object(Vec<(String, Value)>);

impl Object {
    /// An empty object.
    pub fn new() -> Self {
        Self::default()
    }

    /// `obj[key] = value`: replaces in place, or adds the key where the engine puts it.
    pub fn set(&mut self, key: String, value: Value) {
        if let Some(slot) = self.0.iter_mut().find(|(k, _)| *k == key) {
            slot.1 = value;
            return;
        }
        match array_index(&key) {
            Some(i) => {
                let at = self
                    .0
                    .iter()
                    .position(|(k, _)| array_index(k).is_none_or(|j| j > i))
                    .unwrap_or(self.0.len());
                self.0.insert(at, (key, value));
            }
            None => self.0.push((key, value)),
        }
    }

    /// The value of `key`, if the object has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether the object has `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The properties in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&str, &Value)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// The number of properties.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the object has no property.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(String, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.set(k, v);
        }
        o
    }
}

/// The index of an array-index key: the canonical decimal form of an integer below 2³² − 1.
fn array_index(key: &str) -> Option<u32> {
    if key.is_empty() || key.len() > 10 || (key.len() > 1 && key.starts_with('0')) {
        return None;
    }
    if !key.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    key.parse::<u64>()
        .ok()
        .filter(|&n| n < u64::from(u32::MAX))
        .map(|n| n as u32)
}

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

    /// `String(value)` as the engine writes it when the value becomes an object key.
    pub fn to_key(&self) -> String {
        match self {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => js_number(*n),
            Value::String(s) => s.clone(),
            Value::Array(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|v| match v {
                        Value::Null => String::new(),
                        v => v.to_key(),
                    })
                    .collect();
                parts.join(",")
            }
            Value::Object(_) => "[object Object]".to_owned(),
        }
    }

    /// The value as JSON, as `JSON.stringify` writes it (`NaN` and `±Infinity` become `null`).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => serde_json::Number::from_f64(*n).map_or(J::Null, |n| {
                // `JSON.stringify(1)` is `1`, not `1.0`.
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15)
                    .map_or(J::Number(n), |f| J::from(f as i64))
            }),
            Value::String(s) => J::String(s.clone()),
            Value::Array(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Object(o) => {
                J::Object(o.iter().map(|(k, v)| (k.to_owned(), v.to_json())).collect())
            }
        }
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
    fn array_index_keys_come_first_in_ascending_order() {
        let o: Object = ["b", "10", "a", "2", "4294967295", "4294967294", "01", "-1"]
            .into_iter()
            .map(|k| (k.to_owned(), Value::Null))
            .collect();
        let keys: Vec<&str> = o.iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            ["2", "10", "4294967294", "b", "a", "4294967295", "01", "-1"]
        );
    }

    #[test]
    fn setting_a_key_again_keeps_its_place() {
        let mut o = Object::new();
        o.set("a".into(), Value::Number(1.0));
        o.set("b".into(), Value::Number(2.0));
        o.set("a".into(), Value::Number(3.0));
        let got: Vec<(&str, &Value)> = o.iter().collect();
        assert_eq!(
            got,
            [("a", &Value::Number(3.0)), ("b", &Value::Number(2.0))]
        );
    }

    #[test]
    fn keys_from_non_strings() {
        let arr = Value::Array(vec![
            Value::Number(1.0),
            Value::Null,
            Value::Array(vec![Value::Bool(true), Value::String("x".into())]),
        ]);
        assert_eq!(arr.to_key(), "1,,true,x");
        assert_eq!(Value::Object(Object::new()).to_key(), "[object Object]");
        assert_eq!(Value::Number(f64::INFINITY).to_key(), "Infinity");
    }
}
