//! Reads through the Bash tool (SPEC-compaction part B).
//!
//! After a Bash call, the client looks for file reads in the command text (`ELi`, ported in
//! [`client_reads`]) and feeds each file it can confirm to the same nested-memory pipeline as a
//! Read (`qQo`, [`track`]). Everything else (`cat f | head`, `cd x && cat f`, `cat a b`, `awk`,
//! `less`, a grep over a folder) attaches nothing in the client; [`untracked`] finds those reads
//! for ccmem's own hook.
//!
//! `ELi(command)`:
//! 1. nothing when the raw text holds `|`, `<` or `>` anywhere (even quoted);
//! 2. the statements of the line (`nb`: `list`, `pipeline` and `program` nodes are split,
//!    comments dropped; a line over 10,000 characters is one statement that never parses);
//! 3. each statement's argv (`mP` = `W6t(Dqe(node))`: the first simple command found inside
//!    it, [`argv`]) is tried as `sed` ([`forms::sed`]), `cat`/`nl`/`bat` ([`forms::cat`]),
//!    `head`, `tail`, and, only when the line is a single statement, `grep`/`rg`;
//! 4. with several statements, one that is no read must start like `echo`, `printf`, `true`
//!    or `:` followed by a word character (`/^\s*(echo|printf|true|:)\b/`), or nothing is
//!    tracked.

pub mod forms;
pub mod grep;
pub mod syntax;
pub mod track;
pub mod untracked;

pub use forms::ClientRead;
use syntax::{Command, Part, Statement, Word};

/// `ELi`: the reads the client recognises in `command`, in command order.
pub fn client_reads(command: &str) -> Vec<ClientRead> {
    if command.contains(['|', '<', '>']) {
        return Vec::new();
    }
    let Some(statements) = statements(command) else {
        return Vec::new();
    };
    let single = statements.len() == 1;
    let mut out = Vec::new();
    for st in &statements {
        let argv = argv(st);
        let read = forms::sed(&argv)
            .or_else(|| forms::cat(&argv))
            .or_else(|| forms::head(&argv))
            .or_else(|| forms::tail(&argv))
            .or_else(|| if single { forms::grep(&argv) } else { None });
        match read {
            Some(r) => out.push(r),
            None if !single && !is_harmless(&st.text) => return Vec::new(),
            None => {}
        }
    }
    out
}

/// `nb`: the top-level statements, `None` when the line does not parse or is too long.
pub fn statements(command: &str) -> Option<Vec<Statement>> {
    if command.is_empty()
        || crate::text::js::utf16_len(command) > crate::constants::BASH_PARSE_MAX_UTF16
    {
        return None;
    }
    syntax::parse(command).ok().filter(|s| !s.is_empty())
}

/// `O8i`: `/^\s*(echo|printf|true|:)\b/` (so `:` alone, or `: x`, is no match: `\b` after `:`
/// needs a word character).
fn is_harmless(text: &str) -> bool {
    let t = text.trim_start_matches(crate::text::js::is_js_space);
    ["echo", "printf", "true", ":"].iter().any(|w| {
        t.strip_prefix(w).is_some_and(|rest| {
            let next = rest.chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
            // `\b` between the keyword's last character and `next`.
            word(w.chars().last()) != word(next)
        })
    })
}

/// `mP`: the argv of the first simple command inside a statement (`Dqe` then `W6t`).
pub fn argv(st: &Statement) -> Vec<String> {
    first_simple(&st.pipeline).map_or_else(Vec::new, command_argv)
}

fn first_simple(pipeline: &[Command]) -> Option<&[Word]> {
    pipeline.iter().find_map(|c| match c {
        Command::Simple { words, .. } => Some(words.as_slice()),
        Command::Subshell(body) | Command::Group(body) => {
            body.iter().find_map(|s| first_simple(&s.pipeline))
        }
        Command::Opaque => None,
    })
}

/// `W6t`: the command name, then each argument that is a word, a string, a raw string or a
/// concatenation; an expansion alone is skipped; a substitution ends the list.
fn command_argv(words: &[Word]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        let has_sub = w.parts.iter().any(|p| matches!(p, Part::Substitution(_)));
        if k == 0 {
            out.push(if w.parts.len() > 1 && has_sub {
                w.parts.iter().map(raw).collect()
            } else {
                w.parts.iter().map(value).collect()
            });
            continue;
        }
        if has_sub {
            break;
        }
        match w.parts.as_slice() {
            [Part::Expansion(_)] => {}
            parts => out.push(parts.iter().map(value).collect()),
        }
    }
    out
}

/// `Pe`: a bare part with `\x` → `x` (not across a line break), a quoted one without its quotes.
fn value(p: &Part) -> String {
    match p {
        Part::Bare(t) => unescape(t),
        Part::Double(t) | Part::Single(t) => t[1..t.len() - 1].to_owned(),
        Part::Expansion(t) | Part::Substitution(t) => strip_quotes(t).to_owned(),
    }
}

fn raw(p: &Part) -> &str {
    match p {
        Part::Bare(t) | Part::Double(t) | Part::Single(t) | Part::Expansion(t) => t,
        Part::Substitution(t) => t,
    }
}

/// `cr`: quotes removed when the text starts and ends with the same one.
fn strip_quotes(t: &str) -> &str {
    let quoted = t.len() >= 2
        && (t.starts_with('"') && t.ends_with('"') || t.starts_with('\'') && t.ends_with('\''));
    if quoted { &t[1..t.len() - 1] } else { t }
}

/// `text.replace(/\\(.)/g, "$1")`: `.` matches no line terminator.
fn unescape(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&n)) if !matches!(n, '\n' | '\r' | '\u{2028}' | '\u{2029}') => {
                out.push(n);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
