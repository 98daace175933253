//! Applying an operation under a held [`Lock`]: check every target, keep backups, stage temp
//! files, write the pending journal, swap each target in (the window another writer can fall
//! into is [`super::swap`]'s), commit or roll back; the undo history it records. Undo and redo
//! are in [`super::undo`], recovery of an interrupted operation in [`super::recover`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::journal::{self, Entry, History, Journal, Outcome};
use super::record::{self, load_history};
use super::swap::Staged;
use super::sys::{self, Meta};
use super::target;
use super::{Change, Hash, Lock, WriteError, io_at};

/// What an operation changed.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The operation.
    pub op: String,
    /// Files written, created or removed, in order.
    pub files: Vec<String>,
    /// Files another writer changed while the operation ran, whose added lines were merged in.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<Merged>,
}

/// Lines another writer added to a file while ccmem replaced it, kept in the new version.
#[derive(Debug, Clone, Serialize)]
pub struct Merged {
    /// The file.
    pub file: String,
    /// How many lines were merged in.
    pub lines: usize,
}

/// What `undo` (or `--redo`) did.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Undone {
    /// The operation was reversed.
    Reversed(Applied),
    /// Nothing to do, and why (everything recorded was already undone, or nothing was).
    Nothing {
        /// The operation the sentence is about.
        op: String,
        /// Why nothing was done, as a sentence.
        why: String,
    },
}

/// What recovery did with an interrupted operation.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Recovered {
    /// Every rename was completed from the intact temp files.
    RolledForward {
        /// The interrupted operation.
        op: String,
    },
    /// The files already renamed were restored from the backups.
    RolledBack {
        /// The interrupted operation.
        op: String,
        /// Files someone else changed meanwhile; left as they are.
        foreign: Vec<String>,
    },
    /// No journal, but stale temp files of an operation interrupted before its journal.
    TempsRemoved {
        /// The temp files removed.
        files: Vec<String>,
    },
}

/// Which step of the undo history an operation is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Step<'a> {
    /// A new operation.
    Apply,
    /// The undo of an operation of the history.
    Undo(&'a Journal),
    /// The redo of an undo of the history.
    Redo(&'a Journal),
}

/// A new operation id: its start time and six random characters.
fn new_id(started: &str) -> String {
    format!("{started}-{}", sys::unique())
}

/// What a failed step says, without the "nothing was written" of an error raised before any
/// write.
fn cause_text(e: &WriteError) -> String {
    e.cause()
}

impl Lock {
    /// The path of a record's file (a plain name: see [`record`]).
    /// A memory folder's path still names the folder whose handle the lock holds. Every step
    /// that renames, creates or removes a file by path checks it first: a folder (or a folder
    /// above it) swapped for a link or another folder while ccmem writes would otherwise send
    /// those steps (a roll-back's restore, a created file's removal) into the link's target.
    pub(super) fn verify_folder(&self) -> Result<(), WriteError> {
        if !self.plain_names {
            return Ok(());
        }
        let held = self.dir.metadata().map_err(io_at(&self.folder))?;
        let same = std::fs::metadata(&self.folder)
            .is_ok_and(|now| Meta::of(&now).id == Meta::of(&held).id);
        if same {
            return Ok(());
        }
        Err(WriteError::Refused {
            path: self.folder.clone(),
            why: "was replaced (by a link or another folder) while ccmem was writing in it: \
                  nothing more is written, restored or removed through that path"
                .into(),
        })
    }

    pub(super) fn at(&self, name: &Path) -> PathBuf {
        self.folder.join(name)
    }

    /// The file a change of `name` writes: in a memory folder, `name` itself or the file of the
    /// same folder its link leads to; for a settings lock, the file it was taken for.
    fn target(&self, name: &str) -> Result<PathBuf, WriteError> {
        if self.plain_names
            && let Some(why) = record::plain_name_problem(name)
        {
            return Err(WriteError::Refused {
                path: self.folder.join(name),
                why: format!("not a plain file name in the memory folder (it {why})"),
            });
        }
        let path = self.folder.join(name);
        let real = target::resolve(&path)?;
        if real == path {
            return Ok(path);
        }
        let file = real.file_name().map(Path::new);
        let folder = real.parent().and_then(|p| p.canonicalize().ok());
        match (self.plain_names, file, folder) {
            (true, Some(file), Some(folder)) if folder == self.folder => Ok(self.folder.join(file)),
            (true, ..) => Err(WriteError::Refused {
                path,
                why: format!(
                    "is a symbolic link to {}, outside the memory folder; ccmem writes only \
                     inside the folder it works on and never through such a link: replace the \
                     link by a copy of the file (or point it at a file of this folder), then run \
                     again",
                    real.display()
                ),
            }),
            (false, ..) => Err(WriteError::Refused {
                path,
                why: format!(
                    "became a symbolic link (to {}) while ccmem was working on it",
                    real.display()
                ),
            }),
        }
    }

    /// The undo history of this folder, every record checked.
    pub(super) fn history(&self) -> Result<History, WriteError> {
        match self.state(false)? {
            Some(state) => load_history(state, &self.folder, self.record_place()),
            None => Ok(History::default()),
        }
    }

    /// The undo history, for `undo --list`.
    pub fn list(&self) -> Result<History, WriteError> {
        self.history()
    }

    /// Applies `changes` as one operation named `op`. Every target's hash is checked first and
    /// again at its swap; see the module header for what happens when another writer is seen.
    pub fn apply(&self, op: &str, changes: &[Change]) -> Result<Applied, WriteError> {
        self.run(op, Step::Apply, changes)
    }

    pub(super) fn run(
        &self,
        op: &str,
        step: Step<'_>,
        changes: &[Change],
    ) -> Result<Applied, WriteError> {
        // The history this operation will be recorded in must be sound before anything moves.
        self.history()?;
        // 1. Check every target; nothing is created before all of them pass.
        let mut staged = Vec::new();
        let mut entries = Vec::new();
        let mut files = BTreeSet::new();
        for c in changes {
            let path = self.target(&c.name)?;
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !files.insert(file.clone()) {
                return Err(WriteError::Refused {
                    path,
                    why: "is written twice by this operation (under two names: a link and its \
                          file)"
                        .into(),
                });
            }
            let held = target::open(&path)?;
            let found = held.as_ref().map(|h| Hash::of(&h.bytes));
            if found != c.expect {
                return Err(conflict(path, c.expect.clone(), found, None));
            }
            let mode = held
                .as_ref()
                .map_or(self.create_mode, |h| h.meta.mode & 0o777);
            if let Some(h) = &held {
                refuse_foreign_owner(&path, &h.meta)?;
                refuse_read_only(&path, &h.meta)?;
            }
            entries.push(Entry {
                name: c.name.clone(),
                path: PathBuf::from(file),
                old: found,
                new: c.new.as_deref().map(Hash::of),
                temp: None,
                mode,
                interim: None,
            });
            staged.push(Staged::new(held));
        }
        // 2. State folder, backups, the folder a first settings file needs, temp files.
        self.verify_folder()?;
        self.backups(true)?;
        let created_dirs = if self.plain_names {
            Vec::new()
        } else {
            sys::create_dirs(&self.folder, 0o700).map_err(io_at(&self.folder))?
        };
        for (e, s) in entries.iter_mut().zip(&mut staged) {
            if let (Some(h), Some(hash)) = (&s.held, &e.old) {
                self.store_backup(hash, &h.bytes, h.meta.mode)?;
            }
            if let Some(c) = changes.iter().find(|c| c.name == e.name)
                && let Some(bytes) = &c.new
            {
                // The new content is kept too: an undo after another writer added lines to it
                // merges them in, which needs to know what ccmem wrote; a redo puts it back.
                if let Some(hash) = &e.new {
                    self.store_backup(hash, bytes, e.mode)?;
                }
                let temp = target::temp_for(&self.at(&e.path));
                let owner = s.held.as_ref().and_then(|h| owner_of(&h.meta));
                sys::create_synced(&temp, bytes, e.mode, owner).map_err(io_at(&temp))?;
                e.temp = temp.file_name().map(PathBuf::from);
            }
        }
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))?;
        let started = self.now().to_string();
        let (undo_of, reverses, redoes) = match step {
            Step::Apply => (None, None, None),
            Step::Undo(of) => (Some(of.op.clone()), Some(of.id.clone()), None),
            Step::Redo(of) => (None, None, Some(of.id.clone())),
        };
        let mut journal = Journal {
            id: new_id(&started),
            started,
            undo_of,
            reverses,
            redoes,
            created_dirs,
            ..Journal::pending(op, entries)
        };
        if let Err(e) = self.write_pending(&journal) {
            // Nothing was swapped: the temp files are all there is to take back.
            for t in journal.entries.iter().filter_map(|e| e.temp.as_deref()) {
                let _ = self.remove_temp(t);
            }
            return Err(e);
        }
        // 3. Swap each target in, then check what was replaced.
        let merged = match self.swap_all(&mut journal, &mut staged) {
            Ok(m) => m,
            Err(failed) => {
                let (done, cause) = *failed;
                return Err(self.stop(&mut journal, done, cause));
            }
        };
        // 4. Commit.
        journal.outcome = Outcome::Committed;
        let files: Vec<String> = journal.entries.iter().map(|e| e.name.clone()).collect();
        if let Err(e) = self.end(&journal) {
            return Err(WriteError::Interrupted {
                cause: cause_text(&e),
                op: op.to_owned(),
                written: files,
                undo_error: "every file holds its new content; only the record of the operation \
                             failed"
                    .into(),
                journal: self.state_path.join(journal::PENDING),
            });
        }
        for t in journal.entries.iter().filter_map(|e| e.temp.as_deref()) {
            self.remove_temp(t)?;
        }
        Ok(Applied {
            op: op.to_owned(),
            files,
            merged,
        })
    }

    /// Stops an operation after `done` swaps: rolls it back and says exactly what happened.
    fn stop(&self, journal: &mut Journal, done: usize, cause: WriteError) -> WriteError {
        let written: Vec<String> = journal.entries[..done.min(journal.entries.len())]
            .iter()
            .map(|e| e.name.clone())
            .collect();
        let op = journal.op.clone();
        match self.abandon(journal, done) {
            Ok(foreign) => {
                let restored: Vec<String> = (written.iter())
                    .filter(|w| !foreign.contains(w))
                    .cloned()
                    .collect();
                match cause {
                    WriteError::Conflict {
                        path,
                        expected,
                        found,
                        kept: Some(k),
                    } => conflict(
                        path,
                        expected,
                        found,
                        Some(format!(
                            "{k}, and every file of this `{op}` was restored: run the command \
                             again"
                        )),
                    ),
                    WriteError::Stopped { cause, op: by, .. } => WriteError::Stopped {
                        cause,
                        op: if by.is_empty() { op } else { by },
                        restored,
                    },
                    // Nothing of the operation is left (tier plans again on such a conflict).
                    c @ WriteError::Conflict { kept: None, .. } => c,
                    other if restored.is_empty() => other,
                    other => WriteError::Stopped {
                        cause: cause_text(&other),
                        op,
                        restored,
                    },
                }
            }
            Err(e) => WriteError::Interrupted {
                cause: cause_text(&cause),
                op,
                written,
                undo_error: cause_text(&e),
                journal: self.state_path.join(journal::PENDING),
            },
        }
    }

    /// Stops an operation after `done` swaps (and any merge): restores every file it changed,
    /// removes its temp files, and records it as rolled back. Returns the files someone else
    /// changed meanwhile, left as they are.
    pub(super) fn abandon(
        &self,
        journal: &mut Journal,
        done: usize,
    ) -> Result<Vec<String>, WriteError> {
        let mut foreign = Vec::new();
        let upto = done.min(journal.entries.len());
        self.roll_back(&journal.entries[..upto], &mut foreign)?;
        for t in journal.entries.iter().filter_map(|e| e.temp.as_deref()) {
            self.remove_temp(t)?;
        }
        self.remove_created_dirs(journal);
        journal.outcome = Outcome::RolledBack;
        self.end(journal)?;
        Ok(foreign)
    }

    /// Records an operation that ended in the undo history, removes the pending journal (and
    /// an older ccmem's `last.json`, now in the history), and prunes the backups.
    pub(super) fn end(&self, journal: &Journal) -> Result<(), WriteError> {
        let mut history = self.history()?;
        history.record(journal);
        history.version = journal::VERSION;
        let Some(state) = self.state(true)? else {
            return Ok(());
        };
        state.put(journal::HISTORY, &history.to_bytes(), 0o600)?;
        state.remove(journal::PENDING)?;
        state.remove(journal::LAST)?;
        state.sync()?;
        self.prune_backups(&history);
        Ok(())
    }

    pub(super) fn write_pending(&self, journal: &Journal) -> Result<(), WriteError> {
        let Some(state) = self.state(true)? else {
            return Ok(());
        };
        state.put(journal::PENDING, &journal.to_bytes(), 0o600)
    }
}

pub(super) fn conflict(
    path: PathBuf,
    expected: Option<Hash>,
    found: Option<Hash>,
    kept: Option<String>,
) -> WriteError {
    WriteError::Conflict {
        path,
        expected,
        found,
        kept,
    }
}

/// The owner a replacement must be given (`None`: ours already).
pub(super) fn owner_of(m: &Meta) -> Option<(u32, u32)> {
    let egid = sys::egid();
    (m.uid != sys::euid() || m.gid != egid).then_some((m.uid, m.gid))
}

/// Only root can give a file to someone else: a file of another user is refused rather than
/// silently taken over.
fn refuse_foreign_owner(path: &Path, m: &Meta) -> Result<(), WriteError> {
    let me = sys::euid();
    if me != 0 && m.uid != me {
        return Err(WriteError::Refused {
            path: path.to_owned(),
            why: format!(
                "is owned by user {} (you are {me}); replacing it would make it yours: run ccmem as \
                 its owner",
                m.uid
            ),
        });
    }
    Ok(())
}

/// A file without its owner's write permission is one its owner said must not change: ccmem
/// does not replace it (a rename would, whatever its mode).
fn refuse_read_only(path: &Path, m: &Meta) -> Result<(), WriteError> {
    if m.mode & 0o200 == 0 {
        return Err(WriteError::Refused {
            path: path.to_owned(),
            why: format!(
                "is read-only (mode {:04o}); ccmem does not replace a read-only file: make it \
                 writable (`chmod u+w`) if the change is wanted, then run again",
                m.mode & 0o7777
            ),
        });
    }
    Ok(())
}
