//! The client's pattern regexes run in linear time: an ECMAScript source from `Ti`
//! ([`super::gitignore`]) translated to the `regex` crate's syntax when it uses only what a
//! finite automaton can do, which is every pattern people write.
//!
//! The client (and `regress`) run these sources on a backtracking engine, so a pattern such as
//! `*a*a*a*a*a*a*a*a*a*a*a*a*b` (`[^\/]*a[^\/]*a…`) takes time exponential in the number of
//! stars on a long file name. Whether a source matches somewhere in a path does not depend on
//! how the engine gets there, so the translation keeps the verdict and drops the backtracking:
//! - every character, class and escape becomes an explicit set of code points, closed under
//!   ECMAScript's case-insensitive comparison (`Canonicalize` of the non-Unicode `i` flag:
//!   the simple uppercase mapping, except that a non-ASCII character never matches an ASCII
//!   one, so `ſ` is not `s` and the Kelvin sign is not `k`), as the client compares (node
//!   agrees; `regress` folds those two against the standard). The `regex` crate's own `(?i)`
//!   uses Unicode case folding, which differs there too; it is not used;
//! - `.` is every character but the four line terminators; `\d`, `\w`, `\s` are ECMAScript's
//!   sets (`\s` holds U+FEFF, not U+0085);
//! - lazy quantifiers become greedy and capturing groups plain ones (only whether a match
//!   exists is asked);
//! - a lookahead that ends a top-level alternative (`(?=$|\/$)`, which every source ends
//!   with) becomes a plain group: nothing follows it, so consuming what it looks at changes no
//!   verdict.
//!
//! Anything else (a backreference, `\b`, a lookaround elsewhere, a `{n,m}` quantifier, `\c`,
//! `\x`, `\u`, octal escapes) is only reachable through escaped backslashes in a pattern; such
//! a source is left to `regress` under a step budget ([`super::gitignore`]).

use std::collections::HashMap;
use std::sync::LazyLock;

/// A set of code points as sorted, disjoint, inclusive ranges.
type Set = Vec<(u32, u32)>;

const MAX: u32 = 0x10_FFFF;

/// The `regex` crate's source for the ECMAScript `source` (flag `i`), or `None` when it uses
/// something a finite automaton cannot do (see the module docs).
pub(super) fn translate(source: &str) -> Option<String> {
    let mut p = Parser {
        chars: source.chars().collect(),
        at: 0,
        out: String::with_capacity(source.len() * 4),
    };
    p.disjunction(0)?;
    (p.at == p.chars.len()).then_some(p.out)
}

struct Parser {
    chars: Vec<char>,
    at: usize,
    out: String,
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.at + k).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn disjunction(&mut self, depth: usize) -> Option<()> {
        if depth > 64 {
            return None;
        }
        loop {
            self.alternative(depth)?;
            if !self.eat('|') {
                return Some(());
            }
            self.out.push('|');
        }
    }

    fn alternative(&mut self, depth: usize) -> Option<()> {
        while let Some(c) = self.peek() {
            match c {
                '|' | ')' => return Some(()),
                '^' | '$' => {
                    self.at += 1;
                    self.out.push(c);
                    self.no_quantifier()?;
                }
                '(' => self.group(depth)?,
                _ => {
                    let set = self.atom()?;
                    self.out.push_str(&class(&set));
                    self.quantifier()?;
                }
            }
        }
        Some(())
    }

    /// An assertion cannot be quantified (`^*` is a syntax error; `(?=a)*` is Annex B).
    fn no_quantifier(&self) -> Option<()> {
        match self.peek() {
            Some('*' | '+' | '?' | '{') => None,
            _ => Some(()),
        }
    }

    fn group(&mut self, depth: usize) -> Option<()> {
        self.at += 1;
        let lookahead = if self.peek() == Some('?') {
            match (self.peek_at(1), self.peek_at(2)) {
                (Some(':'), _) => {
                    self.at += 2;
                    false
                }
                (Some('='), _) => {
                    self.at += 2;
                    true
                }
                _ => return None, // `(?!`, `(?<=`, `(?<!`, `(?<name>`
            }
        } else {
            false
        };
        self.out.push_str("(?:");
        self.disjunction(depth + 1)?;
        if !self.eat(')') {
            return None;
        }
        self.out.push(')');
        if lookahead {
            // Only where nothing can follow: the end of a top-level alternative.
            let ends = matches!(self.peek(), None | Some('|'));
            return (depth == 0 && ends).then_some(());
        }
        self.quantifier()
    }

    fn quantifier(&mut self) -> Option<()> {
        match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.at += 1;
                self.eat('?');
                self.out.push(c);
                self.no_quantifier()
            }
            Some('{') => None,
            _ => Some(()),
        }
    }

    /// One character-matching atom, as the set of code points it matches (case-closed).
    fn atom(&mut self) -> Option<Set> {
        let c = self.peek()?;
        self.at += 1;
        // `.`, `\d`, `\w`, `\s` and their complements hold every case variant of their
        // members already: only single characters are folded.
        let c = match c {
            '.' => return Some(complement(&LINE_TERMINATORS.to_vec())),
            '[' => return self.class(),
            '\\' => {
                let e = self.peek()?;
                self.at += 1;
                match escape_set(e)? {
                    Escape::Set(s) => return Some(s),
                    Escape::Char(c) => c,
                }
            }
            '*' | '+' | '?' | '{' | ')' => return None,
            c => c,
        };
        Some(fold(&single(c)))
    }

    /// A class after its `[`: `[^…]` is the complement of the case-closed set.
    fn class(&mut self) -> Option<Set> {
        let negated = self.eat('^');
        let mut set: Set = Vec::new();
        loop {
            let c = self.peek()?;
            if c == ']' {
                self.at += 1;
                break;
            }
            let lo = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|n| n != ']') {
                self.at += 1;
                let hi = self.class_atom()?;
                let (Escape::Char(lo), Escape::Char(hi)) = (lo, hi) else {
                    return None; // Annex B's `[\d-z]`
                };
                if lo > hi {
                    return None;
                }
                set.push((lo as u32, hi as u32));
            } else {
                match lo {
                    Escape::Char(c) => set.push((c as u32, c as u32)),
                    Escape::Set(s) => set.extend(s),
                }
            }
        }
        let closed = fold(&normalize(set));
        Some(if negated { complement(&closed) } else { closed })
    }

    fn class_atom(&mut self) -> Option<Escape> {
        let c = self.peek()?;
        self.at += 1;
        if c != '\\' {
            return Some(Escape::Char(c));
        }
        let e = self.peek()?;
        self.at += 1;
        match e {
            'b' => Some(Escape::Char('\u{8}')),
            '-' => Some(Escape::Char('-')),
            e => escape_set(e),
        }
    }
}

enum Escape {
    Char(char),
    Set(Set),
}

/// What `\e` matches outside a class (and inside, but for `\b` and `\-`); `None` for what is
/// left to the backtracking engine.
fn escape_set(e: char) -> Option<Escape> {
    let set = |s: &[(u32, u32)]| Some(Escape::Set(s.to_vec()));
    match e {
        'd' => set(DIGIT),
        'D' => Some(Escape::Set(complement(&DIGIT.to_vec()))),
        'w' => set(WORD),
        'W' => Some(Escape::Set(complement(&WORD.to_vec()))),
        's' => set(SPACE),
        'S' => Some(Escape::Set(complement(&SPACE.to_vec()))),
        'n' => Some(Escape::Char('\n')),
        'r' => Some(Escape::Char('\r')),
        't' => Some(Escape::Char('\t')),
        'f' => Some(Escape::Char('\u{c}')),
        'v' => Some(Escape::Char('\u{b}')),
        // An identity escape; letters and digits other than the above mean something else
        // (`\b`, `\1`, `\c`, `\x`, `\u`, `\k`, `\0`, …) or depend on Annex B: left to regress.
        e if !e.is_alphanumeric() && e != '_' => Some(Escape::Char(e)),
        _ => None,
    }
}

const LINE_TERMINATORS: &[(u32, u32)] = &[(0xA, 0xA), (0xD, 0xD), (0x2028, 0x2029)];
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
/// ECMAScript's WhiteSpace and LineTerminator.
const SPACE: &[(u32, u32)] = &[
    (0x9, 0xD),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];

fn single(c: char) -> Set {
    vec![(c as u32, c as u32)]
}

fn normalize(mut set: Set) -> Set {
    set.sort_unstable();
    let mut out: Set = Vec::with_capacity(set.len());
    for (lo, hi) in set {
        match out.last_mut() {
            Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
            _ => out.push((lo, hi)),
        }
    }
    out
}

fn complement(set: &Set) -> Set {
    let mut out = Vec::with_capacity(set.len() + 1);
    let mut next = 0u32;
    for &(lo, hi) in set {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi.saturating_add(1);
    }
    if next <= MAX {
        out.push((next, MAX));
    }
    out
}

fn contains(set: &Set, c: u32) -> bool {
    let k = set.partition_point(|&(_, hi)| hi < c);
    set.get(k).is_some_and(|&(lo, _)| lo <= c)
}

/// ECMAScript's `Canonicalize(ch)` without the `u` flag: the simple uppercase mapping, unless
/// it is not one character or maps a non-ASCII character to an ASCII one. Paths are read as
/// code points (as `regress` reads them), but only BMP characters fold: the client reads UTF-16
/// units and never folds a surrogate ([`GROUPS`]).
fn canonicalize(c: char) -> char {
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) if c.is_ascii() || !u.is_ascii() => u,
        _ => c,
    }
}

/// The characters that compare equal to another one under [`canonicalize`], grouped: the
/// groups of more than one character, each sorted.
static GROUPS: LazyLock<Vec<Vec<u32>>> = LazyLock::new(|| {
    let mut by: HashMap<char, Vec<u32>> = HashMap::new();
    for c in (0..=0xFFFF).filter_map(char::from_u32) {
        let u = canonicalize(c);
        if u != c {
            by.entry(u).or_default().push(c as u32);
        }
    }
    let mut groups: Vec<Vec<u32>> = by
        .into_iter()
        .map(|(u, mut g)| {
            g.push(u as u32);
            g.sort_unstable();
            g.dedup();
            g
        })
        .collect();
    groups.sort_unstable();
    groups
});

/// `set` with every character that compares equal to one of its members added (the `i` flag).
fn fold(set: &Set) -> Set {
    let mut out = set.clone();
    if set.iter().all(|&(_, hi)| hi < 0x80) {
        // ASCII letters only pair with each other (no non-ASCII character canonicalizes to one).
        for &(lo, hi) in set {
            for c in (lo..=hi).filter_map(char::from_u32) {
                if c.is_ascii_alphabetic() {
                    let o = if c.is_ascii_lowercase() {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    };
                    out.push((o as u32, o as u32));
                }
            }
        }
    } else {
        for g in GROUPS.iter() {
            if g.iter().any(|&c| contains(set, c)) {
                out.extend(g.iter().map(|&c| (c, c)));
            }
        }
    }
    normalize(out)
}

/// A set in the `regex` crate's syntax; the empty set is a class nothing matches.
fn class(set: &Set) -> String {
    if set.is_empty() {
        return String::from(r"[^\x{0}-\x{10FFFF}]");
    }
    let mut s = String::from("[");
    for &(lo, hi) in set {
        if lo == hi {
            s.push_str(&format!(r"\x{{{lo:X}}}"));
        } else {
            s.push_str(&format!(r"\x{{{lo:X}}}-\x{{{hi:X}}}"));
        }
    }
    s.push(']');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(source: &str, path: &str) -> bool {
        regex::Regex::new(&translate(source).expect("linear"))
            .unwrap()
            .is_match(path)
    }

    fn agree(source: &str, paths: &[&str]) {
        let slow = regress::Regex::with_flags(source, "i").unwrap();
        for p in paths {
            assert_eq!(hit(source, p), slow.find(p).is_some(), "{source} on {p:?}");
        }
    }

    /// What node (V8, ECMAScript's `Canonicalize`) answers; `regress` folds `ſ` to `s` and the
    /// Kelvin sign to `k`, against the standard.
    #[test]
    fn case_follows_ecmascript_not_unicode_folding() {
        let js = [
            ("^s$", "ſ", false),
            ("^s$", "S", true),
            ("^k$", "\u{212A}", false),
            ("^µ$", "μ", true),
            ("^µ$", "Μ", true),
            ("^[a-z]+$", "ſ", false),
            ("^[a-z]+$", "\u{212A}", false),
            ("^[a-z]+$", "ÀBC", false),
            ("^[^a-z]$", "ſ", true),
            ("^[^a-z]$", "A", false),
            ("^ß$", "ẞ", false),
            ("^é$", "É", true),
            ("^Ж[а-я]$", "жЯ", true),
        ];
        for (source, path, want) in js {
            assert_eq!(hit(source, path), want, "{source} on {path:?}");
        }
    }

    #[test]
    fn escapes_and_dot() {
        agree(r"^\d\w\s.$", &["1a x", "1a\u{feff}x", "1a\u{85}x", "1a \n"]);
        agree(r"^[\d\-x]$", &["-", "5", "X", "y"]);
        agree(r"^[]$|^[^]$", &["", "a", "\n"]);
    }

    #[test]
    fn what_is_left_to_regress() {
        for s in [
            r"(a)\1", r"\bx", r"a{2}", r"(?!a)b", r"(?=a)b", r"\x41", r"[\d-z]",
        ] {
            assert_eq!(translate(s), None, "{s}");
        }
        assert!(translate(r"(?:^|\/)a(?=$|\/$)").is_some());
    }
}
