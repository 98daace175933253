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
//! atomically (`RENAME_EXCHANGE`), so the file that was replaced stays reachable under the temp
//! name. ccmem still holds it open from the check, so after the swap it checks that the replaced
//! file is the one it read and that its content has not changed, and, with a read lease, that no
//! one still has it open for writing. A line written there in the meantime is merged into the new
//! content when it was only added (see [`merge`]), else every file of the operation is restored
//! and the other writer's content kept. New files are renamed into place only if their name is
//! still free (`RENAME_NOREPLACE`).
//!
//! Symbolic links are written through: the link's target is the file read and replaced, and the
//! link itself is never touched. A dangling link is refused.
#![allow(
    clippy::disallowed_methods,
    reason = "this is the writer the rule sends every write to"
)]

pub mod fault;
pub mod journal;
pub mod merge;
mod ops;
mod sys;
mod target;

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use ops::{Applied, Merged, Preview, Recovered, Undone, needs_recovery, preview};
pub use target::{MAX_FILE, settings_state};

/// A SHA-256 content hash, lower-case hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Hash(String);

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
    /// The journal and backups.
    state: journal::Paths,
    /// Mode of files an operation creates.
    create_mode: u32,
    /// Whether names may only be plain file names in `folder` (memory folders).
    plain_names: bool,
    /// For a settings lock: the one file it edits (only its stale temp files are cleaned).
    target_name: Option<String>,
    _dir: File,
}

/// Takes the lock of the memory folder `folder` without waiting. Nothing is created: a missing
/// folder is an error.
pub fn lock(folder: &Path) -> Result<Lock, WriteError> {
    let dir = take(folder, folder)?;
    // The journal names files by absolute path: a relative folder is made real once.
    let folder = &folder.canonicalize().map_err(io_at(folder))?;
    Ok(Lock {
        folder: folder.to_owned(),
        state: journal::Paths::of(folder),
        create_mode: target::library_mode(folder),
        plain_names: true,
        target_name: None,
        _dir: dir,
    })
}

/// Creates the memory folder `folder`, and the folders above it that are missing, as the client
/// does before its first write into it (its file writer's `createParents`: `mkdir` with
/// `recursive: true` and the default mode, 0o777 under the umask; SPEC-automemory 1.5). Nothing
/// else is created; `undo` leaves the folder, which the client would create anyway.
pub fn create_folder(folder: &Path) -> Result<(), WriteError> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o777)
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
    let lock = Lock {
        folder,
        state: journal::Paths::in_dir(state.to_owned()),
        create_mode,
        plain_names: false,
        target_name: Some(name.clone()),
        _dir: dir,
    };
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
        Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => Err(WriteError::Refused {
            path: shown.to_owned(),
            why: "is not a folder".into(),
        }),
        Err(e) => Err(io_at(shown)(e)),
    }
}

impl Lock {
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
