//! A memory body read as prose: its lines outside fenced code blocks, each split into what lies
//! in code spans and what lies outside them (CommonMark's rules, one line at a time: a span
//! opens at a run of N backticks and closes at the next run of exactly N; an unclosed run is
//! text). What `stray-tool-tag` and `stale-reference` read; neither needs more of Markdown
//! than this.

/// One body line outside fences: its 1-based line number in the file, its byte offset in the
/// file and its text (without the line break).
pub(super) struct Line<'a> {
    pub number: usize,
    pub offset: usize,
    pub text: &'a str,
}

/// The lines of `text` from byte `body_start` (on line `body_line`) that are not inside a
/// fenced code block (```` ``` ```` or `~~~`, closed by a fence of the same character at least
/// as long; an unclosed fence runs to the end, as in CommonMark).
pub(super) fn lines(text: &str, body_start: usize, body_line: usize) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = body_start.min(text.len());
    for (k, raw) in text[offset..].split_inclusive('\n').enumerate() {
        let line = raw.trim_end_matches(['\n', '\r']);
        let t = line.trim_start_matches([' ', '\t']);
        let indent = line.len() - t.len();
        let run = |c: u8| t.bytes().take_while(|&b| b == c).count();
        let opener = [b'`', b'~']
            .into_iter()
            .map(|c| (c, run(c)))
            // A backtick fence's info string holds no backtick (``` `x` ``` is a code span).
            .find(|&(c, n)| n >= 3 && indent < 4 && !(c == b'`' && t[n..].contains('`')));
        match (fence, opener) {
            (Some((c, n)), Some((c2, n2))) if c == c2 && n2 >= n && t[n2..].trim().is_empty() => {
                fence = None;
            }
            (Some(_), _) => {}
            (None, Some(open)) => fence = Some(open),
            (None, None) => out.push(Line {
                number: body_line + k,
                offset,
                text: line,
            }),
        }
        offset += raw.len();
    }
    out
}

/// The byte ranges of `line` inside code spans, their backticks included.
pub(super) fn code_spans(line: &str) -> Vec<std::ops::Range<usize>> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'`', &b[i..]) {
        let start = i + k;
        let n = b[start..].iter().take_while(|&&c| c == b'`').count();
        let mut j = start + n;
        let mut closed = None;
        while let Some(k) = memchr::memchr(b'`', &b[j..]) {
            let s = j + k;
            let m = b[s..].iter().take_while(|&&c| c == b'`').count();
            if m == n {
                closed = Some(s + m);
                break;
            }
            j = s + m;
        }
        match closed {
            Some(end) => {
                out.push(start..end);
                i = end;
            }
            None => i = start + n,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_spans() {
        let text = "---\nname: n\n---\nbefore `a` and ``b ` c``\n```xml\n<x/>\n```\n~~~~\n```\n~~~~\nafter ``` not closed\n";
        let got: Vec<(usize, &str)> = lines(text, 16, 4)
            .iter()
            .map(|l| (l.number, l.text))
            .collect();
        assert_eq!(
            got,
            [
                (4, "before `a` and ``b ` c``"),
                (11, "after ``` not closed")
            ]
        );
        let l = "before `a` and ``b ` c``";
        let spans: Vec<&str> = code_spans(l).into_iter().map(|r| &l[r]).collect();
        assert_eq!(spans, ["`a`", "``b ` c``"]);
        assert!(code_spans("an `unclosed span").is_empty());
    }
}
