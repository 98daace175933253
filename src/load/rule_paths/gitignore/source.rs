//! `Ti`: a pattern compiled, character for character as the client does it, to the source of an
//! ECMAScript regular expression.

use super::Unusable;

/// A line terminator for ECMAScript's `.`.
fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// One match of the client's tokenizer `/(\*+(?=.))|(\\*)(\/\*\*(?![^/])|\w+|[^]?)/g`.
struct Token<'a> {
    /// Group 1: a run of stars followed by another character.
    stars: Option<&'a str>,
    /// Group 2: backslashes.
    backslashes: &'a str,
    /// Group 3: `/**` (not followed by a non-slash), a word, one character, or nothing.
    word: &'a str,
    /// Where the match ends.
    end: usize,
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn next_token(s: &str, at: usize) -> Token<'_> {
    let rest = &s[at..];
    let stars = rest.len() - rest.trim_start_matches('*').len();
    if stars > 0 {
        // `\*+(?=.)`: greedy, backing off so one non-terminator character follows.
        let mut n = stars;
        loop {
            if rest[n..]
                .chars()
                .next()
                .is_some_and(|c| !is_line_terminator(c))
            {
                return Token {
                    stars: Some(&rest[..n]),
                    backslashes: "",
                    word: "",
                    end: at + n,
                };
            }
            n -= 1;
            if n == 0 {
                break;
            }
        }
    }
    let bs = rest.len() - rest.trim_start_matches('\\').len();
    let after = &rest[bs..];
    let word_len = if after.starts_with("/**") && !after[3..].starts_with(|c| c != '/') {
        3
    } else if after.starts_with(is_word) {
        after.len() - after.trim_start_matches(is_word).len()
    } else {
        after.chars().next().map_or(0, char::len_utf8)
    };
    Token {
        stars: None,
        backslashes: &rest[..bs],
        word: &after[..word_len],
        end: at + bs + word_len,
    }
}

/// `Ti`: the regular expression source for one pattern (without `!`).
pub(super) fn to_regex(pattern: &str) -> Result<String, Unusable> {
    let n = pattern.strip_prefix('\u{FEFF}').unwrap_or(pattern);
    let trimmed = crate::text::js::trim_end(n);
    if trimmed.is_empty() {
        return Ok(String::new());
    }
    let lead_slash = usize::from(trimmed.starts_with('/'));
    let globstar = trimmed[lead_slash..].starts_with("**/");
    let lead = lead_slash + if globstar { 3 } else { 0 };
    let has_inner_slash = n.char_indices().any(|(i, c)| c == '/' && i + 1 < n.len());
    let mut y = if globstar {
        String::from("^(?:.*\\/)?")
    } else if lead > 0 || has_inner_slash {
        String::from("^")
    } else {
        String::from("(?:^|\\/)")
    };
    let mut o = trimmed[lead..].to_owned();
    if trimmed.len() != n.len() && trimmed.ends_with('\\') {
        o.push(' ');
    }
    let mut class_prefix = String::new();
    let mut class_bs = String::new();
    let mut prev = String::new();
    // Every position is matched; after the last character the tokenizer also matches the
    // empty string once (which closes an unterminated class).
    let mut at = 0;
    loop {
        let t = next_token(&o, at);
        step(
            &t,
            t.end == o.len(),
            &mut y,
            &mut class_prefix,
            &mut class_bs,
            &prev,
        )?;
        if t.end == at {
            break;
        }
        prev = t.word.to_owned();
        at = t.end;
    }
    y.push_str(if o.ends_with('/') { "$" } else { "(?=$|\\/$)" });
    Ok(y)
}

/// The body of `Ti`'s replace callback for one token.
fn step(
    t: &Token<'_>,
    at_end: bool,
    y: &mut String,
    class_prefix: &mut String,
    class_bs: &mut String,
    prev: &str,
) -> Result<(), Unusable> {
    if t.stars.is_some_and(|s| s.len() > 1_000_000) {
        return Err(Unusable::Invalid("regular expression too large".into()));
    }
    let i = t.backslashes;
    let w = t.word;
    let even = &i[i.len() % 2..];
    let in_class = !class_prefix.is_empty();
    if in_class && (w == "]" || w.is_empty() && t.stars.is_none()) {
        let body = if !class_bs.is_empty() {
            format!("[{y}{even}{w}")
        } else if !w.is_empty() && even == i {
            format!("[{}{i}]", drop_reversed_ranges(y))
        } else {
            String::from("[]")
        };
        *y = format!("{class_prefix}{body}");
        class_prefix.clear();
    } else if !in_class && w == "[" {
        *class_prefix = format!("{y}{i}");
        *class_bs = i.to_owned();
        y.clear();
    } else if t.stars.is_some() || w == "?" || w.starts_with('/') {
        let open = if in_class {
            format!("{class_prefix}[")
        } else {
            String::new()
        };
        let tail = if w == "/**" && !at_end {
            let lead = if i.len() > 1 { &i[1..] } else { i };
            format!("{lead}(?:\\/[^\\/]+)*")
        } else if t.stars.is_some() {
            format!("{i}[^\\/]*")
        } else if w == "?" {
            format!("{i}[^\\/]")
        } else if w == "/" {
            format!("{i}\\/")
        } else {
            format!("{i}\\/.+")
        };
        *y = format!("{open}{y}{tail}");
        class_prefix.clear();
    } else if w == "*" && at_end {
        let lead = if i.is_empty() { "" } else { &i[1..] };
        let q = if prev == "/" && i.len() < 2 { "+" } else { "*" };
        y.push_str(&format!("{lead}[^/]{q}"));
    } else if !i.is_empty() && w.chars().next().is_some_and(crate::text::js::is_js_space) {
        if at_end && even == i {
            y.push_str(i);
        } else {
            y.push_str(even);
            y.push(' ');
        }
    } else {
        if !i.is_empty() {
            y.push_str(i);
        } else if !w.is_empty() && ".$()+^{|*".contains(w) {
            y.push('\\');
        }
        y.push_str(w);
    }
    Ok(())
}

/// `y.replace(/[0-z]-[0-z]/g, r => r[0] > r[2] ? "" : r)`.
fn drop_reversed_ranges(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut k = 0;
    let in_range = |c: char| ('0'..='z').contains(&c);
    while k < chars.len() {
        if k + 2 < chars.len()
            && in_range(chars[k])
            && chars[k + 1] == '-'
            && in_range(chars[k + 2])
        {
            if chars[k] <= chars[k + 2] {
                out.extend(&chars[k..k + 3]);
            }
            k += 3;
        } else {
            out.push(chars[k]);
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_sources() {
        assert_eq!(to_regex("*.md").unwrap(), "(?:^|\\/)[^\\/]*\\.md(?=$|\\/$)");
        assert_eq!(to_regex("src/**").unwrap(), "^src\\/.+(?=$|\\/$)");
        assert_eq!(
            to_regex("src/**/*.ts").unwrap(),
            "^src(?:\\/[^\\/]+)*\\/[^\\/]*\\.ts(?=$|\\/$)"
        );
        assert_eq!(to_regex("a/").unwrap(), "(?:^|\\/)a\\/$");
        assert_eq!(to_regex("/a/").unwrap(), "^a\\/$");
    }
}
