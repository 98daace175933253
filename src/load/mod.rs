//! The simulated client: what Claude Code 2.1.332 loads into the memory reminder at session
//! start, and what it attaches later when it reads a file.
//!
//! Data flow: [`ClientEnv`] + [`Settings`] → [`instructions::load`] (managed, user, ancestor walk,
//! rules, imports, AGENTS.md, add-dirs; returns entries in client order plus the processed-path
//! set) → [`automem::load`] (folder, index, cut; its entry is always last) → [`Session`].
//! [`reading::load`] replays file reads on top of a session. Nothing here writes anything.

pub mod agent;
pub mod automem;
pub mod bash;
pub mod compact;
pub mod git;
pub mod instructions;
pub mod memo;
pub mod model;
pub mod reading;
pub mod reminder;
pub mod rule_paths;
pub mod size;
pub mod steps;

use foldhash::HashSet;

pub use model::{Kind, Lazy, LazyWhy, Loaded, Size, SkipWhy, Skipped, Why};

use crate::env::ClientEnv;
use crate::settings::Settings;

/// Everything the client would load at session start, with reasons.
#[derive(Debug, Clone)]
pub struct Session {
    /// Why the whole block is off, if it is (`--bare`, `CLAUDE_CODE_DISABLE_CLAUDE_MDS`, …).
    pub disabled: Option<&'static str>,
    /// The entries of the reminder, in the client's order (empty ones already dropped).
    pub entries: Vec<Loaded>,
    /// Files that exist or were referenced but did not load.
    pub skipped: Vec<Skipped>,
    /// Files reachable only later in the session.
    pub lazy: Vec<Lazy>,
    /// The auto-memory report (folder, index state, cut).
    pub automem: automem::Report,
    /// Every path the session holds (the client's processed set), for lazy-load dedup.
    pub processed: HashSet<String>,
    /// The settings that were read.
    pub settings: Settings,
}

/// How much a load computes beyond the reminder itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything, including what is reachable only lazily (subdirectory files and conditional
    /// rules; auto-memory topic files are the memory library's, `crate::memory::session`).
    Full,
    /// Only what the startup reminder needs (for `context`, hooks and `verify`).
    Reminder,
    /// The startup block with every skip reason, but nothing below the start directory and no
    /// topic-file listing (for `check`, which loads once per directory of a repository).
    Startup,
}

impl Detail {
    /// Whether the files below the start directory that load only lazily are listed.
    pub fn lists_lazy(self) -> bool {
        self == Detail::Full
    }

    /// Whether files that exist but do not load are all reported (each costs a `stat`).
    pub fn reports_skips(self) -> bool {
        self != Detail::Reminder
    }
}

/// Runs the startup load with every detail (see [`load_session_with`]).
pub fn load_session(env: &ClientEnv) -> Session {
    load_session_with(env, Detail::Full)
}

/// Runs the startup load.
pub fn load_session_with(env: &ClientEnv, detail: Detail) -> Session {
    let settings = Settings::load(env);
    if let Some(why) = env.instructions_disabled() {
        return Session {
            disabled: Some(why),
            entries: Vec::new(),
            skipped: Vec::new(),
            lazy: Vec::new(),
            automem: automem::Report::off(why),
            processed: HashSet::default(),
            settings,
        };
    }
    let mut instr = instructions::load_with(env, &settings, detail);
    // A walk candidate that does not exist is not news; a missing import target is.
    instr
        .skipped
        .retain(|s| s.why != SkipWhy::Missing || s.from.is_some());
    let automem = automem::load(env, &settings, &instr.processed);
    let mut entries = instr.entries;
    entries.extend(automem.entry.clone());
    let mut lazy = instr.lazy;
    lazy.extend(automem.lazy.iter().cloned());
    Session {
        disabled: None,
        entries,
        skipped: instr.skipped,
        lazy,
        automem,
        processed: instr.processed,
        settings,
    }
}
