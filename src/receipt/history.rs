//! When each of a receipt's dark entries last reached the model.

use serde::Serialize;

use crate::load::automem::{IndexState, Report};

/// The record of the dark entries: when each last reached the model.
#[derive(Debug, Clone, Serialize)]
pub struct DarkHistory {
    /// Recorded sessions that loaded this index.
    pub sessions: usize,
    /// When the first of them started (RFC 3339).
    pub since: Option<String>,
    /// Each dark line that is not blank, with when it last loaded and since when it is dark.
    pub entries: Vec<crate::history::Entry>,
}

impl DarkHistory {
    /// The record of the dark lines of this receipt's index, when a recorded session loaded it.
    pub fn of(usage: &crate::history::usage::Usage, automem: &Report) -> Option<DarkHistory> {
        let (IndexState::Loaded(m) | IndexState::FromEnv(m)) = &automem.index else {
            return None;
        };
        let cut = m.cut.as_ref()?;
        if usage.index_sessions == 0 {
            return None;
        }
        let entries = cut
            .dark
            .iter()
            .filter_map(|d| usage.entry(d.line).filter(|e| e.text == d.text).cloned())
            .collect();
        Some(DarkHistory {
            sessions: usage.index_sessions,
            since: usage.index_first.clone(),
            entries,
        })
    }
}
