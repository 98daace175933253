//! A settings file's JSON as the client reads it: `JSON.parse` (strict JSON, any depth), then
//! `xje`, the copy its settings schema validates (containers nested past
//! [`SETTINGS_COPY_MAX_DEPTH`] cut).
//!
//! Validation and spans both come from serde_json: the document is parsed as a borrowed
//! [`RawValue`] (strict JSON, as `JSON.parse` reads it: no comments, no trailing commas, no
//! `NaN`; values are skipped without recursion, so nesting as deep as the client accepts — a
//! million levels fit in its 2 MiB limit — is fine; a lone surrogate escape such as `"\ud800"`
//! and a number out of `f64` range are valid, as they are to `JSON.parse`), and each container
//! is opened one level at a time into borrowed raw children, whose position in the text is where
//! their slice starts. The hook installer edits through the spans (nothing re-serialized); the
//! loader reads the cut copy ([`Doc::value`]). Of a key given twice, the last value counts, at
//! the place of the first (as `JSON.parse` builds its object).

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::constants::SETTINGS_COPY_MAX_DEPTH;

/// A half-open byte range of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// One property of an object: its key, where the property starts (the key's opening quote) and
/// its value.
#[derive(Debug)]
pub(crate) struct Prop<'a> {
    /// The key, unescaped (a lone surrogate escape read as U+FFFD).
    pub key: String,
    /// Where the key's opening quote is.
    pub start: usize,
    /// The value.
    pub value: &'a RawValue,
}

/// The parsed text: every offset is relative to it.
#[derive(Debug)]
pub(crate) struct Doc<'a> {
    text: &'a str,
    /// The root value.
    pub root: &'a RawValue,
}

/// Why the text is not a JSON document.
#[derive(Debug)]
pub(crate) struct Invalid {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// serde_json's words.
    pub message: String,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.message, self.line, self.column
        )
    }
}

impl<'a> Doc<'a> {
    /// Parses `text` as `JSON.parse` does (strict JSON, any depth).
    pub(crate) fn parse(text: &'a str) -> Result<Self, Invalid> {
        let root: &RawValue = serde_json::from_str(text).map_err(|e| Invalid {
            line: e.line(),
            column: e.column(),
            message: without_position(&e.to_string()),
        })?;
        Ok(Doc { text, root })
    }

    /// The text.
    pub(crate) fn text(&self) -> &'a str {
        self.text
    }

    /// Where a value borrowed from this text lies.
    pub(crate) fn span(&self, v: &RawValue) -> Span {
        let start = v.get().as_ptr() as usize - self.text.as_ptr() as usize;
        Span {
            start,
            end: start + v.get().len(),
        }
    }

    /// The properties of an object value, in order, a repeated key as often as it is written
    /// (`None`: not an object).
    pub(crate) fn object(&self, v: &'a RawValue) -> Option<Vec<Prop<'a>>> {
        let raw = v.get();
        if !raw.starts_with('{') {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(raw);
        let entries = de.deserialize_map(Entries).ok()?;
        Some(
            entries
                .into_iter()
                .map(|(key, value)| {
                    let start = self.key_start(self.span(value).start);
                    Prop { key, start, value }
                })
                .collect(),
        )
    }

    /// The elements of an array value (`None`: not an array).
    pub(crate) fn array(&self, v: &'a RawValue) -> Option<Vec<&'a RawValue>> {
        let raw = v.get();
        if !raw.starts_with('[') {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(raw);
        de.deserialize_seq(Elements).ok()
    }

    /// The last property named `key` (the one `JSON.parse` keeps).
    pub(crate) fn get<'p>(&self, props: &'p [Prop<'a>], key: &str) -> Option<&'p Prop<'a>> {
        props.iter().rev().find(|p| p.key == key)
    }

    /// The document as the client's settings schema sees it: `JSON.parse`'s value copied by
    /// `xje` (its default depth `ue`): a container whose parent is nested
    /// [`SETTINGS_COPY_MAX_DEPTH`] deep (the root is 1) becomes `null`, or, as a property whose
    /// value holds nothing but objects, is left out. A number out of `f64` range (`Infinity` to
    /// the client) is `null` here.
    pub(crate) fn value(&self) -> Value {
        self.copy(self.root, 1)
    }

    fn copy(&self, v: &'a RawValue, depth: usize) -> Value {
        let child = |c: &'a RawValue| -> Option<Value> {
            if !is_container(c) {
                return Some(leaf(c));
            }
            if depth < SETTINGS_COPY_MAX_DEPTH {
                return Some(self.copy(c, depth + 1));
            }
            None
        };
        if let Some(props) = self.object(v) {
            let mut out = Map::new();
            for (key, value) in last_wins(props) {
                match child(value) {
                    Some(c) => out.insert(key, c),
                    None if objects_only(value.get()) => continue,
                    None => out.insert(key, Value::Null),
                };
            }
            Value::Object(out)
        } else if let Some(items) = self.array(v) {
            Value::Array(
                items
                    .into_iter()
                    .map(|c| child(c).unwrap_or(Value::Null))
                    .collect(),
            )
        } else {
            leaf(v)
        }
    }

    /// Where the key of a property whose value starts at `value_start` begins: back over
    /// whitespace, the colon, whitespace, and the key string (whose closing quote is the first
    /// quote met; its opening one is the first quote before it not escaped by a backslash).
    fn key_start(&self, value_start: usize) -> usize {
        let b = self.text.as_bytes();
        let mut i = value_start;
        let skip_ws = |i: &mut usize| {
            while *i > 0 && matches!(b[*i - 1], b' ' | b'\t' | b'\n' | b'\r') {
                *i -= 1;
            }
        };
        skip_ws(&mut i);
        if i > 0 && b[i - 1] == b':' {
            i -= 1;
        }
        skip_ws(&mut i);
        // b[i - 1] is the closing quote.
        let mut j = i.saturating_sub(1);
        while j > 0 {
            j -= 1;
            if b[j] == b'"' {
                let slashes = b[..j].iter().rev().take_while(|c| **c == b'\\').count();
                if slashes % 2 == 0 {
                    return j;
                }
            }
        }
        0
    }
}

/// The properties `JSON.parse` keeps: one per key, the last value at the first one's place.
fn last_wins(props: Vec<Prop<'_>>) -> Vec<(String, &RawValue)> {
    let mut out: Vec<(String, &RawValue)> = Vec::with_capacity(props.len());
    let mut at: HashMap<String, usize> = HashMap::new();
    for p in props {
        match at.get(&p.key) {
            Some(&i) => out[i].1 = p.value,
            None => {
                at.insert(p.key.clone(), out.len());
                out.push((p.key, p.value));
            }
        }
    }
    out
}

fn is_container(v: &RawValue) -> bool {
    v.get().starts_with(['{', '['])
}

/// A string, number, `true`, `false` or `null`.
fn leaf(v: &RawValue) -> Value {
    let raw = v.get();
    if raw.starts_with('"') {
        return serde_json::from_str::<Lossy>(raw).map_or(Value::Null, |s| Value::String(s.0));
    }
    serde_json::from_str(raw).unwrap_or(Value::Null)
}

/// Whether a valid JSON object holds only objects, at any depth (`yr`): no array, and every
/// property's value an object. Linear in the text, without recursion.
fn objects_only(raw: &str) -> bool {
    let b = raw.as_bytes();
    let mut value_next = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {}
            b'{' => value_next = false,
            b':' => value_next = true,
            b'"' if !value_next => {
                // A key: skip to its closing quote.
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'}' | b',' if !value_next => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

/// A JSON string read through serde_json's byte path, which accepts a lone surrogate escape
/// (as WTF-8, here replaced like any byte that is not UTF-8).
struct Lossy(String);

impl<'de> Deserialize<'de> for Lossy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_bytes(LossyVisitor)
    }
}

struct LossyVisitor;

impl Visitor<'_> for LossyVisitor {
    type Value = Lossy;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<Lossy, E> {
        Ok(Lossy(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Lossy, E> {
        Ok(Lossy(v.to_owned()))
    }
}

struct Entries;

impl<'de> Visitor<'de> for Entries {
    type Value = Vec<(String, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some((k, v)) = map.next_entry::<Lossy, &'de RawValue>()? {
            out.push((k.0, v));
        }
        Ok(out)
    }
}

struct Elements;

impl<'de> Visitor<'de> for Elements {
    type Value = Vec<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element::<&'de RawValue>()? {
            out.push(v);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn spans_point_into_the_text_keys_included() {
        let text = "{\n  \"a\\\"b\" : [1, {\"x\": 2}],\n  \"hooks\": {}\n}";
        let doc = Doc::parse(text).unwrap();
        let props = doc.object(doc.root).unwrap();
        assert_eq!(props[0].key, "a\"b");
        assert_eq!(&text[props[0].start..props[0].start + 6], "\"a\\\"b\"");
        let arr = doc.array(props[0].value).unwrap();
        let s = doc.span(arr[1]);
        assert_eq!(&text[s.start..s.end], "{\"x\": 2}");
        assert_eq!(doc.get(&props, "hooks").unwrap().value.get(), "{}");
    }

    #[test]
    fn strict_like_the_client_and_deep_nesting_is_fine() {
        for bad in [
            "{\"a\": 1,}",
            "// c\n{}",
            "{'a': 1}",
            "{} x",
            "{\"n\": NaN}",
            "{\"n\": Infinity}",
            "{\"s\": \"\t\"}",
        ] {
            assert!(Doc::parse(bad).is_err(), "{bad}");
        }
        let deep = format!(
            "{{\"d\": {}{}, \"hooks\": {{}}}}",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        let doc = Doc::parse(&deep).unwrap();
        assert_eq!(doc.object(doc.root).unwrap().len(), 2);
        assert_eq!(doc.value()["hooks"], json!({}));
        let err = Doc::parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 1));
    }

    #[test]
    fn what_json_parse_accepts_and_serde_json_values_do_not() {
        let doc = Doc::parse(r#"{"s": "\ud800x", "\udc00": 1, "n": 1e400, "ok": true}"#).unwrap();
        let v = doc.value();
        assert_eq!(v["s"].as_str().unwrap().chars().last(), Some('x'));
        assert_eq!(v["n"], Value::Null);
        assert_eq!(v["ok"], json!(true));
        assert_eq!(v.as_object().unwrap().len(), 4);
    }

    #[test]
    fn a_repeated_key_keeps_the_last_value_at_the_first_place() {
        let doc = Doc::parse(r#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        let v = doc.value();
        let keys: Vec<_> = v.as_object().unwrap().iter().collect();
        assert_eq!(
            keys,
            [(&"a".to_owned(), &json!(3)), (&"b".to_owned(), &json!(2))]
        );
    }

    /// `xje` with `ue` = 64: the root is depth 1, a container inside a depth-64 one is cut: to
    /// `null`, or left out when it is a property holding objects only.
    #[test]
    fn the_copy_cuts_past_the_clients_depth() {
        let nest = |n: usize, inner: &str| format!("{}{inner}{}", "[".repeat(n), "]".repeat(n));
        // Root object (1) + 63 arrays = depth 64; its child container is cut.
        let text = format!("{{\"a\": {}, \"k\": 1}}", nest(63, "[1]"));
        let v = Doc::parse(&text).unwrap().value();
        let mut at = &v["a"];
        for _ in 1..63 {
            at = &at[0];
        }
        assert_eq!(at, &json!([null]));
        let kept = format!("{{\"a\": {}}}", nest(62, "[1]"));
        assert!(
            Doc::parse(&kept)
                .unwrap()
                .value()
                .to_string()
                .contains("[1]")
        );
        // A property of a depth-64 object holding only objects is left out; others are null.
        let objs =
            |n: usize, inner: &str| format!("{}{inner}{}", "{\"o\":".repeat(n), "}".repeat(n));
        let text = objs(
            63,
            r#"{"only": {"x": {}}, "arr": {"x": []}, "leaf": {"x": 1}, "n": 2}"#,
        );
        let v = Doc::parse(&text).unwrap().value();
        let mut at = &v;
        for _ in 0..63 {
            at = &at["o"];
        }
        assert_eq!(at, &json!({"arr": null, "leaf": null, "n": 2}));
    }

    #[test]
    fn objects_only_is_yr() {
        assert!(objects_only("{}"));
        assert!(objects_only(r#"{"a": {"b": {}}, "c": {}}"#));
        assert!(objects_only(r#"{"a:[1]\"": {}}"#));
        assert!(!objects_only(r#"{"a": []}"#));
        assert!(!objects_only(r#"{"a": {"b": null}}"#));
        assert!(!objects_only(r#"{"a": "x"}"#));
    }
}
