//! Predicting whether a `grep`/`rg PATTERN FILE` that the client would track exits 0 (some
//! line matches), for `ccmem context --bash` where no exit code is known. A live hook is given
//! the real outcome instead.
//!
//! grep reads basic regular expressions by default (`\(`, `\|`, `\{`, `\+`, `\?` are the
//! operators; `-E` extended, `-F` fixed, `-P` Perl); rg reads Rust regex syntax. Options that
//! change matching: `-i`, `-w`, `-x` (both), `-S` smart case and `-s` (rg). A pattern the
//! `regex` crate cannot compile (back-references) falls back to a fixed-string test.

use regex::RegexBuilder;

/// Whether any line of `text` matches the grep/rg command `argv` (flags already whitelisted by
/// [`super::forms::grep`]).
pub fn matches(argv: &[String], text: &str) -> bool {
    let Some(tool) = argv.first() else {
        return false;
    };
    let rg = tool == "rg";
    let mut mode = match tool.as_str() {
        "egrep" => Mode::Extended,
        "fgrep" => Mode::Fixed,
        "rg" => Mode::Extended,
        _ => Mode::Basic,
    };
    let (mut icase, mut smart, mut word, mut line) = (false, false, false, false);
    let mut pattern = None;
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if matches!(a, "-A" | "-B" | "-C")
            || rg && matches!(a, "--after-context" | "--before-context" | "--context")
        {
            i += 2;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long {
                "ignore-case" => icase = true,
                "smart-case" => smart = true,
                "case-sensitive" => icase = false,
                "word-regexp" => word = true,
                "line-regexp" => line = true,
                "fixed-strings" => mode = Mode::Fixed,
                "extended-regexp" | "perl-regexp" | "pcre2" => mode = Mode::Extended,
                "basic-regexp" => mode = Mode::Basic,
                _ => {}
            }
        } else if a.starts_with('-') && a != "-" && !a.starts_with("-A") {
            for f in a[1..].chars() {
                match f {
                    'i' => icase = true,
                    'S' => smart = true,
                    's' if rg => icase = false,
                    'w' => word = true,
                    'x' => line = true,
                    'F' => mode = Mode::Fixed,
                    'E' | 'P' => mode = Mode::Extended,
                    'G' => mode = Mode::Basic,
                    _ => {}
                }
            }
        } else if pattern.is_none() {
            pattern = Some(a);
        }
        i += 1;
    }
    let Some(pattern) = pattern else {
        return false;
    };
    if smart && !pattern.chars().any(char::is_uppercase) {
        icase = true;
    }
    let body = match mode {
        Mode::Fixed => regex::escape(pattern),
        Mode::Extended => pattern.to_owned(),
        Mode::Basic => basic_to_extended(pattern),
    };
    let body = if line {
        format!("^(?:{body})$")
    } else if word {
        format!(r"\b(?:{body})\b")
    } else {
        body
    };
    match RegexBuilder::new(&body).case_insensitive(icase).build() {
        Ok(re) => text.split('\n').any(|l| re.is_match(l)),
        Err(_) => text.split('\n').any(|l| l.contains(pattern)),
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Basic,
    Extended,
    Fixed,
}

/// A POSIX basic regular expression in extended syntax: `\(` `\)` `\{` `\}` `\|` `\+` `\?`
/// become operators, their bare forms literals; a leading `*` is literal.
fn basic_to_extended(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 8);
    let mut chars = p.chars().peekable();
    let mut at_start = true;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n @ ('(' | ')' | '{' | '}' | '|' | '+' | '?')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push_str(r"\\"),
            },
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            '*' if at_start => out.push_str(r"\*"),
            _ => out.push(c),
        }
        at_start = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn basic_expressions_use_escaped_operators() {
        assert!(matches(&argv(r"grep a\(b\)c f"), "xabcx"));
        assert!(!matches(&argv("grep a(b)c f"), "xabcx"));
        assert!(matches(&argv("grep a(b)c f"), "a(b)c"));
        assert!(matches(&argv("grep -E a(b)c f"), "abc"));
    }

    #[test]
    fn case_word_and_line_flags() {
        assert!(!matches(&argv("grep line f"), "LINE"));
        assert!(matches(&argv("grep -i line f"), "LINE"));
        assert!(!matches(&argv("grep -w lin f"), "line"));
        assert!(!matches(&argv("grep -x lin f"), "line"));
        assert!(matches(&argv("rg -S line f"), "LINE"));
        assert!(!matches(&argv("rg -S Line f"), "line"));
        assert!(matches(&argv("grep -F a.c f"), "a.c"));
        assert!(!matches(&argv("grep -F a.c f"), "abc"));
    }
}
