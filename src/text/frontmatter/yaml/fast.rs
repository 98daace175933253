//! A fast path for the shape nearly every memory file has: `key: value` lines, and blocks of
//! `key: value` lines indented under a `key:` line (`metadata:`), whose values are plain or
//! simply quoted scalars, read without building the event parser's tokens and events (the
//! frontmatter of every file of a library is read). Anything outside the shape (tabs,
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
    let bytes = text.as_bytes();
    let mut start = 0;
    // The lines, as `text.split('\n')` gives them (a last empty one has no content anyway).
    while start < bytes.len() {
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |n| start + n);
        let line = &text[start..end];
        start = end + 1;
        let indent = line.bytes().take_while(|&b| b == b' ').count();
        let content = &line[indent..];
        if content.is_empty() {
            continue;
        }
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
            top.set(key, entries.map_or(Value::Null, Value::from));
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
    Some(Value::from(top))
}

/// A key of the shape as an object key (`String(value)`: `1e3` is `"1000"`, `~`… is
/// `"null"`); borrowed when the key is a string, as nearly every key is.
pub(in super::super) fn key(text: &str) -> Cow<'_, str> {
    match scalar::classify(text) {
        Plain::Text => Cow::Borrowed(text),
        _ => Cow::Owned(scalar::plain(text).to_key()),
    }
}

/// `key: value` → the key as written and the value (`None` for an empty one). The key is
/// `[A-Za-z0-9_][A-Za-z0-9_.-]*` up to the line's first `:`, which a space or the line's end
/// follows.
fn entry(line: &str) -> Option<(&str, Option<Scalar<'_>>)> {
    let b = line.as_bytes();
    let first = *b.first()?;
    if !(first.is_ascii_alphanumeric() || first == b'_') {
        return None;
    }
    let colon = 1 + b[1..]
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')))?;
    if b[colon] != b':' {
        return None;
    }
    let (key, rest) = (&line[..colon], &line[colon + 1..]);
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
    let first = *v.as_bytes().first()?;
    if matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'%'
            | b'@'
            | b'`'
    ) || has_colon_space_or_space_hash(v)
        || v.ends_with(':')
    {
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

/// Whether `text` holds a tab, a CR or a non-ASCII blank (NBSP, U+3000, U+FEFF, U+2028 …,
/// which YAML scanners treat in different ways: the full parser decides), matched on its UTF-8
/// bytes (`odd_blanks_found_by_their_bytes_are_every_odd_blank` checks every character).
fn has_odd_blank(text: &str) -> bool {
    let bytes = text.as_bytes();
    if memchr::memchr2(b'\t', b'\r', bytes).is_some() {
        return true;
    }
    // Only the first bytes of those blanks are looked at (CJK text has few: its ideographs and
    // Hangul start with others).
    !text.is_ascii()
        && memchr::memchr3_iter(0xC2, 0xE2, 0xE3, bytes)
            .chain(memchr::memchr2_iter(0xE1, 0xEF, bytes))
            .any(|i| starts_with_odd_blank(&bytes[i..]))
}

/// Whether `b` starts with the UTF-8 of U+0085, U+00A0, U+1680, U+2000…U+200A, U+2028, U+2029,
/// U+202F, U+205F, U+3000 or U+FEFF (in valid UTF-8 their first bytes only start characters).
fn starts_with_odd_blank(b: &[u8]) -> bool {
    matches!(
        b,
        [0xC2, 0x85 | 0xA0, ..]
            | [0xE1, 0x9A, 0x80, ..]
            | [0xE2, 0x80, 0x80..=0x8A | 0xA8 | 0xA9 | 0xAF, ..]
            | [0xE2, 0x81, 0x9F, ..]
            | [0xE3, 0x80, 0x80, ..]
            | [0xEF, 0xBB, 0xBF, ..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blanks other than space, tab and line breaks (NBSP, U+3000, U+FEFF, U+2028 …), which YAML
    /// scanners treat in different ways: the full parser decides.
    fn is_blank(c: char) -> bool {
        crate::text::js::is_js_space(c) || c == '\u{85}'
    }

    #[test]
    fn odd_blanks_found_by_their_bytes_are_every_odd_blank() {
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
