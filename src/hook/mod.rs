//! Claude Code hooks: a receipt for the operator at session start, a guard after every memory
//! write, and the installation of both into the client's settings files.
//!
//! Data flow: hook input JSON on stdin ([`input`]) → the simulated client ([`crate::load`]) or a
//! path-only decision ([`paths`]) → [`session_start`] / [`post_tool_use`] → hook output JSON
//! ([`output`]) printed by `cli::hook`. [`install`] edits settings.json files; [`statusline`]
//! summarises memory in one line.
//!
//! Conventions: a hook's stdout is JSON only (never coloured, nothing when there is nothing to
//! say); ccmem's own failures go to stderr in one line and never break the session (exit 0).

pub(crate) mod bash_read;
pub(crate) mod input;
pub(crate) mod install;
pub(crate) mod instructions_loaded;
pub(crate) mod output;
pub(crate) mod paths;
pub(crate) mod post_tool_use;
pub(crate) mod session_start;
pub(crate) mod statusline;
pub(crate) mod transcript;

use crate::load::automem::DarkLine;

/// A byte count for people: `512 B`, `2.9 KB`, `5.0 MB` (powers of 1024).
pub(crate) fn human_bytes(bytes: u64) -> String {
    const K: f64 = 1024.0;
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < K * K {
        format!("{:.1} KB", b / K)
    } else {
        format!("{:.1} MB", b / (K * K))
    }
}

/// `201–212` (or `201` for one line): the span of dark lines, by their 1-based numbers.
pub(crate) fn line_range(dark: &[DarkLine]) -> String {
    match (dark.first(), dark.last()) {
        (Some(a), Some(b)) if a.line != b.line => format!("{}–{}", a.line, b.line),
        (Some(a), _) => a.line.to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KB");
        assert_eq!(human_bytes(3000), "2.9 KB");
        assert_eq!(human_bytes(5 << 20), "5.0 MB");
    }

    #[test]
    fn line_range_spans() {
        let d = |line| DarkLine {
            line,
            text: String::new(),
            partial: false,
        };
        assert_eq!(line_range(&[]), "");
        assert_eq!(line_range(&[d(201)]), "201");
        assert_eq!(line_range(&[d(201), d(202), d(230)]), "201–230");
    }
}
