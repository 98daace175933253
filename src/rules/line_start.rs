//! Searching Markdown for a pattern that holds on one line from its start: the regex runs only
//! on the lines where a fast literal search finds one of the words every match holds.

use regex::Regex;

/// Whether `re` matches `text`, for a regex that matches only from the start of a line
/// (`(?m)^[ \t]*…`), never across a line end, and only on a line where `key` (a set of words,
/// searched with the same flags) matches: `re` runs only on the lines holding a match of
/// `key`, each line on its own, where `^` and `$` mean what they meant in the whole text.
/// Searching every body with `re` itself costs a DFA step per byte; `key`'s literals are found
/// many bytes at a time. `lead` holds every byte a line `re` matches can open with after its
/// spaces and tabs: a line that opens otherwise (prose that mentions a key word) is passed over
/// without running `re`.
pub(super) fn any_line_matches(text: &str, key: &Regex, lead: &[u8], re: &Regex) -> bool {
    let mut from = 0;
    while let Some(m) = key.find_at(text, from) {
        let start = text[..m.start()].rfind('\n').map_or(0, |k| k + 1);
        let end =
            memchr::memchr(b'\n', &text.as_bytes()[m.end()..]).map_or(text.len(), |k| m.end() + k);
        let line = &text[start..end];
        let opens = line.bytes().find(|b| !matches!(b, b' ' | b'\t'));
        if opens.is_some_and(|b| lead.contains(&b)) && re.is_match(line) {
            return true;
        }
        if end == text.len() {
            return false;
        }
        from = end + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_searched_on_their_own() {
        let re = Regex::new(r"(?m)^[ \t]*why:$").unwrap();
        let key = Regex::new("why").unwrap();
        let lead = b"w";
        assert!(any_line_matches("a\n  why:\nb", &key, lead, &re));
        assert!(any_line_matches("why:", &key, lead, &re));
        assert!(
            any_line_matches("x why\nwhy:\n", &key, lead, &re),
            "past a line that fails"
        );
        assert!(
            !any_line_matches("a why:\n", &key, lead, &re),
            "not at a line start"
        );
        assert!(
            !any_line_matches("why: x\n", &key, lead, &re),
            "`$` is the line's end"
        );
        assert!(!any_line_matches("", &key, lead, &re));
        assert!(
            !any_line_matches("\t why:", &key, b"x", &re),
            "a line that opens with no byte of `lead` is not searched"
        );
    }
}
