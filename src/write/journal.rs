//! The journal: what a write operation is about to do, made durable before its first rename.
//!
//! Layout inside the memory folder (names start with `.`, so the client's index backfill never
//! picks them up):
//!
//! ```text
//! .ccmem.lock              the lock file (never renamed or removed)
//! .ccmem/journal.json      an operation in flight (exists only between its write and commit)
//! .ccmem/last.json         the last committed operation: what `ccmem undo` reverses
//! .ccmem/backup/<sha256>   old contents, content-addressed
//! ```
//!
//! An operation commits by renaming `journal.json` to `last.json`. A `journal.json` found at the
//! start of a run means the previous run was interrupted: [`super::Lock::recover`] rolls it
//! forward when every remaining temp file is intact, else back from the backups.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Hash;

/// Folder (inside the memory folder) holding the journal and backups.
pub const STATE_DIR: &str = ".ccmem";
/// The journal of an operation in flight.
pub const PENDING: &str = "journal.json";
/// The journal of the last committed operation.
pub const LAST: &str = "last.json";
/// Folder (inside [`STATE_DIR`]) of content-addressed backups.
pub const BACKUP_DIR: &str = "backup";

/// One operation: every file it changes, with hashes before and after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Journal {
    /// Format version.
    pub version: u32,
    /// What the operation was (`tier`, `add feedback_x.md`, `undo of tier`).
    pub op: String,
    /// When it started (ISO 8601, UTC).
    pub started: String,
    /// The files, in rename order.
    pub entries: Vec<Entry>,
}

/// One file of an operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    /// File name relative to the memory folder.
    pub name: String,
    /// Hash of the content before (`None`: the file did not exist). Its bytes are in the backup
    /// folder under this hash.
    pub old: Option<Hash>,
    /// Hash of the content after (`None`: the file is removed).
    pub new: Option<Hash>,
    /// Temp file (relative to the memory folder) holding the new content until its rename.
    pub temp: Option<String>,
}

/// Paths of the state files of one memory folder.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `<folder>/.ccmem`.
    pub dir: PathBuf,
    /// `<folder>/.ccmem/backup`.
    pub backup: PathBuf,
    /// `<folder>/.ccmem/journal.json`.
    pub pending: PathBuf,
    /// `<folder>/.ccmem/last.json`.
    pub last: PathBuf,
}

impl Paths {
    /// The state paths of `folder`.
    pub fn of(folder: &Path) -> Self {
        let dir = folder.join(STATE_DIR);
        Paths {
            backup: dir.join(BACKUP_DIR),
            pending: dir.join(PENDING),
            last: dir.join(LAST),
            dir,
        }
    }

    /// Where the backup of content `hash` lives.
    pub fn backup_of(&self, hash: &Hash) -> PathBuf {
        self.backup.join(hash.as_str())
    }
}

impl Journal {
    /// Serializes for disk.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// Parses a journal file's bytes; the error names `path`.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes)
            .map_err(|e| format!("{}: not a ccmem journal: {e}", path.display()))
    }
}

/// The state of one journal entry on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The target holds the new content (or is gone, for a removal).
    Done,
    /// The target still holds the old content.
    NotDone,
    /// The target holds neither: someone else changed it.
    Foreign,
}

/// Classifies an entry from the current hash of its target.
pub fn progress(entry: &Entry, current: Option<&Hash>) -> Progress {
    if current == entry.new.as_ref() {
        Progress::Done
    } else if current == entry.old.as_ref() {
        Progress::NotDone
    } else {
        Progress::Foreign
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_bad_files() {
        let j = Journal {
            version: 1,
            op: "tier".into(),
            started: "2026-11-29T00:00:00Z".into(),
            entries: vec![Entry {
                name: "MEMORY.md".into(),
                old: Some(Hash::of(b"a")),
                new: None,
                temp: None,
            }],
        };
        let p = Path::new("/m/.ccmem/journal.json");
        assert_eq!(Journal::parse(p, &j.to_bytes()).unwrap(), j);
        let err = Journal::parse(p, b"{oops").unwrap_err();
        assert!(err.starts_with("/m/.ccmem/journal.json: not a ccmem journal"));
    }

    #[test]
    fn progress_tells_old_new_and_foreign() {
        let e = Entry {
            name: "x.md".into(),
            old: Some(Hash::of(b"old")),
            new: Some(Hash::of(b"new")),
            temp: None,
        };
        assert_eq!(progress(&e, Some(&Hash::of(b"new"))), Progress::Done);
        assert_eq!(progress(&e, Some(&Hash::of(b"old"))), Progress::NotDone);
        assert_eq!(progress(&e, Some(&Hash::of(b"x"))), Progress::Foreign);
        assert_eq!(progress(&e, None), Progress::Foreign);
    }
}
