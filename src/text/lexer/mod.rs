//! Block structure of Markdown as the client's lexer (a rewritten `marked`, `gfm: false`,
//! class `BPe` in chunk-z2hgkt87) splits it, reduced to what comment stripping and the
//! `@import` scan need.
//!
//! The input must already be LF-normalized (the client lexes `\r\n`/`\r` as `\n`). Rules are
//! CommonMark's where the fork follows them, and the fork's own where it does not (checked
//! against the client's lexer run under node, see `fuzz/oracle/`):
//! - HTML blocks: kinds 1-2 end at the end of the line holding the terminator (`<!-->` and
//!   `<!--->` close at once), kinds 3-5 right after `?>`/`>`/`]]>` (the rest of that line is
//!   lexed as a new block), kinds 6-7 before a blank line; all take the `\n`s after them.
//!   Kind 7 excludes `script|pre|style|textarea` tag names, so `</pre>` alone is a paragraph.
//! - A paragraph ends at a blank line or at the `sp` regex: `>`, `- `/`+ `/`* `, `1. `/`1) `,
//!   an ATX heading, a fence followed by `\n`, a rule, or HTML of kinds 1, 2, 6 **at column 0
//!   only** (so ` <!-- c -->` after a paragraph line is paragraph text, not a comment block).
//! - Setext headings are tried before paragraphs and may span lines a paragraph would stop at
//!   (`EL`/`mL`); a failed scan is remembered (`noSetextUntil`).
//! - List items continue per `hp()`: lines indented to the content column (tabs as four
//!   spaces, `replaceAll`), blank lines, and lazy lines unless a blank line was seen; a line
//!   starting (at most `min(3, indent-1)` spaces in) with `#`, a fence, a rule, `<!--`,
//!   `<X…>` or a list marker ends the item. Inside items text is lexed line by line, so any
//!   block start ends it, and after a nested list the rest of the item lexes as top level
//!   (`blockTokens` leaves `state.top` true).
//! - Block quotes take lazy lines unless `sp`, a list marker or an indented (≤ 3) HTML start
//!   (`Sw`, case-insensitive) begins the line.
//! - Link reference definitions (`Jw`, see `def`) start only where a block starts, may run
//!   over the next line or two, and are collected for the inline pass.
//!
//! Spans are byte ranges of the lexed text; container content is re-lexed from a [`Src`] that
//! maps its bytes back to the outer text.

mod def;
mod html;
mod list;
mod quote;
mod setext;

pub(crate) use html::html_start;
use html::{html_end, html_interrupts};
use list::{list, list_marker};
use quote::blockquote;
use setext::{is_setext, lheading};

pub(crate) use def::{normalize_label, reference};

/// Deepest container nesting that is lexed; deeper `>`/list lines are paragraph text. Each
/// level copies its content, so this bounds the work on adversarial input (the client itself
/// would need a stack frame per level).
const MAX_NESTING: usize = 32;

/// Text lexed inside a container, with a map back to offsets of the outermost text.
#[derive(Debug, Clone, Default)]
pub struct Src {
    /// The container's content with its prefixes (`> `, list indentation) removed.
    pub text: String,
    /// How many containers this text is nested in (0 for the whole text).
    depth: usize,
    /// `(inner offset, outer offset)` at the start of each copied segment, ascending.
    segments: Vec<(usize, usize)>,
    /// Inner offsets of the lines a block quote took lazily (without `>`), ascending.
    lazy: Vec<usize>,
}

impl Src {
    /// The whole `text`, mapped to itself.
    pub fn root(text: &str) -> Self {
        Src {
            text: text.to_owned(),
            depth: 0,
            segments: vec![(0, 0)],
            lazy: Vec::new(),
        }
    }

    /// The outer offset of inner byte `i`.
    pub fn outer(&self, i: usize) -> usize {
        let k = self.segments.partition_point(|&(inner, _)| inner <= i);
        match k.checked_sub(1).and_then(|k| self.segments.get(k)) {
            Some(&(inner, outer)) => outer + (i - inner),
            None => i,
        }
    }

    /// Appends `parent.text[from..to]` with every tab replaced by four spaces and the first
    /// `skip` characters of that dropped (`X = Y.replaceAll("\t", "    "); X.slice(h)`).
    fn push_expanded(&mut self, parent: &Src, from: usize, to: usize, skip: usize) {
        let line = &parent.text[from..to];
        let mut x: usize = 0;
        let mut seg_start: Option<usize> = None;
        for (k, c) in line.char_indices() {
            let width: usize = if c == '\t' { 4 } else { 1 };
            let keep = (x + width).saturating_sub(skip.max(x)).min(width);
            x += width;
            if keep == 0 {
                continue;
            }
            if c == '\t' {
                if let Some(st) = seg_start.take() {
                    self.push(parent, from + st, from + k);
                }
                for _ in 0..keep {
                    self.segments
                        .push((self.text.len(), parent.outer(from + k)));
                    self.text.push(' ');
                }
            } else if seg_start.is_none() {
                seg_start = Some(k);
            }
        }
        if let Some(st) = seg_start {
            self.push(parent, from + st, to);
        }
    }

    /// Appends `parent.text[from..to]`, with one segment per parent segment it spans (the
    /// parent's map is not contiguous where tabs were expanded).
    fn push(&mut self, parent: &Src, from: usize, to: usize) {
        if from >= to {
            return;
        }
        let base = self.text.len();
        self.segments.push((base, parent.outer(from)));
        let first = parent.segments.partition_point(|&(inner, _)| inner <= from);
        for &(inner, outer) in parent.segments[first..]
            .iter()
            .take_while(|&&(i, _)| i < to)
        {
            self.segments.push((base + inner - from, outer));
        }
        self.text.push_str(&parent.text[from..to]);
    }
}

/// A block token; spans are byte ranges of the text it was lexed from.
#[derive(Debug, Clone)]
pub enum Block {
    /// Blank lines, fences, indented code, rules: nothing to scan.
    Other,
    /// A link reference definition, with its label normalized (see [`normalize_label`]).
    Def(String),
    /// An HTML block; `raw` runs to the end of its last line plus all following `\n`.
    Html {
        /// The block's raw span.
        raw: std::ops::Range<usize>,
    },
    /// Paragraph or heading text (inline content), as a span of the lexed text.
    Text {
        /// The inline content.
        span: std::ops::Range<usize>,
        /// A paragraph inside a list item: the client also scans its whole text.
        in_item: bool,
    },
    /// A block quote or list item, with its own lexed content.
    Container(Src, Vec<Block>),
}

/// One physical line: `start..end` excludes the `\n`, `next` is the next line's start.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    next: usize,
}

fn lines(s: &str, from: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = from;
    while start < s.len() {
        let end = s[start..].find('\n').map_or(s.len(), |i| start + i);
        let next = (end + 1).min(s.len());
        out.push(Line { start, end, next });
        start = next;
    }
    out
}

/// Columns of leading indentation (tab stops of 4) and the byte length of that run.
pub(crate) fn indent(s: &str) -> (usize, usize) {
    let mut col = 0;
    for (i, b) in s.bytes().enumerate() {
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => return (col, i),
        }
    }
    (col, s.len())
}

fn is_blank(s: &str) -> bool {
    s.bytes().all(|b| b == b' ' || b == b'\t')
}

/// Lexes `src` into blocks (`top` is false inside list items).
pub fn lex(src: &Src, top: bool) -> Vec<Block> {
    let mut out = Vec::new();
    let mut ls = lines(&src.text, 0);
    let mut from = Some(0);
    let mut top = top;
    while let Some(f) = from {
        let i0 = ls.partition_point(|l| l.end < f);
        let Some(line) = ls.get_mut(i0) else { break };
        line.start = f;
        from = lex_from(src, &ls, i0, &mut top, &mut out);
    }
    out
}

/// Lexes from line `i0` (whose start may be where an HTML block ended mid-line); returns
/// where to go on when an HTML block of kind 3-5 ends before the end of its line.
fn lex_from(
    src: &Src,
    ls: &[Line],
    i0: usize,
    top: &mut bool,
    out: &mut Vec<Block>,
) -> Option<usize> {
    let s = src.text.as_str();
    let mut i = i0;
    // A failed setext scan fails again from any later line before where it gave up.
    let mut no_setext_until = 0;
    while i < ls.len() {
        let line = &s[ls[i].start..ls[i].end];
        let (col, ib) = indent(line);
        let body = &line[ib..];
        if is_blank(line) {
            i += 1;
            out.push(Block::Other);
            continue;
        }
        if col >= 4 {
            while i < ls.len() && {
                let l = &s[ls[i].start..ls[i].end];
                is_blank(l) || indent(l).0 >= 4
            } {
                i += 1;
            }
            out.push(Block::Other);
            continue;
        }
        if let Some((ch, n)) = fence_open(body) {
            i += 1;
            while i < ls.len() {
                let l = &s[ls[i].start..ls[i].end];
                i += 1;
                if is_fence_close(l, ch, n) {
                    break;
                }
            }
            out.push(Block::Other);
            continue;
        }
        if let Some(kind) = html_start(body, false) {
            let first = ls[i].start;
            let open = first + ib;
            let mut end = s.len();
            for (k, &l) in ls[i..].iter().enumerate() {
                if let Some(e) = html_end(kind, s, l, (k == 0).then_some(open)) {
                    end = e;
                    break;
                }
            }
            while s[end..].starts_with('\n') {
                end += 1;
            }
            out.push(Block::Html { raw: first..end });
            if end < s.len() && !s[..end].ends_with('\n') {
                return Some(end);
            }
            i = ls.partition_point(|l| l.start < end);
            continue;
        }
        if let Some(span) = atx_heading(line) {
            let o = ls[i].start;
            out.push(Block::Text {
                span: o + span.start..o + span.end,
                in_item: false,
            });
            i += 1;
            continue;
        }
        if is_hr(body) {
            i += 1;
            out.push(Block::Other);
            continue;
        }
        let nest = src.depth < MAX_NESTING;
        if nest && body.starts_with('>') {
            i = blockquote(src, ls, i, out);
            continue;
        }
        if nest && list_marker(body).is_some() {
            i = list(src, ls, i, out);
            // The fork's `blockTokens` leaves `state.top` true when a list's items are done,
            // so what follows a nested list in an item lexes as top-level paragraphs.
            *top = true;
            continue;
        }
        if let Some((len, label)) = def::definition(&s[ls[i].start..]) {
            let end = ls[i].start + len;
            i = ls.partition_point(|l| l.start < end).max(i + 1);
            out.push(Block::Def(normalize_label(label)));
            continue;
        }
        if ls[i].start >= no_setext_until {
            match lheading(s, ls[i].start, &src.lazy) {
                Ok(end) => {
                    out.push(Block::Text {
                        span: ls[i].start + ib..end,
                        in_item: false,
                    });
                    i = ls.partition_point(|l| l.start < end);
                    continue;
                }
                Err(gave_up) => no_setext_until = gave_up,
            }
        }
        let start = ls[i].start + ib;
        let mut j = i + 1;
        let mut end = ls[i].end;
        while j < ls.len() {
            let l = &s[ls[j].start..ls[j].end];
            if is_setext(l) && src.lazy.binary_search(&ls[j].start).is_err() {
                j += 1;
                break;
            }
            if is_blank(l) || interrupts(l, ls[j].next > ls[j].end) || (!*top && starts_block(l)) {
                break;
            }
            end = ls[j].end;
            j += 1;
        }
        out.push(Block::Text {
            span: start..end,
            in_item: !*top,
        });
        i = j;
    }
    None
}

/// Whether a line ends an open paragraph (the fork's sticky `sp` regex):
/// `` {0,3}(?:>|[-+*] |1[).] |#{1,6}(?!\S)|`{3,}[^\n`]*\n|~~~[^\n]*\n|<hr>)| *\n|<html>``,
/// where the HTML alternative has no indentation allowance and is case-sensitive.
/// `nl` tells whether the line is followed by `\n` (fences only interrupt then).
pub(crate) fn interrupts(line: &str, nl: bool) -> bool {
    if line.bytes().all(|b| b == b' ') {
        return nl || line.is_empty();
    }
    if html_interrupts(line) {
        return true;
    }
    let sp = line.bytes().take_while(|&b| b == b' ').count();
    if sp > 3 {
        return false;
    }
    let body = &line[sp..];
    let b = body.as_bytes();
    if body.starts_with('>')
        || (matches!(b[0], b'-' | b'+' | b'*') && b.get(1) == Some(&b' '))
        || body.starts_with("1. ")
        || body.starts_with("1) ")
    {
        return true;
    }
    let hashes = b.iter().take_while(|&&c| c == b'#').count();
    if (1..=6).contains(&hashes) && b.get(hashes).is_none_or(|c| c.is_ascii_whitespace()) {
        return true;
    }
    let ticks = b.iter().take_while(|&&c| c == b'`').count();
    if ticks >= 3 && !body[ticks..].contains('`') && nl {
        return true;
    }
    if body.starts_with("~~~") && nl {
        return true;
    }
    is_hr(body)
}

/// Inside list items the fork lexes `text` one line at a time, so any block start ends it.
fn starts_block(line: &str) -> bool {
    let (col, ib) = indent(line);
    let body = &line[ib..];
    col < 4
        && (html_start(body, false).is_some()
            || atx_heading(line).is_some()
            || is_hr(body)
            || fence_open(body).is_some()
            || body.starts_with('>')
            || list_marker(body).is_some())
}

fn fence_open(body: &str) -> Option<(u8, usize)> {
    let ch = *body.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = body.bytes().take_while(|&b| b == ch).count();
    if n < 3 || (ch == b'`' && body[n..].contains('`')) {
        return None;
    }
    Some((ch, n))
}

fn is_fence_close(line: &str, ch: u8, n: usize) -> bool {
    let (col, ib) = indent(line);
    let body = &line[ib..];
    let k = body.bytes().take_while(|&b| b == ch).count();
    col < 4 && k >= n && is_blank(&body[k..])
}

fn atx_heading(line: &str) -> Option<std::ops::Range<usize>> {
    let (col, ib) = indent(line);
    let body = &line[ib..];
    let n = body.bytes().take_while(|&b| b == b'#').count();
    if col >= 4 || n == 0 || n > 6 || !(body.len() == n || body[n..].starts_with([' ', '\t'])) {
        return None;
    }
    let mut content = body[n..].trim_matches([' ', '\t']);
    let t = content.trim_end_matches('#');
    if t.is_empty() || t.ends_with([' ', '\t']) {
        content = t.trim_end_matches([' ', '\t']);
    }
    let start = if content.is_empty() {
        line.len()
    } else {
        content.as_ptr() as usize - line.as_ptr() as usize
    };
    Some(start..start + content.len())
}

fn is_hr(body: &str) -> bool {
    let Some(&ch) = body.as_bytes().first() else {
        return false;
    };
    matches!(ch, b'-' | b'*' | b'_')
        && body.bytes().filter(|&b| b == ch).count() >= 3
        && body.bytes().all(|b| b == ch || b == b' ' || b == b'\t')
}
