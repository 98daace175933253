//! `ccmem statusline`: one compact line for Claude Code's `statusLine` command, since hook
//! messages do not show in every client surface. Example: `mem 187/200 lines · 2 dark`.

use serde::Serialize;

use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16};
use crate::load::Session;
use crate::load::automem::IndexState;

/// What the status line shows, also printed as JSON with `--json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Status {
    /// Memory files in the startup block.
    pub files: usize,
    /// Lines of MEMORY.md the client counts, when it loaded.
    pub index_lines: Option<usize>,
    /// UTF-16 units of MEMORY.md the client counts, when it loaded.
    pub index_utf16: Option<usize>,
    /// MEMORY.md lines that do not reach the model.
    pub dark: usize,
    /// Why memory is off, or what is wrong with the index, in a few words.
    pub note: Option<String>,
}

impl Status {
    /// Summarises a loaded session.
    pub(crate) fn of(session: &Session) -> Self {
        let mut s = Status {
            files: session.entries.len(),
            ..Status::default()
        };
        if let Some(why) = session.disabled {
            s.note = Some(format!("off ({why})"));
            return s;
        }
        match &session.automem.index {
            IndexState::Loaded(m) | IndexState::FromEnv(m) => {
                s.index_lines = Some(m.lines);
                s.index_utf16 = Some(m.utf16);
                s.dark = m.cut.as_ref().map_or(0, |c| c.dark.len());
            }
            IndexState::TooLarge { .. } => s.note = Some("MEMORY.md over 4 MiB, all dark".into()),
            IndexState::NotRegular { what } => s.note = Some(format!("MEMORY.md is a {what}")),
            IndexState::Unreadable { .. } => s.note = Some("MEMORY.md unreadable".into()),
            _ => {}
        }
        if s.note.is_none() && crate::memory::pending::of_session(session).is_some() {
            s.note = Some("interrupted ccmem write".into());
        }
        s
    }

    /// The line: `mem 187/200 lines · 2 dark`, `mem 23.1k/25k units · 4 dark` when size is the
    /// nearer limit, `mem 3 files` without an index.
    pub(crate) fn line(&self) -> String {
        let mut parts = Vec::new();
        match (self.index_lines, self.index_utf16) {
            (Some(lines), Some(utf16)) if utf16 * INDEX_MAX_LINES > lines * INDEX_MAX_UTF16 => {
                parts.push(format!(
                    "mem {:.1}k/{}k units",
                    utf16 as f64 / 1000.0,
                    INDEX_MAX_UTF16 / 1000
                ))
            }
            (Some(lines), _) => parts.push(format!("mem {lines}/{INDEX_MAX_LINES} lines")),
            _ => parts.push(format!(
                "mem {} file{}",
                self.files,
                if self.files == 1 { "" } else { "s" }
            )),
        }
        if self.dark > 0 {
            parts.push(format!("{} dark", self.dark));
        }
        if let Some(note) = &self.note {
            parts.push(note.clone());
        }
        parts.join(" · ")
    }
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
        assert_eq!(status(187, 9_000, 0).line(), "mem 187/200 lines");
        assert_eq!(status(200, 25_000, 2).line(), "mem 200/200 lines · 2 dark");
        assert_eq!(
            status(120, 24_100, 4).line(),
            "mem 24.1k/25k units · 4 dark"
        );
    }

    #[test]
    fn without_an_index_counts_files() {
        let s = Status {
            files: 1,
            note: Some("off (--bare)".into()),
            ..Status::default()
        };
        assert_eq!(s.line(), "mem 1 file · off (--bare)");
        assert_eq!(Status::default().line(), "mem 0 files");
    }
}
