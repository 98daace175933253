//! `ccmem statusline`: one line such as `mem 187/200 lines · 2 dark`, or one JSON document on
//! one line (`ccmem.statusline/1`: the [`Status`] fields, or `{error}` when there is no session
//! directory to measure).

use serde::Serialize;

use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16};
use crate::hook::statusline::Status;

const SCHEMA: &str = "ccmem.statusline/1";

/// The line: `mem 187/200 lines · 2 dark`, `mem 23.1k/25k units · 4 dark` when size is the
/// nearer limit, `mem 3 files` without an index.
pub(crate) fn human(s: &Status) -> String {
    let mut parts = Vec::new();
    match (s.index_lines, s.index_utf16) {
        (Some(lines), Some(utf16)) if utf16 * INDEX_MAX_LINES > lines * INDEX_MAX_UTF16 => parts
            .push(format!(
                "mem {:.1}k/{}k units",
                utf16 as f64 / 1000.0,
                INDEX_MAX_UTF16 / 1000
            )),
        (Some(lines), _) => parts.push(format!("mem {lines}/{INDEX_MAX_LINES} lines")),
        _ => parts.push(format!(
            "mem {} file{}",
            s.files,
            if s.files == 1 { "" } else { "s" }
        )),
    }
    if s.dark > 0 {
        parts.push(format!("{} dark", s.dark));
    }
    if let Some(note) = &s.note {
        parts.push(note.clone());
    }
    parts.join(" · ") + "\n"
}

/// The status as one JSON line.
pub(crate) fn json(s: &Status) -> String {
    super::json::line(SCHEMA, s)
}

/// What the line shows when there is no session directory to measure.
pub(crate) fn unknown_human() -> String {
    "mem ?\n".to_owned()
}

#[derive(Serialize)]
struct Unknown<'a> {
    error: &'a str,
}

/// No session directory to measure, and why, as one JSON line.
pub(crate) fn unknown_json(error: &str) -> String {
    super::json::line(SCHEMA, &Unknown { error })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(lines: usize, utf16: usize, dark: usize) -> Status {
        Status {
            files: 2,
            index_lines: Some(lines),
            index_utf16: Some(utf16),
            dark,
            note: None,
        }
    }

    #[test]
    fn shows_the_nearer_limit_and_dark_count() {
        assert_eq!(human(&status(187, 9_000, 0)), "mem 187/200 lines\n");
        assert_eq!(
            human(&status(200, 25_000, 2)),
            "mem 200/200 lines · 2 dark\n"
        );
        assert_eq!(
            human(&status(120, 24_100, 4)),
            "mem 24.1k/25k units · 4 dark\n"
        );
    }

    #[test]
    fn without_an_index_counts_files() {
        let s = Status {
            files: 1,
            note: Some("off (--bare)".into()),
            ..Status::default()
        };
        assert_eq!(human(&s), "mem 1 file · off (--bare)\n");
        assert_eq!(human(&Status::default()), "mem 0 files\n");
    }

    #[test]
    fn json_is_one_line_with_the_schema_first() {
        assert_eq!(
            unknown_json("gone"),
            "{\"schema\":\"ccmem.statusline/1\",\"error\":\"gone\"}\n"
        );
        assert!(
            json(&status(1, 2, 0)).starts_with("{\"schema\":\"ccmem.statusline/1\",\"files\":2,")
        );
    }
}
