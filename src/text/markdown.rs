//! The client's Markdown scan for `@path` imports (`IQr`, chunk-bqhgd24a).
//!
//! The client lexes the text (frontmatter already removed) with its `marked` fork and walks
//! the tokens: `text` tokens are scanned with `/(?:^|\s)@((?:[^\s\\]|\\ )+)/g`; code and
//! code spans are skipped; `html` tokens are scanned only when they start with `<!--` and
//! contain `-->`, after removing every comment; it recurses into `tokens` (links, emphasis,
//! paragraphs, headings, quotes) and `items` (lists). Inside list items the paragraph-level
//! `text` token is scanned whole (its raw text, link syntax included) and then its inline
//! tokens, so an item's imports may be found twice (the caller dedupes).
//!
//! Inline tokens split text: an escape, code span, autolink, inline HTML, link or emphasis
//! ends the current text token, so an `@` right after one starts a token and matches `^`.

use super::js::is_js_space;
use super::lexer::{self, Block, Src};

/// One `@path` candidate as written, after fragment cut and `\ ` unescaping, with the byte
/// offset of its `@` in the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRef {
    /// The path string (not yet resolved).
    pub path: String,
    /// Byte offset of the `@` in the scanned text.
    pub offset: usize,
}

/// Every accepted `@path` in client order (token traversal; duplicates kept for the caller).
///
/// The client applies its path policy check (`RG`: UNC paths, download folders …) to the raw
/// candidate and resolves it afterwards; both are left to the caller.
pub fn imports(text: &str) -> Vec<ImportRef> {
    let mut out = Vec::new();
    if !text.contains('@') {
        return out;
    }
    let norm = Normalized::new(text);
    let root = Src::root(&norm.text);
    let blocks = lexer::lex(&root, true);
    walk(
        &root,
        &blocks,
        &mut |s: &str, base: &dyn Fn(usize) -> usize| {
            scan(s, &mut |path, at| {
                out.push(ImportRef {
                    path,
                    offset: norm.original(base(at)),
                })
            })
        },
    );
    out
}

/// The LF-normalized text and the positions of removed `\r` bytes (of `\r\n` pairs).
pub(crate) struct Normalized {
    pub(crate) text: String,
    /// Normalized offsets of each `\n` that replaced a `\r\n` pair.
    crlf: Vec<usize>,
}

impl Normalized {
    pub(crate) fn new(text: &str) -> Self {
        let mut out = String::with_capacity(text.len());
        let mut crlf = Vec::new();
        let mut rest = text;
        while let Some(i) = rest.find('\r') {
            out.push_str(&rest[..i]);
            if rest[i + 1..].starts_with('\n') {
                crlf.push(out.len());
                rest = &rest[i + 2..];
            } else {
                rest = &rest[i + 1..];
            }
            out.push('\n');
        }
        out.push_str(rest);
        Normalized { text: out, crlf }
    }

    /// The offset in the original text of normalized byte `i`.
    pub(crate) fn original(&self, i: usize) -> usize {
        i + self.crlf.partition_point(|&p| p < i)
    }
}

type Sink<'a> = dyn FnMut(&str, &dyn Fn(usize) -> usize) + 'a;

fn walk(src: &Src, blocks: &[Block], sink: &mut Sink<'_>) {
    for b in blocks {
        match b {
            Block::Other => {}
            Block::Html { raw } => html_token(&src.text[raw.clone()], raw.start, src, sink),
            Block::Text { span, in_item } => {
                if *in_item {
                    sink(&src.text[span.clone()], &|i| src.outer(span.start + i));
                }
                inline(src, span.clone(), sink);
            }
            Block::Container(inner, blocks) => walk(inner, blocks, sink),
        }
    }
}

/// An `html` token: scanned only as a comment token, with its comments removed.
fn html_token(raw: &str, at: usize, src: &Src, sink: &mut Sink<'_>) {
    let t = super::js::trim(raw);
    let lead = raw.len() - raw.trim_start_matches(is_js_space).len();
    if !raw[lead..].starts_with("<!--") || !t.contains("-->") {
        return;
    }
    let mut kept = String::new();
    let mut map = Vec::new();
    let mut pos = 0;
    while let Some(open) = raw[pos..].find("<!--").map(|i| pos + i) {
        let Some(close) = raw[open + 4..].find("-->").map(|i| open + 4 + i + 3) else {
            break;
        };
        map.push((kept.len(), pos));
        kept.push_str(&raw[pos..open]);
        pos = close;
    }
    map.push((kept.len(), pos));
    kept.push_str(&raw[pos..]);
    if super::js::trim(&kept).is_empty() {
        return;
    }
    let base = |i: usize| {
        let k = map.partition_point(|&(o, _)| o <= i) - 1;
        src.outer(at + map[k].1 + (i - map[k].0))
    };
    sink(&kept, &base);
}

/// Inline tokens of `span`: every text token goes to `sink`.
fn inline(src: &Src, span: std::ops::Range<usize>, sink: &mut Sink<'_>) {
    let s = &src.text[..span.end];
    let b = s.as_bytes();
    let mut run = span.start;
    let mut p = span.start;
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
                match code_span_end(&s[p + n..], n) {
                    Some(e) => Some((n + e, None)),
                    None => {
                        p += n;
                        continue;
                    }
                }
            }
            b'<' => autolink_len(&s[p..])
                .or_else(|| html_tag_len(&s[p..]))
                .map(|n| (n, None)),
            b'[' => link(s, p, 1),
            b'!' if b.get(p + 1) == Some(&b'[') => link(s, p, 2).map(|(n, _)| (n, None)),
            b'*' | b'_' => match emphasis(s, p, span.start) {
                Some((lead, n, inner)) => {
                    p += lead;
                    Some((n, inner))
                }
                None => {
                    p += b[p..].iter().take_while(|&&x| x == c).count();
                    continue;
                }
            },
            _ => None,
        };
        match token {
            Some((n, inner)) => {
                flush(run, p, sink);
                if c == b'<' && s[p..].starts_with("<!--") {
                    html_token(&s[p..p + n], p, src, sink);
                }
                if let Some(r) = inner {
                    inline(src, r, sink);
                }
                p += n;
                run = p;
            }
            None => p += s[p..].chars().next().map_or(1, char::len_utf8),
        }
    }
    flush(run, span.end, sink);
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

fn autolink_len(s: &str) -> Option<usize> {
    let end = s.find('>')?;
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

/// A link or image at `p` (`open` = 1 for `[`, 2 for `![`): its length and its text span.
fn link(s: &str, p: usize, open: usize) -> Option<(usize, Option<std::ops::Range<usize>>)> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = p + open;
    let close = loop {
        match b.get(i)? {
            b'\\' => i += 1,
            b'`' => {
                let n = b[i..].iter().take_while(|&&x| x == b'`').count();
                i += code_span_end(&s[i + n..], n).unwrap_or(0) + n - 1;
            }
            b'[' => depth += 1,
            b']' if depth == 0 => break i,
            b']' => depth -= 1,
            _ => {}
        }
        i += 1;
    };
    if b.get(close + 1) != Some(&b'(') {
        return None;
    }
    let mut j = close + 2;
    let mut parens = 0usize;
    loop {
        match b.get(j)? {
            b'\\' => j += 1,
            b'(' => parens += 1,
            b')' if parens == 0 => break,
            b')' => parens -= 1,
            b'\n' if s[close + 2..j].trim().is_empty() => {}
            _ => {}
        }
        j += 1;
    }
    Some((j + 1 - p, Some(p + open..close)))
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

/// Runs the client's token regex over one text token; `found(path, offset_of_at)`.
fn scan(text: &str, found: &mut dyn FnMut(String, usize)) {
    let mut prev: Option<char> = None;
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c == '@' && prev.is_none_or(is_js_space) {
            let mut end = i + 1;
            let rest = &text[end..];
            let mut chars = rest.char_indices().peekable();
            while let Some((k, ch)) = chars.next() {
                if ch == '\\' && rest[k + 1..].starts_with(' ') {
                    chars.next();
                    end = i + 1 + k + 2;
                } else if ch == '\\' || is_js_space(ch) {
                    break;
                } else {
                    end = i + 1 + k + ch.len_utf8();
                }
            }
            if end > i + 1 {
                if let Some(path) = accept(&text[i + 1..end]) {
                    found(path, i);
                }
                while it.peek().is_some_and(|&(k, _)| k < end) {
                    it.next();
                }
                prev = text[..end].chars().next_back();
                continue;
            }
        }
        prev = Some(c);
    }
}

/// The fragment cut, `\ ` unescape and accept rules of `IQr`.
fn accept(raw: &str) -> Option<String> {
    let cut = raw.split('#').next().unwrap_or("");
    if cut.is_empty() {
        return None;
    }
    let h = cut.replace("\\ ", " ");
    let special = h.bytes().next().is_some_and(|b| b"#%^&*()".contains(&b));
    let ok = h.starts_with("./")
        || h.starts_with("~/")
        || (h.starts_with('/') && h != "/")
        || (!h.starts_with('@')
            && !special
            && h.bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)));
    ok.then_some(h)
}
