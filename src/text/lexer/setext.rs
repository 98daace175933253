//! Setext headings as the fork scans them (`ip`, `EL`, `mL`): tried before paragraphs, over
//! lines a paragraph would stop at.

use super::indent;

/// The fork's setext heading (`ip`): from `at`, lines eligible under `EL` (each ending in
/// `\n`) are taken until one is followed by an underline (`mL`); a blank line or an
/// ineligible line gives up. Returns the end of the underline and its `\n`s. This runs
/// before the paragraph rule, so it can span lines a paragraph would stop at. It never runs
/// into a line a block quote took lazily (at `lazy`): the client lexes the quote's own lines
/// first and only then appends lazy lines to the paragraph they continue.
pub(super) fn lheading(s: &str, at: usize, lazy: &[usize]) -> Result<usize, usize> {
    let mut n = at;
    loop {
        let Some(eol) = s[n..].find('\n').map(|i| n + i) else {
            return Err(n);
        };
        if !el_eligible(&s[n..eol]) {
            return Err(n);
        }
        n = eol + 1;
        if n > at && lazy.binary_search(&n).is_ok() {
            return Err(n);
        }
        let next_end = s[n..].find('\n').map_or(s.len(), |i| n + i);
        let next = &s[n..next_end];
        if is_setext_ml(next) {
            let mut end = next_end;
            while s[end..].starts_with('\n') {
                end += 1;
            }
            return Ok(end);
        }
        if next_end < s.len() && next.chars().all(|c| c.is_whitespace() && c != '\n') {
            return Err(n);
        }
    }
}

/// `EL`: `(?![-+*] |\d{1,9}[).] | {0,3}(?:[\t#>]|```|~~~|<[^\n>]+>\n)| {4}).*\n`.
fn el_eligible(line: &str) -> bool {
    let b = line.as_bytes();
    if b.len() >= 2 && matches!(b[0], b'-' | b'+' | b'*') && b[1] == b' ' {
        return false;
    }
    let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if (1..=9).contains(&digits)
        && matches!(b.get(digits), Some(b'.' | b')'))
        && b.get(digits + 1) == Some(&b' ')
    {
        return false;
    }
    let sp = b.iter().take_while(|&&c| c == b' ').count();
    if sp >= 4 {
        return false;
    }
    let r = &line[sp..];
    if r.starts_with(['\t', '#', '>']) || r.starts_with("```") || r.starts_with("~~~") {
        return false;
    }
    // `<[^\n>]+>` directly followed by the line's end.
    !(r.len() > 2 && r.starts_with('<') && r.ends_with('>') && !r[1..r.len() - 1].contains('>'))
}

/// `mL`: ` {0,3}(?:-+|=+) *` up to the end of the line.
fn is_setext_ml(line: &str) -> bool {
    let sp = line.bytes().take_while(|&c| c == b' ').count();
    let body = line[sp..].trim_end_matches(' ');
    sp <= 3
        && !body.is_empty()
        && (body.bytes().all(|b| b == b'=') || body.bytes().all(|b| b == b'-'))
}

pub(super) fn is_setext(line: &str) -> bool {
    let (col, ib) = indent(line);
    let body = line[ib..].trim_end_matches([' ', '\t']);
    col < 4
        && !body.is_empty()
        && (body.bytes().all(|b| b == b'=') || body.bytes().all(|b| b == b'-'))
}
