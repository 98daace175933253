//! `ccmem tier`: a hub-first restructure of an over-budget MEMORY.md, planned as a pure
//! function of a [`Library`] snapshot and proved by five invariants ([`proof`]).
//!
//! Shape ([`POLICY`], `src/tier/policy.md`): the title, crowns ([`crown`]), plain rule lines
//! and prose stay where they are; entries move verbatim, by unit (the user's section, or a
//! topic of a flat list, [`groups`]) and rank (project status first, the rules last), into hubs
//! `reference_<key>_hub.md` with ASCII names ([`crate::memory::names`]), each unit leaving one
//! pointer line per hub where it was. Slimming stops as soon as the index fits the target and
//! uses the whole budget ([`plan`]): pieces pushed into hubs → blank lines dropped → the pointer
//! lines of the least recently needed hubs aggregated onto `- More hubs:` lines that link every
//! hub directly (a pointer line the user wrote moves verbatim into
//! `reference_more-hubs_hub.md`), so every hub stays one link from MEMORY.md and every entry
//! two. Broken links and long lines never block: they move (or stay) verbatim and the plan
//! reports them. Nor do files tier cannot read (invalid UTF-8, FIFOs, dangling links): they
//! are reported and left alone; only MEMORY.md and the files a plan writes must be readable.
//! A symbolic link is written through only to another file of the memory folder that the
//! library does not hold under its own name, as `crate::write` does; the dry run names it
//! (`MEMORY.md -> MEMORY.txt`), and [`check_writes`] refuses the rest.
//!
//! Data flow ([`run::run`], what the command calls): the memory library
//! ([`crate::memory::Library`], read once) → [`check_readable`] → [`plan::plan`] →
//! [`check_writes`] → [`proof::Baseline::prove`] on the planned library ([`applied`]) → (with
//! `--write`) `crate::write` → the written files read again ([`Library::reread`]) → the proof on
//! disk.
//!
//! Tier plans with the files directly in the memory folder ([`topic`]); files in sub-folders
//! are only link targets.

pub mod add;
pub mod budget;
pub mod compress;
pub mod crown;
pub mod groups;
pub mod parse;
pub mod plan;
pub mod proof;
pub mod run;
mod shape;
pub mod usage;

use std::fmt;
use std::path::{Path, PathBuf};

pub use budget::{Size, Target};
pub use plan::{FilePlan, Note, Plan, Step};

use crate::config::Config;
use crate::constants::INDEX_FILE;
use crate::memory::Library;
use crate::memory::file::{MemFile, Role, Unreadable};
use crate::memory::library::LoadError;
pub use proof::{Check, Proof};

/// The policy `ccmem explain tier` prints and the README repeats: what stays, what moves, why.
pub const POLICY: &str = include_str!("policy.md");

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
        Some(f) => match f.unread() {
            None => true,
            Some(why) => return Err(index_refusal(lib, &index_path, why)),
        },
        None if allow_missing => false,
        None => return Err(Refusal::at(&index_path, "missing: nothing to restructure")),
    };
    let skipped = (lib.top_level())
        .filter_map(|f| {
            let why = f.unread()?;
            Some(Skipped {
                file: f.rel.clone(),
                why: match std::fs::read_link(&f.path) {
                    Ok(to) if f.symlink && !f.path.exists() => format!(
                        "is a symbolic link to {}, which does not exist",
                        to.display()
                    ),
                    _ => unread_cause(why),
                },
            })
        })
        .collect();
    Ok(Readable { exists, skipped })
}

/// Why `tier` or `add` stopped without a report (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The folder cannot be listed, or `ccmem.toml` is unusable.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// MEMORY.md cannot be planned with, the request is invalid, the file to add exists, or a
    /// planned write is refused.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The write failed (nothing, or everything, was written: see `crate::write`).
    #[error(transparent)]
    Write(#[from] crate::write::WriteError),
}

/// How the client reads a memory folder's files through links, for [`check_writes`]: decided
/// by the loader (`load::agent::memory`), passed in by the command.
#[derive(Debug, Clone, Default)]
pub struct ClientLinks {
    /// Why the client will not read MEMORY.md through a link here (a subagent's memory in a
    /// working copy: `lstat` must find a regular file); `None`: it follows one.
    pub index_must_be_file: Option<String>,
}

/// The memory folder `tier` and `add` work on, as the command found it.
#[derive(Debug, Clone, Default)]
pub struct Folder {
    /// Where it is (for `add`, it may not exist yet).
    pub path: PathBuf,
    /// Its `ccmem.toml` (already found and checked).
    pub config: Config,
    /// `HOME`, for `~/` links (see [`Library::load_configured`]).
    pub home: Option<PathBuf>,
    /// How the client reads the folder through links (see [`check_writes`]).
    pub links: ClientLinks,
}

impl Folder {
    /// The folder at `path`, with the default `ccmem.toml`, no `HOME` and links the client
    /// follows.
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Folder {
            path: path.into(),
            ..Folder::default()
        }
    }

    /// Reads its library.
    pub fn load(&self) -> Result<Library, LoadError> {
        Library::load_configured(&self.path, self.config.clone(), self.home.as_deref())
    }
}

/// Refuses a plan that would write where the client would not read, or what ccmem never
/// writes: through a link the client will not follow, through a link out of the memory folder,
/// or to a file of the folder under two names (a link and its file), a read-only file, or a
/// file tier cannot read. The dry run refuses alike.
pub fn check_writes(lib: &Library, files: &[FilePlan], links: &ClientLinks) -> Result<(), Refusal> {
    let root = std::fs::canonicalize(&lib.root).ok();
    for planned in files {
        let path = lib.root.join(&planned.name);
        if let Ok(meta) = std::fs::symlink_metadata(&path)
            && meta.file_type().is_symlink()
        {
            if planned.name == INDEX_FILE
                && let Some(why) = &links.index_must_be_file
            {
                return Err(Refusal::at(
                    &path,
                    format!(
                        "is a symbolic link, and the client does not read MEMORY.md through one \
                         here ({why}); ccmem writes only where the client reads: replace the \
                         link by the file, then run again"
                    ),
                ));
            }
            let real = std::fs::canonicalize(&path).ok();
            let inside = match (&root, &real) {
                (Some(root), Some(real)) => real.parent() == Some(root.as_path()),
                _ => false,
            };
            if !inside {
                let to = real.map_or_else(
                    || "a file that does not exist".to_owned(),
                    |r| r.display().to_string(),
                );
                return Err(Refusal::at(
                    &path,
                    format!(
                        "is a symbolic link to {to}, outside the memory folder; ccmem writes \
                         only inside the folder it works on and never through such a link: \
                         replace the link by a copy of the file, then run again"
                    ),
                ));
            }
            let target = real
                .as_ref()
                .and_then(|r| r.file_name())
                .map(|n| n.to_string_lossy());
            if let Some(t) = target.filter(|t| lib.file(t).is_some()) {
                return Err(Refusal::at(
                    &path,
                    format!(
                        "is a symbolic link to {t}, another file of this folder; one file under \
                         two names would be changed twice: replace the link by a copy of the \
                         file, then run again"
                    ),
                ));
            }
        }
        if let Ok(meta) = std::fs::metadata(&path) {
            let mode = crate::sys::mode(&meta);
            if meta.is_file() && mode & 0o200 == 0 {
                return Err(Refusal::at(
                    &path,
                    format!(
                        "is read-only (mode {mode:04o}); ccmem does not replace a read-only file: \
                         make it writable (`chmod u+w`) if the change is wanted, then run again"
                    ),
                ));
            }
        }
        if let Some(f) = lib.file(&planned.name)
            && let Some(why) = f.unread()
        {
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

/// The file a planned write of `name` really changes when `name` is a symbolic link (its
/// name in the folder), for the dry run's `name -> target`; `None`: not a link.
pub fn link_target(lib: &Library, name: &str) -> Option<String> {
    let path = lib.root.join(name);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    Some(match std::fs::canonicalize(&path) {
        Ok(real) => real.file_name().map_or_else(
            || real.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
        Err(_) => {
            std::fs::read_link(&path).map_or_else(|_| "?".to_owned(), |t| t.display().to_string())
        }
    })
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
                    "it is also more than ccmem edits ({}): split it by hand",
                    crate::constants::Bytes(crate::write::MAX_FILE)
                )
            };
            let client = if len > crate::constants::MAX_FILE_BYTES {
                format!(
                    "; the client skips a MEMORY.md over {} whole, so none of it loads now",
                    crate::constants::MAX_FILE_SIZE
                )
            } else {
                String::new()
            };
            format!(
                "is {} bytes, more than tier reads ({cap}, `max-file-bytes`){client}: {fix}",
                crate::constants::Count(len as usize)
            )
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
