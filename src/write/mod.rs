//! The only module that writes user files: memory folders (`tier`, `add`, `undo`) and the
//! client's settings files (`hook install`, `hook uninstall`).
//!
//! Every change goes through a [`Lock`]: an `flock` on the target folder itself (a second ccmem
//! gets [`WriteError::Locked`]; nothing is created to take it). Each operation then, for each
//! target: opens it without following a final link and without blocking (a FIFO or device is
//! refused, never read), checks its hash against what the command planned from, stores its old
//! content as a backup (with its mode), and writes the new content to a fresh temp file next to
//! it (same mode and owner, fsync). A journal (see [`journal`]) is made durable before the first
//! swap, which makes every operation undoable and an interrupted one recoverable on the next run.
//!
//! The swap closes the window a concurrent writer (the client writing MEMORY.md, a shell
//! appending to it) could otherwise fall into: the target and its temp file are exchanged
//! atomically, and what the swap replaced is checked, a line added there merged in (see
//! [`swap`]).
//!
//! A memory folder's writes stay in that folder: a symbolic link there is written through only
//! when it leads to another file of the same folder (the link itself is never touched); a link
//! out of the folder, a dangling one, and a read-only target (no owner write bit) are refused
//! with the reason. A settings file is written through its links (the commands decide which
//! links they accept, see `cli::hook::install`).
//!
//! ccmem's own state (the journal, the undo history, backups) is input like any other file:
//! the state folder is used only when it is a private folder of this user (see [`state`]), and
//! every record is checked against the folder before anything is done with it (see
//! [`record`]).
//!
//! ccmem's own bounded logs are appended to by [`append`] (never through a link, rotated at a
//! cap), not by this journaled writer.
#![allow(
    clippy::disallowed_methods,
    reason = "this is the writer the rule sends every write to"
)]

pub mod append;
pub mod fault;
pub mod journal;
pub mod merge;
mod ops;
pub mod record;
mod recover;
mod state;
mod swap;
mod sys;
mod target;
mod undo;

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use ops::{Applied, Merged, Recovered, Undone};
pub use recover::{
    Action, Discarded, Peek, Preview, PreviewFile, backup, has_journal, history, needs_recovery,
    peek, preview,
};
pub use state::MAX_RECORD;
pub use target::{MAX_FILE, settings_state};

/// A SHA-256 content hash, lower-case hex. Parsing one checks that it is exactly that (a backup
/// file is named by its hash: a record's hash never becomes a path).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Hash(String);

impl<'de> Deserialize<'de> for Hash {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            Ok(Hash(s))
        } else {
            Err(serde::de::Error::custom(format!(
                "{:?} is not a SHA-256 hash (64 lower-case hex digits)",
                s.chars().take(80).collect::<String>()
            )))
        }
    }
}

impl Hash {
    /// The hash of `bytes`.
    pub fn of(bytes: &[u8]) -> Self {
        let digest = Sha256::digest(bytes);
        let mut hex = String::with_capacity(64);
        for b in digest.iter() {
            hex.push_str(&format!("{b:02x}"));
        }
        Hash(hex)
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The first 12 hex digits, for messages.
    pub fn short(&self) -> &str {
        &self.0[..12.min(self.0.len())]
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One file change requested by a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// File name relative to the memory folder (no `/`).
    pub name: String,
    /// Hash of the content the command planned from (`None`: the file must not exist).
    pub expect: Option<Hash>,
    /// The new content (`None`: remove the file).
    pub new: Option<Vec<u8>>,
}

/// Why a write did not happen.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// Another process holds the lock.
    #[error(
        "{}: another ccmem is writing here (it holds the folder's lock); nothing was written: try again when it has finished",
        .0.display()
    )]
    Locked(PathBuf),
    /// A target changed between planning and its swap; nothing of the operation is left.
    #[error(
        "{}: changed on disk since it was read (expected {}, found {}); nothing was overwritten{}",
        path.display(), fmt_hash(.expected), fmt_hash(.found), fmt_kept(.kept)
    )]
    Conflict {
        /// The target.
        path: PathBuf,
        /// The hash the command planned from.
        expected: Option<Hash>,
        /// The hash found on disk.
        found: Option<Hash>,
        /// What was done to keep the other writer's content, when the conflict came mid-way.
        kept: Option<String>,
    },
    /// A target is not something ccmem writes (a FIFO, a folder, a dangling link, a bad name).
    #[error("{}: {why}; nothing was written", path.display())]
    Refused {
        /// The target.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// An I/O error on a named file.
    #[error("{}: {}", path.display(), describe_io(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// The journal or a backup is unusable.
    #[error("{0}")]
    Journal(String),
    /// A journal or undo record breaks ccmem's rules (see [`record`]): nothing was done with it.
    #[error("{}: {bad}; ccmem did nothing with it{}", file.display(), .remedy)]
    BadRecord {
        /// The record's file.
        file: PathBuf,
        /// What is wrong, and where.
        bad: record::Bad,
        /// What to do (starts with `: ` or `; `), or empty.
        remedy: String,
    },
    /// An interrupted write's journal is waiting in a folder where ccmem never applies one by
    /// itself (a checked-in folder: a repository can ship a journal).
    #[error(
        "{f}: an interrupted ccmem write left a journal here (`{op}`), and this folder is {why}: \
         a repository can ship such a journal, so ccmem never applies one here by itself and \
         writes nothing here until it is dealt with. See what it would do: `ccmem undo --status \
         {f}`; then apply it (`ccmem undo --recover {f}`) or drop it (`ccmem undo --discard {f}`)",
        f = .folder.display()
    )]
    Held {
        /// The memory folder.
        folder: PathBuf,
        /// The interrupted operation (`?` when its journal cannot be read).
        op: String,
        /// Why the folder counts as checked in.
        why: String,
    },
    /// An operation stopped part-way (after its journal was written) and was rolled back.
    #[error("{cause}; every file this `{op}` had written ({}) was restored: nothing is changed", .restored.join(", "))]
    Stopped {
        /// What stopped it, in words.
        cause: String,
        /// The operation.
        op: String,
        /// The files it had written and restored.
        restored: Vec<String>,
    },
    /// An operation stopped part-way and could not be rolled back: its journal is pending.
    #[error(
        "{cause}; `{op}` stopped after writing {} and could not restore them ({undo_error}): its \
         journal stays pending in {}: `ccmem undo --status` shows what is on disk, and `ccmem \
         undo --recover` (or the next write) completes or restores it",
        if .written.is_empty() { "nothing".to_owned() } else { .written.join(", ") },
        journal.display()
    )]
    Interrupted {
        /// What stopped it, in words.
        cause: String,
        /// The operation.
        op: String,
        /// The files it had written.
        written: Vec<String>,
        /// Why the roll-back failed.
        undo_error: String,
        /// The pending journal.
        journal: PathBuf,
    },
}

impl WriteError {
    /// What went wrong, for a reader that wrote nothing either way (a refusal without its "nothing
    /// was written").
    pub fn cause(&self) -> String {
        match self {
            WriteError::Refused { path, why } => format!("{}: {why}", path.display()),
            other => other.to_string(),
        }
    }
}

/// An I/O error in words, once: the OS message without its `(os error N)` suffix.
pub fn describe_io(e: &io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text,
    }
}

fn fmt_kept(kept: &Option<String>) -> String {
    match kept {
        Some(k) => format!("; {k}"),
        None => " (another process changed it: run the command again, it plans from the new \
                 content)"
            .to_owned(),
    }
}

fn fmt_hash(h: &Option<Hash>) -> String {
    match h {
        Some(h) => format!("sha256 {}…", h.short()),
        None => "no file".to_owned(),
    }
}

/// An `io::Error` on `path`.
pub(crate) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The held lock of one target folder. All writing happens through its methods; the lock is
/// released when it is dropped.
#[derive(Debug)]
pub struct Lock {
    /// Where the targets live.
    folder: PathBuf,
    /// Where the state folder is (journal, history, backups).
    state_path: PathBuf,
    /// The state folder, once opened (see [`state`]).
    state: std::cell::OnceCell<state::StateDir>,
    /// Its `backup/` folder, once opened.
    backups: std::cell::OnceCell<state::StateDir>,
    /// Mode of files an operation creates.
    create_mode: u32,
    /// Whether names may only be plain file names in `folder` (memory folders).
    plain_names: bool,
    /// For a settings lock: the one file it edits (only its stale temp files are cleaned).
    target_name: Option<String>,
    /// The time journals are stamped with ([`Lock::stamped`]); `None`: the clock.
    now: Option<jiff::Timestamp>,
    /// The folder's open handle, holding its lock ([`Lock::verify_folder`] compares it).
    dir: File,
}

/// Takes the lock of the memory folder `folder` without waiting. Nothing is created: a missing
/// folder is an error.
pub fn lock(folder: &Path) -> Result<Lock, WriteError> {
    let dir = take(folder, folder)?;
    // Records name files relative to the folder, which is made real once.
    let folder = &folder.canonicalize().map_err(io_at(folder))?;
    Lock::new(
        folder.to_owned(),
        folder.join(journal::STATE_DIR),
        target::library_mode(folder),
        None,
        dir,
    )
}

/// Creates the memory folder `folder`, and the folders above it that are missing, as the client
/// does before its first write into it (its file writer's `createParents`: `mkdir` with
/// `recursive: true` and the default mode, 0o777 under the umask; SPEC-automemory 1.5). Nothing
/// else is created; `undo` leaves the folder, which the client would create anyway.
pub fn create_folder(folder: &Path) -> Result<(), WriteError> {
    crate::sys::dir_mode(std::fs::DirBuilder::new().recursive(true), 0o777)
        .create(folder)
        .map_err(io_at(folder))
}

/// Takes the lock for editing one settings file: `path` as the client reads it (a symlink is
/// written through), its journal and backups in `state` (see [`settings_state`]). New files are
/// created with `create_mode`. Returns the lock and the target's file name in [`Lock::folder`].
pub fn lock_file(
    path: &Path,
    state: &Path,
    create_mode: u32,
) -> Result<(Lock, String), WriteError> {
    let real = target::resolve(path)?;
    let real = std::path::absolute(&real).map_err(io_at(path))?;
    let folder = real.parent().unwrap_or(Path::new("/")).to_owned();
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| WriteError::Refused {
            path: path.to_owned(),
            why: "not a file path".into(),
        })?;
    // A folder that does not exist yet (a first `~/.claude`) is locked through its nearest
    // existing ancestor; the operation creates it.
    let existing = folder
        .ancestors()
        .find(|a| a.is_dir())
        .unwrap_or(Path::new("/"))
        .to_owned();
    let dir = take(&existing, &folder)?;
    let lock = Lock::new(
        folder,
        state.to_owned(),
        create_mode,
        Some(name.clone()),
        dir,
    )?;
    Ok((lock, name))
}

fn take(dir: &Path, shown: &Path) -> Result<File, WriteError> {
    match sys::lock_dir(dir) {
        Ok(Some(f)) => Ok(f),
        Ok(None) => Err(WriteError::Locked(shown.to_owned())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(WriteError::Refused {
            path: shown.to_owned(),
            why: "no such folder".into(),
        }),
        Err(e) if crate::sys::os_error(&e) == Some(crate::sys::OsError::NotADirectory) => {
            Err(WriteError::Refused {
                path: shown.to_owned(),
                why: "is not a folder".into(),
            })
        }
        Err(e) => Err(io_at(shown)(e)),
    }
}

impl Lock {
    fn new(
        folder: PathBuf,
        state_path: PathBuf,
        create_mode: u32,
        target_name: Option<String>,
        dir: File,
    ) -> Result<Lock, WriteError> {
        let lock = Lock {
            folder,
            state_path,
            state: std::cell::OnceCell::new(),
            backups: std::cell::OnceCell::new(),
            create_mode,
            plain_names: target_name.is_none(),
            target_name,
            now: None,
            dir,
        };
        // A state folder that is not ccmem's own is refused before anything else happens.
        lock.state(false)?;
        Ok(lock)
    }

    /// Stamps the journals of this lock's operations with `now` instead of the clock: the
    /// command's own "now" (`CCMEM_NOW` when set), so that runs compare byte for byte.
    pub fn stamped(mut self, now: jiff::Timestamp) -> Lock {
        self.now = Some(now);
        self
    }

    /// The time an operation starting now is stamped with.
    pub(crate) fn now(&self) -> jiff::Timestamp {
        self.now.unwrap_or_else(jiff::Timestamp::now)
    }

    /// The state folder (`None`: there is none yet, and `create` is false).
    pub(crate) fn state(&self, create: bool) -> Result<Option<&state::StateDir>, WriteError> {
        if let Some(s) = self.state.get() {
            return Ok(Some(s));
        }
        let opened = if create {
            Some(state::StateDir::create(&self.state_path)?)
        } else {
            state::StateDir::open(&self.state_path)?
        };
        Ok(opened.map(|s| self.state.get_or_init(|| s)))
    }

    /// The backup folder (`None`: there is none yet, and `create` is false).
    pub(crate) fn backups(&self, create: bool) -> Result<Option<&state::StateDir>, WriteError> {
        if let Some(b) = self.backups.get() {
            return Ok(Some(b));
        }
        let Some(state) = self.state(create)? else {
            return Ok(None);
        };
        let opened = state.sub(journal::BACKUP_DIR, create)?;
        Ok(opened.map(|b| self.backups.get_or_init(|| b)))
    }

    /// Where the record `place` would be kept.
    pub(crate) fn record_place(&self) -> record::Place {
        if self.plain_names {
            record::Place::Memory
        } else {
            record::Place::Settings
        }
    }

    /// The folder the targets live in.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The mode files created by an operation get: for a memory folder, the library's own (the
    /// mode of its MEMORY.md, else of its files, else 0644 under the umask).
    pub fn create_mode(&self) -> u32 {
        self.create_mode
    }
}

/// The file a write to `path` really changes (a symlink's final target); dangling links,
/// loops and special files are refused. Nothing is written.
pub fn resolve(path: &Path) -> Result<PathBuf, WriteError> {
    target::resolve(path)
}

/// The current content of a target (`None`: missing), through a symlink, refusing special files.
pub(crate) fn read_target(path: &Path) -> Result<Option<Vec<u8>>, WriteError> {
    Ok(target::open(path)?.map(|h| h.bytes))
}

/// The current hash of a target (`None`: missing).
pub(crate) fn hash_target(path: &Path) -> Result<Option<Hash>, WriteError> {
    Ok(read_target(path)?.map(|b| Hash::of(&b)))
}

#[cfg(test)]
mod tests;
