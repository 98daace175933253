//! The only module that writes user files.
//!
//! Every change to a memory folder goes through a [`Lock`]: a lock on the separate file
//! `.ccmem.lock` (a second ccmem, or any process holding it, gets [`WriteError::Locked`]), then
//! for each target a temp file in the same folder, fsync, rename, fsync of the folder. The hash
//! of each target is re-checked just before its rename, so a concurrent edit (the client writing
//! MEMORY.md) is detected and nothing is overwritten. A journal (see [`journal`]) is made durable
//! before the first rename, which makes every operation undoable and an interrupted one
//! recoverable on the next run.

pub mod fault;
pub mod journal;
mod ops;

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

pub use ops::{Applied, Recovered, needs_recovery};

pub(crate) use fault::step;

/// The lock file, in the memory folder.
pub const LOCK_FILE: &str = ".ccmem.lock";
/// Largest file ccmem will read back or replace (bytes).
pub const MAX_FILE: u64 = 64 << 20;

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
        "{}: locked by another ccmem or another process; nothing was written (try again when it has finished)",
        .0.display()
    )]
    Locked(PathBuf),
    /// A target changed between planning and its rename.
    #[error(
        "{}: changed on disk since it was read (expected {}, found {}); nothing was overwritten",
        path.display(), fmt_hash(.expected), fmt_hash(.found)
    )]
    Conflict {
        /// The target.
        path: PathBuf,
        /// The hash the command planned from.
        expected: Option<Hash>,
        /// The hash found on disk.
        found: Option<Hash>,
    },
    /// A target is a symlink or not a regular file, or its name is not a plain file name.
    #[error("{}: {why}; nothing was written", path.display())]
    Refused {
        /// The target.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// An I/O error on a named file.
    #[error("{}: {source}", path.display())]
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

/// The held lock of one memory folder. All writing happens through its methods; the lock is
/// released when it is dropped.
#[derive(Debug)]
pub struct Lock {
    folder: PathBuf,
    path: PathBuf,
    _file: File,
}

/// Takes the lock of `folder` without waiting.
pub fn lock(folder: &Path) -> Result<Lock, WriteError> {
    let path = folder.join(LOCK_FILE);
    refuse_symlink(&path)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)
        .map_err(io_at(&path))?;
    match file.try_lock() {
        Ok(()) => Ok(Lock {
            folder: folder.to_owned(),
            path,
            _file: file,
        }),
        Err(fs::TryLockError::WouldBlock) => Err(WriteError::Locked(path)),
        Err(fs::TryLockError::Error(e)) => Err(io_at(&path)(e)),
    }
}

impl Lock {
    /// The memory folder.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn refuse_symlink(path: &Path) -> Result<(), WriteError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(WriteError::Refused {
            path: path.to_owned(),
            why: "is a symbolic link; ccmem does not write through links".into(),
        }),
        Ok(m) if !m.is_file() => Err(WriteError::Refused {
            path: path.to_owned(),
            why: format!("is not a regular file ({})", crate::fsread::kind_of(&m)),
        }),
        _ => Ok(()),
    }
}

/// The current content of a target (`None`: missing), refusing symlinks and special files.
pub(crate) fn read_target(path: &Path) -> Result<Option<Vec<u8>>, WriteError> {
    refuse_symlink(path)?;
    crate::fsread::read_regular(path, MAX_FILE).map_err(io_at(path))
}

/// The current hash of a target (`None`: missing).
pub(crate) fn hash_target(path: &Path) -> Result<Option<Hash>, WriteError> {
    Ok(read_target(path)?.map(|b| Hash::of(&b)))
}

/// Writes `bytes` to a fresh `path` (replacing a stale one) with `mode`, and fsyncs it.
#[allow(
    clippy::disallowed_methods,
    reason = "write.rs is the one place allowed to create files"
)]
pub(crate) fn write_synced(path: &Path, bytes: &[u8], mode: u32) -> Result<(), WriteError> {
    let _ = fs::remove_file(path);
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(io_at(path))?;
    f.write_all(bytes).map_err(io_at(path))?;
    f.set_permissions(fs::Permissions::from_mode(mode))
        .map_err(io_at(path))?;
    f.sync_all().map_err(io_at(path))
}

/// fsyncs a directory, so renames and creations in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<(), WriteError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_at(dir))
}

/// Renames and makes the rename durable.
pub(crate) fn rename_synced(from: &Path, to: &Path) -> Result<(), WriteError> {
    fs::rename(from, to).map_err(io_at(to))?;
    sync_dir(to.parent().unwrap_or(Path::new(".")))
}

#[cfg(test)]
mod tests;
