//! Targets: resolving a name to the file really written (links written through), opening it
//! without blocking, temp file names, the mode of new files, and what is at a target's path now.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::journal::{self, Entry, Progress};
use super::sys::{self, Held, OpenError};
use super::{Hash, WriteError, io_at};
use crate::constants::{Bytes, Count};

/// Largest file ccmem will read back or replace (bytes).
pub const MAX_FILE: u64 = 64 << 20;

/// Symbolic links followed before giving up (the kernel's own limit).
const MAX_LINKS: usize = 40;

/// The marker in every temp file name: `.<name>.ccmem-tmp.<6 characters>`.
pub(crate) const TEMP_MARK: &str = ".ccmem-tmp";

/// The file a write to `path` really changes: `path` itself, or the final target of the symbolic
/// link(s) at `path`. A dangling link, a loop, or a target that is not a regular file is refused;
/// a missing `path` is fine (it will be created).
pub(crate) fn resolve(path: &Path) -> Result<PathBuf, WriteError> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&at).map_err(io_at(&at))?;
                let next = at.parent().unwrap_or(Path::new("/")).join(to);
                if !next.parent().is_some_and(Path::is_dir) || !exists(&next)? {
                    return Err(WriteError::Refused {
                        path: path.to_owned(),
                        why: format!(
                            "is a symbolic link to {}, which does not exist; ccmem writes through \
                             links but never replaces one: create the file it points to (even \
                             empty) or remove the link, then run again",
                            next.display()
                        ),
                    });
                }
                at = next;
            }
            Ok(m) if m.is_file() => return Ok(at),
            Ok(m) => {
                return Err(WriteError::Refused {
                    path: path.to_owned(),
                    why: format!(
                        "is not a regular file ({}); ccmem never writes to one",
                        crate::fsread::kind_of(&m)
                    ),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(at),
            Err(e) if crate::sys::os_error(&e) == Some(crate::sys::OsError::NotADirectory) => {
                return Err(WriteError::Refused {
                    path: path.to_owned(),
                    why: "a part of this path is a file, not a folder".into(),
                });
            }
            Err(e) => return Err(io_at(&at)(e)),
        }
    }
    Err(WriteError::Refused {
        path: path.to_owned(),
        why: format!("symbolic links nested more than {MAX_LINKS} deep (a loop?)"),
    })
}

fn exists(p: &Path) -> Result<bool, WriteError> {
    match fs::symlink_metadata(p) {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(io_at(p)(e)),
    }
}

/// Opens a resolved target for reading (`None`: missing), refusing anything but a regular file.
pub(crate) fn open(path: &Path) -> Result<Option<Held>, WriteError> {
    match sys::open_read(path, MAX_FILE) {
        Ok(h) => Ok(Some(h)),
        Err(OpenError::Missing) => Ok(None),
        Err(OpenError::Symlink) => Err(WriteError::Refused {
            path: path.to_owned(),
            why: "became a symbolic link while ccmem was reading it".into(),
        }),
        Err(OpenError::NotRegular(kind)) => Err(WriteError::Refused {
            path: path.to_owned(),
            why: format!("is not a regular file ({kind}); ccmem never writes to one"),
        }),
        Err(OpenError::TooLarge(n)) => Err(WriteError::Refused {
            path: path.to_owned(),
            why: format!(
                "is {} bytes, more than ccmem edits ({})",
                Count(n as usize),
                Bytes(MAX_FILE)
            ),
        }),
        Err(OpenError::Io(e)) => Err(io_at(path)(e)),
    }
}

/// A fresh temp file name next to `path`.
pub(crate) fn temp_for(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}{TEMP_MARK}.{}", sys::unique()))
}

/// Whether `file_name` is one of ccmem's temp files for the target named `target` (any target,
/// when `None`): `.<target>.ccmem-tmp.<6 characters>` (or the older `.<target>.ccmem-tmp`).
pub(crate) fn is_temp_of(file_name: &str, target: Option<&str>) -> bool {
    let Some(rest) = file_name.strip_prefix('.') else {
        return false;
    };
    let Some(at) = rest.rfind(TEMP_MARK) else {
        return false;
    };
    let (name, tail) = (&rest[..at], &rest[at + TEMP_MARK.len()..]);
    let tail_ok = tail.is_empty()
        || (tail.len() == 7
            && tail.starts_with('.')
            && tail[1..].bytes().all(|b| b.is_ascii_alphanumeric()));
    !name.is_empty() && tail_ok && target.is_none_or(|t| t == name)
}

/// The stale temp files in `folder` (of `target` only, when given) that are safe to remove:
/// regular files owned by this user. Anything else with such a name (a FIFO, a folder, another
/// user's file) is left alone.
pub(crate) fn stale_temps(folder: &Path, target: Option<&str>) -> Vec<PathBuf> {
    let Ok(dir) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = dir
        .flatten()
        .filter(|e| is_temp_of(&e.file_name().to_string_lossy(), target))
        .filter(|e| {
            fs::symlink_metadata(e.path())
                .is_ok_and(|m| m.is_file() && crate::sys::uid(&m) == sys::euid())
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// The mode of new files in a memory folder: its MEMORY.md's, else the most common among its
/// regular files, else 0644 under the process umask.
pub(crate) fn library_mode(folder: &Path) -> u32 {
    let mode = |p: &Path| {
        fs::metadata(p)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| crate::sys::mode(&m) & 0o777)
    };
    if let Some(m) = mode(&folder.join("MEMORY.md")) {
        return m;
    }
    let mut counts = std::collections::BTreeMap::new();
    if let Ok(dir) = fs::read_dir(folder) {
        for e in dir.flatten() {
            if !e.file_name().to_string_lossy().starts_with('.')
                && let Ok(m) = e.metadata()
                && m.is_file()
            {
                *counts.entry(crate::sys::mode(&m) & 0o777).or_insert(0usize) += 1;
            }
        }
    }
    counts
        .into_iter()
        .max_by_key(|(mode, n)| (*n, *mode))
        .map_or_else(|| 0o644 & !crate::sys::umask(), |(m, _)| m)
}

/// The state folder (journal, backups) for a settings file whose real path is `real`, under
/// ccmem's state home `home` (`$XDG_STATE_HOME/ccmem`, else `~/.local/state/ccmem`): one folder
/// per file, named by the hash of its path, so nothing of ccmem's sits next to the settings.
pub fn settings_state(home: &Path, real: &Path) -> PathBuf {
    let key = Hash::of(real.as_os_str().as_encoded_bytes());
    home.join("settings").join(&key.as_str()[..16])
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
    match sys::open_read(path, MAX_FILE) {
        Ok(h) => Ok((Current::File(Hash::of(&h.bytes)), Some(h.bytes))),
        Err(OpenError::Missing) => Ok((Current::Missing, None)),
        Err(OpenError::Symlink | OpenError::NotRegular(_) | OpenError::TooLarge(_)) => {
            Ok((Current::Other, None))
        }
        Err(OpenError::Io(e)) => Err(io_at(path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognised_exactly() {
        assert!(is_temp_of(".MEMORY.md.ccmem-tmp.ab12cd", Some("MEMORY.md")));
        assert!(is_temp_of(".MEMORY.md.ccmem-tmp", None));
        assert!(!is_temp_of(".MEMORY.md.ccmem-tmp.ab12cd", Some("a.md")));
        assert!(!is_temp_of("MEMORY.md.ccmem-tmp.ab12cd", None));
        assert!(!is_temp_of(".MEMORY.md.ccmem-tmp.ab", None));
        assert!(!is_temp_of(".ccmem-tmp.abcdef", None));
        let t = temp_for(Path::new("/x/settings.json"));
        let n = t.file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temp_of(&n, Some("settings.json")), "{n}");
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn links_are_resolved_and_dangling_ones_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        fs::write(d.join("real.json"), "{}").unwrap();
        std::os::unix::fs::symlink("real.json", d.join("a")).unwrap();
        std::os::unix::fs::symlink("a", d.join("b")).unwrap();
        assert_eq!(resolve(&d.join("b")).unwrap(), d.join("real.json"));
        assert_eq!(resolve(&d.join("new")).unwrap(), d.join("new"));
        std::os::unix::fs::symlink("gone.json", d.join("dangling")).unwrap();
        let err = resolve(&d.join("dangling")).unwrap_err().to_string();
        assert!(err.contains("gone.json, which does not exist"), "{err}");
        std::os::unix::fs::symlink("loop", d.join("loop")).unwrap();
        assert!(resolve(&d.join("loop")).is_err());
        fs::create_dir(d.join("dir")).unwrap();
        let err = resolve(&d.join("dir")).unwrap_err().to_string();
        assert!(err.contains("not a regular file (directory)"), "{err}");
    }
}
