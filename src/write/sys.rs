//! The write system calls, each behind a fault point (see [`super::fault`]), and the reads that
//! never block: every file is opened with `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat`
//! before a byte is read, so a FIFO or a device in a target's place is refused, not waited on.
//! The calls themselves, and what each means on Windows, are [`crate::sys`]'s.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::path::Path;

use super::fault::point;
use crate::sys::{self as os, OsError};
pub(crate) use crate::sys::{Renamed, egid, euid, open_for_writing_elsewhere};

/// What `fstat` said about an opened target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Permission bits (`& 0o7777`).
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Device and inode: which file this is (`(0, 0)` where the platform does not say: Windows).
    pub id: (u64, u64),
}

impl Meta {
    pub(crate) fn of(m: &fs::Metadata) -> Self {
        Meta {
            mode: os::mode(m),
            uid: os::uid(m),
            gid: os::gid(m),
            id: os::file_id(m).unwrap_or((0, 0)),
        }
    }
}

/// A target opened for reading: the file, what it was when opened, and its bytes.
#[derive(Debug)]
pub(crate) struct Held {
    /// The open file; `None` once the writer has let go of it (Windows will not replace a file
    /// that is open where it cannot rename with POSIX semantics: see `swap::Lock::swap`).
    pub file: Option<File>,
    pub meta: Meta,
    pub bytes: Vec<u8>,
}

/// Why an opened path is not a readable regular file.
#[derive(Debug)]
pub(crate) enum OpenError {
    /// Nothing there.
    Missing,
    /// A symbolic link (never followed here: callers resolve links first).
    Symlink,
    /// Not a regular file: its kind in words.
    NotRegular(&'static str),
    /// Larger than the cap.
    TooLarge(u64),
    /// Any other I/O error.
    Io(io::Error),
}

/// Opens `path` without following a final symlink and without blocking, checks that it is a
/// regular file of at most `limit` bytes, and reads it.
pub(crate) fn open_read(path: &Path, limit: u64) -> Result<Held, OpenError> {
    let file = match os::open_no_follow(OpenOptions::new().read(true), path, true) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OpenError::Missing),
        Err(e) if os::os_error(&e) == Some(OsError::Loop) => return Err(OpenError::Symlink),
        Err(e) if os::os_error(&e) == Some(OsError::NoDevice) => {
            // O_NONBLOCK on a FIFO without a writer opens fine; ENXIO is a socket or a FIFO
            // opened for writing: not a regular file either way.
            return Err(OpenError::NotRegular("socket"));
        }
        Err(e) => return Err(OpenError::Io(e)),
    };
    let m = file.metadata().map_err(OpenError::Io)?;
    if !m.is_file() {
        return Err(OpenError::NotRegular(crate::fsread::kind_of(&m)));
    }
    if m.len() > limit {
        return Err(OpenError::TooLarge(m.len()));
    }
    let mut file = file;
    let bytes = reread(&mut file, limit).map_err(OpenError::Io)?;
    let held = Held {
        meta: Meta::of(&m),
        file: Some(file),
        bytes,
    };
    if held.bytes.len() as u64 > limit {
        return Err(OpenError::TooLarge(held.bytes.len() as u64));
    }
    Ok(held)
}

/// Reads an opened file again from its start (at most `limit + 1` bytes).
pub(crate) fn reread(file: &mut File, limit: u64) -> io::Result<Vec<u8>> {
    file.rewind()?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Creates `path` (which must not exist) with `bytes`, owner `owner` when it is not ours, and
/// permission bits `mode`, and makes it durable. The file is created 0600, so its content is
/// never readable by others before its mode is set.
pub(crate) fn create_synced(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
) -> io::Result<()> {
    point("open");
    let mut opts = OpenOptions::new();
    os::create_mode(opts.write(true).create_new(true), 0o600);
    let mut f = os::open_no_follow(&mut opts, path, false)?;
    point("write");
    f.write_all(bytes)?;
    if let Some((uid, gid)) = owner {
        point("fchown");
        os::fchown(&f, uid, gid)?;
    }
    point("fchmod");
    os::set_mode(&f, mode)?;
    point("fsync");
    f.sync_all()
}

/// Appends `bytes` to the regular file at `path` (never through a link) with one `O_APPEND`
/// write, and makes it durable: lines another writer added to a file ccmem had already swapped
/// out are handed on to the file now in its place, beside whatever other writers append there.
pub(crate) fn append_synced(path: &Path, bytes: &[u8]) -> io::Result<()> {
    point("open");
    let mut opts = OpenOptions::new();
    opts.append(true);
    let mut f = os::open_no_follow(&mut opts, path, false)?;
    if !f.metadata()?.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    point("write");
    f.write_all(bytes)?;
    point("fsync");
    f.sync_all()
}

/// Makes renames and creations in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    point("fsync-dir");
    os::sync_dir(dir)
}

/// `mkdir -p` with `mode` for the folders it creates; returns the folders created, outermost
/// first.
pub(crate) fn create_dirs(dir: &Path, mode: u32) -> io::Result<Vec<std::path::PathBuf>> {
    let mut missing = Vec::new();
    let mut at = Some(dir);
    while let Some(d) = at {
        match fs::symlink_metadata(d) {
            Ok(m) if m.is_dir() => break,
            Ok(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::NotADirectory,
                    format!("{} is not a folder", d.display()),
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(d.to_path_buf()),
            Err(e) => return Err(e),
        }
        at = d.parent();
    }
    missing.reverse();
    for d in &missing {
        point("mkdir");
        let mut b = fs::DirBuilder::new();
        match os::dir_mode(&mut b, mode).create(d) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(missing)
}

/// Removes a file.
pub(crate) fn unlink(path: &Path) -> io::Result<()> {
    point("unlink");
    fs::remove_file(path)
}

/// Removes an empty folder.
pub(crate) fn rmdir(path: &Path) -> io::Result<()> {
    point("rmdir");
    fs::remove_dir(path)
}

/// `rename(2)`.
pub(crate) fn rename(from: &Path, to: &Path) -> io::Result<()> {
    point("rename");
    fs::rename(from, to)
}

/// Swaps two paths atomically (`RENAME_EXCHANGE`): afterwards `a` names what `b` named.
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<Renamed> {
    point("rename-exchange");
    os::rename_exchange(a, b)
}

/// Renames `from` to `to` only if `to` does not exist (`EEXIST` otherwise); a hard link and an
/// unlink where the file system has no `RENAME_NOREPLACE`.
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    point("rename-noreplace");
    match os::rename_noreplace(from, to)? {
        Renamed::Done => Ok(()),
        Renamed::Unsupported => {
            fs::hard_link(from, to)?;
            point("unlink");
            fs::remove_file(from)
        }
    }
}

/// Takes the exclusive lock of a folder without waiting (`crate::sys::lock_dir`). `Ok(None)`:
/// someone else holds it.
pub(crate) fn lock_dir(dir: &Path) -> io::Result<Option<File>> {
    os::lock_dir(dir)
}

/// Six random-looking characters for a temp file name (pid, time and a counter, hashed).
pub(crate) fn unique() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let seed = format!(
        "{}-{t}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    );
    let h = xxhash_rust::xxh3::xxh3_64(seed.as_bytes());
    const ABC: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    (0..6)
        .map(|i| ABC[((h >> (i * 6)) % 36) as usize] as char)
        .collect()
}
