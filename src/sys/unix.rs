//! Unix (Linux and macOS): safe `rustix` calls and std's Unix extensions; raw `libc` only where
//! rustix has no safe call (leases, `mkfifo`).

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use rustix::fs::{self as rfs, AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{Kind, OsError, Renamed, Stat};

/// Which of [`OsError`] `e` is, if any.
pub(crate) fn os_error(e: &io::Error) -> Option<OsError> {
    Some(match Errno::from_io_error(e)? {
        Errno::NOENT => OsError::NotFound,
        Errno::ACCESS => OsError::AccessDenied,
        Errno::NOTDIR => OsError::NotADirectory,
        Errno::LOOP => OsError::Loop,
        Errno::MLINK => OsError::TooManyLinks,
        Errno::NXIO => OsError::NoDevice,
        _ => return None,
    })
}

fn kind_of_mode(mode: u32) -> Kind {
    match FileType::from_raw_mode(mode as _) {
        FileType::RegularFile => Kind::File,
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        FileType::Fifo => Kind::Fifo,
        FileType::Socket => Kind::Socket,
        FileType::CharacterDevice => Kind::CharDevice,
        FileType::BlockDevice => Kind::BlockDevice,
        FileType::Unknown => Kind::Unknown,
    }
}

fn stat_of(st: &rfs::Stat) -> Stat {
    #[allow(clippy::unnecessary_cast, reason = "st_mode's width varies by target")]
    let mode = st.st_mode as u32;
    Stat {
        kind: kind_of_mode(mode),
        uid: st.st_uid,
        mode: mode & 0o7777,
    }
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// A folder held open, used only through its handle: `openat`, `mkdirat`, `renameat`,
/// `unlinkat` on Unix, so a link planted at its path later is never followed. (Windows: the
/// path, checked again before each use; see the module header.)
#[derive(Debug)]
pub(crate) struct Dir(OwnedFd);

impl Dir {
    /// Opens the folder at `path`, never through a final link ([`OsError::Loop`] or
    /// [`OsError::NotADirectory`] then).
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        Ok(Dir(rfs::open(path, DIR_FLAGS, Mode::empty())?))
    }

    /// The folder `name` inside this one, as [`Dir::open`].
    pub(crate) fn open_at(&self, name: &str) -> io::Result<Dir> {
        Ok(Dir(rfs::openat(&self.0, name, DIR_FLAGS, Mode::empty())?))
    }

    /// Creates the folder `name` inside this one with `mode`.
    pub(crate) fn mkdir_at(&self, name: &str, mode: u32) -> io::Result<()> {
        Ok(rfs::mkdirat(&self.0, name, Mode::from_raw_mode(mode as _))?)
    }

    /// `fstat` of this folder.
    pub(crate) fn stat(&self) -> io::Result<Stat> {
        Ok(stat_of(&rfs::fstat(&self.0)?))
    }

    /// `lstat` of `name` in this folder (a link is not followed).
    pub(crate) fn stat_at(&self, name: &str) -> io::Result<Stat> {
        Ok(stat_of(&rfs::statat(
            &self.0,
            name,
            AtFlags::SYMLINK_NOFOLLOW,
        )?))
    }

    /// Opens `name` for reading, never through a link and without blocking.
    pub(crate) fn open_read_at(&self, name: &str) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        Ok(File::from(rfs::openat(
            &self.0,
            name,
            flags,
            Mode::empty(),
        )?))
    }

    /// Creates `name` (which must not exist) for writing, with `mode`, never through a link.
    pub(crate) fn create_at(&self, name: &str, mode: u32) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rfs::openat(&self.0, name, flags, Mode::from_raw_mode(mode as _))?;
        Ok(File::from(fd))
    }

    /// Renames `from` to `to`, both in this folder.
    pub(crate) fn rename_at(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(rfs::renameat(&self.0, from, &self.0, to)?)
    }

    /// Removes the file `name` (a link is removed itself).
    pub(crate) fn unlink_at(&self, name: &str) -> io::Result<()> {
        Ok(rfs::unlinkat(&self.0, name, AtFlags::empty())?)
    }

    /// Makes renames and removals in this folder durable.
    pub(crate) fn sync(&self) -> io::Result<()> {
        Ok(rfs::fsync(&self.0)?)
    }

    /// The names in this folder that are UTF-8 (`.` and `..` aside), in directory order.
    pub(crate) fn names(&self) -> io::Result<Vec<String>> {
        let dir = rfs::Dir::read_from(&self.0)?;
        Ok(dir
            .flatten()
            .filter_map(|e| e.file_name().to_str().ok().map(str::to_owned))
            .filter(|n| n != "." && n != "..")
            .collect())
    }
}

/// `mkdir(path, mode)` (Windows: the mode is not applied).
pub(crate) fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    Ok(rfs::mkdir(path, Mode::from_raw_mode(mode as _))?)
}

/// Opens `path` with `opts`, never through a final link: `O_NOFOLLOW | O_CLOEXEC`, and
/// `O_NONBLOCK` when `no_block` (a FIFO in the file's place then opens at once and is refused by
/// the caller's type check instead of waiting for a writer). A link gives [`OsError::Loop`].
pub(crate) fn open_no_follow(
    opts: &mut OpenOptions,
    path: &Path,
    no_block: bool,
) -> io::Result<File> {
    let mut flags = OFlags::NOFOLLOW | OFlags::CLOEXEC;
    if no_block {
        flags |= OFlags::NONBLOCK;
    }
    opts.custom_flags(flags.bits() as i32).open(path)
}

/// Adds `O_NONBLOCK` to `opts` (links are followed). Windows: nothing (no FIFOs to wait on).
pub(crate) fn no_block(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts.custom_flags(OFlags::NONBLOCK.bits() as i32)
}

/// Takes the exclusive lock of the folder `path` without waiting, held while the returned
/// handle is open; `Ok(None)`: another process (or another handle of this one) holds it. A
/// missing folder is [`OsError::NotFound`], a file [`OsError::NotADirectory`]. Nothing is
/// created in the folder, and files are created in it, renamed into it and listed as usual
/// while it is held.
///
/// Unix: the folder opened (`O_DIRECTORY | O_CLOEXEC`) and `flock`ed; the handle is the
/// folder's. Windows cannot lock a folder's bytes (`LockFileEx` on a folder handle fails), and a
/// folder opened with a share mode that refuses a second writer also refuses every rename into
/// it on NTFS (a rename opens the target folder for `FILE_ADD_FILE`, which such a share mode
/// denies), so the lock is `LockFileEx` (std's `File::try_lock`) on a lock file of the folder's
/// own in the user's temp folder, named by a hash of the folder's canonical path, case folded;
/// the handle is that file's. (The writer compares the handle with the folder only where the
/// platform gives file identities, which Windows does not here: [`file_id`].) Two users writing
/// one folder each get their own lock file: a memory folder is one user's.
pub(crate) fn lock_dir(path: &Path) -> io::Result<Option<File>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::DIRECTORY | OFlags::CLOEXEC).bits() as i32)
        .open(path)?;
    match f.try_lock() {
        Ok(()) => Ok(Some(f)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Makes renames and creations in `dir` durable (Windows: nothing; see the module header).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Sets the mode a file is created with (Windows: nothing).
pub(crate) fn create_mode(opts: &mut OpenOptions, mode: u32) -> &mut OpenOptions {
    opts.mode(mode)
}

/// Sets the mode folders are created with (Windows: nothing).
pub(crate) fn dir_mode(b: &mut std::fs::DirBuilder, mode: u32) -> &mut std::fs::DirBuilder {
    b.mode(mode)
}

/// `fchmod` (Windows: the read-only attribute, set when `mode` has no owner write bit).
pub(crate) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

/// `fchown` (Windows: nothing).
pub(crate) fn fchown(file: &File, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::fchown(file, Some(uid), Some(gid))
}

/// Permission bits (`& 0o7777`; Windows: see the module header).
pub(crate) fn mode(m: &Metadata) -> u32 {
    m.mode() & 0o7777
}

/// What a file is (Windows: a file, a folder, a link or unknown).
pub(crate) fn kind(m: &Metadata) -> Kind {
    kind_of_mode(m.mode())
}

/// Owner (Windows: 0).
pub(crate) fn uid(m: &Metadata) -> u32 {
    m.uid()
}

/// Group (Windows: 0).
pub(crate) fn gid(m: &Metadata) -> u32 {
    m.gid()
}

/// Number of hard links (Windows: 1).
pub(crate) fn nlink(m: &Metadata) -> u64 {
    m.nlink()
}

/// Device and inode: which file this is (Windows: `None`).
pub(crate) fn file_id(m: &Metadata) -> Option<(u64, u64)> {
    Some((m.dev(), m.ino()))
}

/// The modification time in milliseconds since the epoch, as node's `mtimeMs` (whole seconds
/// times 1000 plus whole milliseconds of the nanoseconds).
pub(crate) fn mtime_ms(m: &Metadata) -> f64 {
    m.mtime() as f64 * 1000.0 + (m.mtime_nsec() / 1_000_000) as f64
}

/// A FIFO, socket or device, in words (`None`: none of those; always on Windows).
pub(crate) fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
    if t.is_fifo() {
        Some("FIFO")
    } else if t.is_socket() {
        Some("socket")
    } else if t.is_block_device() || t.is_char_device() {
        Some("device")
    } else {
        None
    }
}

/// Whether `a` and `b` name the same file (links followed; Windows: same canonical path).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Whether a regular file at `p` may be executed: an execute bit (Windows: an `.exe`, `.cmd`,
/// `.bat` or `.com` name, as `PATHEXT` has by default).
pub(crate) fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// This process's effective user id (Windows: 0).
pub(crate) fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

/// This process's effective group id (Windows: 0).
pub(crate) fn egid() -> u32 {
    rustix::process::getegid().as_raw()
}

/// Whether this process runs as the superuser (effective uid 0; Windows: false).
pub(crate) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// `access(path, W_OK)`: whether this process may write `path` (Windows: it exists and is not
/// read-only).
pub(crate) fn writable(path: &Path) -> bool {
    rfs::access(path, rfs::Access::WRITE_OK).is_ok()
}

/// The process umask, read by setting it and putting it back (Windows: `0o022`).
pub(crate) fn umask() -> u32 {
    let m = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(m);
    m.bits() as u32
}

/// Linux `AUTOFS_SUPER_MAGIC`: the file system type of an automounter map root.
#[cfg(any(target_os = "linux", target_os = "android"))]
const AUTOFS_SUPER_MAGIC: i64 = 0x0187;

#[cfg(any(target_os = "linux", target_os = "android"))]
/// Whether `dir` is an autofs mount (Linux's `statfs` type `AUTOFS_SUPER_MAGIC`; elsewhere
/// false).
pub(crate) fn is_autofs(dir: &Path) -> bool {
    #[allow(clippy::unnecessary_cast, reason = "f_type's width varies by target")]
    rfs::statfs(dir).is_ok_and(|s| s.f_type as i64 == AUTOFS_SUPER_MAGIC)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(crate) fn is_autofs(_: &Path) -> bool {
    false
}

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: rfs::RenameFlags) -> io::Result<Renamed> {
    match rfs::renameat_with(rfs::CWD, from, rfs::CWD, to, flags) {
        Ok(()) => Ok(Renamed::Done),
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => Ok(Renamed::Unsupported),
        Err(e) => Err(e.into()),
    }
}

#[cfg(target_os = "linux")]
/// Swaps two paths atomically (`RENAME_EXCHANGE`; Linux only).
pub(crate) fn rename_exchange(a: &Path, b: &Path) -> io::Result<Renamed> {
    renameat2(a, b, rfs::RenameFlags::EXCHANGE)
}

#[cfg(target_os = "linux")]
/// Renames only if `to` does not exist (`RENAME_NOREPLACE`; Linux only).
pub(crate) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<Renamed> {
    renameat2(from, to, rfs::RenameFlags::NOREPLACE)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn rename_exchange(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

#[cfg(not(target_os = "linux"))]
pub(crate) fn rename_noreplace(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

/// `F_SETSIG` (Linux; not in every libc's headers).
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

#[cfg(target_os = "linux")]
/// Whether any process holds the file open for writing: a read lease is refused (`EAGAIN`)
/// exactly then. `None` when leases are not available (another owner, NFS, no kernel support,
/// not Linux). The lease is dropped at once; its break signal is set to SIGURG, which is
/// ignored by default, so a writer opening the file in that instant cannot kill us.
pub(crate) fn open_for_writing_elsewhere(file: &File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor we own (borrowed for this call), with integer arguments;
    // rustix has no lease calls.
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

/// Runs `cmd` in a new process group, so [`kill_group`] ends it and its children.
pub(crate) fn new_process_group(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0)
}

/// Kills the process group led by `pid` (Windows: the process tree, `taskkill /T /F`).
pub(crate) fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Ends this process at once, as a crash would (SIGKILL to itself; Windows: abort). For the
/// writer's fault injection.
pub(crate) fn kill_self() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    // SIGKILL cannot be caught; should the kill itself fail, end the process anyway.
    std::process::abort()
}

/// Makes a FIFO at `path` (tests: a special file in a file's place).
#[cfg(test)]
pub(crate) fn mkfifo(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))?;
    // SAFETY: `c` is a valid NUL-terminated path; rustix's `mknodat` does not exist on macOS.
    match unsafe { libc::mkfifo(c.as_ptr(), mode as libc::mode_t) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}
