//! `ccmem statusline`: what one compact line for Claude Code's `statusLine` command shows, since
//! hook messages do not show in every client surface (worded by `render::statusline`).

use serde::Serialize;

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
            IndexState::TooLarge { .. } => {
                s.note = Some(format!(
                    "MEMORY.md over {}, all dark",
                    crate::constants::MAX_FILE_SIZE
                ));
            }
            IndexState::NotRegular { what } => s.note = Some(format!("MEMORY.md is a {what}")),
            IndexState::Unreadable { .. } => s.note = Some("MEMORY.md unreadable".into()),
            _ => {}
        }
        if s.note.is_none() && crate::memory::pending::of_session(session).is_some() {
            s.note = Some("interrupted ccmem write".into());
        }
        s
    }
}
