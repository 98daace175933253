//! `ccmem tier`: a hub-first restructure of an over-budget MEMORY.md, planned as a pure
//! function of a [`Library`] snapshot and proved by five invariants ([`proof`]).
//!
//! Shape: the title stays on top, crown entries (⭐ / ⚠️ / pinned in `ccmem.toml`) verbatim
//! right under it, plain rule lines and prose where they are; entries move verbatim, in groups
//! ([`groups`]: frontmatter first, then headings, then file-name prefixes), into hubs
//! `reference_<key>_hub.md` with ASCII names ([`crate::memory::names`], which the audit's
//! `large-group` fix uses too), each group leaving one pointer line under the index's `## Hubs`
//! heading. Slimming stops as soon as the index fits the target and
//! never overshoots ([`plan`]): groups pushed into hubs → blank lines dropped → the pointer
//! lines of the least recently needed hubs aggregated onto `- More hubs:` lines that link every
//! hub directly (a pointer line the user wrote moves verbatim into
//! `reference_more-hubs_hub.md`), so every hub stays one link from MEMORY.md and every entry
//! two. Broken links and long lines never block: they move (or stay) verbatim and the plan
//! reports them. Nor do files tier cannot read (invalid UTF-8, FIFOs, dangling links): they
//! are reported and left alone; only MEMORY.md and the files a plan writes must be readable.
//! Symbolic links are written through, as `crate::write` does.
//!
//! Data flow: the memory library ([`crate::memory::Library`], loaded by the command) →
//! [`check_readable`] → [`plan::plan`] → [`check_writes`] → [`proof::prove`] on the planned library
//! ([`applied`]) → (with `--write`) `crate::write` → the library loaded again →
//! [`proof::prove`] on disk.
//!
//! Tier plans with the files directly in the memory folder ([`topic`]); files in sub-folders
//! are only link targets.

pub mod add;
pub mod budget;
pub mod groups;
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

/// A file's text (empty when it has none: such a file is [`Skipped`], and [`check_writes`]
/// refuses a plan that would write it).
pub fn text_of(file: &MemFile) -> &str {
    file.text().unwrap_or("")
}

/// The library with `plan`'s files in place of its own (in memory).
pub fn applied(lib: &Library, plan: &Plan) -> Library {
    lib.with(
        plan.files
            .iter()
            .map(|f| (f.name.as_str(), Some(f.new.as_str()))),
    )
}

/// A file directly in the memory folder that tier could not read: left as it is, reported.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// The file name.
    pub file: String,
    /// Why it could not be read.
    pub why: String,
}

/// What [`check_readable`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Readable {
    /// MEMORY.md exists.
    pub exists: bool,
    /// Files directly in the folder tier could not read (it neither moves nor rewrites them;
    /// [`check_writes`] refuses a plan that would write one).
    pub skipped: Vec<Skipped>,
}

/// Refuses a library tier cannot plan with: a MEMORY.md that is missing (unless
/// `allow_missing`) or cannot be read as UTF-8 text, with what the user can do about it. Any
/// other file directly in the folder that cannot be read (invalid UTF-8, a FIFO, a dangling
/// link, too large…) never blocks: it is returned in [`Readable::skipped`]. A symbolic link is
/// read, and written, through (see `crate::write`).
pub fn check_readable(lib: &Library, allow_missing: bool) -> Result<Readable, Refusal> {
    let index_path = lib.root.join(INDEX_FILE);
    let exists = match lib.index().map(|i| &lib.files[i]) {
        Some(f) => match &f.content {
            Content::Text { .. } => true,
            Content::Unread(why) => return Err(index_refusal(lib, &index_path, why)),
        },
        None if allow_missing => false,
        None => return Err(Refusal::at(&index_path, "missing: nothing to restructure")),
    };
    let skipped = (lib.top_level())
        .filter_map(|f| match &f.content {
            Content::Text { .. } => None,
            Content::Unread(why) => Some(Skipped {
                file: f.rel.clone(),
                why: match std::fs::read_link(&f.path) {
                    Ok(to) if f.symlink && !f.path.exists() => format!(
                        "is a symbolic link to {}, which does not exist",
                        to.display()
                    ),
                    _ => unread_cause(why),
                },
            }),
        })
        .collect();
    Ok(Readable { exists, skipped })
}

/// Refuses planned `files` that would write a file of `lib` it could not read (its content
/// would be lost, or the writer would refuse it half-way).
/// A link is written through (the link kept), unless it leads to another file of the folder:
/// one file under two names would have its lines counted, and changed, twice.
pub fn check_writes(lib: &Library, files: &[FilePlan]) -> Result<(), Refusal> {
    let root = std::fs::canonicalize(&lib.root).ok();
    for planned in files {
        let Some(f) = lib.file(&planned.name) else {
            continue;
        };
        if f.symlink
            && let (Some(root), Ok(real)) = (&root, std::fs::canonicalize(&f.path))
            && let Ok(inside) = real.strip_prefix(root)
        {
            return Err(Refusal::at(
                &f.path,
                format!(
                    "is a symbolic link to {}, another file of this folder; tier writes through \
                     links, but one file under two names would be changed twice: make the link \
                     point outside the folder, or replace it by the file, then run again",
                    inside.display()
                ),
            ));
        }
        if let Content::Unread(why) = &f.content {
            return Err(Refusal::at(
                &f.path,
                format!(
                    "{}; the plan would write into it, and tier never rewrites a file it cannot \
                     read: repair, rename or remove it, then run again",
                    unread_cause(why)
                ),
            ));
        }
    }
    Ok(())
}

fn unread_cause(why: &Unreadable) -> String {
    match why {
        Unreadable::InvalidUtf8(at) => format!("is not valid UTF-8 (byte {at})"),
        other => format!("cannot be read: {other}"),
    }
}

/// Why tier cannot read MEMORY.md, and what to do.
fn index_refusal(lib: &Library, path: &Path, why: &Unreadable) -> Refusal {
    let cap = lib.config.audit.max_file_bytes;
    let len = std::fs::metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let text = match (why, len) {
        (Unreadable::InvalidUtf8(at), _) => format!(
            "is not valid UTF-8 (byte {at}); tier moves lines verbatim and will not guess an \
             encoding: convert it to UTF-8 (e.g. `iconv -f latin1 -t utf-8`), then run `ccmem \
             tier` again"
        ),
        (Unreadable::Io(_), Some(len)) if len > cap => {
            let fix = if len <= crate::write::MAX_FILE {
                let place = match lib.config.path() {
                    Some(p) => p.display().to_string(),
                    None => lib.root.join("ccmem.toml").display().to_string(),
                };
                format!(
                    "to restructure it anyway, set `max-file-bytes = {len}` under `[audit]` in \
                     {place} and run `ccmem tier` again, or split it by hand"
                )
            } else {
                format!(
                    "it is also more than ccmem edits ({} bytes): split it by hand",
                    crate::write::MAX_FILE
                )
            };
            let client = if len > crate::constants::MAX_FILE_BYTES {
                format!(
                    "; the client skips a MEMORY.md over {} bytes whole, so none of it loads now",
                    crate::constants::MAX_FILE_BYTES
                )
            } else {
                String::new()
            };
            format!("is {len} bytes, more than tier reads ({cap}, `max-file-bytes`){client}: {fix}")
        }
        (other, _) => format!(
            "cannot be read: {other}; tier reads MEMORY.md whole before it rewrites it: make it \
             a readable regular file, then run `ccmem tier` again"
        ),
    };
    Refusal::at(path, text)
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
