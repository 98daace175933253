//! Windows: std only, but for the registry ([`registry_value`], through Microsoft's
//! `windows-registry`, the one `unsafe` call here). What each call means here is in the module
//! header of `sys`; this file implements it.
#![allow(
    clippy::disallowed_methods,
    reason = "the Windows Dir (the writer's state folder) creates, renames and removes by path"
)]

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::windows::fs::OpenOptionsExt;
use std::os::windows::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Kind, OsError, Renamed, Stat};

const ERROR_FILE_NOT_FOUND: i32 = 2;
const ERROR_PATH_NOT_FOUND: i32 = 3;
const ERROR_ACCESS_DENIED: i32 = 5;
const ERROR_DIRECTORY: i32 = 267;
const FILE_SHARE_READ: u32 = 0x0000_0001;
const FILE_SHARE_WRITE: u32 = 0x0000_0002;
const ERROR_CANT_RESOLVE_FILENAME: i32 = 1921;
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;
const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;

pub(crate) fn os_error(e: &io::Error) -> Option<OsError> {
    Some(match e.raw_os_error()? {
        ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND => OsError::NotFound,
        ERROR_ACCESS_DENIED => OsError::AccessDenied,
        ERROR_DIRECTORY => OsError::NotADirectory,
        ERROR_CANT_RESOLVE_FILENAME => OsError::Loop,
        _ => return None,
    })
}

/// The error a link gives where none is followed (Unix: `ELOOP`).
fn link_refused() -> io::Error {
    io::Error::from_raw_os_error(ERROR_CANT_RESOLVE_FILENAME)
}

fn not_a_folder() -> io::Error {
    io::Error::from_raw_os_error(ERROR_DIRECTORY)
}

pub(crate) fn kind(m: &Metadata) -> Kind {
    let t = m.file_type();
    if t.is_symlink() {
        Kind::Symlink
    } else if t.is_dir() {
        Kind::Dir
    } else if t.is_file() {
        Kind::File
    } else {
        Kind::Unknown
    }
}

fn stat_of(m: &Metadata) -> Stat {
    Stat {
        kind: kind(m),
        uid: 0,
        mode: mode(m),
    }
}

/// A folder by path, checked (not a link, a folder) before each use.
#[derive(Debug)]
pub(crate) struct Dir(PathBuf);

impl Dir {
    pub(crate) fn open(path: &Path) -> io::Result<Dir> {
        let m = std::fs::symlink_metadata(path)?;
        if m.file_type().is_symlink() {
            return Err(link_refused());
        }
        if !m.is_dir() {
            return Err(not_a_folder());
        }
        Ok(Dir(path.to_owned()))
    }

    fn at(&self, name: &str) -> io::Result<PathBuf> {
        Dir::open(&self.0)?;
        Ok(self.0.join(name))
    }

    pub(crate) fn open_at(&self, name: &str) -> io::Result<Dir> {
        Dir::open(&self.at(name)?)
    }

    pub(crate) fn mkdir_at(&self, name: &str, _mode: u32) -> io::Result<()> {
        std::fs::create_dir(self.at(name)?)
    }

    pub(crate) fn stat(&self) -> io::Result<Stat> {
        Ok(stat_of(&std::fs::symlink_metadata(&self.0)?))
    }

    pub(crate) fn stat_at(&self, name: &str) -> io::Result<Stat> {
        Ok(stat_of(&std::fs::symlink_metadata(self.at(name)?)?))
    }

    pub(crate) fn open_read_at(&self, name: &str) -> io::Result<File> {
        open_no_follow(OpenOptions::new().read(true), &self.at(name)?, true)
    }

    pub(crate) fn create_at(&self, name: &str, _mode: u32) -> io::Result<File> {
        let mut opts = OpenOptions::new();
        opts.write(true).create_new(true);
        open_no_follow(&mut opts, &self.at(name)?, false)
    }

    pub(crate) fn rename_at(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.at(from)?, self.at(to)?)
    }

    pub(crate) fn unlink_at(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.at(name)?)
    }

    pub(crate) fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    pub(crate) fn names(&self) -> io::Result<Vec<String>> {
        Dir::open(&self.0)?;
        Ok(std::fs::read_dir(&self.0)?
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect())
    }
}

pub(crate) fn mkdir(path: &Path, _mode: u32) -> io::Result<()> {
    std::fs::create_dir(path)
}

pub(crate) fn open_no_follow(
    opts: &mut OpenOptions,
    path: &Path,
    _no_block: bool,
) -> io::Result<File> {
    let file = opts.custom_flags(FILE_FLAG_OPEN_REPARSE_POINT).open(path)?;
    if file.metadata()?.file_type().is_symlink() {
        return Err(link_refused());
    }
    Ok(file)
}

pub(crate) fn no_block(opts: &mut OpenOptions) -> &mut OpenOptions {
    opts
}

pub(crate) fn lock_dir(path: &Path) -> io::Result<Option<File>> {
    if !std::fs::metadata(path)?.is_dir() {
        // ENOTDIR's counterpart, as `O_DIRECTORY` gives it on Unix.
        return Err(not_a_folder());
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        // No FILE_SHARE_DELETE: the file cannot be removed (by a temp cleaner) while it is
        // held, which would let a second ccmem make and lock a new one.
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .open(lock_file_of(path)?)?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(e),
    }
}

/// The lock file of the folder `path`: `%TEMP%\ccmem-lock-<hash>` (the user's own temp
/// folder), the hash of the folder's canonical path with its letter case folded (NTFS names fold
/// case; a link to the folder shares its lock). Outside the folder, so nothing appears among the
/// client's files or in a repository; the file, empty, is left for the next lock (removing it
/// would let a process that opened it before the removal lock a file no one else sees).
fn lock_file_of(path: &Path) -> io::Result<PathBuf> {
    use sha2::{Digest, Sha256};
    let real = std::fs::canonicalize(path)?;
    let key = real.to_string_lossy().to_lowercase();
    let hash = Sha256::digest(key.as_bytes());
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    Ok(std::env::temp_dir().join(format!("ccmem-lock-{hex}")))
}

pub(crate) fn sync_dir(_: &Path) -> io::Result<()> {
    Ok(())
}

pub(crate) fn create_mode(opts: &mut OpenOptions, _: u32) -> &mut OpenOptions {
    opts
}

pub(crate) fn dir_mode(b: &mut std::fs::DirBuilder, _: u32) -> &mut std::fs::DirBuilder {
    b
}

pub(crate) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    let mut p = file.metadata()?.permissions();
    p.set_readonly(mode & 0o200 == 0);
    file.set_permissions(p)
}

pub(crate) fn fchown(_: &File, _: u32, _: u32) -> io::Result<()> {
    Ok(())
}

pub(crate) fn mode(m: &Metadata) -> u32 {
    match (m.is_dir(), m.permissions().readonly()) {
        (true, _) => 0o700,
        (false, true) => 0o400,
        (false, false) => 0o600,
    }
}

pub(crate) fn uid(_: &Metadata) -> u32 {
    0
}

pub(crate) fn gid(_: &Metadata) -> u32 {
    0
}

pub(crate) fn nlink(_: &Metadata) -> u64 {
    1
}

pub(crate) fn file_id(_: &Metadata) -> Option<(u64, u64)> {
    None
}

pub(crate) fn mtime_ms(m: &Metadata) -> f64 {
    let Ok(t) = m.modified() else {
        return 0.0;
    };
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_millis()),
        Err(e) => -(e.duration().as_millis() as f64),
    }
}

pub(crate) fn special_kind(_: &std::fs::FileType) -> Option<&'static str> {
    None
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

pub(crate) fn is_executable(p: &Path) -> bool {
    let by_name = p.extension().and_then(|x| x.to_str()).is_some_and(|x| {
        ["exe", "cmd", "bat", "com"]
            .iter()
            .any(|e| x.eq_ignore_ascii_case(e))
    });
    by_name && std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

pub(crate) fn euid() -> u32 {
    0
}

pub(crate) fn egid() -> u32 {
    0
}

pub(crate) fn is_root() -> bool {
    false
}

pub(crate) fn writable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.permissions().readonly())
}

pub(crate) fn umask() -> u32 {
    0o022
}

pub(crate) fn is_autofs(_: &Path) -> bool {
    false
}

pub(crate) fn rename_exchange(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

pub(crate) fn rename_noreplace(_: &Path, _: &Path) -> io::Result<Renamed> {
    Ok(Renamed::Unsupported)
}

pub(crate) fn open_for_writing_elsewhere(_: &File) -> Option<bool> {
    None
}

pub(crate) fn new_process_group(cmd: &mut Command) -> &mut Command {
    cmd.creation_flags(CREATE_NEW_PROCESS_GROUP)
}

pub(crate) fn kill_group(pid: u32) {
    let _ = Command::new("taskkill")
        .args(["/T", "/F", "/PID", &pid.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

pub(crate) fn kill_self() -> ! {
    std::process::abort()
}

/// [`super::registry_value`]: `RegQueryValueExW` asked for the size, then for the bytes into a
/// buffer of that size.
pub(super) fn registry_value(
    hive: super::Hive,
    path: &str,
    name: &str,
    max: usize,
) -> super::RegValue {
    use super::RegValue;
    use windows_registry::{CURRENT_USER, LOCAL_MACHINE};
    /// `ERROR_MORE_DATA`: the value grew past the buffer between the two calls.
    const MORE_DATA: i32 = 234;
    let root = match hive {
        super::Hive::Machine => LOCAL_MACHINE,
        super::Hive::User => CURRENT_USER,
    };
    let fail = |e: io::Error| match e.kind() {
        io::ErrorKind::NotFound => RegValue::Missing,
        _ => RegValue::Error(e),
    };
    let key = match root.open(path) {
        Ok(key) => key,
        Err(e) => return fail(win32(e.code().0, e.message())),
    };
    let wide: Vec<u16> = name.encode_utf16().chain(std::iter::once(0)).collect();
    let name = windows_strings::PCWSTR::from_raw(wide.as_ptr());
    // SAFETY: `name` points into `wide`, which ends with a NUL and outlives both calls.
    let len = match unsafe { key.raw_get_info(name) } {
        Ok((_, len)) => len,
        Err(e) => return fail(win32(e.code().0, e.message())),
    };
    if len > max {
        return RegValue::TooLarge(len);
    }
    let mut buf = vec![0u8; len];
    // SAFETY: as above; the buffer's length is passed with it.
    match unsafe { key.raw_get_bytes(name, &mut buf) } {
        Ok((ty, bytes)) => RegValue::Data {
            ty: ty.into(),
            bytes: bytes.to_vec(),
        },
        Err(e) => {
            let e = win32(e.code().0, e.message());
            match e.raw_os_error() {
                Some(MORE_DATA) => RegValue::TooLarge(max),
                _ => fail(e),
            }
        }
    }
}

/// A registry error as the Win32 error it wraps (`windows-result` gives an `HRESULT`,
/// `0x8007xxxx` for Win32 error `xxxx`), so `io::ErrorKind` names it.
fn win32(hresult: i32, message: String) -> io::Error {
    let code = hresult as u32;
    if code & 0xffff_0000 == 0x8007_0000 {
        io::Error::from_raw_os_error((code & 0xffff) as i32)
    } else {
        io::Error::other(message)
    }
}
