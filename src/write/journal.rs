//! The journal: what a write operation is about to do, made durable before its first rename;
//! and the undo history: the operations that ended, which `ccmem undo` takes back one by one.
//!
//! Layout of a state folder (`.ccmem/` inside a memory folder; for a settings file, a folder of
//! its own under ccmem's state home, see [`super::settings_state`]; see [`super::state`] for
//! the rules it is held to):
//!
//! ```text
//! journal.json      an operation in flight (exists only between its write and its end)
//! history.json      the undo history: operations done (undo takes back the newest), and
//!                   operations undone (redo applies the newest again)
//! last.json         the single record of ccmem before the undo history (read once, migrated)
//! backup/<sha256>   old and new contents, content-addressed, each with the mode of its file
//! ```
//!
//! An operation commits by recording itself in `history.json` and then removing
//! `journal.json`. A `journal.json` found at the start of a run means the previous run was
//! interrupted: [`super::Lock::recover`] rolls it forward when every remaining temp file is
//! intact, else back from the backups. Every record is checked before it is acted on (see
//! [`super::record`]). The lock is an `flock` on the target folder itself: taking it creates
//! nothing.
//!
//! The history keeps the last [`MAX_HISTORY`] operations each way and at most
//! [`MAX_HISTORY_BYTES`]; backups no record needs any more are pruned when an operation ends.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Hash;

/// Folder (inside the memory folder) holding the journal and backups.
pub const STATE_DIR: &str = ".ccmem";
/// The journal of an operation in flight.
pub const PENDING: &str = "journal.json";
/// The undo history.
pub const HISTORY: &str = "history.json";
/// The record of the last operation, as ccmem kept it before the undo history.
pub const LAST: &str = "last.json";
/// Folder (inside [`STATE_DIR`]) of content-addressed backups.
pub const BACKUP_DIR: &str = "backup";

/// The journal format written by this version (3: files named relative to their folder).
pub const VERSION: u32 = 3;

/// Operations the undo history keeps each way (done, and undone for redo).
pub const MAX_HISTORY: usize = 20;

/// Largest undo history written (bytes); the oldest operations are dropped first.
pub const MAX_HISTORY_BYTES: usize = 1 << 20;

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
    /// Which operation this is (unique in its folder; empty in records before version 3).
    #[serde(default)]
    pub id: String,
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
    /// For an undo: the `id` of the operation in the history it takes back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reverses: Option<String>,
    /// For a redo: the `id` of the undo in the history it takes back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redoes: Option<String>,
    /// Folders the operation created (outermost first), so reversing it removes them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub created_dirs: Vec<PathBuf>,
    /// The files, in rename order.
    pub entries: Vec<Entry>,
}

/// One file of an operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Entry {
    /// File name as the command named it (in the folder).
    pub name: String,
    /// The file written, in the folder: `name`, or the file the link `name` leads to. Version 2
    /// wrote an absolute path, version 1 nothing (then it is `name`).
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

impl Journal {
    /// Operation `op` on `entries`, in flight: not an undo or a redo, no folder created, no
    /// `id` or start time yet.
    pub fn pending(op: &str, entries: Vec<Entry>) -> Journal {
        Journal {
            version: VERSION,
            id: String::new(),
            op: op.to_owned(),
            started: String::new(),
            outcome: Outcome::Pending,
            undo_of: None,
            reverses: None,
            redoes: None,
            created_dirs: Vec::new(),
            entries,
        }
    }

    /// Serializes for disk.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// Parses a journal file's bytes; the error names `path`.
    pub fn parse(path: &std::path::Path, bytes: &[u8]) -> Result<Self, String> {
        serde_json::from_slice(bytes)
            .map_err(|e| format!("{}: not a ccmem journal: {e}", path.display()))
    }

    /// Every content hash the record needs a backup of.
    pub(crate) fn hashes(&self) -> impl Iterator<Item = &Hash> {
        self.entries
            .iter()
            .flat_map(|e| [e.old.as_ref(), e.new.as_ref(), e.interim.as_ref()])
            .flatten()
    }
}

/// The undo history of one folder.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct History {
    /// Format version.
    pub version: u32,
    /// Operations on disk, oldest first: `undo` takes back the last.
    #[serde(default)]
    pub done: Vec<Journal>,
    /// Undos, oldest first: `undo --redo` takes back the last (it applies its operation again).
    #[serde(default)]
    pub undone: Vec<Journal>,
    /// The newest operation, when it was rolled back (none of it is on disk): the next `undo`
    /// says so instead of taking back the operation before it, which the user may not mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolled_back: Option<Brief>,
}

/// An operation named, for messages.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Brief {
    /// The operation.
    pub op: String,
    /// When it started.
    pub started: String,
}

impl History {
    /// The history a `last.json` of an older ccmem stands for: its committed operation can be
    /// undone, or, when it was an undo, redone.
    pub(crate) fn from_last(mut last: Journal) -> History {
        let mut h = History {
            version: VERSION,
            ..History::default()
        };
        if last.outcome == Outcome::RolledBack {
            h.record(&last);
        }
        if last.outcome == Outcome::Committed {
            if last.id.is_empty() {
                last.id = format!("{}-last", last.started);
            }
            match last.undo_of {
                Some(_) => h.undone.push(last),
                None => h.done.push(last),
            }
        }
        h
    }

    /// Records an operation that ended (idempotent: recovery may end one twice).
    pub(crate) fn record(&mut self, j: &Journal) {
        if j.outcome != Outcome::Committed {
            self.rolled_back = Some(Brief {
                op: j.op.clone(),
                started: j.started.clone(),
            });
            return;
        }
        self.rolled_back = None;
        let mut j = j.clone();
        let id = j.id.clone();
        if let Some(of) = j.reverses.clone() {
            if self.done.last().is_some_and(|d| d.id == of) {
                self.done.pop();
            }
            self.undone.retain(|x| x.id != id);
            self.undone.push(j);
        } else if let Some(of) = j.redoes.take() {
            if self.undone.last().is_some_and(|d| d.id == of) {
                self.undone.pop();
            }
            self.done.retain(|x| x.id != id);
            self.done.push(j);
        } else {
            self.done.retain(|x| x.id != id);
            self.done.push(j);
            self.undone.clear();
        }
        self.bound();
    }

    /// Drops the oldest operations past [`MAX_HISTORY`] each way, then past
    /// [`MAX_HISTORY_BYTES`] (the newest operation always stays).
    fn bound(&mut self) {
        for list in [&mut self.done, &mut self.undone] {
            let over = list.len().saturating_sub(MAX_HISTORY);
            list.drain(..over);
        }
        // Redo goes first: what is on disk is what undo must be able to take back.
        while self.to_bytes().len() > MAX_HISTORY_BYTES && self.done.len() + self.undone.len() > 1 {
            if self.undone.is_empty() {
                self.done.remove(0);
            } else {
                self.undone.remove(0);
            }
        }
    }

    /// Serializes for disk.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
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
    use std::path::Path;

    #[test]
    fn round_trips_and_names_bad_files() {
        let j = Journal {
            id: "1".into(),
            started: "2026-11-29T00:00:00Z".into(),
            ..Journal::pending(
                "tier",
                vec![Entry {
                    name: "MEMORY.md".into(),
                    path: "/m/MEMORY.md".into(),
                    old: Some(Hash::of(b"a")),
                    new: None,
                    temp: None,
                    mode: 0o600,
                    interim: None,
                }],
            )
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
