//! Usage evidence, for commands that order or explain memory by what the model really had:
//! which topic files it read and when, and when each line of MEMORY.md last reached it.
//!
//! ```no_run
//! # fn demo(env: &ccmem::env::ClientEnv) {
//! let usage = ccmem::history::usage::Usage::of_project(env, None);
//! for entry in usage.dark_entries() {
//!     println!("line {}: last loaded {:?}", entry.line, entry.last_loaded_at);
//! }
//! if let Some(topic) = usage.topic("/home/me/.claude/projects/-p/memory/feedback_x.md") {
//!     println!("read {} times, last {:?}", topic.reads, topic.last_read);
//! }
//! # }
//! ```
//!
//! Meant for `tier` (move the entries and hubs the model never reads first, keep the ones it
//! reads) and the receipt (how long each dark entry has been dark). Built from [`History`]: the
//! client's transcripts and ccmem's log, so it knows only what those still hold.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::{Entry, History, Options};
use crate::env::ClientEnv;

/// How often and how lately the model read one memory file.
#[derive(Debug, Clone, Serialize)]
pub struct TopicUse {
    /// Read calls on it, over every recorded session.
    pub reads: usize,
    /// Sessions that read it.
    pub sessions: usize,
    /// When it was last read (RFC 3339).
    pub last_read: Option<String>,
    /// The session that last read it.
    pub last_session: String,
}

/// Usage evidence of one project's memory.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Usage {
    /// Recorded sessions.
    pub sessions: usize,
    /// When the first recorded session started.
    pub first: Option<String>,
    /// When the last recorded session started.
    pub last: Option<String>,
    /// Recorded sessions that loaded today's MEMORY.md (the same path).
    pub index_sessions: usize,
    /// When the first of them started.
    pub index_first: Option<String>,
    /// Memory files read by the model (path as recorded → use).
    pub topics: BTreeMap<String, TopicUse>,
    /// Every non-blank line of today's MEMORY.md with when it last reached the model.
    pub entries: Vec<Entry>,
}

impl Usage {
    /// The evidence of a history.
    pub fn of(history: &History) -> Usage {
        let mut topics: BTreeMap<String, TopicUse> = BTreeMap::new();
        for s in &history.sessions {
            let mut seen = std::collections::HashSet::new();
            for r in &s.topic_reads {
                let t = topics.entry(r.path.clone()).or_insert_with(|| TopicUse {
                    reads: 0,
                    sessions: 0,
                    last_read: None,
                    last_session: s.id.clone(),
                });
                t.reads += 1;
                if seen.insert(r.path.as_str()) {
                    t.sessions += 1;
                }
                let time = r.time.clone().or_else(|| s.started.clone());
                if time >= t.last_read {
                    t.last_read = time;
                    t.last_session = s.id.clone();
                }
            }
        }
        let index = history.project.index_path.as_deref();
        let loading: Vec<_> = history
            .sessions
            .iter()
            .filter(|s| {
                s.memory_index.as_ref().map(|i| i.path.as_str()) == index && index.is_some()
            })
            .collect();
        Usage {
            index_sessions: loading.len(),
            index_first: loading.first().and_then(|s| s.started.clone()),
            sessions: history.sessions.len(),
            first: history.sessions.first().and_then(|s| s.started.clone()),
            last: history.sessions.last().and_then(|s| s.started.clone()),
            topics,
            entries: history.entries.clone(),
        }
    }

    /// The evidence of the project the client would use in `env`'s start directory, from its
    /// transcripts and ccmem's log at `log` (see [`super::log::path`]).
    pub fn of_project(env: &ClientEnv, log: Option<PathBuf>) -> Usage {
        let settings = crate::settings::Settings::load(env);
        Usage::of_session(env, &settings, log, None)
    }

    /// [`Usage::of_project`] with the settings a session read already, and today's MEMORY.md
    /// when it was read too (its path as the client prints it, and its bytes): neither is
    /// read again.
    pub(crate) fn of_session(
        env: &ClientEnv,
        settings: &crate::settings::Settings,
        log: Option<PathBuf>,
        index: Option<(&str, &[u8])>,
    ) -> Usage {
        let opts = Options {
            log,
            tick: None,
            index,
        };
        Usage::of(&super::read(env, settings, &opts))
    }

    /// How the model used the memory file at `path` (as the client prints it), if it read it.
    pub fn topic(&self, path: &str) -> Option<&TopicUse> {
        self.topics.get(path)
    }

    /// The entry of today's MEMORY.md at 1-based `line`, if that line is not blank.
    pub fn entry(&self, line: usize) -> Option<&Entry> {
        self.entries.iter().find(|e| e.line == line)
    }

    /// Entries some recorded session loaded the index without: dark, for as long as they say.
    pub fn dark_entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.sessions_since > 0)
    }
}
