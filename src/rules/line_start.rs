//! Searching Markdown line by line for a pattern that holds at the start of a line: only the
//! lines whose first byte after blanks can begin it are given to the regex.

use regex::Regex;

/// Whether `re` matches `text`, for a regex that matches only at the start of a line
/// (`(?m)^[ \t]*…`) and never across a line end: it is run only on the lines whose first byte
/// after spaces and tabs is one of `first` (the bytes every match begins with there), each
/// line on its own, where `^` and `$` mean what they meant in the whole text. Searching every
/// body with the regex itself costs a DFA step per byte; most lines begin with none of these
/// bytes.
pub(super) fn any_line_matches(text: &str, first: &[u8], re: &Regex) -> bool {
    let b = text.as_bytes();
    let mut start = 0;
    while start < b.len() {
        let lead = b[start..]
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .map_or(b.len(), |k| start + k);
        let end = memchr::memchr(b'\n', &b[lead..]).map_or(b.len(), |k| lead + k);
        if lead < end && first.contains(&b[lead]) && re.is_match(&text[start..end]) {
            return true;
        }
        start = end + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_searched_on_their_own() {
        let re = Regex::new(r"(?m)^[ \t]*why:$").unwrap();
        assert!(any_line_matches("a\n  why:\nb", b"w", &re));
        assert!(any_line_matches("why:", b"w", &re));
        assert!(
            !any_line_matches("a why:\n", b"w", &re),
            "not at a line start"
        );
        assert!(
            !any_line_matches("why: x\n", b"w", &re),
            "`$` is the line's end"
        );
        assert!(
            !any_line_matches("  why:", b"x", &re),
            "only lines led by `first`"
        );
        assert!(!any_line_matches("", b"w", &re));
    }
}
