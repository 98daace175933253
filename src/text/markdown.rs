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
//! Inline tokens split text: an escape, code span, autolink, inline HTML, link (inline, or a
//! reference link whose label some definition in the text defines) or emphasis ends the
//! current text token, so an `@` right after one starts a token and matches `^`.

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
    let mut defs = Defs::new();
    definitions(&blocks, &mut defs);
    walk(&root, &blocks, &defs, &mut |s: &str,
                                      base: &dyn Fn(
        usize,
    ) -> usize| {
        scan(s, &mut |path, at| {
            out.push(ImportRef {
                path,
                offset: norm.original(base(at)),
            })
        })
    });
    out
}

/// Every `@path` the client's token regex and accept rules find in `text` read as ONE plain
/// text, whatever its Markdown structure: [`imports`] minus these are the `@path`s the client
/// skips because of where they stand (code, HTML, link URLs, escapes). For diagnostics only.
pub fn candidates(text: &str) -> Vec<ImportRef> {
    let mut out = Vec::new();
    scan(text, &mut |path, offset| {
        out.push(ImportRef { path, offset })
    });
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

/// Receives each scanned text and a map from its byte offsets to offsets of the whole text.
pub(crate) type Sink<'a> = dyn FnMut(&str, &dyn Fn(usize) -> usize) + 'a;

/// The normalized labels of every link reference definition in a text.
pub(crate) type Defs = std::collections::HashSet<String>;

/// Collects the labels defined anywhere in `blocks` (containers included): the client lexes
/// every block before any inline text, so a definition counts before and after its use.
fn definitions(blocks: &[Block], defs: &mut Defs) {
    for b in blocks {
        match b {
            Block::Def(label) => {
                defs.insert(label.clone());
            }
            Block::Container(_, inner) => definitions(inner, defs),
            _ => {}
        }
    }
}

fn walk(src: &Src, blocks: &[Block], defs: &Defs, sink: &mut Sink<'_>) {
    for b in blocks {
        match b {
            Block::Other | Block::Def(_) => {}
            Block::Html { raw } => html_token(&src.text[raw.clone()], raw.start, src, sink),
            Block::Text { span, in_item } => {
                if *in_item {
                    sink(&src.text[span.clone()], &|i| src.outer(span.start + i));
                }
                super::inline::inline(src, span.clone(), 0, defs, sink);
            }
            Block::Container(inner, blocks) => walk(inner, blocks, defs, sink),
        }
    }
}

/// An `html` token: scanned only as a comment token, with its comments removed.
pub(crate) fn html_token(raw: &str, at: usize, src: &Src, sink: &mut Sink<'_>) {
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
    fn a_lazy_line_of_a_quote_is_never_the_underline_of_its_paragraph() {
        // Checked against the client's lexer: the lazy `===` stays paragraph text, so the
        // tab-indented line after it continues the paragraph instead of starting code.
        assert_eq!(paths("> quote\n===\n\tcode @./a.md\n"), ["./a.md"]);
        assert_eq!(
            paths("> quote\n> ===\n\tcode @./a.md\n"),
            Vec::<String>::new()
        );
        assert_eq!(paths("> quote\nlazy\n===\n\tcode @./a.md\n"), ["./a.md"]);
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
