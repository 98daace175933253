//! `ccmem tier`: a hub-first restructure of an over-budget MEMORY.md, planned as a pure
//! function of a [`Library`] snapshot and proved by five invariants ([`proof`]).
//!
//! Shape: the title stays on top, crown entries (⭐ / ⚠️ / pinned in `ccmem.toml`) verbatim
//! right under it, plain rule lines and prose where they are; entries move verbatim, in groups
//! ([`groups`]: frontmatter first, then headings, then file-name prefixes), into hubs
//! `reference_<key>_hub.md` with ASCII names ([`names`]), each group leaving one pointer line
//! under the index's `## Hubs` heading. Slimming stops as soon as the index fits the target and
//! never overshoots ([`plan`]): groups pushed into hubs → blank lines dropped → the pointer
//! lines of the least recently needed hubs aggregated onto `- More hubs:` lines that link every
//! hub directly (a pointer line the user wrote moves verbatim into
//! `reference_more-hubs_hub.md`), so every hub stays one link from MEMORY.md and every entry
//! two. Broken links and long lines never block: they move (or stay) verbatim and the plan
//! reports them.
//!
//! Data flow: the memory library ([`crate::memory::Library`], loaded by the command) →
//! [`check_readable`] → [`plan::plan`] → [`proof::prove`] on the planned library
//! ([`applied`]) → (with `--write`) `crate::write` → the library loaded again →
//! [`proof::prove`] on disk.
//!
//! Tier plans with the files directly in the memory folder ([`topic`]); files in sub-folders
//! are only link targets.

pub mod add;
pub mod budget;
pub mod groups;
pub mod names;
pub mod parse;
pub mod plan;
pub mod proof;
mod shape;

use std::fmt;
use std::path::Path;

pub use budget::{Size, Target};
pub use plan::{FilePlan, Note, Plan, Step};

use crate::constants::INDEX_FILE;
use crate::memory::Library;
use crate::memory::file::{Content, MemFile, Role, Unreadable};
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
    /// The time new hubs are stamped `modified` with.
    pub now: jiff::Timestamp,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: budget::DEFAULT_TARGET,
            compress: false,
            now: jiff::Timestamp::UNIX_EPOCH,
        }
    }
}

/// A file directly in the memory folder, other than MEMORY.md, by name.
pub fn topic<'a>(lib: &'a Library, name: &str) -> Option<&'a MemFile> {
    lib.file(name)
        .filter(|f| !f.rel.contains('/') && f.role != Role::Index)
}

/// A file's text (empty when it has none; [`check_readable`] refuses such libraries first).
pub fn text_of(file: &MemFile) -> &str {
    file.text().unwrap_or("")
}

/// Whether the library's file `name` is a symbolic link (tier never writes through one).
pub fn is_symlink(lib: &Library, name: &str) -> bool {
    lib.file(name).is_some_and(|f| f.symlink)
}

/// The library with `plan`'s files in place of its own (in memory).
pub fn applied(lib: &Library, plan: &Plan) -> Library {
    lib.with(
        plan.files
            .iter()
            .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
    )
}

/// Refuses a library tier cannot plan with: a symlinked or (unless `allow_missing`) missing
/// MEMORY.md, and files directly in the folder that cannot be read as UTF-8 text. Returns
/// whether MEMORY.md exists.
pub fn check_readable(lib: &Library, allow_missing: bool) -> Result<bool, Refusal> {
    let index_path = lib.root.join(INDEX_FILE);
    let exists = match lib.index().map(|i| &lib.files[i]) {
        Some(f) if f.symlink => {
            return Err(Refusal::at(
                &index_path,
                "is a symbolic link; tier rewrites MEMORY.md and will not replace a link \
                 (point ccmem at the link's target folder instead)",
            ));
        }
        Some(_) => true,
        None if allow_missing => false,
        None => return Err(Refusal::at(&index_path, "missing: nothing to restructure")),
    };
    let top = lib
        .index()
        .map(|i| &*lib.files[i])
        .into_iter()
        .chain(lib.top_level());
    for f in top {
        match &f.content {
            Content::Text { .. } => {}
            Content::Unread(Unreadable::InvalidUtf8(at)) => {
                return Err(Refusal::at(
                    &f.path,
                    format!(
                        "is not valid UTF-8 (byte {at}); tier moves lines verbatim and will not guess"
                    ),
                ));
            }
            Content::Unread(why) => {
                return Err(Refusal::at(&f.path, format!("cannot be read: {why}")));
            }
        }
    }
    Ok(exists)
}

/// Whether `name` is a hub file name (`reference_<group>_hub.md`), as the library model and
/// the audit see it.
pub fn is_hub(name: &str) -> bool {
    matches!(
        crate::memory::file::role_of(name),
        crate::memory::file::Role::Hub { .. }
    )
}

#[cfg(test)]
mod tests;
