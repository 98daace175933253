//! Applying an operation under a held [`Lock`]: check every target, keep backups, stage temp
//! files, write the pending journal, swap each target in, and take in what another writer
//! added meanwhile; the undo history it records. Undo and redo are in [`super::undo`], recovery
//! of an interrupted operation in [`super::recover`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::journal::{self, Entry, History, Journal, Outcome, Progress};
use super::record::{self, Bad};
use super::state::MAX_RECORD;
use super::sys::{self, Held, Meta, OpenError, Renamed};
use super::target;
use super::{Change, Hash, Lock, WriteError, fault, io_at, merge};

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

/// The error when the temp file that held what a swap replaced was removed before ccmem could
/// check it (its operation's name is filled in by `stop`).
fn temp_gone(path: &Path, temp: &Path) -> WriteError {
    WriteError::Stopped {
        cause: format!(
            "{}: its temp file {} was removed by another process right after the swap, so what \
             the swap replaced cannot be checked",
            path.display(),
            temp.display()
        ),
        op: String::new(),
        restored: Vec::new(),
    }
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

/// How long the post-swap check waits for a writer that still has a replaced file open.
const SETTLE: Duration = Duration::from_millis(1000);

/// A target ready to be swapped.
struct Staged {
    held: Option<Held>,
    /// Whether the replaced file is reachable under the temp name (an exchange happened).
    exchanged: bool,
}

impl Staged {
    /// Closes the target ccmem holds open from its check; whether one was open.
    fn let_go(&mut self) -> bool {
        self.held.as_mut().and_then(|h| h.file.take()).is_some()
    }
}

/// A conflict unless the file at `path` still has the content `old`.
fn check_unchanged(path: &Path, old: &Hash) -> Result<(), WriteError> {
    let now = super::hash_target(path)?;
    if now.as_ref() != Some(old) {
        return Err(conflict(path.to_owned(), Some(old.clone()), now, None));
    }
    Ok(())
}

/// What another writer left in a target's place during its swap.
enum Theirs {
    /// A file with these bytes.
    Bytes(Vec<u8>),
    /// Something that is not a regular file (a link, a folder…): its kind in words.
    NotAFile(String),
}

/// What is at a target's path now.
pub(super) enum Current {
    /// Nothing.
    Missing,
    /// A regular file with this content hash.
    File(Hash),
    /// A link, a special file or a file too large for ccmem: someone else's.
    Other,
}

impl Current {
    /// How far `e` got, as far as this file tells.
    pub(super) fn progress(&self, e: &Entry) -> Progress {
        match self {
            Current::Missing => journal::progress(e, None),
            Current::File(h) => journal::progress(e, Some(h)),
            Current::Other => Progress::Foreign,
        }
    }
}

/// What is at `path` now, opened without following a link.
pub(super) fn current(path: &Path) -> Result<Current, WriteError> {
    Ok(look(path)?.0)
}

/// What is at `path` now, and its bytes when it is a regular file ccmem may read.
pub(super) fn look(path: &Path) -> Result<(Current, Option<Vec<u8>>), WriteError> {
    match sys::open_read(path, target::MAX_FILE) {
        Ok(h) => Ok((Current::File(Hash::of(&h.bytes)), Some(h.bytes))),
        Err(OpenError::Missing) => Ok((Current::Missing, None)),
        Err(OpenError::Symlink | OpenError::NotRegular(_) | OpenError::TooLarge(_)) => {
            Ok((Current::Other, None))
        }
        Err(OpenError::Io(e)) => Err(io_at(path)(e)),
    }
}

/// A new operation id: its start time and six random characters.
fn new_id(started: &str) -> String {
    format!("{started}-{}", sys::unique())
}

/// A [`WriteError::BadRecord`] for `bad` in the record file `file`.
pub(super) fn bad_record(file: PathBuf, bad: Bad, remedy: &str) -> WriteError {
    WriteError::BadRecord {
        file,
        bad,
        remedy: remedy.to_owned(),
    }
}

/// What to do with a bad journal.
pub(super) const JOURNAL_REMEDY: &str = ": see it with `ccmem undo --status`, drop it with \
                                         `ccmem undo --discard`";
/// What to do with a bad undo history.
const HISTORY_REMEDY: &str = ": move it away to start a new undo history (the operations it \
                              lists can then no longer be undone by ccmem)";

/// Parses and checks the record file `name` of `state` as a journal.
pub(super) fn load_journal(
    state: &super::state::StateDir,
    name: &str,
    folder: &Path,
    place: record::Place,
    cap: u64,
) -> Result<Option<Journal>, WriteError> {
    let path = state.path_of(name);
    let Some(bytes) = state.read(name, cap)? else {
        return Ok(None);
    };
    let mut j: Journal = serde_json::from_slice(&bytes).map_err(|e| {
        bad_record(
            path.clone(),
            Bad {
                entry: None,
                why: format!("not a ccmem journal: {e}"),
            },
            if name == journal::PENDING {
                JOURNAL_REMEDY
            } else {
                HISTORY_REMEDY
            },
        )
    })?;
    record::check(&mut j, folder, place).map_err(|b| {
        let remedy = if name == journal::PENDING {
            JOURNAL_REMEDY
        } else {
            HISTORY_REMEDY
        };
        bad_record(path.clone(), b, remedy)
    })?;
    Ok(Some(j))
}

/// The undo history in `state` (empty when there is none; from `last.json` when only an older
/// ccmem wrote here), every record checked against `folder`.
pub(super) fn load_history(
    state: &super::state::StateDir,
    folder: &Path,
    place: record::Place,
) -> Result<History, WriteError> {
    let path = state.path_of(journal::HISTORY);
    if let Some(bytes) = state.read(journal::HISTORY, MAX_RECORD)? {
        let fail = |why: String| bad_record(path.clone(), Bad { entry: None, why }, HISTORY_REMEDY);
        let mut h: History = serde_json::from_slice(&bytes)
            .map_err(|e| fail(format!("not a ccmem undo history: {e}")))?;
        if h.version == 0 || h.version > journal::VERSION {
            return Err(fail(format!(
                "format version {} is not one this ccmem knows",
                h.version
            )));
        }
        for (k, j) in h.done.iter_mut().chain(h.undone.iter_mut()).enumerate() {
            let op = j.op.clone();
            record::check(j, folder, place)
                .map_err(|b| fail(format!("operation {} (`{op}`): {b}", k + 1)))?;
        }
        return Ok(h);
    }
    match load_journal(state, journal::LAST, folder, place, MAX_RECORD)? {
        Some(last) => Ok(History::from_last(last)),
        None => Ok(History::default()),
    }
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
            staged.push(Staged {
                held,
                exchanged: false,
            });
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

    /// Swaps every target, then checks what each swap replaced. On an error: how many swaps
    /// were made, and the error (boxed: it is the rare path).
    fn swap_all(
        &self,
        journal: &mut Journal,
        staged: &mut [Staged],
    ) -> Result<Vec<Merged>, Box<(usize, WriteError)>> {
        let n = journal.entries.len();
        for (i, s) in staged.iter_mut().enumerate() {
            self.swap(&journal.entries[i], s)
                .map_err(|e| Box::new((i, e)))?;
        }
        let mut merged = Vec::new();
        for (i, s) in staged.iter_mut().enumerate() {
            let theirs = self
                .replaced_changed(&journal.entries[i], s)
                .map_err(|e| Box::new((n, e)))?;
            let path = self.at(&journal.entries[i].path);
            match theirs {
                None => {}
                Some(Theirs::NotAFile(kind)) => {
                    // Their link (or folder) goes back where they put it; ours is dropped.
                    if let Some(temp) = &journal.entries[i].temp {
                        sys::exchange(&self.at(temp), &path)
                            .map_err(io_at(&path))
                            .map_err(|e| Box::new((n, e)))?;
                    }
                    return Err(Box::new((
                        n,
                        WriteError::Stopped {
                            cause: format!(
                                "{}: became {kind} while ccmem was replacing it (another process \
                                 put it there); it was put back as they left it",
                                path.display()
                            ),
                            op: journal.op.clone(),
                            restored: Vec::new(),
                        },
                    )));
                }
                Some(Theirs::Bytes(theirs)) => {
                    // What was read, for the error: `take_in` records their version as the old one.
                    let read = journal.entries[i].old.clone();
                    match self
                        .take_in(journal, i, s, &theirs)
                        .map_err(|e| Box::new((n, e)))?
                    {
                        Some(lines) => merged.push(Merged {
                            file: journal.entries[i].name.clone(),
                            lines,
                        }),
                        None => {
                            return Err(Box::new((
                                n,
                                conflict(
                                    path,
                                    read,
                                    Some(Hash::of(&theirs)),
                                    Some(
                                        "another process changed it while ccmem was replacing \
                                         it (not only by adding lines), so its version is kept"
                                            .into(),
                                    ),
                                ),
                            )));
                        }
                    }
                }
            }
        }
        Ok(merged)
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

    /// Puts one entry's new content in place.
    fn swap(&self, e: &Entry, s: &mut Staged) -> Result<(), WriteError> {
        self.verify_folder()?;
        let path = &self.at(&e.path);
        let temp = e.temp.as_deref().map(|t| self.at(t));
        match (&temp, &e.old) {
            (Some(temp), Some(old)) => {
                fault::window();
                #[cfg(test)]
                super::tests::before_swap(path);
                match sys::exchange(temp, path).map_err(io_at(path))? {
                    Renamed::Done => s.exchanged = true,
                    Renamed::Unsupported => {
                        // No atomic exchange here: check once more, as late as possible.
                        check_unchanged(path, old)?;
                        match sys::rename(temp, path) {
                            Ok(()) => {}
                            // Windows replaces a file that is still open (here: by ccmem, from
                            // the check) only with POSIX rename semantics, which std's `rename`
                            // falls back to when `MoveFileExW` is refused; file systems without
                            // them (FAT, exFAT, many network shares; wine) refuse the replace
                            // with "access denied". Let go of the file and try once more; the
                            // check just above is then the last one (no post-swap re-read).
                            Err(err)
                                if cfg!(windows)
                                    && crate::sys::os_error(&err)
                                        == Some(crate::sys::OsError::AccessDenied)
                                    && s.let_go() =>
                            {
                                check_unchanged(path, old)?;
                                sys::rename(temp, path).map_err(io_at(path))?;
                            }
                            Err(err) => return Err(io_at(path)(err)),
                        }
                    }
                }
            }
            (Some(temp), None) => {
                fault::window();
                match sys::rename_noreplace(temp, path) {
                    Ok(()) => {}
                    Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
                        let found = super::hash_target(path).ok().flatten();
                        return Err(conflict(path.clone(), None, found, None));
                    }
                    Err(err) => return Err(io_at(path)(err)),
                }
            }
            (None, Some(old)) => {
                let aside = target::temp_for(path);
                sys::rename_noreplace(path, &aside).map_err(io_at(path))?;
                let now = super::hash_target(&aside)?;
                if now.as_ref() != Some(old) {
                    sys::rename_noreplace(&aside, path).map_err(io_at(path))?;
                    return Err(conflict(path.clone(), Some(old.clone()), now, None));
                }
                sys::unlink(&aside).map_err(io_at(&aside))?;
            }
            (None, None) => {}
        }
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))
    }

    /// After every swap: what another writer left in the place of the file an entry replaced,
    /// when it is no longer what ccmem checked (they replaced it or wrote to it in the window).
    /// Waits (a little) for a writer that still has the replaced file open.
    fn replaced_changed(&self, e: &Entry, s: &mut Staged) -> Result<Option<Theirs>, WriteError> {
        let (Some(held), Some(old)) = (&mut s.held, &e.old) else {
            return Ok(None);
        };
        if e.new.is_none() {
            return Ok(None);
        }
        if s.exchanged
            && let Some(temp) = &e.temp
        {
            let temp = self.at(temp);
            let now = match std::fs::symlink_metadata(&temp) {
                Ok(m) => m,
                // The temp held what the swap took out; someone removed it since. What it was
                // cannot be checked any more: stop (the roll-back restores the checked version
                // from its backup), never take it for an empty file.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                    return Err(temp_gone(&self.at(&e.path), &temp));
                }
                Err(err) => return Err(io_at(&temp)(err)),
            };
            if Meta::of(&now).id != held.meta.id {
                // Another writer replaced the file between the check and the swap: what the
                // swap took out is theirs.
                if !now.is_file() {
                    let kind = if now.file_type().is_symlink() {
                        "a symbolic link".to_owned()
                    } else {
                        format!("a {}", crate::fsread::kind_of(&now))
                    };
                    return Ok(Some(Theirs::NotAFile(kind)));
                }
                // Gone between the stat and the read: the same as above, an error.
                let Some(bytes) = super::read_target(&temp)? else {
                    return Err(temp_gone(&self.at(&e.path), &temp));
                };
                return Ok(Some(Theirs::Bytes(bytes)));
            }
        }
        // Let go of before its swap (Windows, see `swap`): the check before the rename was the
        // last one.
        let Some(file) = held.file.as_mut() else {
            return Ok(None);
        };
        let deadline = std::time::Instant::now() + SETTLE;
        while sys::open_for_writing_elsewhere(file) == Some(true)
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let bytes = sys::reread(file, target::MAX_FILE).map_err(io_at(&self.at(&e.path)))?;
        Ok((&Hash::of(&bytes) != old).then_some(Theirs::Bytes(bytes)))
    }

    /// Another writer's `theirs` was found in the file entry `i` replaced. When it only added
    /// lines, they are merged into the new content (the journal first learns the merged hash,
    /// and keeps their version as the one a roll-back restores); returns the lines merged.
    /// `None`: not mergeable (or no longer safely in place), and their version is put back.
    fn take_in(
        &self,
        journal: &mut Journal,
        i: usize,
        s: &Staged,
        theirs: &[u8],
    ) -> Result<Option<usize>, WriteError> {
        let e = journal.entries[i].clone();
        let (Some(old), Some(temp)) = (&e.old, &e.temp) else {
            return Ok(None);
        };
        let (path, temp) = (self.at(&e.path), self.at(temp));
        let base = self.read_backup(old)?;
        // Ours was just swapped in; gone now means someone removed it: an error, never "empty".
        let Some(ours) = super::read_target(&path)? else {
            return Err(WriteError::Stopped {
                cause: format!(
                    "{}: removed by another process right after ccmem put its new version there",
                    path.display()
                ),
                op: String::new(),
                restored: Vec::new(),
            });
        };
        let theirs_hash = Hash::of(theirs);
        self.store_backup(&theirs_hash, theirs, e.mode)?;
        journal.entries[i].old = Some(theirs_hash.clone());
        let put_back = |lock: &Lock| -> Result<(), WriteError> {
            // Their version back at the path, ours out (it is discarded, but for lines another
            // writer appended onto it since it was read: those are handed on to theirs).
            if s.exchanged && super::hash_target(&temp)?.as_ref() == Some(&theirs_hash) {
                sys::exchange(&temp, &path).map_err(io_at(&path))?;
                let out = super::read_target(&temp)?.unwrap_or_default();
                if let Some(added) = out.strip_prefix(ours.as_slice()).filter(|a| !a.is_empty()) {
                    sys::append_synced(&path, added).map_err(io_at(&path))?;
                }
            } else {
                lock.restore_bytes(&path, theirs, e.mode)?;
            }
            Ok(())
        };
        let Some((merged, n)) = merge::merge(&base, theirs, &ours) else {
            self.write_pending(journal)?;
            put_back(self)?;
            return Ok(None);
        };
        let merged_hash = Hash::of(&merged);
        journal.entries[i].interim = journal.entries[i].new.take();
        journal.entries[i].new = Some(merged_hash.clone());
        self.store_backup(&merged_hash, &merged, e.mode)?;
        self.write_pending(journal)?;
        let staged = target::temp_for(&path);
        let owner = s.held.as_ref().and_then(|h| owner_of(&h.meta));
        sys::create_synced(&staged, &merged, e.mode, owner).map_err(io_at(&staged))?;
        let ours_hash = Hash::of(&ours);
        match sys::exchange(&staged, &path).map_err(io_at(&path))? {
            Renamed::Done => {
                // What the merge swapped out: ccmem's version, and whatever was written onto
                // it after it was read above.
                let out = super::read_target(&staged)?.unwrap_or_default();
                if Hash::of(&out) != ours_hash {
                    match out.strip_prefix(ours.as_slice()) {
                        // Lines appended onto ccmem's version meanwhile (the client appends
                        // MEMORY.md entries): handed on to the merged file now in place, with
                        // an append of its own, so that they join any appended there since.
                        Some(added) => {
                            sys::append_synced(&path, added).map_err(io_at(&path))?;
                        }
                        None => {
                            // Rewritten, not appended to: undo the merge swap, give up (their
                            // version stays in place).
                            sys::exchange(&staged, &path).map_err(io_at(&path))?;
                            remove_file(&staged)?;
                            return Ok(None);
                        }
                    }
                }
                remove_file(&staged)?;
            }
            Renamed::Unsupported => sys::rename(&staged, &path).map_err(io_at(&path))?,
        }
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))?;
        Ok(Some(n))
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

    fn write_pending(&self, journal: &Journal) -> Result<(), WriteError> {
        let Some(state) = self.state(true)? else {
            return Ok(());
        };
        state.put(journal::PENDING, &journal.to_bytes(), 0o600)
    }
}

fn conflict(
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

fn remove_file(p: &Path) -> Result<(), WriteError> {
    match std::fs::symlink_metadata(p) {
        Ok(_) => sys::unlink(p).map_err(io_at(p)),
        Err(_) => Ok(()),
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
