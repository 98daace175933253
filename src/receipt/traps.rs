//! What `ccmem check` reports for a receipt's start directory.

use serde::Serialize;

/// What `ccmem check` reports for the start directory of a receipt: the same rules, run on the
/// repository holding it, in the same environment as the receipt's session.
#[derive(Debug, Clone, Serialize)]
pub struct Traps {
    /// The repository's root (its real path); every `path` below is relative to it.
    pub root: String,
    /// The start directory, relative to the root (`.` for the root).
    pub start: String,
    /// The findings that bite a session started here, ordered as `check` orders them.
    pub findings: Vec<Trap>,
    /// Findings of the same check that do not bite here (other start directories).
    pub elsewhere: usize,
    /// Start directories the check left out (its `max-dirs`).
    pub left_out: usize,
    /// The command that shows every finding of the repository, these included.
    pub command: String,
}

/// One finding of `check`, as the receipt shows it.
#[derive(Debug, Clone, Serialize)]
pub struct Trap {
    /// The rule's name (`ccmem explain RULE`).
    pub rule: &'static str,
    /// Its severity.
    pub severity: crate::severity::Severity,
    /// The file, relative to [`Traps::root`] (absolute when outside it).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
    /// What fixes it.
    pub fix: String,
}
