//! Edits to a settings file's text that change only ccmem's own entries: byte ranges replaced
//! (found through the spans of [`crate::settings::json::Doc`]), new entries written in the
//! file's own layout. Nothing is ever re-serialized.

use std::collections::BTreeMap;

use crate::settings::json::Span;

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
pub(super) fn line_indent(text: &str, at: usize) -> String {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect()
}
