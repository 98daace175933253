//! Block quotes: the `>` lines and the lazy continuation lines the fork lets them take.

use super::html::opens_block_tag;
use super::list::list_marker;
use super::{Block, Line, Src, fence_open, indent, interrupts, is_blank, lex};

/// A block quote from line `i`: its `>` lines and the lazy lines after them, lexed as a
/// container; returns the line after it.
pub(super) fn blockquote(src: &Src, ls: &[Line], mut i: usize, out: &mut Vec<Block>) -> usize {
    let s = src.text.as_str();
    let mut inner = Src {
        depth: src.depth + 1,
        ..Src::default()
    };
    let mut lazy_ok = false;
    while i < ls.len() {
        let line = &s[ls[i].start..ls[i].end];
        let (col, ib) = indent(line);
        if col < 4 && line[ib..].starts_with('>') {
            let mut from = ls[i].start + ib + 1;
            if matches!(s.as_bytes().get(from), Some(b' ' | b'\t')) {
                from += 1;
            }
            inner.push(src, from, ls[i].next);
            let rest = &s[from..ls[i].end];
            lazy_ok =
                !is_blank(rest) && indent(rest).0 < 4 && fence_open(rest.trim_start()).is_none();
        } else if lazy_ok && !is_blank(line) && !lazy_breaks(line, ls[i].next > ls[i].end) {
            inner.lazy.push(inner.text.len());
            inner.push(src, ls[i].start, ls[i].next);
        } else {
            break;
        }
        i += 1;
    }
    let blocks = lex(&inner, true);
    out.push(Block::Container(inner, blocks));
    i
}

/// Whether a line may not be a lazy continuation of a block quote (`lp`: `sp`, `uL`, `Sw`).
fn lazy_breaks(line: &str, nl: bool) -> bool {
    if interrupts(line, nl) || is_blank(line) {
        return true;
    }
    let sp = line.bytes().take_while(|&c| c == b' ').count();
    if sp > 3 {
        return false;
    }
    let body = &line[sp..];
    if list_marker(body).is_some() {
        return true;
    }
    let Some(r) = body.strip_prefix('<') else {
        return false;
    };
    let lower = r.to_ascii_lowercase();
    if lower.starts_with("!--") {
        return true;
    }
    for t in ["script", "pre", "style", "textarea"] {
        if lower.starts_with(t)
            && lower[t.len()..]
                .chars()
                .next()
                .is_none_or(|c| c.is_whitespace() || c == '>')
        {
            return true;
        }
    }
    opens_block_tag(&lower)
}
