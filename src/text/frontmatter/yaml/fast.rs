//! A fast path for the shape nearly every memory file has: `key: value` lines, and blocks of
//! `key: value` lines indented under a `key:` line (`metadata:`), whose values are plain or
//! simply quoted scalars. The event parser costs several microseconds per block; this costs a
//! fraction, which matters when an audit reads 20,000 files. Anything outside the shape (tabs,
//! CR, non-ASCII blanks, comments, lists, flow collections, anchors, tags, escapes, block
//! scalars, `: ` or ` #` inside a value, merge keys, document markers, deeper nesting) returns
//! `None` and goes to the full parser, so the result is always the full parser's:
//! `fast_path_agrees_with_the_parser` checks the two on every vector and on generated blocks.

use super::super::scalar;
use super::super::value::{Object, Value};

/// The value of `text` when it is in the simple shape.
pub(super) fn parse(text: &str) -> Option<Value> {
    if text.contains(['\t', '\r']) || text.contains(|c: char| !c.is_ascii() && is_blank(c)) {
        return None;
    }
    let mut top = Object::new();
    // The open `key:` block: its key, its entries, and their indentation once known.
    let mut block: Option<(String, Object, usize)> = None;
    let mut any = false;
    for line in text.split('\n') {
        if line.trim_start_matches(' ').is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if indent > 0 {
            let (_, entries, width) = block.as_mut()?;
            if *width == 0 {
                *width = indent;
            }
            if indent != *width {
                return None;
            }
            let (key, value) = entry(&line[indent..])?;
            entries.set(key, value?);
            continue;
        }
        if let Some((key, entries, width)) = block.take() {
            top.set(key, block_value(entries, width));
        }
        let (key, value) = entry(line)?;
        match value {
            Some(v) => top.set(key, v),
            None => block = Some((key, Object::new(), 0)),
        }
        any = true;
    }
    if let Some((key, entries, width)) = block {
        top.set(key, block_value(entries, width));
    }
    any.then_some(Value::Object(top))
}

/// A `key:` with nothing after it: its indented entries, or `null` when no line was indented.
fn block_value(entries: Object, width: usize) -> Value {
    if width == 0 {
        Value::Null
    } else {
        Value::Object(entries)
    }
}

/// `key: value` → the key as an object key and the value (`None` for an empty one).
fn entry(line: &str) -> Option<(String, Option<Value>)> {
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
    let key = scalar::plain(key).to_key();
    let value = rest.trim_matches(' ');
    if value.is_empty() {
        return Some((key, None));
    }
    Some((key, Some(scalar_value(value)?)))
}

fn scalar_value(v: &str) -> Option<Value> {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q) {
            let inner = inner.strip_suffix(q)?;
            if inner.contains([q, '\\']) {
                return None;
            }
            return Some(Value::String(inner.to_owned()));
        }
    }
    let first = v.chars().next()?;
    if "-?:,[]{}#&*!|>%@`".contains(first)
        || v.contains(": ")
        || v.contains(" #")
        || v.ends_with(':')
    {
        return None;
    }
    Some(scalar::plain(v))
}

/// Blanks other than space, tab and line breaks (NBSP, U+3000, U+FEFF, U+2028 …), which YAML
/// scanners treat in different ways: the full parser decides.
fn is_blank(c: char) -> bool {
    crate::text::js::is_js_space(c) || c == '\u{85}'
}
