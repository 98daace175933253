//! The swap window: putting each staged target in place, then checking what the swap replaced.
//!
//! A concurrent writer (the client writing MEMORY.md, a shell appending to it) could otherwise
//! fall into the window between ccmem's check of a target and its replacement. The target and
//! its temp file are exchanged atomically (`RENAME_EXCHANGE`), so the file that was replaced
//! stays reachable under the temp name. ccmem still holds it open from the check, so after the
//! swap it checks that the replaced file is the one it read and that its content has not
//! changed, and, with a read lease, that no one still has it open for writing. A line written
//! there in the meantime is merged into the new content when it was only added (see
//! [`super::merge`]), else every file of the operation is restored and the other writer's
//! content kept. New files are renamed into place only if their name is still free
//! (`RENAME_NOREPLACE`). Where there is no atomic exchange (macOS, Windows) the hash is checked
//! once more just before the rename instead.
//!
//! [`Lock::swap_all`] is the one entry point, called by [`Lock::apply`] once the journal is
//! durable; on an error, the caller rolls back the swaps it made.

use std::path::Path;
use std::time::Duration;

use super::journal::{Entry, Journal};
use super::ops::{Merged, conflict, owner_of};
use super::sys::{self, Held, Meta, Renamed};
use super::{Hash, Lock, WriteError, fault, io_at, merge, target};

/// How long the post-swap check waits for a writer that still has a replaced file open.
const SETTLE: Duration = Duration::from_millis(1000);

/// A target ready to be swapped: the file ccmem checked, still open, when there was one.
pub(super) struct Staged {
    pub(super) held: Option<Held>,
    /// Whether the replaced file is reachable under the temp name (an exchange happened).
    exchanged: bool,
}

impl Staged {
    pub(super) fn new(held: Option<Held>) -> Self {
        Staged {
            held,
            exchanged: false,
        }
    }

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

/// An operation stopped in the swap window by what another process did (`cause`); `stop` fills
/// in the operation and the files it restored.
fn stopped(cause: String) -> WriteError {
    WriteError::Stopped {
        cause,
        op: String::new(),
        restored: Vec::new(),
    }
}

/// The temp file that held what a swap replaced was removed before ccmem could check it.
fn temp_gone(path: &Path, temp: &Path) -> WriteError {
    stopped(format!(
        "{}: its temp file {} was removed by another process right after the swap, so what the \
         swap replaced cannot be checked",
        path.display(),
        temp.display()
    ))
}

/// Lines appended onto `ours` since ccmem read it, found in the file at `out` (what a swap took
/// out of `path`), are handed on to `path` with an append of its own, so that they join any
/// appended there since (the client appends MEMORY.md entries). `false`: `out` no longer starts
/// with `ours` (it was rewritten, not appended to), and nothing was handed on.
fn hand_on_appended(out: &Path, ours: &[u8], path: &Path) -> Result<bool, WriteError> {
    let out = super::read_target(out)?.unwrap_or_default();
    let Some(added) = out.strip_prefix(ours) else {
        return Ok(false);
    };
    if !added.is_empty() {
        sys::append_synced(path, added).map_err(io_at(path))?;
    }
    Ok(true)
}

fn remove_file(p: &Path) -> Result<(), WriteError> {
    match std::fs::symlink_metadata(p) {
        Ok(_) => sys::unlink(p).map_err(io_at(p)),
        Err(_) => Ok(()),
    }
}

impl Lock {
    /// Swaps every target, then checks what each swap replaced. On an error: how many swaps
    /// were made, and the error (boxed: it is the rare path).
    pub(super) fn swap_all(
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

    /// Puts one entry's new content in place.
    fn swap(&self, e: &Entry, s: &mut Staged) -> Result<(), WriteError> {
        self.verify_folder()?;
        let path = &self.at(&e.path);
        let temp = e.temp.as_deref().map(|t| self.at(t));
        match (&temp, &e.old) {
            (Some(temp), Some(old)) => {
                fault::window();
                #[cfg(test)]
                tests::before_swap(path);
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
            return Err(stopped(format!(
                "{}: removed by another process right after ccmem put its new version there",
                path.display()
            )));
        };
        let theirs_hash = Hash::of(theirs);
        self.store_backup(&theirs_hash, theirs, e.mode)?;
        journal.entries[i].old = Some(theirs_hash.clone());
        let put_back = |lock: &Lock| -> Result<(), WriteError> {
            // Their version back at the path, ours out (it is discarded, but for lines another
            // writer appended onto it since it was read: those are handed on to theirs).
            if s.exchanged && super::hash_target(&temp)?.as_ref() == Some(&theirs_hash) {
                sys::exchange(&temp, &path).map_err(io_at(&path))?;
                hand_on_appended(&temp, &ours, &path)?;
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
        match sys::exchange(&staged, &path).map_err(io_at(&path))? {
            Renamed::Done => {
                // What the merge swapped out: ccmem's version, and whatever was written onto
                // it after it was read above. Rewritten, not appended to: undo the merge swap,
                // give up (their version stays in place).
                if !hand_on_appended(&staged, &ours, &path)? {
                    sys::exchange(&staged, &path).map_err(io_at(&path))?;
                    remove_file(&staged)?;
                    return Ok(None);
                }
                remove_file(&staged)?;
            }
            Renamed::Unsupported => sys::rename(&staged, &path).map_err(io_at(&path))?,
        }
        sys::sync_dir(&self.folder).map_err(io_at(&self.folder))?;
        Ok(Some(n))
    }
}

#[cfg(test)]
pub(super) mod tests;
