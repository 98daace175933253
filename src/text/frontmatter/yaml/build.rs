//! Events to values, as Bun builds them (see the parent module).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use granit_parser::{
    ErrorKind, Event, Parser, ScalarStyle, ScanError, Span, StrInput, StructureStyle,
};

use super::super::scalar;
use super::super::value::{Key, KeyMemo, Object, Value};
use super::{
    COMMA, MAX_ALIAS_NODES, MAX_DEPTH, MAX_MERGED_PROPERTIES, YamlError, options,
    starts_with_document_end,
};

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
        line_start: Cell::new((0, 0)),
        alias_budget: MAX_ALIAS_NODES,
        merge_budget: MAX_MERGED_PROPERTIES,
        costs: HashMap::new(),
        key_memo: KeyMemo::default(),
    };
    b.stream().map_err(|error| Failure {
        error,
        flows: b.flows,
        tag_run_on: b.tag_run_on,
    })
}

/// A node as the builder returns it: its value and its cost, the nodes Bun counts when an
/// alias names it (see [`Builder::charge`]).
struct Node {
    value: Value,
    cost: u64,
}

impl Node {
    fn scalar(value: Value) -> Node {
        Node { value, cost: 1 }
    }
}

pub(super) struct Builder<'a> {
    pub(super) text: &'a str,
    events: Parser<'a, StrInput<'a>>,
    anchors: HashMap<usize, (Value, u64)>,
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
    /// The last `(offset, start of its line)` asked for ([`Builder::line_start`]).
    line_start: Cell<(usize, usize)>,
    /// Nodes aliases may still name ([`MAX_ALIAS_NODES`]).
    alias_budget: u64,
    /// Properties merge keys may still copy ([`MAX_MERGED_PROPERTIES`]).
    merge_budget: u64,
    /// The cost of each collection built, by address, and of each mapping's properties (key and
    /// value) by key, for the merges that copy them.
    costs: HashMap<usize, Costs>,
    key_memo: KeyMemo,
}

/// What the builder knows of a collection it built.
struct Costs {
    /// Bun's count of its nodes.
    total: u64,
    /// For a mapping: each property's cost (its key's and its value's), by key, where the key
    /// is not a single node (most mappings have none).
    props: HashMap<String, u64>,
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
                    docs.push(self.node(event, span, 0)?.value);
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
            _ => Value::from(docs),
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

    /// The byte offset where the line holding `at` starts. The parser asks in text order, so
    /// the last answer is reused and only the text since is searched: on a flow collection of a
    /// million items on one line, each item's check no longer searches back to the line start.
    pub(super) fn line_start(&self, at: usize) -> usize {
        let (last_at, last_start) = self.line_start.get();
        let start = if last_at <= at {
            self.text[last_at..at]
                .rfind('\n')
                .map_or(last_start, |i| last_at + i + 1)
        } else {
            self.text[..at].rfind('\n').map_or(0, |i| i + 1)
        };
        self.line_start.set((at, start));
        start
    }

    fn node(&mut self, event: Event<'a>, span: Span, depth: usize) -> Result<Node, YamlError> {
        if depth > MAX_DEPTH {
            return Err(self.error(span, "nested too deeply"));
        }
        if self.flow > 0 {
            self.refuse_unindented(span.start.byte_offset(), span)?;
        }
        let (node, anchor) = match event {
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
                let value = scalar::resolve(&text, style, tag.as_deref());
                (Node::scalar(value), anchor)
            }
            Event::Alias(id) => {
                let Some((value, cost)) = self.anchors.get(&id).cloned() else {
                    return Err(self.error(span, "unresolved alias"));
                };
                self.charge(cost, span)?;
                return Ok(Node { value, cost });
            }
            Event::SequenceStart(style, anchor, _) => {
                let at = self.enter(style, span)?;
                let mut items = Vec::new();
                let mut cost = 1u64;
                loop {
                    let (event, span) = self.expect()?;
                    if matches!(event, Event::SequenceEnd) {
                        break;
                    }
                    let item = self.node(event, span, depth + 1)?;
                    cost = cost.saturating_add(item.cost);
                    items.push(item.value);
                }
                self.leave(style, at);
                let items = Arc::new(items);
                self.costs.insert(
                    Arc::as_ptr(&items) as usize,
                    Costs {
                        total: cost,
                        props: HashMap::new(),
                    },
                );
                (
                    Node {
                        value: Value::Array(items),
                        cost,
                    },
                    anchor,
                )
            }
            Event::MappingStart(style, anchor, _) => {
                let at = self.enter(style, span)?;
                let (map, costs) = self.mapping(style == StructureStyle::Block, depth, span)?;
                self.leave(style, at);
                let map = Arc::new(map);
                let cost = costs.total;
                self.costs.insert(Arc::as_ptr(&map) as usize, costs);
                (
                    Node {
                        value: Value::Object(map),
                        cost,
                    },
                    anchor,
                )
            }
            _ => return Err(self.error(span, "unexpected event")),
        };
        if anchor != 0 {
            self.anchors.insert(anchor, (node.value.clone(), node.cost));
        }
        Ok(node)
    }

    /// Bun's alias budget (`AliasExpansion.charge`): each alias spends the nodes of what it
    /// names, counted whole (a collection 1 plus its items, a mapping 1 plus each property's
    /// key and value, a scalar 1), from [`MAX_ALIAS_NODES`] for the whole parse; past it the
    /// parse fails with "Excessive aliasing". The client shares the aliased value instead of
    /// copying it, and so does [`Value`]: the budget is what bounds whatever walks the value
    /// whole.
    fn charge(&mut self, cost: u64, span: Span) -> Result<(), YamlError> {
        if cost > self.alias_budget {
            return Err(self.error(
                span,
                "excessive aliasing: the aliases name more than 16,777,216 nodes (the client's limit)",
            ));
        }
        self.alias_budget -= cost;
        Ok(())
    }

    /// A value's cost (see [`Builder::charge`]): what the builder counted when it made it.
    fn cost_of(&self, value: &Value) -> u64 {
        let at = match value {
            Value::Array(items) => Arc::as_ptr(items) as usize,
            Value::Object(map) => Arc::as_ptr(map) as usize,
            _ => return 1,
        };
        self.costs.get(&at).map_or(1, |c| c.total)
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

    fn mapping(
        &mut self,
        block: bool,
        depth: usize,
        start: Span,
    ) -> Result<(Object, Costs), YamlError> {
        let mut map = Object::new();
        let mut costs = Costs {
            total: 1,
            props: HashMap::new(),
        };
        // The mappings merged in already (Bun merges one mapping into another once), kept alive
        // so that their addresses stay theirs.
        let mut merged: HashMap<usize, Arc<Object>> = HashMap::new();
        loop {
            let (event, span) = self.expect()?;
            if matches!(event, Event::MappingEnd) {
                return Ok((map, costs));
            }
            if block {
                self.refuse_tab_indent(span)?;
            }
            let empty_key = is_empty_node(&span).then_some(span);
            let key_span = span;
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
            if key.value.as_str() == Some("<<")
                && let Some(sources) = merge_sources(&value.value)
            {
                for source in sources {
                    let at = Arc::as_ptr(source) as usize;
                    if let std::collections::hash_map::Entry::Vacant(e) = merged.entry(at) {
                        e.insert(Arc::clone(source));
                        self.merge(&mut map, &mut costs, source, start)?;
                    }
                }
                continue;
            }
            let text = match key.value.key(&mut self.key_memo) {
                Key::Text(k) | Key::Long(k) => k,
                Key::TooLong => {
                    return Err(self.error(
                        key_span,
                        "out of memory: a key longer than JavaScript's longest string",
                    ));
                }
            };
            let prop = key.cost.saturating_add(value.cost);
            costs.total = costs.total.saturating_add(prop);
            if key.cost > 1 {
                costs.props.insert(text.clone(), prop);
            } else {
                costs.props.remove(&text);
            }
            map.set(text, value.value);
        }
    }

    /// Copies the properties of `source` that `map` does not have yet, last first (Bun's
    /// `MappingProps.merge`), each from [`MAX_MERGED_PROPERTIES`] for the whole parse.
    fn merge(
        &mut self,
        map: &mut Object,
        costs: &mut Costs,
        source: &Arc<Object>,
        span: Span,
    ) -> Result<(), YamlError> {
        let source_costs = self.costs.get(&(Arc::as_ptr(source) as usize));
        let mut added = Vec::new();
        // A source's keys are its own once each: only `map` can have them already.
        for (k, v) in source.iter().rev() {
            if map.contains(k) {
                continue;
            }
            let prop = match source_costs.and_then(|c| c.props.get(k)) {
                Some(&p) => p,
                None => 1u64.saturating_add(self.cost_of(v)),
            };
            added.push((k, v.clone(), prop));
        }
        for (k, v, prop) in added {
            if self.merge_budget == 0 {
                return Err(self.error(
                    span,
                    "out of memory: merge keys copy more than 1,048,576 properties (the client's limit)",
                ));
            }
            self.merge_budget -= 1;
            costs.total = costs.total.saturating_add(prop);
            if prop != 1u64.saturating_add(self.cost_of(&v)) {
                costs.props.insert(k.to_owned(), prop);
            }
            map.set(k.to_owned(), v);
        }
        Ok(())
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

/// The mappings a merge value copies, or `None` when `value` is no merge value (`<<` is then
/// an ordinary key): a mapping, or the mappings of a sequence (its other items are skipped).
fn merge_sources(value: &Value) -> Option<Vec<&Arc<Object>>> {
    match value {
        Value::Object(o) => Some(vec![o]),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(|v| match v {
                    Value::Object(o) => Some(o),
                    _ => None,
                })
                .collect(),
        ),
        _ => None,
    }
}
