//! The state folder: `.ccmem/` in a memory folder (for a settings file, a folder of ccmem's
//! state home), and its `backup/`. Each is opened once without following a link and then used
//! only through that descriptor (`openat`, `renameat`, `unlinkat`), so a link planted at
//! `.ccmem` or `.ccmem/backup`, or swapped in while ccmem runs, is never followed: nothing is
//! read, written or deleted through it.
//!
//! A state folder must be a real folder of this user that no one else may enter: ccmem creates
//! it 0700, so one that is group- or world-accessible was made by something else (a repository
//! that ships one, a sync tool). A link, a file, a folder of another user or of a wider mode is
//! refused with the reason, and nothing in it is read.
//!
//! Files in it are read only as regular files, without following a link, and never past a cap
//! (see [`MAX_RECORD`]); they are replaced through a temp file and a rename, like user files.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::fault::point;
use super::{WriteError, io_at, sys};
use crate::constants::{Bytes, Count};
use crate::sys::{self as os, Dir, Kind, OsError, Stat};

/// Largest journal or undo history ccmem reads (bytes). A journal of a `tier` over a library of
/// hundreds of files is tens of KB; anything larger was not written by ccmem.
pub const MAX_RECORD: u64 = 4 << 20;

/// A state folder, opened.
#[derive(Debug)]
pub(crate) struct StateDir {
    dir: Dir,
    path: PathBuf,
}

/// Why a state folder is refused, in words (`None`: it is ccmem's own).
fn judge(st: &Stat) -> Option<String> {
    if st.kind != Kind::Dir {
        return Some(format!("is not a folder ({})", kind_name(st.kind)));
    }
    let me = sys::euid();
    if st.uid != me {
        return Some(format!(
            "is owned by user {} (you are {me}); ccmem uses only a state folder of its own user",
            st.uid
        ));
    }
    let mode = st.mode;
    if mode & 0o077 != 0 {
        return Some(format!(
            "has mode {mode:04o}; ccmem makes its state folder 0700 (yours only), so this one was \
             made by something else (a repository that ships it, another tool)"
        ));
    }
    None
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "a regular file",
        Kind::Dir => "a folder",
        Kind::Symlink => "a symbolic link",
        Kind::Fifo => "a FIFO",
        Kind::Socket => "a socket",
        Kind::CharDevice => "a character device",
        Kind::BlockDevice => "a block device",
        Kind::Unknown => "an unknown kind of file",
    }
}

fn refused(path: &Path, why: String) -> WriteError {
    WriteError::Refused {
        path: path.to_owned(),
        why: format!(
            "{why}: ccmem keeps its journal and backups only in a folder of its own and reads \
             nothing from this one; look at it, then remove it (ccmem makes a new one)"
        ),
    }
}

/// Why opening a state folder failed with `e`: a link or a file in its place is named as such.
fn open_error(path: &Path, e: io::Error) -> WriteError {
    if matches!(
        os::os_error(&e),
        Some(OsError::Loop | OsError::NotADirectory | OsError::TooManyLinks)
    ) {
        let what = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => "is a symbolic link".to_owned(),
            Ok(m) => format!("is not a folder ({})", crate::fsread::kind_of(&m)),
            Err(_) => "is not a folder".to_owned(),
        };
        return refused(path, what);
    }
    io_at(path)(e)
}

impl StateDir {
    /// Opens the state folder at `path` (`None`: there is none), refusing anything but ccmem's own.
    pub(crate) fn open(path: &Path) -> Result<Option<StateDir>, WriteError> {
        match Dir::open(path) {
            Ok(dir) => Self::checked(dir, path.to_owned()).map(Some),
            Err(e) if os::os_error(&e) == Some(OsError::NotFound) => Ok(None),
            Err(e) => Err(open_error(path, e)),
        }
    }

    /// Opens the state folder at `path`, creating it (0700) and the folders above it that are
    /// missing (0700 too: they are in ccmem's state home).
    pub(crate) fn create(path: &Path) -> Result<StateDir, WriteError> {
        if let Some(s) = Self::open(path)? {
            return Ok(s);
        }
        if let Some(parent) = path.parent() {
            sys::create_dirs(parent, 0o700).map_err(io_at(parent))?;
        }
        point("mkdir");
        match os::mkdir(path, 0o700) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_at(path)(e)),
        }
        Self::open(path)?.ok_or_else(|| {
            io_at(path)(io::Error::new(
                io::ErrorKind::NotFound,
                "the state folder vanished as it was made",
            ))
        })
    }

    fn checked(dir: Dir, path: PathBuf) -> Result<StateDir, WriteError> {
        let st = dir.stat().map_err(io_at(&path))?;
        match judge(&st) {
            Some(why) => Err(refused(&path, why)),
            None => Ok(StateDir { dir, path }),
        }
    }

    /// The folder `name` inside this one, held to the same rules (`None`: missing, and not
    /// `create`d).
    pub(crate) fn sub(&self, name: &str, create: bool) -> Result<Option<StateDir>, WriteError> {
        let path = self.path.join(name);
        let open = || self.dir.open_at(name);
        match open() {
            Ok(dir) => return Self::checked(dir, path).map(Some),
            Err(e) if os::os_error(&e) == Some(OsError::NotFound) && create => {}
            Err(e) if os::os_error(&e) == Some(OsError::NotFound) => return Ok(None),
            Err(e) => return Err(open_error(&path, e)),
        }
        point("mkdir");
        match self.dir.mkdir_at(name, 0o700) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_at(&path)(e)),
        }
        match open() {
            Ok(dir) => Self::checked(dir, path).map(Some),
            Err(e) => Err(open_error(&path, e)),
        }
    }

    /// The path of `name` in this folder (for messages).
    pub(crate) fn path_of(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The bytes of the regular file `name` (`None`: missing), at most `cap` of them: a link, a
    /// special file or a larger file is refused.
    pub(crate) fn read(&self, name: &str, cap: u64) -> Result<Option<Vec<u8>>, WriteError> {
        let path = self.path_of(name);
        let file = match self.dir.open_read_at(name) {
            Ok(file) => file,
            Err(e) if os::os_error(&e) == Some(OsError::NotFound) => return Ok(None),
            Err(e) if os::os_error(&e) == Some(OsError::Loop) => {
                return Err(refused(
                    &path,
                    "is a symbolic link, which ccmem never follows in its state folder".into(),
                ));
            }
            Err(e) => return Err(io_at(&path)(e)),
        };
        let m = file.metadata().map_err(io_at(&path))?;
        let kind = os::kind(&m);
        if kind != Kind::File {
            return Err(refused(
                &path,
                format!("is {}, not a regular file", kind_name(kind)),
            ));
        }
        let len = m.len();
        if len > cap {
            return Err(WriteError::Refused {
                path,
                why: format!(
                    "is {} bytes, more than ccmem ever writes there ({}); it was not made by \
                     ccmem, and ccmem reads none of it",
                    Count(len as usize),
                    Bytes(cap)
                ),
            });
        }
        let mut bytes = Vec::with_capacity(len as usize);
        file.take(cap + 1)
            .read_to_end(&mut bytes)
            .map_err(io_at(&path))?;
        if bytes.len() as u64 > cap {
            return Err(WriteError::Refused {
                path,
                why: format!("grew past {cap} bytes while ccmem read it"),
            });
        }
        Ok(Some(bytes))
    }

    /// Replaces (or creates) `name` with `bytes`, mode `mode`, durably: a temp file in this
    /// folder, fsync, `renameat`, fsync of the folder.
    pub(crate) fn put(&self, name: &str, bytes: &[u8], mode: u32) -> Result<(), WriteError> {
        let temp = format!(".{name}{}.{}", super::target::TEMP_MARK, sys::unique());
        let at = self.path_of(&temp);
        let result = (|| -> io::Result<()> {
            point("open");
            let mut f = self.dir.create_at(&temp, 0o600)?;
            point("write");
            f.write_all(bytes)?;
            point("fchmod");
            os::set_mode(&f, mode & 0o777)?;
            point("fsync");
            f.sync_all()?;
            point("rename");
            self.dir.rename_at(&temp, name)?;
            Ok(())
        })();
        if let Err(e) = result {
            let _ = self.dir.unlink_at(&temp);
            return Err(io_at(&at)(e));
        }
        self.sync()
    }

    /// Whether anything is at `name` (a link is not followed).
    pub(crate) fn exists(&self, name: &str) -> bool {
        self.dir.stat_at(name).is_ok()
    }

    /// Removes the file `name` if it is there (a link is removed itself, never followed).
    pub(crate) fn remove(&self, name: &str) -> Result<(), WriteError> {
        let missing = |e: &io::Error| os::os_error(e) == Some(OsError::NotFound);
        match self.dir.stat_at(name) {
            Err(e) if missing(&e) => return Ok(()),
            Err(e) => return Err(io_at(&self.path_of(name))(e)),
            Ok(_) => {}
        }
        point("unlink");
        match self.dir.unlink_at(name) {
            Ok(()) => Ok(()),
            Err(e) if missing(&e) => Ok(()),
            Err(e) => Err(io_at(&self.path_of(name))(e)),
        }
    }

    /// Makes renames and removals in this folder durable.
    pub(crate) fn sync(&self) -> Result<(), WriteError> {
        point("fsync-dir");
        self.dir.sync().map_err(io_at(&self.path))
    }

    /// The names in this folder that are regular files of this user (never following a link),
    /// sorted.
    pub(crate) fn files(&self) -> Vec<String> {
        let Ok(names) = self.dir.names() else {
            return Vec::new();
        };
        let me = sys::euid();
        let mut out: Vec<String> = names
            .into_iter()
            .filter(|n| {
                self.dir
                    .stat_at(n)
                    .is_ok_and(|st| st.kind == Kind::File && st.uid == me)
            })
            .collect();
        out.sort();
        out
    }
}

// Unix only: symbolic links, permission bits (none of them on Windows as
// wine 8 runs its tests here: see crate::sys).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn only_a_private_folder_of_ours_is_used() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        assert!(StateDir::open(&d.join("none")).unwrap().is_none());
        let s = StateDir::create(&d.join("s")).unwrap();
        s.put("a.json", b"{}", 0o600).unwrap();
        assert_eq!(s.read("a.json", 10).unwrap().unwrap(), b"{}");
        assert!(s.read("a.json", 1).is_err(), "over the cap");
        assert_eq!(s.files(), ["a.json"]);
        std::fs::create_dir(d.join("wide")).unwrap();
        std::fs::set_permissions(d.join("wide"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let err = StateDir::open(&d.join("wide")).unwrap_err().to_string();
        assert!(err.contains("has mode 0755"), "{err}");
        std::os::unix::fs::symlink("s", d.join("link")).unwrap();
        let err = StateDir::open(&d.join("link")).unwrap_err().to_string();
        assert!(err.contains("is a symbolic link"), "{err}");
        std::fs::write(d.join("file"), "").unwrap();
        let err = StateDir::open(&d.join("file")).unwrap_err().to_string();
        assert!(err.contains("is not a folder"), "{err}");
        std::os::unix::fs::symlink(d.join("s/a.json"), d.join("s/l.json")).unwrap();
        let err = s.read("l.json", 10).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
        s.remove("l.json").unwrap();
        assert!(
            d.join("s/a.json").exists(),
            "a link is removed, not its target"
        );
    }
}
