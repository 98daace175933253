//! Top-level block HTML comment stripping, as the client does it with its Markdown lexer
//! (`OHe`, chunk-bqhgd24a):
//!
//! ```js
//! if (!e.includes("<!--")) return e;
//! // lex; for each TOP-LEVEL html token whose raw (left-trimmed) starts with "<!--" and
//! // contains "-->": in its span of the LF-normalized text g, delete /<!--[\s\S]*?-->/g and
//! // keep the rest only if it is not whitespace-only.
//! return nothingEdited ? e : h + g.slice(y);   // whole text LF-normalized once edited
//! ```

use std::borrow::Cow;

use super::js::{is_js_space, trim};
use super::lexer::{self, Block, Src};
use super::markdown::Normalized;

/// Removes top-level block HTML comments; when anything was removed the whole text is
/// LF-normalized (the client's side effect), otherwise it is returned unchanged.
pub fn strip(text: &str) -> Cow<'_, str> {
    match pieces(text) {
        None => Cow::Borrowed(text),
        Some((_, pieces)) => Cow::Owned(pieces.iter().map(|p| p.text.as_str()).collect()),
    }
}

/// [`strip`], plus for each output line (split at `\n`) the 0-based line of the input it
/// comes from (the line holding its first character; input lines are counted by `\n`).
pub fn strip_mapped(text: &str) -> (Cow<'_, str>, Vec<usize>) {
    let Some((norm, pieces)) = pieces(text) else {
        let n = crate::text::js::newlines(text) + 1;
        return (Cow::Borrowed(text), (0..n).collect());
    };
    let newlines: Vec<usize> = text.match_indices('\n').map(|(i, _)| i).collect();
    let line_of = |norm_at: usize| {
        let at = norm.original(norm_at);
        newlines.partition_point(|&n| n < at)
    };
    let mut map = Vec::new();
    let mut line_start = true;
    for p in &pieces {
        for (k, ch) in p.text.char_indices() {
            if line_start {
                map.push(line_of(p.source + k));
            }
            line_start = ch == '\n';
        }
    }
    if line_start {
        let next = map.last().map_or(0, |l| l + 1);
        map.push(next.min(newlines.len()));
    }
    let out = pieces.iter().map(|p| p.text.as_str()).collect();
    (Cow::Owned(out), map)
}

/// A piece of the output and the normalized offset it was copied from.
struct Piece {
    text: String,
    source: usize,
}

/// The output pieces, or `None` when nothing is edited (the text is returned as is).
fn pieces(text: &str) -> Option<(Normalized, Vec<Piece>)> {
    if !text.contains("<!--") {
        return None;
    }
    let norm = Normalized::new(text);
    let g = norm.text.as_str();
    let blocks = lexer::lex(&Src::root(g), true);
    let mut out = Vec::new();
    let mut y = 0;
    for b in &blocks {
        let Block::Html { raw } = b else { continue };
        let span = &g[raw.clone()];
        let lead = span.len() - span.trim_start_matches(is_js_space).len();
        if !span[lead..].starts_with("<!--") || !span.contains("-->") {
            continue;
        }
        out.push(Piece {
            text: g[y..raw.start].to_owned(),
            source: y,
        });
        let kept = remove_comments(span, raw.start);
        if !trim(&kept.iter().map(|p| p.text.as_str()).collect::<String>()).is_empty() {
            out.extend(kept);
        }
        y = raw.end;
    }
    if y == 0 {
        return None;
    }
    out.push(Piece {
        text: g[y..].to_owned(),
        source: y,
    });
    out.retain(|p| !p.text.is_empty());
    Some((norm, out))
}

/// `span.replace(/<!--[\s\S]*?-->/g, "")`, as pieces with their offsets (`at` = span start).
fn remove_comments(span: &str, at: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(open) = span[pos..].find("<!--").map(|i| pos + i) {
        let Some(close) = span[open + 4..].find("-->").map(|i| open + 4 + i + 3) else {
            break;
        };
        out.push(Piece {
            text: span[pos..open].to_owned(),
            source: at + pos,
        });
        pos = close;
    }
    out.push(Piece {
        text: span[pos..].to_owned(),
        source: at + pos,
    });
    out.retain(|p| !p.text.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn s(t: &str) -> String {
        strip(t).into_owned()
    }

    #[test]
    fn own_line_and_multiline_comments_vanish_with_their_blank_lines() {
        assert_eq!(s("a\n\n<!-- c -->\n\n\nb\n"), "a\n\nb\n");
        assert_eq!(s("<!--\nmulti\nline\n-->\nb"), "b");
        assert_eq!(s("<!-- one -->\n<!-- two -->\nb"), "b");
        assert_eq!(s("<!---->\nb"), "b");
    }

    #[test]
    fn text_after_the_close_stays_with_its_space() {
        assert_eq!(s("a\n\n<!-- c --> t\n"), "a\n\n t\n");
        assert_eq!(s("<!-- c --> t <!-- d --> u\n"), " t  u\n");
    }

    #[test]
    fn nested_inline_code_and_unterminated_comments_are_kept() {
        for t in [
            "a <!-- inline --> b\n",
            "```\n<!-- fenced -->\n```\n",
            "    <!-- indented code -->\n",
            "\t<!-- tab code -->\n",
            "- item\n  <!-- in item -->\n",
            "> <!-- in quote -->\n",
            "<div>\n<!-- in div -->\n</div>\n",
            "<!-- unterminated\n\nstill\n",
            "<!-->\n",
        ] {
            assert_eq!(s(t), t, "{t:?}");
        }
    }

    #[test]
    fn a_column_zero_comment_interrupts_a_paragraph_an_indented_one_does_not() {
        assert_eq!(s("para\n<!-- c -->\nnext\n"), "para\nnext\n");
        assert_eq!(s("para\n <!-- c -->\n"), "para\n <!-- c -->\n");
        assert_eq!(s(" <!-- c -->\nx"), "x");
        assert_eq!(s("> a\n<!-- c -->\nb"), "> a\nb");
    }

    #[test]
    fn crlf_is_normalized_only_when_a_span_was_edited() {
        assert_eq!(
            strip("a\r\nb <!-- c -->\r\n"),
            Cow::Borrowed("a\r\nb <!-- c -->\r\n")
        );
        assert_eq!(s("a\r\n<!-- c -->\r\nb\rc\r\n"), "a\nb\nc\n");
        // `<!-->` is a one-line html token with `-->` in it: edited (normalized), text kept.
        assert_eq!(s("<!-->\r\nx\r\n"), "<!-->\nx\n");
        assert!(matches!(strip("no comment\r\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn strip_mapped_gives_input_lines() {
        let (out, map) = strip_mapped("a\n<!-- c\nd -->\nb\n\nc");
        assert_eq!(out, "a\nb\n\nc");
        assert_eq!(map, vec![0, 3, 4, 5]);
        let (out, map) = strip_mapped("x\r\n<!-- c -->\r\ny\r\n");
        assert_eq!(out, "x\ny\n");
        assert_eq!(map, vec![0, 2, 3]);
        let (out, map) = strip_mapped("plain\ntext");
        assert_eq!((out.as_ref(), map), ("plain\ntext", vec![0, 1]));
    }

    proptest! {
        #[test]
        fn strip_is_a_subsequence_and_the_map_is_sound(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("<!-- c -->"), Just("<!--"), Just("-->"), Just("\n"), Just("\r\n"),
                    Just("\r"), Just("- "), Just("> "), Just("```"), Just("    "), Just("x"),
                    Just(" t"), Just("<div>"), Just("é"), Just("\n\n"),
                ],
                0..40,
            )
        ) {
            let text: String = parts.concat();
            let (out, map) = strip_mapped(&text);
            prop_assert_eq!(&out, &strip(&text));
            let norm = text.replace("\r\n", "\n").replace('\r', "\n");
            let mut it = norm.chars();
            prop_assert!(out.chars().all(|c| it.any(|n| n == c)) || out == text);
            let lines = text.split('\n').count();
            prop_assert_eq!(map.len(), out.split('\n').count());
            prop_assert!(map.windows(2).all(|w| w[0] <= w[1]));
            prop_assert!(map.iter().all(|&l| l < lines));
        }
    }
}
