//! Journal and undo records are input, never authority. Before ccmem acts on one (recovery,
//! undo, redo, the readers' preview) it is checked against the folder it belongs to, and a
//! record that breaks a rule is reported (file, entry, why) and nothing is done with it:
//!
//! - every file it names is one path component inside that folder: no `/`, `\`, `.`, `..`,
//!   NUL, no absolute path (an older record's absolute path must be in the folder itself), not
//!   `.ccmem`; no file is named twice;
//! - a temp file is a name ccmem makes for that file (`.<file>.ccmem-tmp.<6 characters>`),
//!   in the same folder: only such names are ever renamed or deleted;
//! - hashes are SHA-256 hex (checked as the record is parsed: a backup's name is its hash);
//! - modes are permission bits only (no setuid, setgid or sticky bit);
//! - folders to remove: none in a memory folder; for a settings file, only the folder it is
//!   in and folders above it (those a first install creates);
//! - at most [`MAX_ENTRIES`] files.
//!
//! A record that passes is normalized: its paths become the plain file names. Records are read
//! only through [`load_journal`] and [`load_history`], which parse and check them in one step.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::WriteError;
use super::journal::{self, History, Journal, STATE_DIR, VERSION};
use super::state::{MAX_RECORD, StateDir};
use super::target::is_temp_of;

/// Most files one record may name (a `tier` of the largest libraries writes a few hundred).
pub const MAX_ENTRIES: usize = 10_000;

/// The longest file name a file system takes (bytes).
const MAX_NAME: usize = 255;

/// Where a record's files live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// A memory folder: plain names, no folders created.
    Memory,
    /// A settings file's folder (which a first install may create).
    Settings,
}

/// Why a record is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bad {
    /// The entry (`None`: the record as a whole): its position (1-based) and name.
    pub entry: Option<(usize, String)>,
    /// Why.
    pub why: String,
}

impl fmt::Display for Bad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.entry {
            Some((n, name)) => write!(f, "entry {n} ({name:?}): {}", self.why),
            None => f.write_str(&self.why),
        }
    }
}

fn bad(why: impl Into<String>) -> Bad {
    Bad {
        entry: None,
        why: why.into(),
    }
}

/// Why `name` is not one plain file name (`None`: it is).
pub(crate) fn plain_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if name.len() > MAX_NAME {
        Some("is longer than a file name can be")
    } else if name.contains('\0') {
        Some("holds a NUL byte")
    } else if name.contains('/') || name.contains('\\') {
        Some("is a path, not a file name of this folder")
    } else if name == "." || name == ".." {
        Some("names a folder, not a file")
    } else if name == STATE_DIR {
        Some("names ccmem's state folder")
    } else {
        None
    }
}

/// The plain file name `p` stands for in `folder`: `p` itself when it is one component, or an
/// absolute path whose folder is exactly `folder` (records before version 3).
fn in_folder(p: &Path, folder: &Path) -> Result<String, String> {
    let name = if p.is_absolute() {
        if p.parent() != Some(folder) {
            return Err(format!(
                "{} is outside the folder {}",
                p.display(),
                folder.display()
            ));
        }
        p.file_name().unwrap_or_default()
    } else {
        p.as_os_str()
    };
    let Some(name) = name.to_str() else {
        return Err(format!("{} is not valid UTF-8", p.display()));
    };
    match plain_name_problem(name) {
        Some(why) => Err(format!("{name:?} {why}")),
        None => Ok(name.to_owned()),
    }
}

/// Checks `j` against `folder` (see the module header) and normalizes its paths to plain names.
pub(crate) fn check(j: &mut Journal, folder: &Path, place: Place) -> Result<(), Bad> {
    if j.version == 0 || j.version > VERSION {
        return Err(bad(format!(
            "format version {} is not one this ccmem knows (1 to {VERSION})",
            j.version
        )));
    }
    if j.entries.len() > MAX_ENTRIES {
        return Err(bad(format!(
            "names {} files, more than one operation ever writes ({MAX_ENTRIES})",
            j.entries.len()
        )));
    }
    match place {
        Place::Memory => {
            if let Some(d) = j.created_dirs.first() {
                return Err(bad(format!(
                    "lists a folder to remove ({}); ccmem creates none in a memory folder",
                    d.display()
                )));
            }
        }
        Place::Settings => {
            for d in &j.created_dirs {
                // A Windows path starts with its drive (a prefix component).
                let normal = d.is_absolute()
                    && d.components().all(|c| {
                        matches!(
                            c,
                            Component::Prefix(_) | Component::RootDir | Component::Normal(_)
                        )
                    });
                if !normal || d.parent().is_none() || !folder.starts_with(d) {
                    return Err(bad(format!(
                        "lists the folder {} to remove, which is not {} or a folder above it",
                        d.display(),
                        folder.display()
                    )));
                }
            }
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, e) in j.entries.iter_mut().enumerate() {
        let at = |why: String| Bad {
            entry: Some((i + 1, e.name.clone())),
            why,
        };
        if let Some(why) = plain_name_problem(&e.name) {
            return Err(at(format!("its name {why}")));
        }
        let file = if e.path.as_os_str().is_empty() {
            e.name.clone()
        } else {
            in_folder(&e.path, folder).map_err(|w| at(format!("its file: {w}")))?
        };
        if !seen.insert(file.clone()) {
            return Err(at(format!("names {file:?} a second time")));
        }
        if e.mode & !0o777 != 0 {
            return Err(at(format!(
                "mode {:o} is not permission bits (ccmem never sets setuid, setgid or sticky)",
                e.mode
            )));
        }
        if let Some(t) = &e.temp {
            let temp = in_folder(t, folder).map_err(|w| at(format!("its temp file: {w}")))?;
            if !is_temp_of(&temp, Some(&file)) {
                return Err(at(format!(
                    "its temp file {temp:?} is not a name ccmem makes for {file:?} \
                     (.{file}.ccmem-tmp.XXXXXX)"
                )));
            }
            e.temp = Some(PathBuf::from(temp));
        }
        e.path = PathBuf::from(file);
    }
    Ok(())
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
    state: &StateDir,
    name: &str,
    folder: &Path,
    place: Place,
    cap: u64,
) -> Result<Option<Journal>, WriteError> {
    let path = state.path_of(name);
    let Some(bytes) = state.read(name, cap)? else {
        return Ok(None);
    };
    let remedy = if name == journal::PENDING {
        JOURNAL_REMEDY
    } else {
        HISTORY_REMEDY
    };
    let mut j: Journal = serde_json::from_slice(&bytes).map_err(|e| {
        let why = format!("not a ccmem journal: {e}");
        bad_record(path.clone(), Bad { entry: None, why }, remedy)
    })?;
    check(&mut j, folder, place).map_err(|b| bad_record(path.clone(), b, remedy))?;
    Ok(Some(j))
}

/// The undo history in `state` (empty when there is none; from `last.json` when only an older
/// ccmem wrote here), every record checked against `folder`.
pub(super) fn load_history(
    state: &StateDir,
    folder: &Path,
    place: Place,
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
            check(j, folder, place)
                .map_err(|b| fail(format!("operation {} (`{op}`): {b}", k + 1)))?;
        }
        return Ok(h);
    }
    match load_journal(state, journal::LAST, folder, place, MAX_RECORD)? {
        Some(last) => Ok(History::from_last(last)),
        None => Ok(History::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::Hash;
    use super::super::journal::Entry;
    use super::*;

    fn journal(path: &str, temp: Option<&str>) -> Journal {
        Journal::pending(
            "t",
            vec![Entry {
                name: "x.md".into(),
                path: path.into(),
                old: Some(Hash::of(b"a")),
                new: None,
                temp: temp.map(PathBuf::from),
                mode: 0o644,
                interim: None,
            }],
        )
    }

    #[test]
    fn only_plain_names_of_the_folder_and_ccmem_temps_pass() {
        // Records before version 3 hold absolute paths, in the platform's own syntax.
        let folder = Path::new(if cfg!(windows) { r"C:\m" } else { "/m" });
        let abs = |name: &str| folder.join(name).to_string_lossy().into_owned();
        let (x, x_temp) = (abs("x.md"), abs(".x.md.ccmem-tmp.ab12cd"));
        let below = folder
            .join("sub")
            .join("x.md")
            .to_string_lossy()
            .into_owned();
        for (path, temp, ok) in [
            ("x.md", Some(".x.md.ccmem-tmp.ab12cd"), true),
            (x.as_str(), Some(x_temp.as_str()), true),
            ("", None, true),
            ("../x.md", None, false),
            ("/etc/passwd", None, false),
            (below.as_str(), None, false),
            (".git/hooks/pre-commit", None, false),
            ("a\\b", None, false),
            ("..", None, false),
            (".ccmem", None, false),
            ("x.md", Some("x"), false),
            ("x.md", Some(".y.md.ccmem-tmp.ab12cd"), false),
            ("x.md", Some("/n/.x.md.ccmem-tmp.ab12cd"), false),
        ] {
            let mut j = journal(path, temp);
            let r = check(&mut j, folder, Place::Memory);
            assert_eq!(r.is_ok(), ok, "{path:?} {temp:?}: {r:?}");
            if ok {
                assert_eq!(j.entries[0].path, Path::new("x.md"));
            }
        }
        let mut j = journal("x.md", None);
        j.entries[0].mode = 0o4755;
        assert!(check(&mut j, folder, Place::Memory).is_err());
        let mut j = journal("x.md", None);
        j.entries.push(j.entries[0].clone());
        let err = check(&mut j, folder, Place::Memory).unwrap_err();
        assert_eq!(err.entry.unwrap().0, 2);
        let mut j = journal("x.md", None);
        j.created_dirs = vec![folder.to_path_buf()];
        assert!(check(&mut j, folder, Place::Memory).is_err());
        assert!(check(&mut j, folder, Place::Settings).is_ok());
        j.created_dirs = vec![folder.join("..").join("etc")];
        assert!(check(&mut j, folder, Place::Settings).is_err());
        j.created_dirs = vec![folder.ancestors().last().unwrap().to_path_buf()];
        assert!(check(&mut j, folder, Place::Settings).is_err());
    }
}
