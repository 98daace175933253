//! `budget` output: one line per index for a person, or JSON.

use std::fmt::Write as _;

use crate::budget::{Budget, Row};
use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16, MAX_FILE_SIZE};
use crate::load::automem::IndexState;
use crate::receipt::group;
use crate::text::escape::Shown;

/// JSON, pretty, with a trailing newline.
pub fn json(b: &Budget) -> String {
    let mut s = serde_json::to_string_pretty(b).expect("budget serializes");
    s.push('\n');
    s
}

/// One block per index.
pub fn human(b: &Budget) -> String {
    let mut o = String::new();
    for r in &b.indexes {
        row(&mut o, r);
    }
    let _ = writeln!(
        o,
        "{} index(es), {} over the client's limits ({INDEX_MAX_LINES} lines / {} UTF-16 units)",
        b.summary.indexes,
        b.summary.over,
        group(INDEX_MAX_UTF16)
    );
    o
}

fn row(o: &mut String, r: &Row) {
    let verdict = if r.over { "OVER" } else { "ok" };
    let _ = writeln!(o, "{verdict:<4} {}", Shown(&r.path));
    if let Some(p) = &r.pending {
        let _ = writeln!(o, "     ccmem: {}", Shown(&p.message()));
    }
    match &r.index {
        IndexState::Loaded(m) | IndexState::FromEnv(m) => {
            let _ = writeln!(
                o,
                "     raw {} lines / {} bytes · loadable {} lines / {} UTF-16 units / {} bytes",
                group(m.file_lines),
                group(m.file_bytes as usize),
                group(m.lines),
                group(m.utf16),
                group(m.bytes)
            );
            if let Some(cut) = &m.cut {
                let _ = writeln!(
                    o,
                    "     cut: {} complete line(s) kept, {} line(s) dark",
                    cut.kept_lines,
                    cut.dark.len()
                );
            }
            if let Some(d) = &r.first_dark {
                let _ = writeln!(
                    o,
                    "     first dark entry: line {}: {}",
                    d.line,
                    Shown(&d.text)
                );
            }
        }
        IndexState::TooLarge { bytes } => {
            let _ = writeln!(
                o,
                "     {} bytes: over {MAX_FILE_SIZE}, the client skips the whole file",
                group(*bytes as usize)
            );
        }
        IndexState::NotRegular { what } => {
            let _ = writeln!(
                o,
                "     not a regular file ({what}): the client loads nothing"
            );
        }
        IndexState::Unreadable { error } => {
            let _ = writeln!(o, "     unreadable: {}", Shown(error));
        }
        other => {
            let _ = writeln!(
                o,
                "     {}",
                Shown(&serde_json::to_string(other).unwrap_or_default())
            );
        }
    }
}
