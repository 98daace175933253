//! List items as the client's lexer continues them (`hp()`, `TL`, `NL`).

use super::{Block, Line, Src, indent, is_blank, lex};

/// A list: items continue per the fork's `hp()`: with `D = min(3, indent - 1)`, a line
/// whose first non-space is at index `<= D` and matches `TL` (`#`, fences, a rule, `<!--`,
/// `<X…>`, a list marker) ends the item; a blank or indented (`>= indent`, tabs as 4 spaces)
/// line continues it; any other line is a lazy continuation unless a blank line was seen or
/// the previous line looks like indented code, a heading, a fence or a rule.
pub(super) fn list(src: &Src, ls: &[Line], mut i: usize, out: &mut Vec<Block>) -> usize {
    let s = src.text.as_str();
    let first = list_marker(&s[ls[i].start..ls[i].end][indent(&s[ls[i].start..ls[i].end]).1..])
        .map(|m| m.kind);
    while i < ls.len() {
        let line = &s[ls[i].start..ls[i].end];
        let (col, ib) = indent(line);
        let Some(m) = list_marker(&line[ib..]).filter(|m| Some(m.kind) == first && col < 4) else {
            break;
        };
        let width = col + m.width;
        let d = 3.min(width.saturating_sub(1));
        let mut inner = Src {
            depth: src.depth + 1,
            ..Src::default()
        };
        inner.push(src, ls[i].start + ib + m.content, ls[i].next);
        let mut prev: std::borrow::Cow<'_, str> = line[ib + m.content..].into();
        let mut saw_blank = is_blank(&prev);
        i += 1;
        while i < ls.len() {
            let l = &s[ls[i].start..ls[i].end];
            let w = l.bytes().take_while(|&b| b == b' ').count();
            if w <= d && item_breaks(&l[w..], ls[i].next >= s.len() && ls[i].end == s.len()) {
                break;
            }
            let expanded: std::borrow::Cow<'_, str> = if l.contains('\t') {
                l.replace('\t', "    ").into()
            } else {
                l.into()
            };
            let blank = crate::text::js::trim(l).is_empty();
            let ew = expanded.bytes().take_while(|&b| b == b' ').count();
            if blank {
                inner.push(src, ls[i].end, ls[i].next);
            } else if ew >= width {
                inner.push_expanded(src, ls[i].start, ls[i].next, width);
            } else if saw_blank || !lazy_after(&prev, d) {
                break;
            } else {
                inner.push(src, ls[i].start, ls[i].next);
            }
            saw_blank |= blank;
            prev = match expanded {
                std::borrow::Cow::Borrowed(b) => b.get(width..).unwrap_or("").into(),
                std::borrow::Cow::Owned(o) => o.get(width..).unwrap_or("").to_owned().into(),
            };
            i += 1;
        }
        let blocks = lex(&inner, false);
        out.push(Block::Container(inner, blocks));
    }
    i
}

/// `TL` at the first non-space of a line (case-insensitive).
pub(super) fn item_breaks(body: &str, at_eof: bool) -> bool {
    let b = body.as_bytes();
    if body.starts_with('#') || body.starts_with("```") || body.starts_with("~~~") || is_pw_hr(body)
    {
        return true;
    }
    if body.starts_with("<!--")
        || (b.first() == Some(&b'<')
            && b.get(1).is_some_and(u8::is_ascii_alphabetic)
            && body[2..].contains('>'))
    {
        return true;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mlen = if (1..=9).contains(&digits) && matches!(b.get(digits), Some(b'.' | b')')) {
        digits + 1
    } else if matches!(b.first(), Some(b'-' | b'+' | b'*')) {
        1
    } else {
        return false;
    };
    match b.get(mlen) {
        Some(b'\t' | b' ') => true,
        None => at_eof,
        _ => false,
    }
}

/// `Pw`'s rule alternative: `- *- *-[- ]*`, `_ *_ *_[_ ]*`, `[*] *[*] *[*][* ]*`, to the end.
pub(super) fn is_pw_hr(body: &str) -> bool {
    let Some(&c) = body.as_bytes().first() else {
        return false;
    };
    matches!(c, b'-' | b'_' | b'*')
        && body.bytes().filter(|&b| b == c).count() >= 3
        && body.bytes().all(|b| b == c || b == b' ')
}

/// `NL(previous, D)`: whether a lazy line may follow `prev`.
pub(super) fn lazy_after(prev: &str, d: usize) -> bool {
    let o = prev.bytes().take_while(|&b| b == b' ').count();
    let code_like = {
        let sp = prev.bytes().take_while(|&b| b == b' ').count();
        (sp >= 4 || (sp <= 3 && prev.as_bytes().get(sp) == Some(&b'\t')))
            && !crate::text::js::trim(prev).is_empty()
    };
    let pw = {
        let r = &prev[o.min(prev.len())..];
        r.starts_with('#') || r.starts_with("```") || r.starts_with("~~~") || is_pw_hr(r)
    };
    !code_like && (o > d || !pw)
}

/// A list marker: kind (bullet char or ordered delimiter), width with its spaces, content start.
#[derive(Clone, Copy)]
pub(super) struct Marker {
    kind: u8,
    width: usize,
    content: usize,
}

pub(super) fn list_marker(body: &str) -> Option<Marker> {
    let b = body.as_bytes();
    let (kind, mlen) = match b.first()? {
        c @ (b'-' | b'+' | b'*') => (*c, 1),
        b'0'..=b'9' => {
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            if digits > 9 {
                return None;
            }
            let d = *b.get(digits)?;
            if d != b'.' && d != b')' {
                return None;
            }
            (d, digits + 1)
        }
        _ => return None,
    };
    let rest = &body[mlen..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let (sp, sb) = indent(rest);
    let empty = is_blank(rest);
    let (width, content) = if empty || sp > 4 {
        (mlen + 1, mlen + rest.len().min(1))
    } else {
        (mlen + sp, mlen + sb)
    };
    Some(Marker {
        kind,
        width,
        content,
    })
}
