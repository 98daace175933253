//! Inline tokens of the client's `marked` fork, reduced to what the `@import` scan needs:
//! which stretches of a paragraph are `text` tokens. Escapes, code spans, autolinks, inline
//! HTML, links/images (reference ones too, when their label is defined) and emphasis end the
//! current text token (so an `@` right after one starts a token); link text and emphasis
//! content are scanned as their own tokens; image alt text and link destinations are not.
//! Searches for closing delimiters are memoized or paired in one pass so adversarial input
//! stays near-linear.

use super::lexer::Src;
use super::markdown::{Defs, Sink, html_token};

/// Deepest nesting of links and emphasis that is parsed; deeper markup is plain text (the
/// client would run out of stack long before a file could nest that deep usefully).
const MAX_INLINE_DEPTH: usize = 32;

/// Inline tokens of `span`: every text token goes to `sink`.
pub(crate) fn inline(
    src: &Src,
    span: std::ops::Range<usize>,
    depth: usize,
    defs: &Defs,
    sink: &mut Sink<'_>,
) {
    let s = &src.text[..span.end];
    let b = s.as_bytes();
    let mut run = span.start;
    let mut p = span.start;
    let nested = depth < MAX_INLINE_DEPTH;
    // Failure caches: no closer after these positions (searches are bounded by `span.end`).
    let mut no_emphasis_from = [usize::MAX; 2];
    let mut no_code_close: std::collections::HashMap<usize, usize> = Default::default();
    let mut brackets: Option<std::collections::HashMap<usize, usize>> = None;
    let mut parens: Option<std::collections::HashMap<usize, usize>> = None;
    let mut finds = Finds::default();
    let flush = |from: usize, to: usize, sink: &mut Sink<'_>| {
        if from < to {
            sink(&s[from..to], &|i| src.outer(from + i));
        }
    };
    while p < span.end {
        let c = b[p];
        let token: Option<(usize, Option<std::ops::Range<usize>>)> = match c {
            b'\\'
                if b.get(p + 1)
                    .is_some_and(|n| n.is_ascii_punctuation() || *n == b'\n') =>
            {
                Some((2, None))
            }
            b'`' => {
                let n = b[p..].iter().take_while(|&&x| x == b'`').count();
                let found = if no_code_close.get(&n).is_some_and(|&f| f <= p) {
                    None
                } else {
                    code_span_end(&s[p + n..], n)
                };
                match found {
                    Some(e) => Some((n + e, None)),
                    None => {
                        no_code_close.entry(n).or_insert(p);
                        p += n;
                        continue;
                    }
                }
            }
            b'<' => autolink_len(&s[p..])
                .or_else(|| inline_html(s, p, &mut finds))
                .map(|n| (n, None)),
            b'[' if nested => {
                let m = brackets.get_or_insert_with(|| bracket_pairs(s, span.start));
                let close = m.get(&p).copied();
                let pm = parens.get_or_insert_with(|| paren_pairs(s, span.start));
                close
                    .and_then(|close| link(p, 1, close, pm.get(&(close + 1)).copied()))
                    .or_else(|| reference_link(s, p, defs))
            }
            b'!' if nested && b.get(p + 1) == Some(&b'[') => {
                let m = brackets.get_or_insert_with(|| bracket_pairs(s, span.start));
                let close = m.get(&(p + 1)).copied();
                let pm = parens.get_or_insert_with(|| paren_pairs(s, span.start));
                close
                    .and_then(|close| link(p, 2, close, pm.get(&(close + 1)).copied()))
                    .or_else(|| reference_link(s, p + 1, defs).map(|(n, _)| (n + 1, None)))
                    .map(|(n, _)| (n, None))
            }
            b'*' | b'_' if nested => {
                let slot = usize::from(c == b'_');
                let found = if no_emphasis_from[slot] <= p {
                    None
                } else {
                    emphasis(s, p, span.start)
                };
                match found {
                    Some((lead, n, inner)) => {
                        p += lead;
                        Some((n, inner))
                    }
                    None => {
                        if no_emphasis_from[slot] == usize::MAX && opens(s, p, span.start) {
                            no_emphasis_from[slot] = p;
                        }
                        p += b[p..].iter().take_while(|&&x| x == c).count();
                        continue;
                    }
                }
            }
            _ => None,
        };
        match token {
            Some((n, inner)) => {
                flush(run, p, sink);
                if c == b'<' && s[p..].starts_with("<!--") {
                    html_token(&s[p..p + n], p, src, sink);
                }
                if let Some(r) = inner {
                    inline(src, r, depth + 1, defs, sink);
                }
                p += n;
                run = p;
            }
            None => p += s[p..].chars().next().map_or(1, char::len_utf8),
        }
    }
    flush(run, span.end, sink);
}

/// For each `[` from `start` on, the index of its matching `]` (escapes and code spans
/// skipped), in one pass.
fn bracket_pairs(s: &str, start: usize) -> std::collections::HashMap<usize, usize> {
    let b = s.as_bytes();
    let mut out = std::collections::HashMap::new();
    let mut stack = Vec::new();
    let mut no_code_close: std::collections::HashMap<usize, usize> = Default::default();
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'`' => {
                let n = b[i..].iter().take_while(|&&x| x == b'`').count();
                let end = if no_code_close.get(&n).is_some_and(|&f| f <= i) {
                    None
                } else {
                    code_span_end(&s[i + n..], n)
                };
                if end.is_none() {
                    no_code_close.entry(n).or_insert(i);
                }
                i += end.unwrap_or(0) + n - 1;
            }
            b'[' => stack.push(i),
            b']' => {
                if let Some(open) = stack.pop() {
                    out.insert(open, i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether the delimiter run at `p` may open emphasis (so a failed search is worth caching).
fn opens(s: &str, p: usize, start: usize) -> bool {
    let c = s.as_bytes()[p];
    if p > start && s.as_bytes()[p - 1] == c {
        return false;
    }
    let n = s.as_bytes()[p..].iter().take_while(|&&x| x == c).count();
    let before = s[start..p].chars().next_back();
    let after = s[p + n..].chars().next();
    flanking(before, after)
        && !(c == b'_' && flanking(after, before) && !before.is_some_and(is_punct))
}

fn code_span_end(rest: &str, n: usize) -> Option<usize> {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let k = b[i..].iter().take_while(|&&x| x == b'`').count();
            if k == n {
                return Some(i + k);
            }
            i += k;
        } else {
            i += 1;
        }
    }
    None
}

/// Remembers the last search for each closing string, so repeated searches from later
/// positions (`<!--<!--<!--…`) stay linear.
#[derive(Default)]
struct Finds {
    last: [Option<(usize, Option<usize>)>; 4],
}

impl Finds {
    /// The first index `>= from` of `needle` (one of `-->`, `?>`, `]]>`, `>`) in `s`.
    fn find(&mut self, s: &str, from: usize, needle: &str) -> Option<usize> {
        let k = ["-->", "?>", "]]>", ">"]
            .iter()
            .position(|n| *n == needle)?;
        if let Some((q, r)) = self.last[k]
            && q <= from
            && r.is_none_or(|x| x >= from)
        {
            return r;
        }
        let r = s.get(from..)?.find(needle).map(|i| from + i);
        self.last[k] = Some((from, r));
        r
    }
}

/// Inline HTML at `p` with the searches for its end memoized.
fn inline_html(s: &str, p: usize, finds: &mut Finds) -> Option<usize> {
    let r = &s[p..];
    let end = |needle: &str, skip: usize, finds: &mut Finds| {
        finds
            .find(s, p + skip, needle)
            .map(|i| i + needle.len() - p)
    };
    if let Some(c) = r.strip_prefix("<!--") {
        if c.starts_with('>') {
            return Some(5);
        }
        if c.starts_with("->") {
            return Some(6);
        }
        return end("-->", 4, finds);
    }
    if r.starts_with("<?") {
        return end("?>", 2, finds);
    }
    if r.starts_with("<![CDATA[") {
        return end("]]>", 9, finds);
    }
    if r.len() > 2 && r.starts_with("<!") && r.as_bytes()[2].is_ascii_alphabetic() {
        return end(">", 0, finds);
    }
    html_tag_len(r)
}

fn autolink_len(s: &str) -> Option<usize> {
    let end = 1 + s[1..].find(|c: char| c == '>' || c == '<' || c <= ' ')?;
    if s.as_bytes()[end] != b'>' {
        return None;
    }
    let inner = &s[1..end];
    if inner.is_empty() || inner.bytes().any(|b| b <= b' ' || b == b'<') {
        return None;
    }
    let scheme = inner.split(':').next()?;
    let uri = inner.contains(':')
        && (2..=32).contains(&scheme.len())
        && scheme.as_bytes()[0].is_ascii_alphabetic()
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+.-".contains(&b));
    let email = inner.split_once('@').is_some_and(|(l, d)| {
        !l.is_empty()
            && !d.is_empty()
            && l.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&b))
            && d.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b".-".contains(&b))
    });
    (uri || email).then_some(end + 1)
}

/// Length of an inline HTML construct at the start of `s` (tag, comment, `<?…?>`, `<!X…>`,
/// CDATA), CommonMark style.
pub(crate) fn html_tag_len(s: &str) -> Option<usize> {
    if let Some(r) = s.strip_prefix("<!--") {
        if r.starts_with('>') {
            return Some(5);
        }
        if r.starts_with("->") {
            return Some(6);
        }
        return r.find("-->").map(|i| 4 + i + 3);
    }
    if let Some(r) = s.strip_prefix("<?") {
        return r.find("?>").map(|i| 2 + i + 2);
    }
    if let Some(r) = s.strip_prefix("<![CDATA[") {
        return r.find("]]>").map(|i| 9 + i + 3);
    }
    if s.len() > 2 && s.starts_with("<!") && s.as_bytes()[2].is_ascii_alphabetic() {
        return s.find('>').map(|i| i + 1);
    }
    let b = s.as_bytes();
    let closing = s.starts_with("</");
    let mut i = if closing { 2 } else { 1 };
    if !b.get(i)?.is_ascii_alphabetic() {
        return None;
    }
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-')
    {
        i += 1;
    }
    if closing {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        return (b.get(i) == Some(&b'>')).then_some(i + 1);
    }
    loop {
        let ws = b[i..]
            .iter()
            .take_while(|c| c.is_ascii_whitespace())
            .count();
        i += ws;
        match b.get(i)? {
            b'>' => return Some(i + 1),
            b'/' => return (b.get(i + 1) == Some(&b'>')).then_some(i + 2),
            c if ws > 0 && (c.is_ascii_alphabetic() || *c == b'_' || *c == b':') => {
                while b
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || b"_.:-".contains(c))
                {
                    i += 1;
                }
                let save = i;
                let ws2 = b[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
                if b.get(i + ws2) == Some(&b'=') {
                    i += ws2 + 1;
                    i += b[i..]
                        .iter()
                        .take_while(|c| c.is_ascii_whitespace())
                        .count();
                    match b.get(i)? {
                        q @ (b'"' | b'\'') => i += 1 + s[i + 1..].find(*q as char)? + 1,
                        _ => {
                            let n = b[i..]
                                .iter()
                                .take_while(|c| !c.is_ascii_whitespace() && !b"\"'=<>`".contains(c))
                                .count();
                            if n == 0 {
                                return None;
                            }
                            i += n;
                        }
                    }
                } else {
                    i = save;
                }
            }
            _ => return None,
        }
    }
}

/// A link or image at `p` (`open` = 1 for `[`, 2 for `![`) whose text closes at `close`
/// and whose destination `(…)` closes at `dest_close`: its length and its text span.
fn link(
    p: usize,
    open: usize,
    close: usize,
    dest_close: Option<usize>,
) -> Option<(usize, Option<std::ops::Range<usize>>)> {
    let j = dest_close?;
    Some((j + 1 - p, Some(p + open..close)))
}

/// A reference link (`[text][label]`, `[label][]`, `[label]`) at `p` whose label is defined:
/// its length and its text span. An undefined label leaves the `[` plain text.
fn reference_link(
    s: &str,
    p: usize,
    defs: &Defs,
) -> Option<(usize, Option<std::ops::Range<usize>>)> {
    if defs.is_empty() {
        return None;
    }
    let (end, text, label) = super::lexer::reference(s, p)?;
    defs.contains(&super::lexer::normalize_label(label))
        .then_some((end - p, Some(text)))
}

/// For each `(` from `start` on, the index of its matching `)` (escapes skipped).
fn paren_pairs(s: &str, start: usize) -> std::collections::HashMap<usize, usize> {
    let b = s.as_bytes();
    let mut out = std::collections::HashMap::new();
    let mut stack = Vec::new();
    let mut i = start;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'(' => stack.push(i),
            b')' => {
                if let Some(open) = stack.pop() {
                    out.insert(open, i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Emphasis at `p`: a left-flanking run closed later by a right-flanking run of the same
/// character. Returns the unused part of the opening run (text), the token's length after
/// it and the span of its content.
fn emphasis(
    s: &str,
    p: usize,
    start: usize,
) -> Option<(usize, usize, Option<std::ops::Range<usize>>)> {
    let b = s.as_bytes();
    let c = b[p];
    if p > start && b[p - 1] == c {
        return None;
    }
    let n = b[p..].iter().take_while(|&&x| x == c).count();
    let before = s[start..p].chars().next_back();
    let after = s[p + n..].chars().next();
    if !flanking(before, after)
        || (c == b'_' && flanking(after, before) && !before.is_some_and(is_punct))
    {
        return None;
    }
    let mut i = p + n;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if b[i] == c {
            let k = b[i..].iter().take_while(|&&x| x == c).count();
            let bf = s[..i].chars().next_back();
            let af = s[i + k..].chars().next();
            let closes =
                flanking(af, bf) && (c == b'*' || !flanking(bf, af) || af.is_some_and(is_punct));
            if closes && i > p + n {
                let m = n.min(k).min(2);
                let at = p + n - m;
                return Some((at - p, i + m - at, Some(at + m..i)));
            }
            i += k;
        } else {
            i += 1;
        }
    }
    None
}

/// Left-flanking test of a delimiter run between `before` and `after` (CommonMark).
fn flanking(before: Option<char>, after: Option<char>) -> bool {
    let Some(a) = after.filter(|a| !a.is_whitespace()) else {
        return false;
    };
    !is_punct(a) || before.is_none_or(|b| b.is_whitespace() || is_punct(b))
}

fn is_punct(c: char) -> bool {
    c.is_ascii_punctuation() || (!c.is_ascii() && !c.is_alphanumeric() && !c.is_whitespace())
}
