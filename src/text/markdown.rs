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
                inline(src, span.clone(), 0, sink);
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

/// Deepest nesting of links and emphasis that is parsed; deeper markup is plain text (the
/// client would run out of stack long before a file could nest that deep usefully).
const MAX_INLINE_DEPTH: usize = 32;

/// Inline tokens of `span`: every text token goes to `sink`.
fn inline(src: &Src, span: std::ops::Range<usize>, depth: usize, sink: &mut Sink<'_>) {
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
                close.and_then(|close| link(p, 1, close, pm.get(&(close + 1)).copied()))
            }
            b'!' if nested && b.get(p + 1) == Some(&b'[') => {
                let m = brackets.get_or_insert_with(|| bracket_pairs(s, span.start));
                let close = m.get(&(p + 1)).copied();
                let pm = parens.get_or_insert_with(|| paren_pairs(s, span.start));
                close
                    .and_then(|close| link(p, 2, close, pm.get(&(close + 1)).copied()))
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
                    inline(src, r, depth + 1, sink);
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn paths(t: &str) -> Vec<String> {
        imports(t).into_iter().map(|r| r.path).collect()
    }

    #[test]
    fn accepted_syntax() {
        let t = "@x.md @./x.md @../x.md @-x.md @_x.md @.x.md @noext @x.md,y.md @a&b.md \
                 @Design\\ Docs/x.md @x.md#sec @~/h.md @/abs.md";
        assert_eq!(
            paths(t),
            [
                "x.md",
                "./x.md",
                "../x.md",
                "-x.md",
                "_x.md",
                ".x.md",
                "noext",
                "x.md,y.md",
                "a&b.md",
                "Design Docs/x.md",
                "x.md",
                "~/h.md",
                "/abs.md"
            ]
        );
    }

    #[test]
    fn rejected_syntax() {
        for t in [
            "mid@x.md",
            "(@x.md)",
            "\"@x.md\"",
            "'@x.md'",
            "@@x",
            "@#x",
            "@\"x\"",
            "@~x",
            "@*x",
            "@/",
            "@#only",
            "@",
        ] {
            assert_eq!(paths(t), Vec::<String>::new(), "{t:?}");
        }
    }

    #[test]
    fn path_stops_at_whitespace_or_a_lone_backslash() {
        assert_eq!(paths("@win\\path.md"), ["win"]);
        assert_eq!(paths("@trail\\ "), ["trail "]);
        assert_eq!(paths("@a.md, @b.md. @c.md;"), ["a.md,", "b.md.", "c.md;"]);
    }

    #[test]
    fn skipped_contexts() {
        for t in [
            "```\n@fenced.md\n```\n",
            "    @indented.md\n",
            "`@span.md`",
            "<div>@x.md</div>\n",
            "[text](@url.md)",
            "![@alt.md](p)",
            "\\@escaped.md",
            "<!-- @in-comment.md -->\n",
        ] {
            assert_eq!(paths(t), Vec::<String>::new(), "{t:?}");
        }
    }

    #[test]
    fn scanned_contexts() {
        assert_eq!(paths("# Head @h.md\n"), ["h.md"]);
        assert_eq!(paths("> quote @q.md\n"), ["q.md"]);
        assert_eq!(paths("*@em.md* **@st.md**"), ["em.md", "st.md"]);
        assert_eq!(paths("[see @l.md](u)"), ["l.md"]);
        assert_eq!(paths("| a | @cell.md |\n|---|---|\n"), ["cell.md"]);
        assert_eq!(paths("<!-- c --> @after.md\n"), ["after.md"]);
    }

    #[test]
    fn a_token_boundary_acts_as_start_of_text() {
        // After an escape, code span, tag or link the next text token starts at `@`.
        assert_eq!(paths("a\\\\@e.md"), ["e.md"]);
        assert_eq!(paths("a`c`@c.md"), ["c.md"]);
        assert_eq!(paths("x <span>@s.md</span>"), ["s.md"]);
        assert_eq!(paths("**b**@h.md"), ["h.md"]);
        assert_eq!(paths("a*@x.md"), Vec::<String>::new());
    }

    #[test]
    fn list_items_are_scanned_raw_then_by_token() {
        assert_eq!(paths("- item @c.md\n"), ["c.md", "c.md"]);
        // The raw scan sees link syntax the token scan does not.
        assert_eq!(paths("- [t]( @u.md)\n"), ["u.md)"]);
    }

    #[test]
    fn offsets_point_at_the_at_sign_in_the_original_text() {
        let t = "line\r\n\r\n- x @a.md\r\n> @b.md\n";
        for r in imports(t) {
            assert_eq!(&t[r.offset..r.offset + 1], "@");
        }
        assert_eq!(imports(t).last().map(|r| r.offset), t.rfind('@'));
    }

    #[test]
    fn offsets_survive_tab_expansion_in_nested_containers() {
        // Found by fuzzing: a block quote lexed from a list item whose content had a tab
        // expanded to spaces mapped its lazy line one byte off.
        let t = "* item <!-- \r\n  @c.md -->\r\n> quote *@em.md*\r\n\tcode @a.md#$ec\r\n";
        let found = imports(t);
        assert!(found.iter().any(|r| r.path == "a.md"));
        for r in found {
            assert_eq!(&t[r.offset..r.offset + 1], "@", "{}", r.path);
        }
    }

    proptest! {
        #[test]
        fn offsets_are_at_signs(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("@a.md"), Just(" "), Just("\n"), Just("\r\n"), Just("- "), Just("> "),
                    Just("`"), Just("*"), Just("_"), Just("["), Just("]("), Just(")"),
                    Just("<!--"), Just("-->"), Just("\\"), Just("\t"), Just("é"), Just("x"),
                ],
                0..40,
            )
        ) {
            let text: String = parts.concat();
            for r in imports(&text) {
                prop_assert_eq!(text.as_bytes().get(r.offset), Some(&b'@'));
                prop_assert!(!r.path.is_empty() && !r.path.contains('#'));
            }
        }
    }
}
