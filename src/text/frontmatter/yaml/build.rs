//! Events to values, as Bun builds them (see the parent module).

use std::collections::HashMap;

use granit_parser::{
    ErrorKind, Event, Parser, ScalarStyle, ScanError, Span, StrInput, StructureStyle,
};

use super::super::scalar;
use super::super::value::{Object, Value};
use super::{COMMA, MAX_DEPTH, YamlError, options, starts_with_document_end};

/// A failed parse: the error and the flow collections read before it (byte ranges; one still
/// open at the error runs to `usize::MAX`).
#[derive(Debug, Clone)]
pub(super) struct Failure {
    pub(super) error: YamlError,
    pub(super) flows: Vec<(usize, usize)>,
    /// The error is a tag run into what follows it (`!xéa`); `error.at` is at its `!`.
    pub(super) tag_run_on: bool,
}

/// One pass of the parser over `text`; `commas` maps [`COMMA`] back to `,` in scalars.
pub(super) fn parse(text: &str, commas: bool) -> Result<Value, Failure> {
    let mut b = Builder {
        text,
        events: Parser::new_from_str_with_options(text, options()),
        anchors: HashMap::new(),
        indents: Vec::new(),
        flow: 0,
        flows: Vec::new(),
        last_end: 0,
        last_line: 1,
        commas,
        tag_run_on: false,
    };
    b.stream().map_err(|error| Failure {
        error,
        flows: b.flows,
        tag_run_on: b.tag_run_on,
    })
}

pub(super) struct Builder<'a> {
    pub(super) text: &'a str,
    events: Parser<'a, StrInput<'a>>,
    anchors: HashMap<usize, Value>,
    /// Columns of the enclosing block collections.
    pub(super) indents: Vec<usize>,
    /// Depth of flow collections.
    flow: usize,
    /// Byte ranges of the flow collections read so far.
    flows: Vec<(usize, usize)>,
    /// Byte offset where the last event read ends.
    last_end: usize,
    last_line: usize,
    commas: bool,
    tag_run_on: bool,
}

impl<'a> Builder<'a> {
    fn stream(&mut self) -> Result<Value, YamlError> {
        let mut docs = Vec::new();
        while let Some((event, span)) = self.next()? {
            match event {
                Event::DocumentStart(..) => {
                    let (event, span) = self.expect()?;
                    if matches!(event, Event::DocumentEnd) {
                        docs.push(Value::Null);
                        continue;
                    }
                    docs.push(self.node(event, span, 0)?);
                    let (event, span) = self.expect()?;
                    if !matches!(event, Event::DocumentEnd) {
                        return Err(self.error(span, "expected the end of the document"));
                    }
                }
                Event::StreamEnd => break,
                _ => return Err(self.error(span, "unexpected event")),
            }
        }
        if starts_with_document_end(self.text) && !docs.is_empty() {
            docs.insert(0, Value::Null);
        }
        Ok(match docs.len() {
            0 => Value::Null,
            1 => docs.pop().unwrap_or(Value::Null),
            _ => Value::Array(docs),
        })
    }

    /// The next event that is not a comment, anchor note or stream start.
    fn next(&mut self) -> Result<Option<(Event<'a>, Span)>, YamlError> {
        loop {
            match self.events.next_event() {
                None => return Ok(None),
                Some(Err(e)) => {
                    self.tag_run_on = matches!(e.kind(), ErrorKind::InvalidTagTerminator);
                    return Err(self.scan_error(&e));
                }
                Some(Ok((event, span))) => {
                    self.last_line = span.start.line();
                    match event {
                        Event::StreamStart | Event::Comment(..) | Event::Anchor(..) => {}
                        event => {
                            self.last_end = span.end.byte_offset().unwrap_or(self.last_end);
                            return Ok(Some((event, span)));
                        }
                    }
                }
            }
        }
    }

    fn expect(&mut self) -> Result<(Event<'a>, Span), YamlError> {
        self.next()?.ok_or_else(|| YamlError {
            line: self.last_line,
            message: "unexpected end of input".to_owned(),
            at: self.text.len(),
        })
    }

    pub(super) fn error(&self, span: Span, message: &str) -> YamlError {
        YamlError {
            line: span.start.line(),
            message: message.to_owned(),
            at: span.start.byte_offset().unwrap_or(self.last_end),
        }
    }

    fn scan_error(&self, e: &ScanError) -> YamlError {
        YamlError {
            line: e.marker().line(),
            message: e.info(),
            at: e.marker().byte_offset().unwrap_or_else(|| {
                let chars = e.marker().index();
                self.text
                    .char_indices()
                    .nth(chars)
                    .map_or(self.text.len(), |(i, _)| i)
            }),
        }
    }

    fn node(&mut self, event: Event<'a>, span: Span, depth: usize) -> Result<Value, YamlError> {
        if depth > MAX_DEPTH {
            return Err(self.error(span, "nested too deeply"));
        }
        if self.flow > 0 {
            self.refuse_unindented(span.start.byte_offset(), span)?;
        }
        let (value, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                let crlf = match style {
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        self.crlf_quoted(span)?
                    }
                    ScalarStyle::Literal | ScalarStyle::Folded => None,
                    ScalarStyle::Plain => None,
                };
                if !matches!(style, ScalarStyle::Literal | ScalarStyle::Folded) {
                    self.refuse_unindented_lines(span)?;
                }
                // An empty node comes as a zero-width plain `~`: its text is empty (`!!str` → "").
                let mut text = match crlf {
                    Some(t) => t,
                    None if is_empty_node(&span) => String::new(),
                    None => text.into_owned(),
                };
                if self.commas && text.contains(COMMA) {
                    text = text.replace(COMMA, ",");
                }
                (scalar::resolve(&text, style, tag.as_deref()), anchor)
            }
            Event::Alias(id) => {
                let v = self.anchors.get(&id).cloned();
                return v.ok_or_else(|| self.error(span, "unresolved alias"));
            }
            Event::SequenceStart(style, anchor, _) => {
                let at = self.enter(style, span)?;
                let mut items = Vec::new();
                loop {
                    let (event, span) = self.expect()?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(event, span, depth + 1)?);
                }
                self.leave(style, at);
                (Value::Array(items), anchor)
            }
            Event::MappingStart(style, anchor, _) => {
                let at = self.enter(style, span)?;
                let map = self.mapping(style == StructureStyle::Block, depth)?;
                self.leave(style, at);
                (Value::Object(map), anchor)
            }
            _ => return Err(self.error(span, "unexpected event")),
        };
        if anchor != 0 {
            self.anchors.insert(anchor, value.clone());
        }
        Ok(value)
    }

    /// Enters a collection; returns the index of its entry in `flows` for a flow one.
    fn enter(&mut self, style: StructureStyle, span: Span) -> Result<usize, YamlError> {
        match style {
            StructureStyle::Block => {
                self.refuse_tab_indent(span)?;
                self.indents.push(span.start.col());
            }
            StructureStyle::Flow => {
                self.flow += 1;
                let start = span.start.byte_offset().unwrap_or(self.last_end);
                self.flows.push((start, usize::MAX));
            }
        }
        Ok(self.flows.len().wrapping_sub(1))
    }

    fn leave(&mut self, style: StructureStyle, at: usize) {
        match style {
            StructureStyle::Block => {
                self.indents.pop();
            }
            StructureStyle::Flow => {
                self.flow -= 1;
                if let Some(f) = self.flows.get_mut(at) {
                    f.1 = self.last_end;
                }
            }
        }
    }

    fn mapping(&mut self, block: bool, depth: usize) -> Result<Object, YamlError> {
        let mut map = Object::new();
        loop {
            let (event, span) = self.expect()?;
            if matches!(event, Event::MappingEnd) {
                return Ok(map);
            }
            if block {
                self.refuse_tab_indent(span)?;
            }
            let empty_key = is_empty_node(&span).then_some(span);
            let key = self.node(event, span, depth + 1)?;
            let (event, span) = self.expect()?;
            if let Some(key_span) = empty_key {
                self.refuse_compact_after_empty_key(key_span, &event, span)?;
            }
            let stops_early = block && !map.is_empty() && stops_before_next_line(&event, &span);
            let value = self.node(event, span, depth + 1)?;
            if stops_early {
                self.refuse_tab_after(self.last_end)?;
            }
            if key.as_str() == Some("<<") && merge(&mut map, &value) {
                continue;
            }
            map.set(key.to_key(), value);
        }
    }
}

/// A zero-width plain scalar: the node of `key:` with nothing after it.
pub(super) fn is_empty_node(span: &Span) -> bool {
    span.start.byte_offset() == span.end.byte_offset()
}

/// Whether Bun's scanner stops right after this value, leaving the following lines to the
/// mapping (a quoted scalar, a flow collection, an alias, an empty value), where a plain or
/// block scalar reads on into them.
fn stops_before_next_line(event: &Event<'_>, span: &Span) -> bool {
    match event {
        Event::Scalar(_, ScalarStyle::Plain, ..) => is_empty_node(span),
        Event::Scalar(_, ScalarStyle::Literal | ScalarStyle::Folded, ..) => false,
        Event::Scalar(..) | Event::Alias(_) => true,
        Event::SequenceStart(style, ..) | Event::MappingStart(style, ..) => {
            *style == StructureStyle::Flow
        }
        _ => false,
    }
}

/// Copies the entries of a merge value into `map`; `false` when `value` is no merge value.
fn merge(map: &mut Object, value: &Value) -> bool {
    let sources: Vec<&Object> = match value {
        Value::Object(o) => vec![o],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        _ => return false,
    };
    for source in sources {
        for (k, v) in source.iter().rev() {
            if !map.contains(k) {
                map.set(k.to_owned(), v.clone());
            }
        }
    }
    true
}
