//! Edits to a settings file's text that change only ccmem's own entries: byte ranges replaced
//! (found through the spans of [`crate::settings::json::Doc`]), new entries written in the
//! file's own layout. Nothing is ever re-serialized.

use std::collections::BTreeMap;

use serde_json::Value;

use super::RawValueRef;
use crate::settings::json::{Doc, Prop, Span};

/// Text replacements, applied together. Ranges never overlap.
#[derive(Debug, Default)]
pub(super) struct Edits {
    by_start: BTreeMap<usize, (usize, String)>,
}

impl Edits {
    /// Replaces `span` with `text` (an empty span inserts).
    pub(super) fn replace(&mut self, span: Span, text: String) {
        self.by_start.insert(span.start, (span.end, text));
    }

    /// Whether there is nothing to do.
    pub(super) fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    /// `original` with every replacement made (offsets are byte offsets into it).
    pub(super) fn apply_bytes(&self, original: &[u8]) -> Vec<u8> {
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
pub(super) struct Style {
    /// One level of indentation (empty: the file is on one line).
    pub indent: String,
    /// `\n` or `\r\n`.
    pub newline: &'static str,
}

impl Style {
    /// The style of `text`: the indentation of its first indented line, its line ending.
    pub(super) fn of(text: &str) -> Self {
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
    pub(super) fn render(&self, value: &serde_json::Value, base: &str) -> String {
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
fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}

/// Inserts rendered items at the end of a container whose last child spans `last` (`None`:
/// empty): after it, separated as the file separates, or as the container's only content.
fn insert_items(
    doc: &Doc<'_>,
    style: &Style,
    container: &RawValueRef,
    last: Option<Span>,
    items: &[Item<'_>],
    edits: &mut Edits,
) {
    let span = doc.span(container);
    let text = doc.text();
    let close = span.end - 1;
    let after_last = |l: Span| Span {
        start: l.end,
        end: l.end,
    };
    let interior = Span {
        start: span.start + 1,
        end: close,
    };
    // A one-line file, or a one-line container in a pretty one, gets one-line items.
    let compact =
        style.indent.is_empty() || (last.is_some() && !text[span.start..span.end].contains('\n'));
    let (at, new) = if compact {
        let body: Vec<String> = items.iter().map(|i| i.compact()).collect();
        let body = body.join(",");
        match last {
            Some(l) => (after_last(l), format!(",{body}")),
            None => (interior, body),
        }
    } else {
        let outer = line_indent(text, close);
        let unit = format!("{outer}{}", style.indent);
        let inner = match last {
            Some(l) => {
                let own = line_indent(text, l.start);
                if own.len() > outer.len() { own } else { unit }
            }
            None => unit,
        };
        let nl = style.newline;
        let body: Vec<String> = items.iter().map(|i| i.render(style, &inner)).collect();
        let body = body.join(&format!(",{nl}{inner}"));
        match last {
            Some(l) => (after_last(l), format!(",{nl}{inner}{body}")),
            None => (interior, format!("{nl}{inner}{body}{nl}{outer}")),
        }
    };
    edits.replace(at, new);
}

/// One new child of a container: a property or an array element.
enum Item<'a> {
    Prop(&'a str, &'a Value),
    Elem(&'a Value),
}

impl Item<'_> {
    fn compact(&self) -> String {
        match self {
            Item::Prop(k, v) => format!("{}:{v}", Value::String((*k).into())),
            Item::Elem(v) => v.to_string(),
        }
    }

    fn render(&self, style: &Style, base: &str) -> String {
        match self {
            Item::Prop(k, v) => {
                let colon = if style.indent.is_empty() { ":" } else { ": " };
                format!(
                    "{}{colon}{}",
                    Value::String((*k).into()),
                    style.render(v, base)
                )
            }
            Item::Elem(v) => style.render(v, base),
        }
    }
}

pub(super) fn insert_props(
    doc: &Doc<'_>,
    style: &Style,
    container: &RawValueRef,
    props: &[Prop<'_>],
    new: &[(&str, Value)],
    edits: &mut Edits,
) {
    let items: Vec<Item<'_>> = new.iter().map(|(k, v)| Item::Prop(k, v)).collect();
    let last = props.last().map(|p| Span {
        start: p.start,
        end: doc.span(p.value).end,
    });
    insert_items(doc, style, container, last, &items, edits);
}

pub(super) fn insert_elems(
    doc: &Doc<'_>,
    style: &Style,
    container: &RawValueRef,
    elems: &[&RawValueRef],
    new: &[Value],
    edits: &mut Edits,
) {
    let items: Vec<Item<'_>> = new.iter().map(Item::Elem).collect();
    let last = elems.last().map(|e| doc.span(e));
    insert_items(doc, style, container, last, &items, edits);
}

/// Removes children `gone` (sorted) of a container whose children span `spans`: a child and
/// what separates it from the next; after the last kept child, from its end to the container's
/// last child's end; all of them: the whole interior.
fn remove_spans(container: Span, spans: &[Span], gone: &[usize], edits: &mut Edits) {
    if gone.len() == spans.len() {
        edits.replace(
            Span {
                start: container.start + 1,
                end: container.end - 1,
            },
            String::new(),
        );
        return;
    }
    let last_kept = (0..spans.len()).rev().find(|i| !gone.contains(i));
    let mut i = 0;
    while i < spans.len() {
        if !gone.contains(&i) {
            i += 1;
            continue;
        }
        if last_kept.is_some_and(|k| i > k) {
            let k = last_kept.unwrap_or_default();
            edits.replace(
                Span {
                    start: spans[k].end,
                    end: spans[spans.len() - 1].end,
                },
                String::new(),
            );
            return;
        }
        let mut j = i;
        while gone.contains(&j) {
            j += 1;
        }
        edits.replace(
            Span {
                start: spans[i].start,
                end: spans[j].start,
            },
            String::new(),
        );
        i = j;
    }
}

pub(super) fn remove_elems(
    doc: &Doc<'_>,
    container: &RawValueRef,
    elems: &[&RawValueRef],
    gone: &[usize],
    edits: &mut Edits,
) {
    let spans: Vec<Span> = elems.iter().map(|e| doc.span(e)).collect();
    remove_spans(doc.span(container), &spans, gone, edits);
}

pub(super) fn remove_props(
    doc: &Doc<'_>,
    container: &RawValueRef,
    props: &[Prop<'_>],
    gone: &[usize],
    edits: &mut Edits,
) {
    let spans: Vec<Span> = props
        .iter()
        .map(|p| Span {
            start: p.start,
            end: doc.span(p.value).end,
        })
        .collect();
    remove_spans(doc.span(container), &spans, gone, edits);
}
