//! Applying, recovering, undoing and redoing operations under a held [`Lock`].

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use super::journal::{self, Entry, Journal, Outcome, Paths, Progress};
use super::sys::{self, Held, Meta, Renamed};
use super::target::{self, stale_temps};
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
    /// Nothing to do, and why (the last operation was already undone, or rolled back).
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

/// What recovering an interrupted operation would leave, computed without writing anything.
#[derive(Debug, Clone)]
pub struct Preview {
    /// The interrupted operation.
    pub op: String,
    /// Whether recovery would finish it (else it restores the old files).
    pub forward: bool,
    /// Each file of the operation and its content after recovery (`None`: absent).
    pub files: Vec<(String, Option<Vec<u8>>)>,
}

/// How long the post-swap check waits for a writer that still has a replaced file open.
const SETTLE: Duration = Duration::from_millis(1000);

/// A target ready to be swapped.
struct Staged {
    held: Option<Held>,
    /// Whether the replaced file is reachable under the temp name (an exchange happened).
    exchanged: bool,
}

impl Lock {
    fn target(&self, name: &str) -> Result<PathBuf, WriteError> {
        let plain = !name.is_empty()
            && !name.contains('/')
            && name != "."
            && name != ".."
            && name != journal::STATE_DIR;
        if self.plain_names && !plain {
            return Err(WriteError::Refused {
                path: self.folder.join(name),
                why: "not a plain file name in the memory folder".into(),
            });
        }
        target::resolve(&self.folder.join(name))
    }

    /// Journals of format 1 named files relative to the folder: make every path absolute.
    fn normalize(&self, journal: &mut Journal) {
        for e in &mut journal.entries {
            if e.path.as_os_str().is_empty() {
                e.path = self.folder.join(&e.name);
            }
            if let Some(t) = &mut e.temp
                && t.is_relative()
            {
                *t = self.folder.join(&*t);
            }
        }
    }

    /// The last operation that ended here (`None`: ccmem never wrote here).
    pub fn last(&self) -> Result<Option<Journal>, WriteError> {
        let Some(bytes) = super::read_target(&self.state.last)? else {
            return Ok(None);
        };
        Journal::parse(&self.state.last, &bytes)
            .map(Some)
            .map_err(WriteError::Journal)
    }

    /// Applies `changes` as one operation named `op`. Every target's hash is checked first and
    /// again at its swap; see the module header for what happens when another writer is seen.
    pub fn apply(&self, op: &str, changes: &[Change]) -> Result<Applied, WriteError> {
        self.run(op, None, changes)
    }

    fn run(
        &self,
        op: &str,
        undo_of: Option<String>,
        changes: &[Change],
    ) -> Result<Applied, WriteError> {
        // 1. Check every target; nothing is created before all of them pass.
        let mut staged = Vec::new();
        let mut entries = Vec::new();
        for c in changes {
            let path = self.target(&c.name)?;
            let held = target::open(&path)?;
            let found = held.as_ref().map(|h| Hash::of(&h.bytes));
            if found != c.expect {
                return Err(conflict(path, c.expect.clone(), found, None));
            }
            let mode = held.as_ref().map_or(self.create_mode, |h| h.meta.mode);
            if let Some(h) = &held {
                refuse_foreign_owner(&path, &h.meta)?;
            }
            entries.push(Entry {
                name: c.name.clone(),
                path,
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
        // 2. State folder, backups, the folders targets need, temp files.
        sys::create_dirs(&self.state.backup, 0o700).map_err(io_at(&self.state.backup))?;
        let mut created_dirs = Vec::new();
        for e in &entries {
            if let Some(parent) = e.path.parent() {
                created_dirs.extend(sys::create_dirs(parent, 0o700).map_err(io_at(parent))?);
            }
        }
        for (e, s) in entries.iter_mut().zip(&mut staged) {
            if let (Some(h), Some(hash)) = (&s.held, &e.old) {
                store_backup(&self.state, hash, &h.bytes, h.meta.mode)?;
            }
            if let Some(c) = changes.iter().find(|c| c.name == e.name)
                && let Some(bytes) = &c.new
            {
                // The new content is kept too: an undo after another writer added lines to it
                // merges them in, which needs to know what ccmem wrote.
                if let Some(hash) = &e.new {
                    store_backup(&self.state, hash, bytes, e.mode)?;
                }
                let temp = target::temp_for(&e.path);
                let owner = s.held.as_ref().and_then(|h| owner_of(&h.meta));
                sys::create_synced(&temp, bytes, e.mode, owner).map_err(io_at(&temp))?;
                e.temp = Some(temp);
            }
        }
        for dir in parents(&entries) {
            sys::sync_dir(&dir).map_err(io_at(&dir))?;
        }
        let mut journal = Journal {
            version: journal::VERSION,
            op: op.to_owned(),
            started: jiff::Timestamp::now().to_string(),
            outcome: Outcome::Pending,
            undo_of,
            created_dirs,
            entries,
        };
        self.write_journal(&self.state.pending, &journal)?;
        // 3. Swap each target in, then check what was replaced.
        let mut merged = Vec::new();
        for (i, s) in staged.iter_mut().enumerate() {
            if let Err(err) = self.swap(&journal.entries[i], s) {
                self.abandon(&mut journal, i)?;
                return Err(err);
            }
        }
        for (i, s) in staged.iter_mut().enumerate() {
            if let Some(theirs) = self.replaced_changed(&journal.entries[i], s)? {
                // What was read, for the error: `take_in` records their version as the old one.
                let read = journal.entries[i].old.clone();
                match self.take_in(&mut journal, i, s, &theirs)? {
                    Some(n) => merged.push(Merged {
                        file: journal.entries[i].name.clone(),
                        lines: n,
                    }),
                    None => {
                        let path = journal.entries[i].path.clone();
                        let n = journal.entries.len();
                        self.abandon(&mut journal, n)?;
                        return Err(conflict(
                            path,
                            read,
                            Some(Hash::of(&theirs)),
                            Some(format!(
                                "another process changed it while ccmem was replacing it (not \
                                 only by adding lines), so its version is kept and every file of \
                                 this `{op}` was restored: run the command again"
                            )),
                        ));
                    }
                }
            }
        }
        // 4. Commit.
        journal.outcome = Outcome::Committed;
        self.end(&journal)?;
        for e in &journal.entries {
            if let Some(t) = &e.temp {
                remove_if_exists(t)?;
            }
        }
        Ok(Applied {
            op: op.to_owned(),
            files: journal.entries.iter().map(|e| e.name.clone()).collect(),
            merged,
        })
    }

    /// Puts one entry's new content in place.
    fn swap(&self, e: &Entry, s: &mut Staged) -> Result<(), WriteError> {
        let path = &e.path;
        match (&e.temp, &e.old) {
            (Some(temp), Some(old)) => {
                fault::window();
                #[cfg(test)]
                super::tests::before_swap(path);
                match sys::exchange(temp, path).map_err(io_at(path))? {
                    Renamed::Done => s.exchanged = true,
                    Renamed::Unsupported => {
                        // No atomic exchange here: check once more, as late as possible.
                        let now = super::hash_target(path)?;
                        if now.as_ref() != Some(old) {
                            return Err(conflict(path.clone(), Some(old.clone()), now, None));
                        }
                        sys::rename(temp, path).map_err(io_at(path))?;
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
        let dir = path.parent().unwrap_or(Path::new("/"));
        sys::sync_dir(dir).map_err(io_at(dir))
    }

    /// After every swap: the content of the file an entry replaced, when it is no longer what
    /// ccmem checked (another writer replaced it or wrote to it in the window). Waits (a little)
    /// for a writer that still has the replaced file open.
    fn replaced_changed(&self, e: &Entry, s: &mut Staged) -> Result<Option<Vec<u8>>, WriteError> {
        let (Some(held), Some(old)) = (&mut s.held, &e.old) else {
            return Ok(None);
        };
        if e.new.is_none() {
            return Ok(None);
        }
        if s.exchanged
            && let Some(temp) = &e.temp
        {
            let now = fs::symlink_metadata(temp).ok().map(|m| Meta::of(&m).id);
            if now != Some(held.meta.id) {
                // Another writer replaced the file between the check and the swap: what the
                // swap took out is theirs.
                return Ok(Some(super::read_target(temp)?.unwrap_or_default()));
            }
        }
        let deadline = std::time::Instant::now() + SETTLE;
        while sys::open_for_writing_elsewhere(&held.file) == Some(true)
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let bytes = sys::reread(&mut held.file, target::MAX_FILE).map_err(io_at(&e.path))?;
        Ok((&Hash::of(&bytes) != old).then_some(bytes))
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
        let base = read_backup(&self.state, old)?;
        let ours = super::read_target(&e.path)?.unwrap_or_default();
        let theirs_hash = Hash::of(theirs);
        store_backup(&self.state, &theirs_hash, theirs, e.mode)?;
        journal.entries[i].old = Some(theirs_hash.clone());
        let put_back = |lock: &Lock| -> Result<(), WriteError> {
            // Their version back at the path, ours out (it is discarded).
            if s.exchanged && super::hash_target(temp)?.as_ref() == Some(&theirs_hash) {
                sys::exchange(temp, &e.path).map_err(io_at(&e.path))?;
            } else {
                lock.restore_bytes(&e.path, theirs, e.mode)?;
            }
            Ok(())
        };
        let Some((merged, n)) = merge::merge(&base, theirs, &ours) else {
            self.write_journal(&self.state.pending, journal)?;
            put_back(self)?;
            return Ok(None);
        };
        let merged_hash = Hash::of(&merged);
        journal.entries[i].interim = journal.entries[i].new.take();
        journal.entries[i].new = Some(merged_hash);
        self.write_journal(&self.state.pending, journal)?;
        let staged = target::temp_for(&e.path);
        let owner = s.held.as_ref().and_then(|h| owner_of(&h.meta));
        sys::create_synced(&staged, &merged, e.mode, owner).map_err(io_at(&staged))?;
        let ours_hash = Hash::of(&ours);
        match sys::exchange(&staged, &e.path).map_err(io_at(&e.path))? {
            Renamed::Done => {
                let out = super::hash_target(&staged)?;
                if out.as_ref() != Some(&ours_hash) {
                    // Yet another write, onto ccmem's version: undo the merge swap, give up.
                    sys::exchange(&staged, &e.path).map_err(io_at(&e.path))?;
                    remove_if_exists(&staged)?;
                    return Ok(None);
                }
                remove_if_exists(&staged)?;
            }
            Renamed::Unsupported => sys::rename(&staged, &e.path).map_err(io_at(&e.path))?,
        }
        let dir = e.path.parent().unwrap_or(Path::new("/"));
        sys::sync_dir(dir).map_err(io_at(dir))?;
        Ok(Some(n))
    }

    /// Stops an operation after `done` swaps (and any merge): restores every file it changed,
    /// removes its temp files, and records it as rolled back.
    fn abandon(&self, journal: &mut Journal, done: usize) -> Result<(), WriteError> {
        let mut foreign = Vec::new();
        let upto = done.min(journal.entries.len());
        self.roll_back(&journal.entries[..upto], &mut foreign)?;
        for e in &journal.entries {
            if let Some(t) = &e.temp {
                remove_if_exists(t)?;
            }
        }
        self.remove_created_dirs(journal);
        journal.outcome = Outcome::RolledBack;
        self.end(journal)
    }

    /// Writes `journal` as `last.json` and removes the pending journal.
    fn end(&self, journal: &Journal) -> Result<(), WriteError> {
        self.write_journal(&self.state.last, journal)?;
        remove_if_exists(&self.state.pending)?;
        sys::sync_dir(&self.state.dir).map_err(io_at(&self.state.dir))?;
        prune_backups(&self.state, journal);
        Ok(())
    }

    fn write_journal(&self, to: &Path, journal: &Journal) -> Result<(), WriteError> {
        let staged = target::temp_for(to);
        sys::create_synced(&staged, &journal.to_bytes(), 0o600, None).map_err(io_at(&staged))?;
        sys::rename(&staged, to).map_err(io_at(to))?;
        sys::sync_dir(&self.state.dir).map_err(io_at(&self.state.dir))
    }

    /// Finishes or reverts an operation a previous run left unfinished, and removes stale temp
    /// files. `None` when there was nothing to do.
    pub fn recover(&self) -> Result<Option<Recovered>, WriteError> {
        let Some(bytes) = super::read_target(&self.state.pending)? else {
            return self.remove_stale_temps();
        };
        let mut journal =
            Journal::parse(&self.state.pending, &bytes).map_err(WriteError::Journal)?;
        self.normalize(&mut journal);
        let states = self.states(&journal)?;
        let forward = journal.entries.iter().zip(&states).all(|(e, s)| match s {
            Progress::Done => true,
            Progress::Foreign | Progress::Interim => false,
            Progress::NotDone => temp_intact(e),
        });
        let op = journal.op.clone();
        if forward {
            for (e, s) in journal.entries.iter().zip(&states) {
                if *s == Progress::NotDone {
                    finish(e)?;
                }
            }
            for e in &journal.entries {
                if let Some(t) = &e.temp {
                    remove_if_exists(t)?;
                }
            }
            journal.outcome = Outcome::Committed;
            self.end(&journal)?;
            self.remove_stale_temps()?;
            return Ok(Some(Recovered::RolledForward { op }));
        }
        let mut foreign = Vec::new();
        let n = journal.entries.len();
        self.roll_back(&journal.entries[..n], &mut foreign)?;
        for e in &journal.entries {
            if let Some(t) = &e.temp {
                remove_if_exists(t)?;
            }
        }
        self.remove_created_dirs(&journal);
        journal.outcome = Outcome::RolledBack;
        self.end(&journal)?;
        self.remove_stale_temps()?;
        Ok(Some(Recovered::RolledBack { op, foreign }))
    }

    fn states(&self, journal: &Journal) -> Result<Vec<Progress>, WriteError> {
        journal
            .entries
            .iter()
            .map(|e| Ok(journal::progress(e, super::hash_target(&e.path)?.as_ref())))
            .collect()
    }

    /// Reverses the last committed operation. Undoing twice is one undo: the second says so
    /// and does nothing (see [`Lock::redo`]).
    pub fn undo(&self) -> Result<Undone, WriteError> {
        let last = self.last_or_none()?;
        if let Some(n) = nothing_to_undo(&last) {
            return Ok(n);
        }
        let changes = self.reversal(&last)?;
        let applied = self.run(
            &format!("undo of {}", last.op),
            Some(last.op.clone()),
            &changes,
        )?;
        self.remove_created_dirs(&last);
        Ok(Undone::Reversed(applied))
    }

    /// Re-applies the operation the last `undo` reversed.
    pub fn redo(&self) -> Result<Undone, WriteError> {
        let last = self.last_or_none()?;
        let Some(orig) = last
            .undo_of
            .clone()
            .filter(|_| last.outcome == Outcome::Committed)
        else {
            return Ok(Undone::Nothing {
                op: last.op.clone(),
                why: format!(
                    "nothing to redo: the last operation, `{}` ({}), was not an undo",
                    last.op, last.started
                ),
            });
        };
        let changes = self.reversal(&last)?;
        Ok(Undone::Reversed(self.run(&orig, None, &changes)?))
    }

    fn last_or_none(&self) -> Result<Journal, WriteError> {
        match self.last()? {
            Some(mut j) => {
                self.normalize(&mut j);
                Ok(j)
            }
            None => Err(WriteError::Journal(format!(
                "{}: ccmem has no record of writing here, so there is nothing to undo",
                self.folder.display()
            ))),
        }
    }

    /// The changes that take `last`'s files back to their old content. A file another writer
    /// changed since is taken back too when the change only added lines (they are kept);
    /// otherwise the undo is refused with what to do.
    fn reversal(&self, last: &Journal) -> Result<Vec<Change>, WriteError> {
        let mut changes = Vec::new();
        for e in last.entries.iter().rev() {
            let old = match &e.old {
                Some(h) => Some(read_backup(&self.state, h)?),
                None => None,
            };
            let now = super::read_target(&e.path)?;
            let now_hash = now.as_deref().map(Hash::of);
            let mut new = old;
            if now_hash != e.new {
                let merged = match (&e.new, &now, &new) {
                    (Some(h), Some(theirs), Some(back)) => {
                        let ours = read_backup(&self.state, h).ok();
                        ours.and_then(|ours| merge::merge(&ours, theirs, back))
                    }
                    _ => None,
                };
                match merged {
                    Some((bytes, _)) => new = Some(bytes),
                    None => {
                        return Err(WriteError::Conflict {
                            path: e.path.clone(),
                            expected: e.new.clone(),
                            found: now_hash,
                            kept: Some(format!(
                                "it changed after `{}` wrote it, not only by adding lines, and \
                                 undoing would lose that change, so the undo stopped; its version \
                                 from before `{}` is in {}",
                                last.op,
                                last.op,
                                e.old.as_ref().map_or_else(
                                    || "no file (it did not exist)".to_owned(),
                                    |h| self.state.backup_of(h).display().to_string()
                                )
                            )),
                        });
                    }
                }
            }
            changes.push(Change {
                name: e.name.clone(),
                expect: now_hash,
                new,
            });
        }
        Ok(changes)
    }

    /// Restores entries whose targets hold their new content (those someone else changed are
    /// listed in `foreign` and left alone), newest first.
    fn roll_back(&self, done: &[Entry], foreign: &mut Vec<String>) -> Result<(), WriteError> {
        for e in done.iter().rev() {
            let current = super::hash_target(&e.path)?;
            match journal::progress(e, current.as_ref()) {
                Progress::NotDone => {}
                Progress::Foreign => foreign.push(e.name.clone()),
                Progress::Done | Progress::Interim => match &e.old {
                    Some(h) => {
                        let bytes = read_backup(&self.state, h)?;
                        self.restore_bytes(&e.path, &bytes, e.mode)?;
                    }
                    None => {
                        sys::unlink(&e.path).map_err(io_at(&e.path))?;
                        let dir = e.path.parent().unwrap_or(Path::new("/"));
                        sys::sync_dir(dir).map_err(io_at(dir))?;
                    }
                },
            }
        }
        Ok(())
    }

    /// Replaces `path` with `bytes` (mode `mode`, the current owner) through a temp file.
    fn restore_bytes(&self, path: &Path, bytes: &[u8], mode: u32) -> Result<(), WriteError> {
        let owner = fs::symlink_metadata(path)
            .ok()
            .and_then(|m| owner_of(&Meta::of(&m)));
        let temp = target::temp_for(path);
        sys::create_synced(&temp, bytes, mode, owner).map_err(io_at(&temp))?;
        sys::rename(&temp, path).map_err(io_at(path))?;
        let dir = path.parent().unwrap_or(Path::new("/"));
        sys::sync_dir(dir).map_err(io_at(dir))
    }

    /// Removes the folders an operation created, innermost first, where they are empty again.
    fn remove_created_dirs(&self, journal: &Journal) {
        for d in journal.created_dirs.iter().rev() {
            if fs::read_dir(d).is_ok_and(|mut r| r.next().is_none()) {
                let _ = sys::rmdir(d);
            }
        }
    }

    fn remove_stale_temps(&self) -> Result<Option<Recovered>, WriteError> {
        let only = if self.plain_names {
            None
        } else {
            // A settings folder holds other files: only this target's temps are ours to clean.
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
        for p in stale_temps(&self.state.dir, None) {
            sys::unlink(&p).map_err(io_at(&p))?;
        }
        Ok((!files.is_empty()).then_some(Recovered::TempsRemoved { files }))
    }
}

/// Whether `folder` holds traces of an interrupted operation (a pending journal or stale temp
/// files), which [`Lock::recover`] would clean up. Reads only.
pub fn needs_recovery(folder: &Path) -> bool {
    Paths::of(folder).pending.exists() || !stale_temps(folder, None).is_empty()
}

/// What [`Lock::recover`] would leave in the memory folder `folder`, without writing anything
/// and without the lock (`None`: no interrupted operation). For readers that must show the
/// state the journal will restore rather than half-written files.
pub fn preview(folder: &Path) -> Result<Option<Preview>, WriteError> {
    let paths = Paths::of(folder);
    let Some(bytes) = super::read_target(&paths.pending)? else {
        return Ok(None);
    };
    let mut journal = Journal::parse(&paths.pending, &bytes).map_err(WriteError::Journal)?;
    for e in &mut journal.entries {
        if e.path.as_os_str().is_empty() {
            e.path = folder.join(&e.name);
        }
        if let Some(t) = &mut e.temp
            && t.is_relative()
        {
            *t = folder.join(&*t);
        }
    }
    let mut states = Vec::new();
    for e in &journal.entries {
        let now = super::read_target(&e.path)?;
        states.push((
            journal::progress(e, now.as_deref().map(Hash::of).as_ref()),
            now,
        ));
    }
    let forward = journal
        .entries
        .iter()
        .zip(&states)
        .all(|(e, (s, _))| match s {
            Progress::Done => true,
            Progress::Foreign | Progress::Interim => false,
            Progress::NotDone => temp_intact(e),
        });
    let mut files = Vec::new();
    for (e, (s, now)) in journal.entries.iter().zip(states) {
        let content = match (forward, s) {
            (_, Progress::Foreign) => now,
            (_, Progress::Interim) => match &e.old {
                Some(h) => Some(read_backup(&paths, h)?),
                None => None,
            },
            (true, Progress::NotDone) => match &e.temp {
                Some(t) => super::read_target(t)?,
                None => None,
            },
            (true, Progress::Done) | (false, Progress::NotDone) => now,
            (false, Progress::Done) => match &e.old {
                Some(h) => Some(read_backup(&paths, h)?),
                None => None,
            },
        };
        files.push((e.name.clone(), content));
    }
    Ok(Some(Preview {
        op: journal.op,
        forward,
        files,
    }))
}

fn nothing_to_undo(last: &Journal) -> Option<Undone> {
    let why = match (last.outcome, &last.undo_of) {
        (Outcome::RolledBack, _) => format!(
            "nothing to undo: the last operation, `{}` ({}), was rolled back, so none of it is on \
             disk",
            last.op, last.started
        ),
        (_, Some(orig)) => format!(
            "nothing to undo: `{orig}` was already undone ({}); `ccmem undo --redo` applies it again",
            last.started
        ),
        _ => return None,
    };
    Some(Undone::Nothing {
        op: last.op.clone(),
        why,
    })
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

/// The owner a replacement must be given (`None`: ours already).
fn owner_of(m: &Meta) -> Option<(u32, u32)> {
    // SAFETY: getegid has no preconditions.
    let egid = unsafe { libc::getegid() };
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

fn parents(entries: &[Entry]) -> BTreeSet<PathBuf> {
    entries
        .iter()
        .filter_map(|e| e.path.parent().map(Path::to_path_buf))
        .collect()
}

fn temp_intact(e: &Entry) -> bool {
    match (&e.temp, &e.new) {
        (Some(t), Some(h)) => {
            matches!(super::hash_target(t), Ok(Some(found)) if &found == h)
        }
        (None, None) => true,
        _ => false,
    }
}

/// Performs one entry's rename (or removal) during a roll-forward.
fn finish(e: &Entry) -> Result<(), WriteError> {
    match &e.temp {
        Some(t) => sys::rename(t, &e.path).map_err(io_at(&e.path))?,
        None => match sys::unlink(&e.path) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                return Err(io_at(&e.path)(err));
            }
            _ => {}
        },
    }
    let dir = e.path.parent().unwrap_or(Path::new("/"));
    sys::sync_dir(dir).map_err(io_at(dir))
}

fn remove_if_exists(p: &Path) -> Result<(), WriteError> {
    match fs::symlink_metadata(p) {
        Ok(_) => sys::unlink(p).map_err(io_at(p)),
        Err(_) => Ok(()),
    }
}

/// Drops backups `last` does not need.
fn prune_backups(paths: &Paths, last: &Journal) {
    let keep: BTreeSet<String> = last
        .entries
        .iter()
        .flat_map(|e| [e.old.as_ref(), e.new.as_ref()])
        .flatten()
        .map(|h| h.as_str().to_owned())
        .collect();
    if let Ok(dir) = fs::read_dir(&paths.backup) {
        for entry in dir.flatten() {
            if !keep.contains(entry.file_name().to_string_lossy().as_ref()) {
                let _ = sys::unlink(&entry.path());
            }
        }
    }
}

fn store_backup(paths: &Paths, hash: &Hash, bytes: &[u8], mode: u32) -> Result<(), WriteError> {
    let path = paths.backup_of(hash);
    if matches!(super::hash_target(&path), Ok(Some(h)) if &h == hash) {
        return Ok(());
    }
    let staged = target::temp_for(&path);
    sys::create_synced(&staged, bytes, mode & 0o777, None).map_err(io_at(&staged))?;
    sys::rename(&staged, &path).map_err(io_at(&path))?;
    sys::sync_dir(&paths.backup).map_err(io_at(&paths.backup))
}

fn read_backup(paths: &Paths, hash: &Hash) -> Result<Vec<u8>, WriteError> {
    let path = paths.backup_of(hash);
    match super::read_target(&path)? {
        Some(bytes) if &Hash::of(&bytes) == hash => Ok(bytes),
        Some(_) => Err(WriteError::Journal(format!(
            "{}: backup is corrupt (hash mismatch)",
            path.display()
        ))),
        None => Err(WriteError::Journal(format!(
            "{}: backup is missing",
            path.display()
        ))),
    }
}
