//! Instruction files: managed, user, the ancestor walk, rules, imports, AGENTS.md, add-dirs.

use std::collections::HashSet;

use super::model::{Lazy, Loaded, Skipped};
use crate::env::ClientEnv;
use crate::settings::Settings;

/// The instruction part of the startup list.
#[derive(Debug, Clone, Default)]
pub struct Instructions {
    /// Entries in client order (without MEMORY.md).
    pub entries: Vec<Loaded>,
    /// What did not load and why.
    pub skipped: Vec<Skipped>,
    /// What is reachable only lazily.
    pub lazy: Vec<Lazy>,
    /// The processed-path set after the startup load.
    pub processed: HashSet<String>,
}

/// Loads every instruction file the client would load at start.
pub fn load(_env: &ClientEnv, _settings: &Settings) -> Instructions {
    Instructions::default()
}
