//! Reserved-tag neutralizing (`A_` → the scrubber `HLt`, chunk-ykmfg9y7): an opener (`<` or a
//! lookalike such as `＜` `‹` `〈`), not followed by `\`, then any filler, then a reserved name,
//! then a non-name character, gets its opener replaced by `<\`.
//!
//! The name is matched on the client's "reading" of the text: ASCII case-insensitively, `-` and
//! `_` interchangeable (dash and connector lookalikes included), lookalike letters of the
//! client's table ([`super::confusables`]) and characters whose compatibility decomposition
//! without marks is ASCII (`ｓ`, `é`, `𝐬`) read as letters, combining marks allowed between
//! letters. A lookalike letter also counts as filler and as a non-name character after the name,
//! as in the client (its reading is a private-use character outside `[A-Za-z0-9_-]`).

use unicode_normalization::UnicodeNormalization;

use super::confusables;

/// Openers the client treats as `<` (its `pe`/`r5` maps, minus `grd`).
const OPENERS: &str = "<\u{2C2}\u{1438}\u{16B2}\u{2039}\u{226E}\u{227A}\u{2280}\u{22D6}\u{2329}\u{276C}\u{276E}\u{2770}\u{27E8}\u{2991}\u{2993}\u{29FC}\u{2A79}\u{2AA6}\u{3008}\u{FE3F}\u{FE64}\u{FF1C}\u{1D236}\u{226A}\u{22D8}\u{2AA1}\u{2AF7}\u{27EA}\u{FE3D}";
/// Closers the client treats as `>` (never filler).
const CLOSERS: &str = ">\u{2C3}\u{1433}\u{203A}\u{226F}\u{227B}\u{2281}\u{22D7}\u{232A}\u{276D}\u{276F}\u{2771}\u{27E9}\u{29FD}\u{3009}\u{FE40}\u{FE65}\u{FF1E}\u{16F3F}\u{1D237}";

/// One character of the text after an opener, as the scrubber reads it.
#[derive(Debug, Clone, PartialEq)]
enum Unit {
    /// ASCII (lower-cased).
    Ascii(char),
    /// A non-ASCII character read as these ASCII letters (`-` for dashes, `_` for connectors).
    Foreign(String),
    /// An opener or closer lookalike (never filler).
    Bracket,
    /// A character allowed between the letters of a name (combining marks, controls).
    Gap,
    /// Anything else (filler).
    Other,
}

fn unit(c: char) -> Unit {
    if c.is_ascii() {
        return if c == '<' || c == '>' {
            Unit::Bracket
        } else if c.is_ascii_control() && !matches!(c, '\t' | '\n' | '\r') {
            Unit::Gap
        } else {
            Unit::Ascii(c.to_ascii_lowercase())
        };
    }
    if OPENERS.contains(c) || CLOSERS.contains(c) {
        return Unit::Bracket;
    }
    if let Some(l) = confusables::letter(c) {
        return Unit::Foreign(l.to_string());
    }
    if is_dash(c) {
        return Unit::Foreign("-".into());
    }
    if is_connector(c) {
        return Unit::Foreign("_".into());
    }
    if super::is_letter_gap(c) {
        return Unit::Gap;
    }
    let folded: String = c
        .to_string()
        .nfkd()
        .filter(|&m| !super::is_mark(m))
        .collect::<String>()
        .to_lowercase()
        .replace('\u{DF}', "ss");
    if !folded.is_empty()
        && folded
            .chars()
            .all(|f| f.is_ascii_alphanumeric() || f == '-' || f == '_')
    {
        Unit::Foreign(folded)
    } else {
        Unit::Other
    }
}

/// `\p{Pd}` and the client's extra minus signs (`MLt`), plus `q`.
fn is_dash(c: char) -> bool {
    super::is_dash_punctuation(c)
        || matches!(
            c,
            '\u{2212}'
                | '\u{207B}'
                | '\u{208B}'
                | '\u{2D7}'
                | '\u{2796}'
                | '\u{2043}'
                | '\u{30FC}'
                | '\u{FF70}'
                | '\u{2E40}'
                | '\u{30A0}'
                | '\u{1400}'
        )
}

/// `\p{Pc}` and the client's connector lookalikes (`sKs`).
fn is_connector(c: char) -> bool {
    super::is_connector_punctuation(c)
        || matches!(c, '\u{2017}' | '\u{2CD}' | '\u{7FA}' | '\u{640}')
}

/// The reading of the text after an opener, flattened to letters and pulled on demand:
/// `(letter, foreign)`; gaps read as `'\0'`, fillers as `' '`, brackets as `'<'`.
struct Reading<'a> {
    chars: std::str::Chars<'a>,
    flat: Vec<(char, bool)>,
}

impl Reading<'_> {
    fn at(&mut self, p: usize) -> Option<(char, bool)> {
        while self.flat.len() <= p {
            match unit(self.chars.next()?) {
                Unit::Ascii(c) => self.flat.push((c, false)),
                Unit::Foreign(s) => self.flat.extend(s.chars().map(|c| (c, true))),
                Unit::Bracket => self.flat.push(('<', false)),
                Unit::Gap => self.flat.push(('\0', false)),
                Unit::Other => self.flat.push((' ', false)),
            }
        }
        Some(self.flat[p])
    }
}

fn is_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// Matches `name` at reading position `at`; returns the position after it.
fn match_at(r: &mut Reading, at: usize, name: &str) -> Option<usize> {
    let mut p = at;
    for (i, want) in name.chars().enumerate() {
        if i > 0 {
            while r.at(p).is_some_and(|(c, _)| c == '\0') {
                p += 1;
            }
        }
        let (got, _) = r.at(p)?;
        let ok = match want {
            '-' | '_' => got == '-' || got == '_',
            w => got == w,
        };
        if !ok {
            return None;
        }
        p += 1;
    }
    Some(p)
}

/// Whether the text after an opener (`rest`) starts a reserved tag: lazily skipped filler,
/// a name, then a character that is not an ASCII name character.
pub(super) fn reserved_after(rest: &str, names: &[&str]) -> bool {
    if rest.starts_with('\\') {
        return false;
    }
    let mut r = Reading {
        chars: rest.chars(),
        flat: Vec::new(),
    };
    let mut at = 0;
    loop {
        for name in names {
            if let Some(end) = match_at(&mut r, at, name) {
                let tail_ok = match r.at(end) {
                    None => true,
                    Some((c, foreign)) => foreign || !is_name(c),
                };
                if tail_ok {
                    return true;
                }
            }
        }
        match r.at(at) {
            Some((c, foreign)) if foreign || (c != '<' && !is_name(c)) => at += 1,
            _ => return false,
        }
    }
}

/// Whether `c` opens a tag for the scrubber.
pub(super) fn is_opener(c: char) -> bool {
    // Called for every character of the index: settle ASCII without the table, the rest by a
    // binary search of the sorted openers (not a scan of the string).
    if c.is_ascii() {
        c == '<'
    } else {
        OPENERS_SORTED.binary_search(&c).is_ok()
    }
}

/// The UTF-8 lead bytes of [`OPENERS_SORTED`] (checked by a test), for a scan that decodes
/// only the characters that may be openers.
pub(super) const OPENER_LEAD_BYTES: [u8; 6] = [0xCB, 0xE1, 0xE2, 0xE3, 0xEF, 0xF0];

/// [`OPENERS`] but `<`, sorted, for [`is_opener`] (checked against the string by a test).
const OPENERS_SORTED: [char; 29] = [
    '\u{2C2}',
    '\u{1438}',
    '\u{16B2}',
    '\u{2039}',
    '\u{226A}',
    '\u{226E}',
    '\u{227A}',
    '\u{2280}',
    '\u{22D6}',
    '\u{22D8}',
    '\u{2329}',
    '\u{276C}',
    '\u{276E}',
    '\u{2770}',
    '\u{27E8}',
    '\u{27EA}',
    '\u{2991}',
    '\u{2993}',
    '\u{29FC}',
    '\u{2A79}',
    '\u{2AA1}',
    '\u{2AA6}',
    '\u{2AF7}',
    '\u{3008}',
    '\u{FE3D}',
    '\u{FE3F}',
    '\u{FE64}',
    '\u{FF1C}',
    '\u{1D236}',
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sorted_openers_are_the_openers() {
        let mut want: Vec<char> = OPENERS.chars().filter(|&c| c != '<').collect();
        want.sort_unstable();
        assert_eq!(OPENERS_SORTED.to_vec(), want);
        assert!(OPENERS.chars().all(is_opener));
        assert!(!is_opener('\u{2014}') && !is_opener('>') && !is_opener('a'));
        let mut leads: Vec<u8> = OPENERS_SORTED
            .iter()
            .map(|c| c.to_string().as_bytes()[0])
            .collect();
        leads.dedup();
        assert_eq!(leads, OPENER_LEAD_BYTES);
    }

    const NAMES: &[&str] = &["system-reminder", "tick"];

    #[test]
    fn lookalike_letters_dashes_and_fillers() {
        for s in [
            "system-reminder>",
            "\u{455}ystem-reminder>",
            "\u{FF53}ystem-reminder>",
            "SYSTEM\u{2010}REMINDER>",
            "system\u{2013}reminder>",
            "system_reminder>",
            "\n system-reminder>",
            "!tick>",
            "/ tick >",
            "\u{17F}tick",
        ] {
            assert!(reserved_after(s, NAMES), "{s:?}");
        }
        for s in ["system-reminderx>", "\\tick>", "ticket", "<tick>", "a tick"] {
            assert!(!reserved_after(s, NAMES), "{s:?}");
        }
    }
}
