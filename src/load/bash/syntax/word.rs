//! A word as the parser reads it: its parts (literal, quoted, expanded), where each quote and
//! expansion ends, and the assignments that open a command.

use super::{Parser, Part, Unparsed, Word, is_meta};

impl Parser<'_> {
    /// A word at the cursor (`None` at a metacharacter or the end).
    pub(super) fn word(&mut self) -> Result<Option<Word>, Unparsed> {
        let mut parts: Vec<Part> = Vec::new();
        let mut bare = String::new();
        let flush = |bare: &mut String, parts: &mut Vec<Part>| {
            if !bare.is_empty() {
                parts.push(Part::Bare(std::mem::take(bare)));
            }
        };
        while let Some(c) = self.peek() {
            let r = self.rest();
            if is_meta(c) {
                if (c == '<' || c == '>') && r[1..].starts_with('(') {
                    flush(&mut bare, &mut parts);
                    let n = 1 + skip_balanced(&r[1..], '(', ')').ok_or(Unparsed)?;
                    parts.push(Part::Substitution(r[..n].to_owned()));
                    self.i += n;
                    continue;
                }
                break;
            }
            match c {
                '\\' => {
                    if r.len() == 1 {
                        return Err(Unparsed);
                    }
                    let n = 1 + r[1..].chars().next().map_or(0, char::len_utf8);
                    bare.push_str(&r[..n]);
                    self.i += n;
                }
                '\'' | '"' if self.unterminated(r) => {
                    // The client's parser recovers: the rest of the line is one word.
                    bare.push_str(r);
                    self.i = self.s.len();
                }
                '\'' => {
                    flush(&mut bare, &mut parts);
                    let end = r[1..].find('\'').ok_or(Unparsed)? + 2;
                    parts.push(Part::Single(r[..end].to_owned()));
                    self.i += end;
                }
                '"' => {
                    flush(&mut bare, &mut parts);
                    let end = double_quoted(r).ok_or(Unparsed)?;
                    parts.push(Part::Double(r[..end].to_owned()));
                    self.i += end;
                }
                '`' => {
                    flush(&mut bare, &mut parts);
                    let end = backquoted(r).ok_or(Unparsed)?;
                    parts.push(Part::Substitution(r[..end].to_owned()));
                    self.i += end;
                }
                '$' => {
                    let n = dollar(r).ok_or(Unparsed)?;
                    if n == 1 {
                        bare.push('$');
                        self.i += 1;
                        continue;
                    }
                    flush(&mut bare, &mut parts);
                    let text = r[..n].to_owned();
                    let sub = r.starts_with("$(") && !r.starts_with("$((");
                    parts.push(if sub {
                        Part::Substitution(text)
                    } else {
                        Part::Expansion(text)
                    });
                    self.i += n;
                }
                _ => {
                    bare.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
        flush(&mut bare, &mut parts);
        Ok((!parts.is_empty()).then_some(Word { parts }))
    }

    /// A quote at the start of `r` that never closes.
    fn unterminated(&self, r: &str) -> bool {
        if let Some(rest) = r.strip_prefix('\'') {
            !rest.contains('\'')
        } else {
            double_quoted(r).is_none()
        }
    }
}

/// `NAME=` or `NAME+=` or `NAME[…]=` at the start of a word.
pub(super) fn is_assignment(word: &str) -> bool {
    let name_end = word
        .char_indices()
        .find(|(i, c)| !(c.is_ascii_alphabetic() || *c == '_' || (*i > 0 && c.is_ascii_digit())))
        .map_or(word.len(), |(i, _)| i);
    if name_end == 0 {
        return false;
    }
    let rest = &word[name_end..];
    let rest = if rest.starts_with('[') {
        rest.find(']').map_or("", |j| &rest[j + 1..])
    } else {
        rest
    };
    rest.starts_with('=') || rest.starts_with("+=")
}

/// Length of `"…"` at the start of `r` (backslash escapes and `$(…)` inside respected).
fn double_quoted(r: &str) -> Option<usize> {
    let mut i = 1;
    while i < r.len() {
        let rest = &r[i..];
        let c = rest.chars().next()?;
        match c {
            '"' => return Some(i + 1),
            '\\' => i += 1 + rest[1..].chars().next().map_or(0, char::len_utf8),
            '`' => i += backquoted(rest)?,
            '$' => i += dollar(rest)?,
            _ => i += c.len_utf8(),
        }
    }
    None
}

/// Length of `` `…` `` at the start of `r`.
fn backquoted(r: &str) -> Option<usize> {
    let mut i = 1;
    while i < r.len() {
        let c = r[i..].chars().next()?;
        match c {
            '`' => return Some(i + 1),
            '\\' => i += 1 + r[i + 1..].chars().next().map_or(0, char::len_utf8),
            _ => i += c.len_utf8(),
        }
    }
    None
}

/// Length of the expansion starting with `$` at the start of `r` (1 for a lone `$`).
fn dollar(r: &str) -> Option<usize> {
    let rest = &r[1..];
    if rest.starts_with('(') {
        return Some(1 + skip_balanced(rest, '(', ')')?);
    }
    if rest.starts_with('{') {
        return Some(1 + skip_balanced(rest, '{', '}')?);
    }
    if rest.starts_with('\'') {
        let mut i = 1;
        while i < rest.len() {
            match rest.as_bytes()[i] {
                b'\'' => return Some(i + 2),
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
        return None;
    }
    // `$"…"` is a lone `$` word followed by a string for the client's parser.
    let first = rest.chars().next();
    match first {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => Some(
            1 + rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len()),
        ),
        Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(c) => Some(2),
        _ => Some(1),
    }
}

/// Length of a balanced `open … close` run at the start of `r` (quotes respected).
pub(super) fn skip_balanced(r: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while i < r.len() {
        let rest = &r[i..];
        let c = rest.chars().next()?;
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(i + 1);
            }
        }
        i += match c {
            '\\' => 1 + rest[1..].chars().next().map_or(0, char::len_utf8),
            '\'' if open == '(' => rest[1..].find('\'')? + 2,
            '"' => double_quoted(rest)?,
            '`' => backquoted(rest)?,
            _ => c.len_utf8(),
        };
    }
    None
}
