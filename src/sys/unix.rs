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

pub(super) fn os_error(e: &io::Error) -> Option<OsError> {
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

#[derive(Debug)]
pub(super) struct Dir(OwnedFd);

impl Dir {
    pub(super) fn open(path: &Path) -> io::Result<Dir> {
        Ok(Dir(rfs::open(path, DIR_FLAGS, Mode::empty())?))
    }

    pub(super) fn open_at(&self, name: &str) -> io::Result<Dir> {
        Ok(Dir(rfs::openat(&self.0, name, DIR_FLAGS, Mode::empty())?))
    }

    pub(super) fn mkdir_at(&self, name: &str, mode: u32) -> io::Result<()> {
        Ok(rfs::mkdirat(&self.0, name, Mode::from_raw_mode(mode as _))?)
    }

    pub(super) fn stat(&self) -> io::Result<Stat> {
        Ok(stat_of(&rfs::fstat(&self.0)?))
    }

    pub(super) fn stat_at(&self, name: &str) -> io::Result<Stat> {
        Ok(stat_of(&rfs::statat(
            &self.0,
            name,
            AtFlags::SYMLINK_NOFOLLOW,
        )?))
    }

    pub(super) fn open_read_at(&self, name: &str) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        Ok(File::from(rfs::openat(
            &self.0,
            name,
            flags,
            Mode::empty(),
        )?))
    }

    pub(super) fn create_at(&self, name: &str, mode: u32) -> io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rfs::openat(&self.0, name, flags, Mode::from_raw_mode(mode as _))?;
        Ok(File::from(fd))
    }

    pub(super) fn rename_at(&self, from: &str, to: &str) -> io::Result<()> {
        Ok(rfs::renameat(&self.0, from, &self.0, to)?)
    }

    pub(super) fn unlink_at(&self, name: &str) -> io::Result<()> {
        Ok(rfs::unlinkat(&self.0, name, AtFlags::empty())?)
    }

    pub(super) fn sync(&self) -> io::Result<()> {
        Ok(rfs::fsync(&self.0)?)
    }

    pub(super) fn names(&self) -> io::Result<Vec<String>> {
        let dir = rfs::Dir::read_from(&self.0)?;
        Ok(dir
            .flatten()
            .filter_map(|e| e.file_name().to_str().ok().map(str::to_owned))
            .filter(|n| n != "." && n != "..")
            .collect())
    }
}

pub(super) fn mkdir(path: &Path, mode: u32) -> io::Result<()> {
    Ok(rfs::mkdir(path, Mode::from_raw_mode(mode as _))?)
}

pub(super) fn open_no_follow(
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

pub(super) fn no_block(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts.custom_flags(OFlags::NONBLOCK.bits() as i32)
}

pub(super) fn lock_dir(path: &Path) -> io::Result<Option<File>> {
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

pub(super) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

pub(super) fn create_mode(opts: &mut OpenOptions, mode: u32) -> &mut OpenOptions {
    opts.mode(mode)
}

pub(super) fn dir_mode(b: &mut std::fs::DirBuilder, mode: u32) -> &mut std::fs::DirBuilder {
    b.mode(mode)
}

pub(super) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

pub(super) fn fchown(file: &File, uid: u32, gid: u32) -> io::Result<()> {
    std::os::unix::fs::fchown(file, Some(uid), Some(gid))
}

pub(super) fn mode(m: &Metadata) -> u32 {
    m.mode() & 0o7777
}

pub(super) fn kind(m: &Metadata) -> Kind {
    kind_of_mode(m.mode())
}

pub(super) fn uid(m: &Metadata) -> u32 {
    m.uid()
}

pub(super) fn gid(m: &Metadata) -> u32 {
    m.gid()
}

pub(super) fn nlink(m: &Metadata) -> u64 {
    m.nlink()
}

pub(super) fn file_id(m: &Metadata) -> Option<(u64, u64)> {
    Some((m.dev(), m.ino()))
}

pub(super) fn mtime_ms(m: &Metadata) -> f64 {
    m.mtime() as f64 * 1000.0 + (m.mtime_nsec() / 1_000_000) as f64
}

pub(super) fn special_kind(t: &std::fs::FileType) -> Option<&'static str> {
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

pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

pub(super) fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

pub(super) fn euid() -> u32 {
    rustix::process::geteuid().as_raw()
}

pub(super) fn egid() -> u32 {
    rustix::process::getegid().as_raw()
}

pub(super) fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

pub(super) fn writable(path: &Path) -> bool {
    rfs::access(path, rfs::Access::WRITE_OK).is_ok()
}

pub(super) fn umask() -> u32 {
    let m = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(m);
    m.bits() as u32
}

/// Linux `AUTOFS_SUPER_MAGIC`: the file system type of an automounter map root.
#[cfg(any(target_os = "linux", target_os = "android"))]
const AUTOFS_SUPER_MAGIC: i64 = 0x0187;

#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) fn is_autofs(dir: &Path) -> bool {
    #[allow(clippy::unnecessary_cast, reason = "f_type's width varies by target")]
    rfs::statfs(dir).is_ok_and(|s| s.f_type as i64 == AUTOFS_SUPER_MAGIC)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(super) fn is_autofs(_: &Path) -> bool {
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
pub(super) fn rename_exchange(a: &Path, b: &Path) -> io::Result<Renamed> {
    renameat2(a, b, rfs::RenameFlags::EXCHANGE)
}

#[cfg(target_os = "linux")]
pub(super) fn rename_noreplace(from: &Path, to: &Path) -> io::Result<Renamed> {
    renameat2(from, to, rfs::RenameFlags::NOREPLACE)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn rename_exchange(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

#[cfg(not(target_os = "linux"))]
pub(super) fn rename_noreplace(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

/// `F_SETSIG` (Linux; not in every libc's headers).
#[cfg(target_os = "linux")]
const F_SETSIG: libc::c_int = 10;

#[cfg(target_os = "linux")]
pub(super) fn open_for_writing_elsewhere(file: &File) -> Option<bool> {
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
pub(super) fn open_for_writing_elsewhere(_: &File) -> Option<bool> {
    None
}

pub(super) fn new_process_group(cmd: &mut Command) -> &mut Command {
    cmd.process_group(0)
}

pub(super) fn kill_group(pid: u32) {
    if let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

pub(super) fn kill_self() -> ! {
    let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::KILL);
    // SIGKILL cannot be caught; should the kill itself fail, end the process anyway.
    std::process::abort()
}

#[cfg(test)]
pub(super) fn mkfifo(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))?;
    // SAFETY: `c` is a valid NUL-terminated path; rustix's `mknodat` does not exist on macOS.
    match unsafe { libc::mkfifo(c.as_ptr(), mode as libc::mode_t) } {
        0 => Ok(()),
        _ => Err(io::Error::last_os_error()),
    }
}
