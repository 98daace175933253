//! The write system calls, each behind a fault point (see [`super::fault`]), and the reads that
//! never block: every file is opened with `O_NONBLOCK | O_NOFOLLOW` and checked with `fstat`
//! before a byte is read, so a FIFO or a device in a target's place is refused, not waited on.

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::fault::point;

/// What `fstat` said about an opened target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    /// Permission bits (`& 0o7777`).
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Device and inode: which file this is.
    pub id: (u64, u64),
}

impl Meta {
    pub(crate) fn of(m: &fs::Metadata) -> Self {
        Meta {
            mode: m.mode() & 0o7777,
            uid: m.uid(),
            gid: m.gid(),
            id: (m.dev(), m.ino()),
        }
    }
}

/// A target opened for reading: the file, what it was when opened, and its bytes.
#[derive(Debug)]
pub(crate) struct Held {
    pub file: File,
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
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OpenError::Missing),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(OpenError::Symlink),
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => {
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
    let mut held = Held {
        meta: Meta::of(&m),
        file,
        bytes: Vec::new(),
    };
    held.bytes = reread(&mut held.file, limit).map_err(OpenError::Io)?;
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
    let mut f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    point("write");
    f.write_all(bytes)?;
    if let Some((uid, gid)) = owner {
        point("fchown");
        std::os::unix::fs::fchown(&f, Some(uid), Some(gid))?;
    }
    point("fchmod");
    f.set_permissions(fs::Permissions::from_mode(mode))?;
    point("fsync");
    f.sync_all()
}

/// Makes renames and creations in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    point("fsync-dir");
    File::open(dir)?.sync_all()
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
        std::os::unix::fs::DirBuilderExt::mode(&mut b, mode);
        match b.create(d) {
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

/// How a `renameat2` flag fared.
#[derive(Debug)]
pub(crate) enum Renamed {
    /// Done.
    Done,
    /// The file system (or the kernel) does not offer the flag.
    Unsupported,
}

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))
}

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<Renamed> {
    let (a, b) = (cstr(from)?, cstr(to)?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them like rename(2).
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            flags,
        )
    };
    if r == 0 {
        return Ok(Renamed::Done);
    }
    let e = io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => Ok(Renamed::Unsupported),
        _ => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn renameat2(_: &Path, _: &Path, _: u32) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

/// Swaps two paths atomically (`RENAME_EXCHANGE`): afterwards `a` names what `b` named.
pub(crate) fn exchange(a: &Path, b: &Path) -> io::Result<Renamed> {
    point("rename-exchange");
    #[cfg(target_os = "linux")]
    return renameat2(a, b, libc::RENAME_EXCHANGE);
    #[cfg(not(target_os = "linux"))]
    return renameat2(a, b, 2);
}

/// Renames `from` to `to` only if `to` does not exist (`EEXIST` otherwise); a hard link and an
/// unlink where the file system has no `RENAME_NOREPLACE`.
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<()> {
    point("rename-noreplace");
    #[cfg(target_os = "linux")]
    let done = renameat2(from, to, libc::RENAME_NOREPLACE)?;
    #[cfg(not(target_os = "linux"))]
    let done = renameat2(from, to, 1)?;
    match done {
        Renamed::Done => Ok(()),
        Renamed::Unsupported => {
            fs::hard_link(from, to)?;
            point("unlink");
            fs::remove_file(from)
        }
    }
}

/// Whether any process holds the file open for writing: a read lease is refused (`EAGAIN`)
/// exactly then. `None` when leases are not available here (another owner, NFS, no kernel
/// support). The lease is dropped at once; its break signal is set to SIGURG, which is ignored
/// by default, so a writer opening the file in that instant cannot kill us.
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

#[cfg(target_os = "linux")]
pub(crate) fn open_for_writing_elsewhere(file: &File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own, with integer arguments.
    unsafe {
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return None;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return Some(false);
        }
    }
    match io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(true),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn open_for_writing_elsewhere(_: &File) -> Option<bool> {
    None
}

/// Takes an exclusive `flock` on a folder without waiting. `Ok(None)`: someone else holds it.
pub(crate) fn lock_dir(dir: &Path) -> io::Result<Option<File>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
        .open(dir)?;
    match f.try_lock() {
        Ok(()) => Ok(Some(f)),
        Err(fs::TryLockError::WouldBlock) => Ok(None),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
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

/// This process's effective user id.
pub(crate) fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}
