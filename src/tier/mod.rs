//! `ccmem tier`: a hub-first restructure of an over-budget MEMORY.md, planned as a pure
//! function of a [`Library`] snapshot and proved by four invariants.
//!
//! Shape: crown entries (⭐ / ⚠️ / pinned in `ccmem.toml`) verbatim at the top of MEMORY.md, one
//! pointer line per moved group, every other line of a moved group verbatim in its hub
//! `reference_<group>_hub.md`. Slimming stops as soon as the index fits the target:
//! crowns to the top → groups pushed into hubs, biggest first → the pointer lines of the least
//! recently needed groups (oldest `modified` among their files and hubs; none counts as oldest)
//! aggregated onto `- More hubs:` lines that link every hub directly. A pointer line the user
//! wrote (with its heading) is never dropped: it moves verbatim into
//! `reference_more-hubs_hub.md`, which the aggregate line links too, so every hub stays one
//! link from MEMORY.md and every topic two.
//!
//! Data flow: [`Library::read`] → [`plan::plan`] → [`proof::prove`] on the planned library →
//! (with `--write`) `crate::write` → [`Library::read`] again → [`proof::prove`] on disk.

pub mod add;
pub mod budget;
pub mod groups;
pub mod library;
pub mod parse;
pub mod plan;
pub mod proof;
mod shape;

use std::fmt;
use std::path::Path;

pub use budget::{Size, Target};
pub use library::Library;
pub use plan::{FilePlan, Plan, Step};
pub use proof::{Check, Proof};

/// Why planning refused to go on (nothing is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The file at fault.
    pub file: String,
    /// The 1-based line, when there is one.
    pub line: Option<usize>,
    /// The reason.
    pub why: String,
}

impl Refusal {
    /// A refusal about `path`.
    pub fn at(path: &Path, why: impl Into<String>) -> Self {
        Refusal {
            file: path.display().to_string(),
            line: None,
            why: why.into(),
        }
    }

    /// A refusal about line `line` of `file`.
    pub fn line(file: &str, line: usize, why: impl Into<String>) -> Self {
        Refusal {
            file: file.to_owned(),
            line: Some(line),
            why: why.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(n) => write!(f, "{}:{}: {}", self.file, n, self.why),
            None => write!(f, "{}: {}", self.file, self.why),
        }
    }
}

impl std::error::Error for Refusal {}

/// Planning options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The budget MEMORY.md must end up within.
    pub target: Target,
    /// Also propose shorter descriptions for long index lines (shown, never applied).
    pub compress: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: budget::DEFAULT_TARGET,
            compress: false,
        }
    }
}

/// Whether `name` is a hub file name (`reference_<group>_hub.md`).
pub fn is_hub(name: &str) -> bool {
    name.starts_with("reference_") && name.ends_with("_hub.md") && name.len() > 17
}

#[cfg(test)]
mod tests;
