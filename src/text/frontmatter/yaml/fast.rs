//! A fast path for the shape nearly every memory file has: `key: value` lines, and blocks of
//! `key: value` lines indented under a `key:` line (`metadata:`), whose values are plain or
//! simply quoted scalars. The event parser costs several microseconds per block; this costs a
//! fraction, which matters when an audit reads 20,000 files. Anything outside the shape (tabs,
//! CR, non-ASCII blanks, comments, lists, flow collections, anchors, tags, escapes, block
//! scalars, `: ` or ` #` inside a value, merge keys, document markers, deeper nesting) returns
//! `None` and goes to the full parser, so the result is always the full parser's:
//! `fast_path_agrees_with_the_parser` checks the two on every vector and on generated blocks.
//!
//! [`scan`] reads the shape line by line without copying anything; [`parse`] builds the value
//! from it, and the memory view's fast read (`frontmatter::Fields::read`) picks its few fields
//! from it without building a value at all.

use std::borrow::Cow;

use super::super::scalar::{self, Plain};
use super::super::value::{Object, Value};

/// A scalar of the shape, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in super::super) enum Scalar<'a> {
    /// `"…"` or `'…'` with no escape: the text between the quotes (always a string).
    Quoted(&'a str),
    /// A plain scalar (`scalar.rs` tells what it is).
    Plain(&'a str),
}

impl<'a> Scalar<'a> {
    /// Its value when it is a string, without copying it; else what kind of value it is.
    pub(in super::super) fn classify(self) -> (Plain, &'a str) {
        match self {
            Scalar::Quoted(s) => (Plain::Text, s),
            Scalar::Plain(s) => (scalar::classify(s), s),
        }
    }

    fn value(self) -> Value {
        match self {
            Scalar::Quoted(s) => Value::String(s.to_owned()),
            Scalar::Plain(s) => scalar::plain(s),
        }
    }
}

/// One line of the shape with content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in super::super) enum Line<'a> {
    /// `key: value` at the top level (the key as written: see [`key`]).
    Top(&'a str, Scalar<'a>),
    /// `key:` with nothing after it at the top level: `null`, or the mapping of the `Nested`
    /// lines right after it.
    Open(&'a str),
    /// `key: value` indented under the last `Open`.
    Nested(&'a str, Scalar<'a>),
}

/// Calls `each` on the lines of `text`, in order, while they are in the shape. `None` when a
/// line is not (`each` has then seen the lines before it: the caller drops what it made) or
/// when no line has content (an empty block is `null`, which the full parser gives).
pub(in super::super) fn scan<'a>(text: &'a str, mut each: impl FnMut(Line<'a>)) -> Option<()> {
    if has_odd_blank(text) {
        return None;
    }
    // The indentation of the open block's entries: `None` with no open block, `Some(0)` until
    // its first entry sets it.
    let mut width: Option<usize> = None;
    let mut any = false;
    for line in text.split('\n') {
        let content = line.trim_start_matches(' ');
        if content.is_empty() {
            continue;
        }
        let indent = line.len() - content.len();
        if indent > 0 {
            let width = width.as_mut()?;
            if *width == 0 {
                *width = indent;
            }
            if indent != *width {
                return None;
            }
            let (key, value) = entry(content)?;
            each(Line::Nested(key, value?));
            continue;
        }
        let (key, value) = entry(line)?;
        match value {
            Some(v) => {
                width = None;
                each(Line::Top(key, v));
            }
            None => {
                width = Some(0);
                each(Line::Open(key));
            }
        }
        any = true;
    }
    any.then_some(())
}

/// The value of `text` when it is in the shape.
pub(super) fn parse(text: &str) -> Option<Value> {
    let mut top = Object::new();
    // The open `key:` block: its key and its entries (`None` while it has none: `null`).
    let mut block: Option<(String, Option<Object>)> = None;
    let close = |top: &mut Object, block: Option<(String, Option<Object>)>| {
        if let Some((key, entries)) = block {
            top.set(key, entries.map_or(Value::Null, Value::Object));
        }
    };
    scan(text, |line| match line {
        Line::Top(k, v) => {
            close(&mut top, block.take());
            top.set(key(k).into_owned(), v.value());
        }
        Line::Open(k) => {
            close(&mut top, block.take());
            block = Some((key(k).into_owned(), None));
        }
        Line::Nested(k, v) => {
            if let Some((_, entries)) = block.as_mut() {
                entries
                    .get_or_insert_with(Object::new)
                    .set(key(k).into_owned(), v.value());
            }
        }
    })?;
    close(&mut top, block);
    Some(Value::Object(top))
}

/// A key of the shape as an object key (`String(value)`: `1e3` is `"1000"`, `~`… is
/// `"null"`); borrowed when the key is a string, as nearly every key is.
pub(in super::super) fn key(text: &str) -> Cow<'_, str> {
    match scalar::classify(text) {
        Plain::Text => Cow::Borrowed(text),
        _ => Cow::Owned(scalar::plain(text).to_key()),
    }
}

/// `key: value` → the key as written and the value (`None` for an empty one).
fn entry(line: &str) -> Option<(&str, Option<Scalar<'_>>)> {
    let colon = line.find(':')?;
    let (key, rest) = (&line[..colon], &line[colon + 1..]);
    let mut chars = key.chars();
    let first = chars.next()?;
    if !(first.is_ascii_alphanumeric() || first == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return None;
    }
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    let value = rest.trim_matches(' ');
    if value.is_empty() {
        return Some((key, None));
    }
    Some((key, Some(scalar_value(value)?)))
}

fn scalar_value(v: &str) -> Option<Scalar<'_>> {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q) {
            let inner = inner.strip_suffix(q)?;
            if memchr::memchr2(q as u8, b'\\', inner.as_bytes()).is_some() {
                return None;
            }
            return Some(Scalar::Quoted(inner));
        }
    }
    let first = v.chars().next()?;
    if "-?:,[]{}#&*!|>%@`".contains(first) || has_colon_space_or_space_hash(v) || v.ends_with(':') {
        return None;
    }
    Some(Scalar::Plain(v))
}

/// `v.contains(": ") || v.contains(" #")`, in one pass.
fn has_colon_space_or_space_hash(v: &str) -> bool {
    let b = v.as_bytes();
    memchr::memchr2_iter(b':', b'#', b).any(|i| match b[i] {
        b':' => b.get(i + 1) == Some(&b' '),
        _ => i > 0 && b[i - 1] == b' ',
    })
}

/// Whether `text` holds a tab, a CR or a non-ASCII blank ([`is_blank`]). Every non-ASCII
/// blank starts with one of five lead bytes (U+00A0 and U+0085 with 0xC2, U+1680 with 0xE1,
/// U+2000…U+205F with 0xE2, U+3000 with 0xE3, U+FEFF with 0xEF): only characters there are
/// decoded.
fn has_odd_blank(text: &str) -> bool {
    let bytes = text.as_bytes();
    if memchr::memchr2(b'\t', b'\r', bytes).is_some() {
        return true;
    }
    !text.is_ascii()
        && bytes.iter().enumerate().any(|(i, b)| {
            matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3 | 0xEF)
                && text[i..].chars().next().is_some_and(is_blank)
        })
}

/// Blanks other than space, tab and line breaks (NBSP, U+3000, U+FEFF, U+2028 …), which YAML
/// scanners treat in different ways: the full parser decides.
fn is_blank(c: char) -> bool {
    crate::text::js::is_js_space(c) || c == '\u{85}'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn odd_blanks_found_by_their_lead_bytes_are_every_odd_blank() {
        let mut text = String::new();
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            text.clear();
            text.extend(['a', c, 'b']);
            let want = c == '\t' || c == '\r' || (!c.is_ascii() && is_blank(c));
            assert_eq!(has_odd_blank(&text), want, "{c:?}");
        }
    }

    #[test]
    fn colon_space_or_space_hash_anywhere() {
        for v in ["a: b", "a #b", ": ", " #", "x:y # z", "a:b: c"] {
            assert!(has_colon_space_or_space_hash(v), "{v:?}");
        }
        for v in ["a:b", "a#b", "#a", "a:", "a# :b", "中文：说明"] {
            assert!(!has_colon_space_or_space_hash(v), "{v:?}");
        }
    }
}
