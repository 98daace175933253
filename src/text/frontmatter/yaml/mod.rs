//! `Bun.YAML.parse` (`lQ` in chunk-757mw3zq; the client's only YAML reader, Bun 1.4.6 inside
//! the `claude` binary), built on the granit-parser event stream (the parser serde-saphyr
//! uses). What the events become follows Bun (`build.rs`); where Bun's scanner accepts or refuses
//! other texts than granit-parser, `strict.rs` and the comma pass below make the port agree:
//! - no document is `null`; one document is its value; several (after `...` or a directive)
//!   are an array of their values; a `...` before any content ends an empty first document;
//! - scalars as `scalar.rs` resolves them; keys become strings ([`Value::to_key`]);
//! - a key set twice keeps its first place and its last value;
//! - anchors may be redefined (an alias takes the latest); an alias to no anchor is an error;
//! - an alias is the anchored value itself, shared, not a copy; the nodes aliases name are
//!   counted, each alias its whole value, and past [`MAX_ALIAS_NODES`] for the parse it is an
//!   error ("Excessive aliasing"); merge keys copy at most [`MAX_MERGED_PROPERTIES`] properties
//!   ("Out of memory"). An alias bomb (nine levels of `&a [*b, *b, …]`) is refused, as the client
//!   refuses it, and one under the limits is read as the client reads it, without the copies;
//! - merge keys: a key whose value is the string `<<` (in any quoting) with a mapping, or a
//!   sequence of mappings, as its value copies their entries into the mapping — each source
//!   mapping in order, its entries LAST FIRST, a key only when the mapping does not have it
//!   yet (so earlier keys and earlier sources win, and later explicit keys overwrite);
//!   non-mapping items are skipped; with any other value `<<` is an ordinary key;
//! - outside flow collections a `,` is an ordinary character, even first in a scalar
//!   (`a: , b` is `", b"`; granit-parser, like libyaml, reads it as a flow indicator);
//! - a tag ends at the first character that cannot be in a tag (`!xéa` is `éa` tagged `!x`);
//! - a BOM inside a document is content (`tags: \u{feff}[a]` is a string).
//!
//! The common simple shape (flat `key: value` lines and one level of indented blocks) takes a
//! fast path (`fast.rs`, no event parser) that gives the same values.
//!
//! Known to differ, found by fuzzing fragment soup (none in realistic frontmatter): some
//! indicator runs after tags and anchors, a `:` or `#` opening a token inside a flow
//! collection, and a lone CR outside quoted scalars. fuzz/frontmatter-known-differences.json
//! lists the vectors where they occur.

mod build;
pub(super) mod fast;
mod strict;

use granit_parser::Options;

use super::value::Value;

/// Nesting deeper than this is refused (the client's parser has a stack check too).
const MAX_DEPTH: usize = 512;

/// Nodes the aliases of one parse may name, counted whole (Bun's `AliasExpansion.max_nodes`,
/// 16 Mi; measured in the client: aliases naming exactly 16,777,216 nodes read, one more is
/// "Excessive aliasing").
pub const MAX_ALIAS_NODES: u64 = 16 * 1024 * 1024;

/// Properties the merge keys of one parse may copy (Bun's `MappingProps.max_merged_properties`,
/// 1 Mi; measured in the client: 1,048 merges of a 1,000-key mapping read, 1,049 are
/// `RangeError: Out of memory`).
pub const MAX_MERGED_PROPERTIES: u64 = 1024 * 1024;

/// At most this many second tries (each mends one place).
const MAX_TRIES: usize = 64;

/// Stands for a `,` outside flow collections on a second try (a noncharacter, never in real
/// text; a text holding it gets no second try).
const COMMA: char = '\u{FDD0}';

/// Why a YAML text does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    /// 1-based line in the parsed text.
    pub line: usize,
    /// What went wrong (the parser's words).
    pub message: String,
    /// Byte offset in the parsed text.
    at: usize,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for YamlError {}

/// Parses `text` as the client's `Bun.YAML.parse` does.
pub fn parse(text: &str) -> Result<Value, YamlError> {
    if let Some(v) = fast::parse(text) {
        return Ok(v);
    }
    let first = match build::parse(text, false) {
        Ok(v) => return Ok(v),
        Err(failure) => failure,
    };
    if text.contains(COMMA) {
        return Err(first.error);
    }
    // Second tries, each mending one place where granit-parser stopped and Bun reads on.
    let mut current = text.to_owned();
    let mut failure = first.clone();
    for _ in 0..MAX_TRIES {
        let next = if failure.tag_run_on {
            end_tag(&current, failure.error.at)
        } else {
            hide_block_commas(&current, &failure)
        };
        if next == current {
            return Err(first.error);
        }
        current = next;
        match build::parse(&current, true) {
            Ok(v) => return Ok(v),
            Err(f) => failure = f,
        }
    }
    Err(first.error)
}

/// Bun ends a local tag (`!name`) at the first character that cannot be in one and reads
/// the node from there (`!xéa` is the tag `!x` on `éa`, `!C:\\x` is `!C:` on `\\x`, `!x,`
/// is `","`); granit-parser wants a space: put one there. A `!!` tag run into anything is an
/// error for Bun too, and so is a local tag run into `!`, `%`, `|`, `>`, a bracket or a
/// backquote.
fn end_tag(text: &str, at: usize) -> String {
    let Some(tag) = text
        .get(at..)
        .filter(|t| t.starts_with('!') && !t[1..].starts_with(['!', '<']))
    else {
        return text.to_owned();
    };
    let is_tag_char = |c: char| c.is_ascii_alphanumeric() || "#$&'()*+-./:;=?@_~".contains(c);
    let len = 1 + tag[1..]
        .find(|c: char| !is_tag_char(c))
        .unwrap_or(tag.len() - 1);
    match tag[len..].chars().next() {
        Some(c)
            if !matches!(c, ' ' | '\t' | '\n' | '\r')
                && (!c.is_ascii() || ",<\\^\"[".contains(c)) =>
        {
            format!("{} {}", &text[..at + len], &text[at + len..])
        }
        _ => text.to_owned(),
    }
}

/// `text` with each `,` up to the failure point (granit-parser's error points at the comma
/// it stumbled on) outside every flow collection seen and not ending an anchor or alias
/// name (`&a,` is an error for Bun too) replaced by [`COMMA`].
fn hide_block_commas(text: &str, failure: &build::Failure) -> String {
    let end = failure.error.at.min(text.len());
    // The flow collections' ranges, as disjoint spans in text order (nested ones lie inside
    // their parent's), walked along with the text: a text of many commas and many flow
    // collections is read once, not once per comma.
    let mut spans: Vec<(usize, usize)> = failure.flows.clone();
    spans.sort_unstable();
    let mut disjoint: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match disjoint.last_mut() {
            Some(last) if s < last.1 => last.1 = last.1.max(e),
            _ => disjoint.push((s, e)),
        }
    }
    let mut next = 0;
    let mut in_flow = |i: usize| {
        while next < disjoint.len() && disjoint[next].1 <= i {
            next += 1;
        }
        disjoint.get(next).is_some_and(|&(s, e)| s <= i && i < e)
    };
    // Where the current word (since the last space, tab or line break) starts: a comma right
    // after an anchor or alias name ends that name.
    let mut word_start = 0;
    text.char_indices()
        .map(|(i, c)| {
            if matches!(c, ' ' | '\t' | '\n' | '\r') {
                word_start = i + 1;
                return c;
            }
            let ends_name = text[word_start..i].starts_with(['&', '*']);
            if c == ',' && i <= end && !in_flow(i) && !ends_name {
                COMMA
            } else {
                c
            }
        })
        .collect()
}

/// A BOM inside a document starts a plain scalar, as in Bun, instead of being an error.
fn options() -> Options {
    let mut options = Options::default();
    options.bom_inside_document_as_content = true;
    options
}

/// Whether the first line with content (blank and comment lines skipped) is a `...` marker
/// at the start of the line.
fn starts_with_document_end(text: &str) -> bool {
    text.lines()
        .map(|l| l.trim_start_matches('\u{feff}'))
        .find(|l| !l.trim_end().is_empty() && !l.trim_start().starts_with('#'))
        .and_then(|l| l.strip_prefix("..."))
        .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

#[cfg(test)]
mod tests;
