//! Link reference definitions and reference links, as the client's `marked` fork reads them
//! (`Jw`/`Xw`/`Nd` for `[label]: destination "title"`, `Hd`/`Sp` for `[text][label]`,
//! `[label][]` and `[label]`, `gb` for label matching).
//!
//! A definition may put its destination and its title on the next line; a tab where a space
//! is expected, or anything but spaces after it on its last line, makes it no definition. Every
//! definition in the text counts, wherever it stands (containers included, before or after
//! its use): the client lexes all blocks before any inline text. A reference link whose label
//! is defined is a link (its text scanned like a link's, an image's alt text not); otherwise
//! its `[` is plain text.

use crate::text::js::is_js_space;

/// A definition at the start of `s` (from a block start to the end of the lexed text): its
/// length (through the newlines after it) and its label as written.
pub(crate) fn definition(s: &str) -> Option<(usize, &str)> {
    let b = s.as_bytes();
    let n = skip(b, 0, b' ').min(3);
    if b.get(n) != Some(&b'[') {
        return None;
    }
    let o = label_end(s, n + 1)?;
    if o <= n + 1 || b.get(o + 1) != Some(&b':') {
        return None;
    }
    let label = &s[n + 1..o];
    let g = after_space(b, o + 2);
    if b.get(g) != Some(&b'<') {
        let k = s[g..].find(is_js_space).map_or(s.len(), |i| g + i);
        return (k != g)
            .then(|| title_and_end(s, k))
            .flatten()
            .map(|len| (len, label));
    }
    let y = s[g..]
        .find(['\n', '\r', '\u{2028}', '\u{2029}'])
        .map_or(s.len(), |i| g + i);
    let mut k = s[g..].find('>').map(|i| g + i);
    while let Some(at) = k.filter(|&at| at < y) {
        if let Some(len) = title_and_end(s, at + 1) {
            return Some((len, label));
        }
        k = s[at + 1..].find('>').map(|i| at + 1 + i);
    }
    None
}

/// The label as the client matches it: whitespace runs as one space, lower case.
pub(crate) fn normalize_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    let mut space = false;
    for c in label.chars() {
        if is_js_space(c) {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(c);
    }
    if space {
        out.push(' ');
    }
    out.to_lowercase()
}

/// A reference link whose `[` is at `n` of `s`: where it ends, its text span and its label.
pub(crate) fn reference(s: &str, n: usize) -> Option<(usize, std::ops::Range<usize>, &str)> {
    let b = s.as_bytes();
    if let Some(o) = text_end(s, n + 1)
        && b.get(o + 1) == Some(&b'[')
        && let Some(c) = label_end(s, o + 2)
    {
        let label = &s[o + 2..c];
        let label = if label.is_empty() {
            &s[n + 1..o]
        } else {
            label
        };
        return Some((c + 1, n + 1..o, label));
    }
    let h = label_end(s, n + 1)?;
    let end = if s[h + 1..].starts_with("[]") {
        h + 3
    } else {
        h + 1
    };
    Some((end, n + 1..h, &s[n + 1..h]))
}

/// `Nd`: the `]` closing a label that starts at `n` (no brackets inside, escapes taken whole,
/// not blank), if any.
fn label_end(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut o = n;
    loop {
        match b.get(o) {
            Some(b'[' | b']') | None => break,
            Some(b'\\') => match s[o + 1..].chars().next() {
                Some(c) if !is_line_terminator(c) => o += 1 + c.len_utf8(),
                _ => break,
            },
            Some(_) => o += s[o..].chars().next().map_or(1, char::len_utf8),
        }
    }
    let content = s[n..o].find(|c: char| !is_js_space(c)).is_some();
    (b.get(o) == Some(&b']') && content).then_some(o)
}

/// `Sp`: the `]` closing a link text that starts at `n` (one level of brackets inside, code
/// spans and escapes skipped), if any.
fn text_end(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut nested = false;
    let mut h = n;
    while h < b.len() {
        match b[h] {
            b'\\' => {
                h += 1;
                match s[h..].chars().next() {
                    Some(c) if !is_line_terminator(c) => {}
                    _ => return None,
                }
            }
            b'`' if !nested => h += 1 + s[h + 1..].find('`')?,
            b'[' if nested => return None,
            b'[' => nested = true,
            b']' if !nested => return Some(h),
            b']' => nested = false,
            _ => {}
        }
        h += 1;
    }
    None
}

/// `Xw`: after a destination ending at `h`, an optional title, then only spaces to the end of
/// the line; the definition's length.
fn title_and_end(s: &str, h: usize) -> Option<usize> {
    let b = s.as_bytes();
    let g = after_space(b, h);
    let close = match b.get(g) {
        _ if g == h => None,
        Some(b'"') => quoted_title_end(s, g),
        Some(b'\'') => s[g + 1..]
            .find('\'')
            .map(|i| g + 1 + i)
            .filter(|&y| !s[g..y].contains("\n\n")),
        Some(b'(') => {
            let y = s[g + 1..].find(['(', ')']).map_or(s.len(), |i| g + 1 + i);
            (b.get(y) == Some(&b')')).then_some(y)
        }
        _ => None,
    };
    close
        .and_then(|y| line_rest_end(b, y + 1))
        .or_else(|| line_rest_end(b, h))
}

/// `bp(…, '"', kp)`: the first unescaped `"` after `n`, stepped back over earlier quotes until
/// only spaces follow it on its line.
fn quoted_title_end(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut y = None;
    let mut g = s[n + 1..].find('"').map(|i| n + 1 + i);
    while let Some(at) = g {
        y = Some(at);
        if at == n + 1 || b[at - 1] != b'\\' {
            break;
        }
        g = s[at + 1..].find('"').map(|i| at + 1 + i);
    }
    let mut y = y?;
    while y > n && line_rest_end(b, y + 1).is_none() {
        y = s[..y].rfind('"')?;
    }
    (y > n).then_some(y)
}

/// `Qw`: spaces, and at most one line break followed by spaces and tabs.
fn after_space(b: &[u8], n: usize) -> usize {
    let o = skip(b, n, b' ');
    if b.get(o) == Some(&b'\n') {
        let mut k = o + 1;
        while matches!(b.get(k), Some(b' ' | b'\t')) {
            k += 1;
        }
        return k;
    }
    o
}

/// `kp`: only spaces up to the end of the line (or text); then past every `\n`.
fn line_rest_end(b: &[u8], n: usize) -> Option<usize> {
    let o = skip(b, n, b' ');
    (o >= b.len() || b[o] == b'\n').then(|| skip(b, o, b'\n'))
}

fn skip(b: &[u8], n: usize, byte: u8) -> usize {
    n + b
        .get(n..)
        .map_or(0, |r| r.iter().take_while(|&&x| x == byte).count())
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(s: &str) -> Option<(usize, &str)> {
        definition(s)
    }

    #[test]
    fn definitions_the_client_accepts() {
        assert_eq!(def("[r]: ./x.md\nnext"), Some((12, "r")));
        assert_eq!(def("   [r]: ./x.md \"t\"  \n\n"), Some((22, "r")));
        assert_eq!(
            def("[r]:\n  @./e.md\nnext"),
            Some((15, "r")),
            "destination below"
        );
        assert_eq!(
            def("[r]: ./x.md\n\"@./f.md\"\nnext"),
            Some((22, "r")),
            "title below"
        );
        assert_eq!(def("[r]: <a b>"), Some((10, "r")));
        assert_eq!(def("[r]: x 'multi\nline'"), Some((19, "r")));
        assert_eq!(def("[r]: x (t)"), Some((10, "r")));
        assert_eq!(def("[a\\]b]: x"), Some((9, "a\\]b")));
        assert_eq!(
            def("[r]: ./x.md\n\"not a title\" junk"),
            Some((12, "r")),
            "a failed title leaves the definition on its own line"
        );
    }

    #[test]
    fn lines_that_are_not_definitions() {
        for s in [
            "[]: x",
            "[ ]: x",
            "[r]:",
            "[r]: \n\n x",
            "[r]:\tx",
            "[r]: x\t",
            "[r]: x junk",
            "[r] : x",
            "[a[b]: x",
            "    [r]: x",
            "[r]: x 'a\n\nb'",
            "[r]: <a\nb>",
        ] {
            assert_eq!(def(s), None, "{s:?}");
        }
    }

    #[test]
    fn labels_match_case_and_space_insensitively() {
        assert_eq!(normalize_label("Foo \t\n Bar"), "foo bar");
        assert_eq!(normalize_label(" R "), " r ", "ends are not trimmed");
        assert_eq!(
            normalize_label("ΑΣ"),
            "ας",
            "final sigma, as JavaScript lowers it"
        );
    }

    #[test]
    fn reference_forms() {
        let s = "[text][Ref] [short] [coll][] [x [y] z][r] [a][]";
        assert_eq!(reference(s, 0), Some((11, 1..5, "Ref")));
        assert_eq!(reference(s, 12), Some((19, 13..18, "short")));
        assert_eq!(reference(s, 20), Some((28, 21..25, "coll")));
        assert_eq!(reference(s, 29), Some((41, 30..37, "r")));
        assert_eq!(reference("[a `]` b][r]", 0), Some((12, 1..8, "r")));
        assert_eq!(reference("[]", 0), None);
    }
}
