//! Applying, recovering and undoing operations under a held [`Lock`].

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::journal::{self, Entry, Journal, Paths, Progress};
use super::{
    Change, Hash, Lock, WriteError, hash_target, io_at, read_target, rename_synced, step, sync_dir,
    write_synced,
};

/// What an operation changed.
#[derive(Debug, Clone, Serialize)]
pub struct Applied {
    /// The operation.
    pub op: String,
    /// Files written, created or removed, in order.
    pub files: Vec<String>,
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

impl Lock {
    fn target(&self, name: &str) -> Result<PathBuf, WriteError> {
        let plain = !name.is_empty()
            && !name.contains('/')
            && name != "."
            && name != ".."
            && !name.starts_with(journal::STATE_DIR);
        if !plain {
            return Err(WriteError::Refused {
                path: self.folder.join(name),
                why: "not a plain file name in the memory folder".into(),
            });
        }
        Ok(self.folder.join(name))
    }

    /// Applies `changes` as one operation named `op`. Every target's hash is checked first and
    /// again just before its rename; on a mismatch the renames already done are reverted and
    /// [`WriteError::Conflict`] is returned.
    pub fn apply(&self, op: &str, changes: &[Change]) -> Result<Applied, WriteError> {
        let paths = Paths::of(&self.folder);
        let mut counter = 0;
        let mut checked = Vec::new();
        for c in changes {
            let path = self.target(&c.name)?;
            let current = read_target(&path)?;
            let found = current.as_deref().map(Hash::of);
            if found != c.expect {
                return Err(conflict(path, c.expect.clone(), found));
            }
            let mode = fs::metadata(&path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
            checked.push((c, current, found, mode));
        }
        fs::create_dir_all(&paths.backup).map_err(io_at(&paths.backup))?;
        let mut entries = Vec::new();
        for (c, current, found, mode) in checked {
            if let (Some(bytes), Some(hash)) = (&current, &found) {
                store_backup(&paths, hash, bytes)?;
                step(&mut counter);
            }
            let temp = match &c.new {
                Some(bytes) => {
                    let temp = temp_name(&c.name);
                    write_synced(&self.folder.join(&temp), bytes, mode)?;
                    step(&mut counter);
                    Some(temp)
                }
                None => None,
            };
            entries.push(Entry {
                name: c.name.clone(),
                old: found,
                new: c.new.as_deref().map(Hash::of),
                temp,
            });
        }
        sync_dir(&self.folder)?;
        let journal = Journal {
            version: 1,
            op: op.to_owned(),
            started: jiff::Timestamp::now().to_string(),
            entries,
        };
        let staged = paths.dir.join("journal.json.tmp");
        write_synced(&staged, &journal.to_bytes(), 0o644)?;
        rename_synced(&staged, &paths.pending)?;
        step(&mut counter);
        for (i, e) in journal.entries.iter().enumerate() {
            let path = self.folder.join(&e.name);
            #[cfg(test)]
            super::tests::before_rename(&path);
            let found = hash_target(&path)?;
            if found != e.old {
                let err = conflict(path, e.old.clone(), found);
                self.roll_back(&journal, &journal.entries[..i], &mut Vec::new())?;
                return Err(err);
            }
            finish(&self.folder, e)?;
            step(&mut counter);
        }
        commit(&paths)?;
        step(&mut counter);
        Ok(Applied {
            op: op.to_owned(),
            files: journal.entries.iter().map(|e| e.name.clone()).collect(),
        })
    }

    /// Finishes or reverts an operation a previous run left unfinished. `None` when there was
    /// nothing to do.
    pub fn recover(&self) -> Result<Option<Recovered>, WriteError> {
        let paths = Paths::of(&self.folder);
        let Some(bytes) = read_target(&paths.pending)? else {
            return self.remove_stale_temps();
        };
        let journal = Journal::parse(&paths.pending, &bytes).map_err(WriteError::Journal)?;
        let mut states = Vec::new();
        for e in &journal.entries {
            let current = hash_target(&self.target(&e.name)?)?;
            states.push(journal::progress(e, current.as_ref()));
        }
        let forward = journal.entries.iter().zip(&states).all(|(e, s)| match s {
            Progress::Done => true,
            Progress::Foreign => false,
            Progress::NotDone => temp_intact(&self.folder, e),
        });
        if forward {
            for (e, s) in journal.entries.iter().zip(&states) {
                if *s == Progress::NotDone {
                    finish(&self.folder, e)?;
                }
            }
            commit(&paths)?;
            return Ok(Some(Recovered::RolledForward { op: journal.op }));
        }
        let mut foreign = Vec::new();
        self.roll_back(&journal, &journal.entries, &mut foreign)?;
        Ok(Some(Recovered::RolledBack {
            op: journal.op,
            foreign,
        }))
    }

    /// Reverses the last committed operation (itself an operation: undoing twice redoes).
    pub fn undo(&self) -> Result<Applied, WriteError> {
        let paths = Paths::of(&self.folder);
        let Some(bytes) = read_target(&paths.last)? else {
            return Err(WriteError::Journal(format!(
                "{}: no committed ccmem operation to undo",
                paths.last.display()
            )));
        };
        let last = Journal::parse(&paths.last, &bytes).map_err(WriteError::Journal)?;
        let mut changes = Vec::new();
        for e in last.entries.iter().rev() {
            let old = match &e.old {
                Some(h) => Some(read_backup(&paths, h)?),
                None => None,
            };
            changes.push(Change {
                name: e.name.clone(),
                expect: e.new.clone(),
                new: old,
            });
        }
        let op = match last.op.strip_prefix("undo of ") {
            Some(orig) => orig.to_owned(),
            None => format!("undo of {}", last.op),
        };
        self.apply(&op, &changes)
    }

    /// Restores `done` entries from the backups (skipping those someone else changed, listed in
    /// `foreign`), removes every temp file and the pending journal.
    fn roll_back(
        &self,
        journal: &Journal,
        done: &[Entry],
        foreign: &mut Vec<String>,
    ) -> Result<(), WriteError> {
        let paths = Paths::of(&self.folder);
        for e in done.iter().rev() {
            let path = self.folder.join(&e.name);
            let current = hash_target(&path)?;
            match journal::progress(e, current.as_ref()) {
                Progress::NotDone => {}
                Progress::Foreign => foreign.push(e.name.clone()),
                Progress::Done => match &e.old {
                    Some(h) => {
                        let bytes = read_backup(&paths, h)?;
                        let temp = self.folder.join(temp_name(&e.name));
                        let mode =
                            fs::metadata(&path).map_or(0o644, |m| m.permissions().mode() & 0o7777);
                        write_synced(&temp, &bytes, mode)?;
                        rename_synced(&temp, &path)?;
                    }
                    None => {
                        fs::remove_file(&path).map_err(io_at(&path))?;
                        sync_dir(&self.folder)?;
                    }
                },
            }
        }
        for e in &journal.entries {
            if let Some(t) = &e.temp {
                let _ = fs::remove_file(self.folder.join(t));
            }
        }
        fs::remove_file(&paths.pending).map_err(io_at(&paths.pending))?;
        sync_dir(&paths.dir)?;
        sync_dir(&self.folder)
    }

    fn remove_stale_temps(&self) -> Result<Option<Recovered>, WriteError> {
        let mut files = Vec::new();
        let dir = fs::read_dir(&self.folder).map_err(io_at(&self.folder))?;
        for entry in dir.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && name.ends_with(TEMP_SUFFIX) {
                fs::remove_file(entry.path()).map_err(io_at(&entry.path()))?;
                files.push(name);
            }
        }
        files.sort();
        Ok((!files.is_empty()).then_some(Recovered::TempsRemoved { files }))
    }
}

const TEMP_SUFFIX: &str = ".ccmem-tmp";

/// Whether `folder` holds traces of an interrupted operation (a pending journal or stale temp
/// files), which [`Lock::recover`] would clean up.
pub fn needs_recovery(folder: &Path) -> bool {
    if Paths::of(folder).pending.exists() {
        return true;
    }
    fs::read_dir(folder).is_ok_and(|dir| {
        dir.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with('.') && name.ends_with(TEMP_SUFFIX)
        })
    })
}

fn temp_name(name: &str) -> String {
    format!(".{name}{TEMP_SUFFIX}")
}

fn conflict(path: PathBuf, expected: Option<Hash>, found: Option<Hash>) -> WriteError {
    WriteError::Conflict {
        path,
        expected,
        found,
    }
}

fn temp_intact(folder: &Path, e: &Entry) -> bool {
    match (&e.temp, &e.new) {
        (Some(t), Some(h)) => {
            matches!(hash_target(&folder.join(t)), Ok(Some(found)) if &found == h)
        }
        (None, None) => true,
        _ => false,
    }
}

/// Performs one entry's rename (or removal).
fn finish(folder: &Path, e: &Entry) -> Result<(), WriteError> {
    let path = folder.join(&e.name);
    match &e.temp {
        Some(t) => rename_synced(&folder.join(t), &path),
        None => {
            match fs::remove_file(&path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    return Err(io_at(&path)(err));
                }
                _ => {}
            }
            sync_dir(folder)
        }
    }
}

/// Commits the pending journal and drops backups the new `last.json` no longer needs.
fn commit(paths: &Paths) -> Result<(), WriteError> {
    rename_synced(&paths.pending, &paths.last)?;
    let keep: BTreeSet<String> = match read_target(&paths.last)? {
        Some(bytes) => Journal::parse(&paths.last, &bytes)
            .map_err(WriteError::Journal)?
            .entries
            .iter()
            .filter_map(|e| e.old.as_ref().map(|h| h.as_str().to_owned()))
            .collect(),
        None => BTreeSet::new(),
    };
    if let Ok(dir) = fs::read_dir(&paths.backup) {
        for entry in dir.flatten() {
            if !keep.contains(entry.file_name().to_string_lossy().as_ref()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

fn store_backup(paths: &Paths, hash: &Hash, bytes: &[u8]) -> Result<(), WriteError> {
    let path = paths.backup_of(hash);
    if matches!(hash_target(&path), Ok(Some(h)) if &h == hash) {
        return Ok(());
    }
    let staged = paths.backup.join(format!("{hash}.tmp"));
    write_synced(&staged, bytes, 0o600)?;
    rename_synced(&staged, &path)?;
    sync_dir(&paths.dir)
}

fn read_backup(paths: &Paths, hash: &Hash) -> Result<Vec<u8>, WriteError> {
    let path = paths.backup_of(hash);
    match read_target(&path)? {
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
