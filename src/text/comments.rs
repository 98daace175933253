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
        let n = text.split('\n').count();
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
