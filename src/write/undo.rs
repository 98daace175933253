//! Undoing and redoing operations of the undo history under a held [`Lock`], and the backups
//! they need: kept before a write, read back to restore, pruned to what the history names. The
//! roll-back of a stopped operation, which the write and recovery share, restores through
//! them too.

use std::collections::BTreeSet;
use std::path::Path;

use super::journal::{self, Entry, History, Journal, Progress};
use super::ops::{Step, Undone, owner_of};
use super::sys::{self, Meta};
use super::target::current;
use super::target::{self, is_temp_of};
use super::{Change, Hash, Lock, WriteError, io_at, merge};

impl Lock {
    /// Reverses the newest operation of the undo history (`ccmem undo`; again and again, each
    /// time the one before). When everything recorded was undone, says so and does nothing.
    pub fn undo(&self) -> Result<Undone, WriteError> {
        self.undo_newest(true)
    }

    /// Reverses the newest operation of the undo history even right after a rolled-back one
    /// (`hook uninstall` giving back what the install it found replaced).
    pub fn undo_last_done(&self) -> Result<Undone, WriteError> {
        self.undo_newest(false)
    }

    fn undo_newest(&self, say_rolled_back: bool) -> Result<Undone, WriteError> {
        let mut history = self.history()?;
        if let Some(rb) = history.rolled_back.take().filter(|_| say_rolled_back) {
            // Said once: the next `undo` takes back the operation before it.
            if let Some(state) = self.state(false)? {
                state.put(journal::HISTORY, &history.to_bytes(), 0o600)?;
            }
            let next = history.done.last().map_or_else(
                || "there is nothing before it to undo".to_owned(),
                |d| {
                    format!(
                        "`ccmem undo` again takes back the one before it, `{}`",
                        d.op
                    )
                },
            );
            return Ok(Undone::Nothing {
                op: rb.op.clone(),
                why: format!(
                    "nothing to undo: the last operation, `{}` ({}), was rolled back, so none of \
                     it is on disk; {next}",
                    rb.op, rb.started
                ),
            });
        }
        let Some(last) = history.done.last() else {
            return self.nothing(&history, "undo");
        };
        let changes = self.reversal(last)?;
        let applied = self.run(&format!("undo of {}", last.op), Step::Undo(last), &changes)?;
        self.remove_created_dirs(last);
        Ok(Undone::Reversed(applied))
    }

    /// Re-applies the operation the newest undo reversed.
    pub fn redo(&self) -> Result<Undone, WriteError> {
        let history = self.history()?;
        let Some(last) = history.undone.last() else {
            return self.nothing(&history, "redo");
        };
        let orig = last
            .undo_of
            .clone()
            .unwrap_or_else(|| (last.op.strip_prefix("undo of ").unwrap_or(&last.op)).to_owned());
        let changes = self.reversal(last)?;
        Ok(Undone::Reversed(self.run(
            &orig,
            Step::Redo(last),
            &changes,
        )?))
    }

    fn nothing(&self, history: &History, what: &str) -> Result<Undone, WriteError> {
        if history.done.is_empty() && history.undone.is_empty() {
            return Err(WriteError::Journal(format!(
                "{}: ccmem has no record of writing here, so there is nothing to {what}",
                self.folder.display()
            )));
        }
        let (op, why) = match (what, history.undone.last(), history.done.last()) {
            ("undo", Some(u), _) => {
                let orig = u.undo_of.as_deref().unwrap_or(&u.op);
                (
                    u.op.clone(),
                    format!(
                        "nothing to undo: `{orig}` was already undone ({}), and so was everything \
                         ccmem recorded here before it; `ccmem undo --redo` applies it again",
                        u.started
                    ),
                )
            }
            (_, _, Some(d)) => (
                d.op.clone(),
                format!(
                    "nothing to redo: nothing was undone here since the last operation, `{}` ({})",
                    d.op, d.started
                ),
            ),
            _ => (String::new(), format!("nothing to {what}")),
        };
        Ok(Undone::Nothing { op, why })
    }

    /// The changes that take `last`'s files back to their old content. A file another writer
    /// changed since is taken back too when the change only added lines (they are kept);
    /// otherwise the undo is refused, naming the file.
    fn reversal(&self, last: &Journal) -> Result<Vec<Change>, WriteError> {
        let mut changes = Vec::new();
        for e in last.entries.iter().rev() {
            let path = self.at(&e.path);
            let old = match &e.old {
                Some(h) => Some(self.read_backup(h)?),
                None => None,
            };
            let now = super::read_target(&path)?;
            let now_hash = now.as_deref().map(Hash::of);
            let mut new = old;
            if now_hash != e.new {
                let merged = match (&e.new, &now, &new) {
                    (Some(h), Some(theirs), Some(back)) => {
                        let ours = self.read_backup(h).ok();
                        ours.and_then(|ours| merge::merge(&ours, theirs, back))
                    }
                    _ => None,
                };
                match merged {
                    Some((bytes, _)) => new = Some(bytes),
                    None => {
                        return Err(WriteError::Conflict {
                            path,
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
                                    |h| (self.state_path.join(journal::BACKUP_DIR))
                                        .join(h.as_str())
                                        .display()
                                        .to_string()
                                )
                            )),
                        });
                    }
                }
            }
            changes.push(Change {
                name: e.path.to_string_lossy().into_owned(),
                expect: now_hash,
                new,
            });
        }
        Ok(changes)
    }

    /// Restores entries whose targets hold their new content (those someone else changed are
    /// listed in `foreign` and left alone), newest first.
    pub(super) fn roll_back(
        &self,
        done: &[Entry],
        foreign: &mut Vec<String>,
    ) -> Result<(), WriteError> {
        for e in done.iter().rev() {
            let path = self.at(&e.path);
            match current(&path)?.progress(e) {
                Progress::NotDone => {}
                Progress::Foreign => foreign.push(e.name.clone()),
                Progress::Done | Progress::Interim if self.verify_folder().is_err() => {
                    return self.verify_folder();
                }
                Progress::Done | Progress::Interim => match &e.old {
                    Some(h) => {
                        let bytes = self.read_backup(h)?;
                        self.restore_bytes(&path, &bytes, e.mode)?;
                    }
                    None => {
                        sys::unlink(&path).map_err(io_at(&path))?;
                        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))?;
                    }
                },
            }
        }
        Ok(())
    }

    /// Replaces `path` with `bytes` (mode `mode`, the current owner) through a temp file.
    pub(super) fn restore_bytes(
        &self,
        path: &Path,
        bytes: &[u8],
        mode: u32,
    ) -> Result<(), WriteError> {
        let owner = std::fs::symlink_metadata(path)
            .ok()
            .and_then(|m| owner_of(&Meta::of(&m)));
        let temp = target::temp_for(path);
        sys::create_synced(&temp, bytes, mode & 0o777, owner).map_err(io_at(&temp))?;
        sys::rename(&temp, path).map_err(io_at(path))?;
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))
    }

    /// Removes the folders an operation created, innermost first, where they are empty again
    /// (only the settings file's folder and those above it pass [`record::check`]).
    pub(super) fn remove_created_dirs(&self, journal: &Journal) {
        if self.plain_names {
            return;
        }
        for d in journal.created_dirs.iter().rev() {
            let empty = std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir())
                && std::fs::read_dir(d).is_ok_and(|mut r| r.next().is_none());
            if empty {
                let _ = sys::rmdir(d);
            }
        }
    }

    /// Removes one of ccmem's temp files in the folder (a name [`record::check`] let through,
    /// or one this run made), if it is a regular file.
    pub(super) fn remove_temp(&self, name: &Path) -> Result<(), WriteError> {
        self.verify_folder()?;
        let path = self.at(name);
        let ours = name.to_str().is_some_and(|n| is_temp_of(n, None));
        match std::fs::symlink_metadata(&path) {
            Ok(m) if ours && m.is_file() => sys::unlink(&path).map_err(io_at(&path)),
            _ => Ok(()),
        }
    }

    /// Stores a backup of `bytes` under its hash (unless one is there already).
    pub(super) fn store_backup(
        &self,
        hash: &Hash,
        bytes: &[u8],
        mode: u32,
    ) -> Result<(), WriteError> {
        let Some(b) = self.backups(true)? else {
            return Ok(());
        };
        if matches!(b.read(hash.as_str(), target::MAX_FILE), Ok(Some(now)) if &Hash::of(&now) == hash)
        {
            return Ok(());
        }
        b.put(hash.as_str(), bytes, mode & 0o777)
    }

    /// The backup of content `hash`, checked against it.
    pub(super) fn read_backup(&self, hash: &Hash) -> Result<Vec<u8>, WriteError> {
        let path = self
            .state_path
            .join(journal::BACKUP_DIR)
            .join(hash.as_str());
        let bytes = match self.backups(false)? {
            Some(b) => b.read(hash.as_str(), target::MAX_FILE)?,
            None => None,
        };
        match bytes {
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

    /// Drops the backups no record of the history needs (and stale temp files there). Only
    /// regular files named by a hash or as ccmem's temp files are removed, never through a link.
    pub(super) fn prune_backups(&self, history: &History) {
        let Ok(Some(b)) = self.backups(false) else {
            return;
        };
        let keep: BTreeSet<&str> = (history.done.iter().chain(&history.undone))
            .flat_map(Journal::hashes)
            .map(Hash::as_str)
            .collect();
        for name in b.files() {
            let hash_name = name.len() == 64 && name.bytes().all(|c| c.is_ascii_hexdigit());
            if (hash_name && !keep.contains(name.as_str())) || is_temp_of(&name, None) {
                let _ = b.remove(&name);
            }
        }
    }
}
