//! The journal: what a write operation is about to do, made durable before its first rename.
//!
//! Layout of a state folder (`.ccmem/` inside a memory folder; for a settings file, a folder of
//! its own under ccmem's state home, see [`super::settings_state`]):
//!
//! ```text
//! journal.json      an operation in flight (exists only between its write and its end)
//! last.json         the last operation that ended: committed, rolled back, or an undo
//! backup/<sha256>   old contents, content-addressed, each with the mode of the file it came from
//! ```
//!
//! An operation commits by renaming `journal.json` to `last.json` with `outcome: committed`. A
//! `journal.json` found at the start of a run means the previous run was interrupted:
//! [`super::Lock::recover`] rolls it forward when every remaining temp file is intact, else back
//! from the backups, and records the outcome in `last.json`. The lock is an `flock` on the target
//! folder itself: taking it creates nothing.

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

/// The journal format written by this version.
pub const VERSION: u32 = 2;

/// How an operation ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// In flight (only in `journal.json`).
    #[default]
    Pending,
    /// Every file holds its new content.
    Committed,
    /// Interrupted or stopped by a concurrent writer: every file it had changed was restored.
    RolledBack,
}

/// One operation: every file it changes, with hashes before and after.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Journal {
    /// Format version.
    pub version: u32,
    /// What the operation was (`tier`, `add feedback_x.md`, `hook install`).
    pub op: String,
    /// When it started (ISO 8601, UTC).
    pub started: String,
    /// How it ended.
    #[serde(default)]
    pub outcome: Outcome,
    /// For an undo: the operation it reversed (a redo is the original operation again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo_of: Option<String>,
    /// Folders the operation created (outermost first), so reversing it removes them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
    /// The files, in rename order.
    pub entries: Vec<Entry>,
}

/// One file of an operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    /// File name as the command named it (relative to the folder).
    pub name: String,
    /// The file written: the real path (a symlink's target, when the name is a link).
    #[serde(default)]
    pub path: PathBuf,
    /// Hash of the content before (`None`: the file did not exist). Its bytes are in the backup
    /// folder under this hash.
    pub old: Option<Hash>,
    /// Hash of the content after (`None`: the file is removed).
    pub new: Option<Hash>,
    /// Temp file (next to `path`) holding the new content until its swap, and the old one after.
    pub temp: Option<PathBuf>,
    /// Permission bits the new content is written with.
    #[serde(default)]
    pub mode: u32,
    /// ccmem's own content before another writer's added lines were merged in (the target may
    /// hold it if the run stopped mid-merge: a roll-back restores `old` then too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interim: Option<Hash>,
}

/// Paths of the state files of one target folder.
#[derive(Debug, Clone)]
pub struct Paths {
    /// The state folder.
    pub dir: PathBuf,
    /// `<dir>/backup`.
    pub backup: PathBuf,
    /// `<dir>/journal.json`.
    pub pending: PathBuf,
    /// `<dir>/last.json`.
    pub last: PathBuf,
}

impl Paths {
    /// The state paths of a memory folder (`<folder>/.ccmem`).
    pub fn of(folder: &Path) -> Self {
        Self::in_dir(folder.join(STATE_DIR))
    }

    /// The state paths inside the state folder `dir`.
    pub fn in_dir(dir: PathBuf) -> Self {
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
    /// The target holds ccmem's content from before a merge (see [`Entry::interim`]).
    Interim,
    /// The target holds neither: someone else changed it.
    Foreign,
}

/// Classifies an entry from the current hash of its target.
pub fn progress(entry: &Entry, current: Option<&Hash>) -> Progress {
    if current == entry.new.as_ref() {
        Progress::Done
    } else if current == entry.old.as_ref() {
        Progress::NotDone
    } else if current.is_some() && current == entry.interim.as_ref() {
        Progress::Interim
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
            version: VERSION,
            op: "tier".into(),
            started: "2026-11-29T00:00:00Z".into(),
            outcome: Outcome::Pending,
            undo_of: None,
            created_dirs: Vec::new(),
            entries: vec![Entry {
                name: "MEMORY.md".into(),
                path: "/m/MEMORY.md".into(),
                old: Some(Hash::of(b"a")),
                new: None,
                temp: None,
                mode: 0o600,
                interim: None,
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
            path: "/m/x.md".into(),
            old: Some(Hash::of(b"old")),
            new: Some(Hash::of(b"new")),
            temp: None,
            mode: 0o644,
            interim: None,
        };
        assert_eq!(progress(&e, Some(&Hash::of(b"new"))), Progress::Done);
        assert_eq!(progress(&e, Some(&Hash::of(b"old"))), Progress::NotDone);
        assert_eq!(progress(&e, Some(&Hash::of(b"x"))), Progress::Foreign);
        assert_eq!(progress(&e, None), Progress::Foreign);
    }
}
