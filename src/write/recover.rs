//! An interrupted operation: recovering it under the lock (rolled forward when every temp file
//! is intact, else back from the backups), dropping its journal, and what readers may learn of
//! it without the lock: [`preview`] (what recovery would leave, for `audit` and `undo
//! --status`) and [`peek`] (the journal alone, for the hooks and the status line, which never
//! read the files it names).
//!
//! The journal is checked first (see [`super::record`]); before any rename every old content
//! must be in the backups, and each temp file is hashed again just before it is renamed into
//! place. Whether a folder's journal is recovered without being asked is the commands' choice
//! (a checked-in folder's never is, see `memory::pending`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::journal::{self, Entry, Journal, Outcome, Progress, STATE_DIR};
use super::ops::Recovered;
use super::record::{self, Bad};
use super::record::{JOURNAL_REMEDY, bad_record, load_journal};
use super::state::{MAX_RECORD, StateDir};
use super::sys;
use super::target::current;
use super::target::{self, stale_temps};
use super::{Hash, Lock, WriteError, io_at};

/// Largest journal the hooks and the status line read (bytes): they run in every session and
/// must stay small whatever the folder holds; a larger journal is reported unread.
const PEEK_MAX: u64 = 1 << 20;

/// What recovery does to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// It stays as it is (it already holds what recovery leaves).
    Keep,
    /// Its new content is put in place from its temp file.
    Finish,
    /// Its old content is put back from the backup.
    Restore,
    /// It is removed.
    Remove,
    /// Someone else changed it since: left as it is.
    Foreign,
}

impl Action {
    /// In words.
    pub fn describe(self) -> &'static str {
        match self {
            Action::Keep => "stays as it is",
            Action::Finish => "gets its new content (ready in its temp file)",
            Action::Restore => "gets its old content back (from the backup)",
            Action::Remove => "is removed",
            Action::Foreign => "changed by someone else since: left as it is",
        }
    }
}

/// One file of a [`Preview`].
#[derive(Debug, Clone)]
pub struct PreviewFile {
    /// The file, as the operation named it.
    pub name: String,
    /// What recovery does to it.
    pub action: Action,
    /// Its content after recovery (`None`: absent).
    pub content: Option<Vec<u8>>,
}

/// What recovering an interrupted operation would leave, computed without writing anything.
#[derive(Debug, Clone)]
pub struct Preview {
    /// The interrupted operation.
    pub op: String,
    /// When it started.
    pub started: String,
    /// Whether recovery would finish it (else it restores the old files).
    pub forward: bool,
    /// Each file of the operation.
    pub files: Vec<PreviewFile>,
}

/// An interrupted operation as its journal alone tells it.
#[derive(Debug, Clone)]
pub struct Peek {
    /// The interrupted operation.
    pub op: String,
    /// The files it names.
    pub files: Vec<String>,
}

/// What `undo --discard` dropped.
#[derive(Debug, Clone, Serialize)]
pub struct Discarded {
    /// The operation of the journal (`?` when it could not be read).
    pub op: String,
    /// ccmem's temp files of that operation that were removed with it.
    pub temps: Vec<String>,
}

impl Lock {
    /// Whether an interrupted operation's journal is waiting here.
    pub fn has_journal(&self) -> Result<bool, WriteError> {
        Ok(self
            .state(false)?
            .is_some_and(|s| s.exists(journal::PENDING)))
    }

    /// The pending journal, checked.
    fn pending(&self) -> Result<Option<Journal>, WriteError> {
        match self.state(false)? {
            Some(s) => load_journal(
                s,
                journal::PENDING,
                &self.folder,
                self.record_place(),
                MAX_RECORD,
            ),
            None => Ok(None),
        }
    }

    /// Finishes or reverts an operation a previous run left unfinished, and removes stale temp
    /// files. `None` when there was nothing to do.
    pub fn recover(&self) -> Result<Option<Recovered>, WriteError> {
        let Some(mut journal) = self.pending()? else {
            return self.remove_stale_temps();
        };
        let file = self.state_path.join(journal::PENDING);
        // Whatever recovery does must be undoable: every old content is in the backups first.
        for (i, e) in journal.entries.iter().enumerate() {
            if let Some(h) = &e.old
                && let Err(err) = self.read_backup(h)
            {
                let bad = Bad {
                    entry: Some((i + 1, e.name.clone())),
                    why: format!("its old content has no usable backup ({err})"),
                };
                return Err(bad_record(file, bad, JOURNAL_REMEDY));
            }
        }
        let states = journal
            .entries
            .iter()
            .map(|e| Ok(current(&self.at(&e.path))?.progress(e)))
            .collect::<Result<Vec<_>, WriteError>>()?;
        let forward = journal.entries.iter().zip(&states).all(|(e, s)| match s {
            Progress::Done => true,
            Progress::Foreign | Progress::Interim => false,
            Progress::NotDone => self.temp_intact(e),
        });
        let op = journal.op.clone();
        if forward {
            for (e, s) in journal.entries.iter().zip(&states) {
                if *s == Progress::NotDone {
                    self.finish(e)?;
                }
            }
            for t in journal.entries.iter().filter_map(|e| e.temp.as_deref()) {
                self.remove_temp(t)?;
            }
            journal.outcome = Outcome::Committed;
            self.end(&journal)?;
            self.remove_stale_temps()?;
            return Ok(Some(Recovered::RolledForward { op }));
        }
        let n = journal.entries.len();
        let foreign = self.abandon(&mut journal, n)?;
        self.remove_stale_temps()?;
        Ok(Some(Recovered::RolledBack { op, foreign }))
    }

    /// Drops the pending journal without touching the files it names (the temp files of a
    /// journal that passes the checks go with it: they are ccmem's). `None`: there was none.
    pub fn discard(&self) -> Result<Option<Discarded>, WriteError> {
        let Some(state) = self.state(false)? else {
            return Ok(None);
        };
        if !state.exists(journal::PENDING) {
            return Ok(None);
        }
        let (op, temps) = match self.pending() {
            Ok(Some(j)) => {
                let temps: Vec<PathBuf> = j.entries.iter().filter_map(|e| e.temp.clone()).collect();
                (j.op, temps)
            }
            _ => ("?".to_owned(), Vec::new()),
        };
        let mut removed = Vec::new();
        for t in temps {
            if self.at(&t).is_file() {
                self.remove_temp(&t)?;
                removed.push(t.to_string_lossy().into_owned());
            }
        }
        state.remove(journal::PENDING)?;
        state.sync()?;
        Ok(Some(Discarded { op, temps: removed }))
    }

    /// Whether entry `e`'s temp file is a regular file of ours holding exactly its new content.
    fn temp_intact(&self, e: &Entry) -> bool {
        match (&e.temp, &e.new) {
            (Some(t), Some(h)) => match sys::open_read(&self.at(t), target::MAX_FILE) {
                Ok(held) => held.meta.uid == sys::euid() && &Hash::of(&held.bytes) == h,
                Err(_) => false,
            },
            (None, None) => true,
            _ => false,
        }
    }

    /// Performs one entry's rename (or removal) during a roll-forward; the temp file's hash is
    /// checked once more just before.
    fn finish(&self, e: &Entry) -> Result<(), WriteError> {
        let path = self.at(&e.path);
        match &e.temp {
            Some(t) => {
                if !self.temp_intact(e) {
                    return Err(WriteError::Journal(format!(
                        "{}: changed while ccmem was recovering; nothing more was done",
                        self.at(t).display()
                    )));
                }
                sys::rename(&self.at(t), &path).map_err(io_at(&path))?;
            }
            None => match sys::unlink(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_at(&path)(err));
                }
                _ => {}
            },
        }
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))
    }

    /// Removes the temp files an operation interrupted before its journal left (only regular
    /// files of this user named as ccmem names them).
    pub(super) fn remove_stale_temps(&self) -> Result<Option<Recovered>, WriteError> {
        // A settings folder holds other files: only this target's temps are ours to clean.
        let only = if self.plain_names {
            None
        } else {
            self.target_name.clone()
        };
        let mut files = Vec::new();
        for p in stale_temps(&self.folder, only.as_deref()) {
            sys::unlink(&p).map_err(io_at(&p))?;
            files.push(
                p.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        if let Some(state) = self.state(false)? {
            for name in state.files() {
                if target::is_temp_of(&name, None) {
                    state.remove(&name)?;
                }
            }
        }
        Ok((!files.is_empty()).then_some(Recovered::TempsRemoved { files }))
    }
}

/// Whether `folder` holds a pending journal. One `lstat`; reads nothing.
pub fn has_journal(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder.join(STATE_DIR).join(journal::PENDING)).is_ok()
}

/// Whether `folder` holds traces of an interrupted operation (a pending journal or stale temp
/// files), which [`Lock::recover`] would clean up. Reads only.
pub fn needs_recovery(folder: &Path) -> bool {
    has_journal(folder) || !stale_temps(folder, None).is_empty()
}

/// The pending journal of the memory folder `folder` (read up to `cap` bytes and checked),
/// with its state folder and the folder made real (`None`: no state folder or no journal).
fn pending_of(folder: &Path, cap: u64) -> Result<Option<(StateDir, PathBuf, Journal)>, WriteError> {
    let Some(state) = StateDir::open(&folder.join(STATE_DIR))? else {
        return Ok(None);
    };
    let real = folder.canonicalize().map_err(io_at(folder))?;
    let journal = load_journal(&state, journal::PENDING, &real, record::Place::Memory, cap)?;
    Ok(journal.map(|j| (state, real, j)))
}

/// The interrupted operation in the memory folder `folder` as its journal alone tells it,
/// reading at most 1 MiB and none of the files it names (`None`: none). For the hooks and the
/// status line.
pub fn peek(folder: &Path) -> Result<Option<Peek>, WriteError> {
    let Some((_, _, j)) = pending_of(folder, PEEK_MAX)? else {
        return Ok(None);
    };
    Ok(Some(Peek {
        op: j.op,
        files: j.entries.into_iter().map(|e| e.name).collect(),
    }))
}

/// What [`Lock::recover`] would leave in the memory folder `folder`, without writing anything
/// and without the lock (`None`: no interrupted operation). Reads only files of the folder (each
/// opened without following a link) and its backups. For readers that must show the state the
/// journal will restore rather than half-written files.
pub fn preview(folder: &Path) -> Result<Option<Preview>, WriteError> {
    let Some((state, real, journal)) = pending_of(folder, MAX_RECORD)? else {
        return Ok(None);
    };
    let backups = state.sub(journal::BACKUP_DIR, false)?;
    let backup = |h: &Hash| -> Result<Option<Vec<u8>>, WriteError> {
        let bytes = match &backups {
            Some(b) => b.read(h.as_str(), target::MAX_FILE)?,
            None => None,
        };
        match bytes {
            Some(b) if &Hash::of(&b) == h => Ok(Some(b)),
            _ => Err(WriteError::Journal(format!(
                "{}: backup is missing or corrupt",
                state
                    .path_of(journal::BACKUP_DIR)
                    .join(h.as_str())
                    .display()
            ))),
        }
    };
    let mut states = Vec::new();
    for e in &journal.entries {
        let (now, bytes) = super::target::look(&real.join(&e.path))?;
        states.push((now.progress(e), bytes));
    }
    let intact = |e: &Entry| match (&e.temp, &e.new) {
        (Some(t), Some(h)) => {
            matches!(sys::open_read(&real.join(t), target::MAX_FILE), Ok(held) if &Hash::of(&held.bytes) == h)
        }
        (None, None) => true,
        _ => false,
    };
    let forward = (journal.entries.iter().zip(&states)).all(|(e, (s, _))| match s {
        Progress::Done => true,
        Progress::Foreign | Progress::Interim => false,
        Progress::NotDone => intact(e),
    });
    let mut files = Vec::new();
    for (e, (s, now)) in journal.entries.iter().zip(states) {
        let old = || e.old.as_ref().map(&backup).transpose().map(Option::flatten);
        let (action, content) = match (forward, s) {
            (_, Progress::Foreign) => (Action::Foreign, now),
            (_, Progress::Interim) | (false, Progress::Done) => match old()? {
                Some(b) => (Action::Restore, Some(b)),
                None => (Action::Remove, None),
            },
            (true, Progress::NotDone) => match &e.temp {
                Some(t) => (Action::Finish, super::target::look(&real.join(t))?.1),
                None => (Action::Remove, None),
            },
            (true, Progress::Done) | (false, Progress::NotDone) => (Action::Keep, now),
        };
        files.push(PreviewFile {
            name: e.name.clone(),
            action,
            content,
        });
    }
    Ok(Some(Preview {
        op: journal.op,
        started: journal.started,
        forward,
        files,
    }))
}

/// The undo history kept in the state folder `state` for files of `folder` (a memory folder,
/// or with `settings` a settings file's folder), without the lock; empty when there is none.
pub fn history(
    state: &Path,
    folder: &Path,
    settings: bool,
) -> Result<journal::History, WriteError> {
    let place = if settings {
        record::Place::Settings
    } else {
        record::Place::Memory
    };
    match StateDir::open(state)? {
        Some(s) => super::record::load_history(&s, folder, place),
        None => Ok(journal::History::default()),
    }
}

/// The backup of content `hash` in the state folder `state` (`None`: missing or corrupt).
pub fn backup(state: &Path, hash: &Hash) -> Result<Option<Vec<u8>>, WriteError> {
    let Some(s) = StateDir::open(state)? else {
        return Ok(None);
    };
    let Some(b) = s.sub(journal::BACKUP_DIR, false)? else {
        return Ok(None);
    };
    Ok(b.read(hash.as_str(), target::MAX_FILE)?
        .filter(|bytes| &Hash::of(bytes) == hash))
}
