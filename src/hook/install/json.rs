//! The spans of a settings file's JSON values, for edits that change only ccmem's own entries.
//!
//! Validation and spans both come from serde_json: the document is parsed as a borrowed
//! [`RawValue`] (strict JSON, as the client's `JSON.parse` reads it: no comments, no trailing
//! commas; values are skipped without recursion, so nesting as deep as the client accepts —
//! a million levels fit in its 2 MiB limit — is fine), and each container ccmem looks into is
//! opened one level at a time into borrowed raw children, whose position in the text is where
//! their slice starts. Nothing is ever re-serialized: an edit is a list of byte ranges replaced.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// A half-open byte range of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// One property of an object: its key, where the property starts (the key's opening quote) and
/// its value.
#[derive(Debug)]
pub struct Prop<'a> {
    /// The key, unescaped.
    pub key: String,
    /// Where the key's opening quote is.
    pub start: usize,
    /// The value.
    pub value: &'a RawValue,
}

/// The parsed text: every offset is relative to it.
#[derive(Debug)]
pub struct Doc<'a> {
    text: &'a str,
    /// The root value.
    pub root: &'a RawValue,
}

/// Why the text is not a JSON document.
#[derive(Debug)]
pub struct Invalid {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// serde_json's words.
    pub message: String,
}

impl<'a> Doc<'a> {
    /// Parses `text` as the client does (strict JSON).
    pub fn parse(text: &'a str) -> Result<Self, Invalid> {
        let root: &RawValue = serde_json::from_str(text).map_err(|e| Invalid {
            line: e.line(),
            column: e.column(),
            message: without_position(&e.to_string()),
        })?;
        Ok(Doc { text, root })
    }

    /// The text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// Where a value borrowed from this text lies.
    pub fn span(&self, v: &RawValue) -> Span {
        let start = v.get().as_ptr() as usize - self.text.as_ptr() as usize;
        Span {
            start,
            end: start + v.get().len(),
        }
    }

    /// The properties of an object value, in order (`None`: not an object).
    pub fn object(&self, v: &'a RawValue) -> Option<Vec<Prop<'a>>> {
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
    pub fn array(&self, v: &'a RawValue) -> Option<Vec<&'a RawValue>> {
        let raw = v.get();
        if !raw.starts_with('[') {
            return None;
        }
        let mut de = serde_json::Deserializer::from_str(raw);
        de.deserialize_seq(Elements).ok()
    }

    /// The last property named `key` (the one `JSON.parse` keeps).
    pub fn get<'p>(&self, props: &'p [Prop<'a>], key: &str) -> Option<&'p Prop<'a>> {
        props.iter().rev().find(|p| p.key == key)
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

fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
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
        while let Some((k, v)) = map.next_entry::<String, &'de RawValue>()? {
            out.push((k, v));
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

/// Text replacements, applied together. Ranges never overlap.
#[derive(Debug, Default)]
pub struct Edits {
    by_start: BTreeMap<usize, (usize, String)>,
}

impl Edits {
    /// Replaces `span` with `text` (an empty span inserts).
    pub fn replace(&mut self, span: Span, text: String) {
        self.by_start.insert(span.start, (span.end, text));
    }

    /// Whether there is nothing to do.
    pub fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    /// `original` with every replacement made (offsets are byte offsets into it).
    pub fn apply_bytes(&self, original: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(original.len() + 512);
        let mut at = 0;
        for (start, (end, with)) in &self.by_start {
            out.extend_from_slice(&original[at..*start]);
            out.extend_from_slice(with.as_bytes());
            at = *end;
        }
        out.extend_from_slice(&original[at..]);
        out
    }
}

/// How the file lays out its JSON, to write new entries the same way.
#[derive(Debug, Clone)]
pub struct Style {
    /// One level of indentation (empty: the file is on one line).
    pub indent: String,
    /// `\n` or `\r\n`.
    pub newline: &'static str,
}

impl Style {
    /// The style of `text`: the indentation of its first indented line, its line ending.
    pub fn of(text: &str) -> Self {
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let indent = if !text.trim().contains('\n') && !text.trim().is_empty() {
            String::new()
        } else {
            text.lines()
                .skip(1)
                .find_map(|l| {
                    let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
                    (!ws.is_empty() && ws.len() < l.trim_end_matches('\r').len()).then_some(ws)
                })
                .unwrap_or_else(|| "  ".to_owned())
        };
        Style { indent, newline }
    }

    /// `value` serialized in this style, its continuation lines indented by `base`.
    pub fn render(&self, value: &serde_json::Value, base: &str) -> String {
        if self.indent.is_empty() {
            return value.to_string();
        }
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        // Serializing a Value into a Vec cannot fail.
        let _ = serde::Serialize::serialize(value, &mut ser);
        String::from_utf8(out)
            .unwrap_or_default()
            .replace('\n', &format!("{}{base}", self.newline))
    }
}

/// The indentation of the line `at` is on.
pub fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

#[cfg(test)]
mod tests {
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
        let err = Doc::parse("{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!((err.line, err.column), (3, 1));
    }
}
