//! Reading files the way the client does, without ever blocking or reading too much.
//!
//! The client `stat`s a path (following symlinks), skips anything that is not a regular file
//! (directories, FIFOs, sockets, devices), skips files larger than its cap, and only then reads.
//! We do the same, and open with `O_NONBLOCK` and re-check the opened file, so a path swapped
//! for a FIFO between the two steps still cannot hang us. At most `limit + 1` bytes are read.
//! The audit reads a file the listing calls regular without that check where one read shows
//! it whole ([`Stat`]): the read cannot block either way, and anything else is checked.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use bytes::Bytes;

mod shared;
mod walk;
pub(crate) use walk::{MdEntry, WalkError, md_files_batched};

/// Why a path gave no text.
#[derive(Debug)]
pub enum Unread {
    /// ENOENT / ENOTDIR: nothing there (a dangling link included).
    Missing,
    /// Exists but is not a regular file after following links.
    NotRegular(&'static str),
    /// Larger than the cap (bytes on disk).
    TooLarge(u64),
    /// Could not be read (permissions, symlink loop, I/O error).
    Unreadable(io::Error),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Missing => write!(f, "missing"),
            Unread::NotRegular(kind) => write!(f, "not a regular file ({kind})"),
            Unread::TooLarge(n) => write!(f, "too large ({n} bytes)"),
            Unread::Unreadable(e) => write!(f, "unreadable: {e}"),
        }
    }
}

/// Describes a non-regular file type in words.
pub(crate) fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_block_device() || t.is_char_device() {
        "device"
    } else if t.is_file() {
        "file"
    } else {
        "special file"
    }
}

/// Reads a regular file of at most `limit` bytes (a file of exactly `limit` bytes is read).
pub(crate) fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    let meta = std::fs::metadata(path).map_err(classify)?;
    if !meta.is_file() {
        return Err(Unread::NotRegular(kind_of(&meta)));
    }
    if meta.len() > limit {
        return Err(Unread::TooLarge(meta.len()));
    }
    open_and_read(path, limit)
}

/// [`read_capped`] for a path an `lstat` just found to be a regular file of `len` bytes: the
/// `stat` is skipped, the opened file is still re-checked.
pub(crate) fn read_capped_regular(path: &Path, limit: u64, len: u64) -> Result<Vec<u8>, Unread> {
    if len > limit {
        return Err(Unread::TooLarge(len));
    }
    open_and_read(path, limit)
}

fn open_and_read(path: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    open_and_read_meta(path, limit).map(|(bytes, _)| bytes)
}

/// Reads a file of at most `limit` bytes and returns the metadata of the opened file too
/// (modification time, mode), without a second `stat`. `known_regular`: a directory listing
/// just said the entry is a regular file (not a link), so the `stat` before opening, which
/// keeps ccmem from opening a device or FIFO at all, is skipped; the opened file is checked
/// either way.
pub(crate) fn read_with_meta(
    path: &Path,
    limit: u64,
    known_regular: bool,
) -> Result<(Vec<u8>, Metadata), Unread> {
    if !known_regular {
        let meta = std::fs::metadata(path).map_err(classify)?;
        if !meta.is_file() {
            return Err(Unread::NotRegular(kind_of(&meta)));
        }
        if meta.len() > limit {
            return Err(Unread::TooLarge(meta.len()));
        }
    }
    open_and_read_meta(path, limit)
}

fn open_and_read_meta(path: &Path, limit: u64) -> Result<(Vec<u8>, Metadata), Unread> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(classify)?;
    read_opened(file, limit)
}

/// [`read_with_meta`] of `name`, a regular file (not a link) a directory listing of the folder
/// `dir` is open on just named: one `openat` relative to that folder, so the kernel resolves
/// only `name`'s own components instead of the folder's whole path again for each of thousands
/// of files. The opened file is checked as [`read_with_meta`] checks it (with `stat`). The bytes are a span of
/// a buffer the thread's other reads share (`shared`): a library's files are held at once.
///
/// With `stat: false` (for a file the listing calls regular), the `fstat` and that check are
/// made only where the read needs them (see [`Stat`]).
pub(crate) fn read_regular_at(
    dir: &File,
    name: &Path,
    limit: u64,
    stat: bool,
) -> Result<(Bytes, Stat), Unread> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(name.as_os_str().as_bytes())
        .map_err(|e| Unread::Unreadable(io::Error::new(io::ErrorKind::InvalidInput, e)))?;
    // SAFETY: `c` is a NUL-terminated path and `dir` an open descriptor, both alive for the call.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            c.as_ptr(),
            libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(classify(io::Error::last_os_error()));
    }
    // SAFETY: `openat` just returned this descriptor, owned by nothing else.
    let file = unsafe { File::from_raw_fd(fd) };
    if stat {
        read_opened_shared(file, limit).map(|(bytes, meta)| (bytes, Stat::Known(meta)))
    } else {
        read_unsized_shared(file, limit)
    }
}

/// The metadata of a file [`read_regular_at`] read: taken, or the open file to take it from.
#[derive(Debug)]
pub(crate) enum Stat {
    /// The opened file's metadata.
    Known(Metadata),
    /// Not taken: the file, still open (its metadata is one `fstat` away).
    Unasked(File),
}

impl Stat {
    /// The metadata (one `fstat` when it was not taken yet; `None` if that fails).
    pub(crate) fn metadata(self) -> Option<Metadata> {
        match self {
            Stat::Known(meta) => Some(meta),
            Stat::Unasked(file) => file.metadata().ok(),
        }
    }
}

/// [`read_opened_shared`] without the `fstat` first, for a file a directory listing just
/// called regular: one read into the room left in the thread's buffer (at most [`ROOM`]). A
/// file that read fills less than the room of has been read whole (through the page cache, a
/// regular file's read comes back short only at its end; a file system that answers short in
/// the middle of a file would be read short here), and its size, type and times are not
/// asked. An empty read (an empty file, or a FIFO swapped in), a failed one (`EAGAIN` of a
/// FIFO with a writer), one that fills its room or passes `limit` goes the way of
/// [`read_opened_shared`], from an `fstat`. An `fstat` is about a tenth of the system time of
/// opening and reading a small file: ~10 ms of CPU on the 20,000-file benchmark library
/// (`scripts/bench/readall.c` with one added, side by side).
fn read_unsized_shared(file: File, limit: u64) -> Result<(Bytes, Stat), Unread> {
    let max = usize::try_from(limit.saturating_add(1)).map_or(ROOM, |m| m.min(ROOM));
    let (bytes, room) = match shared::read_into_room(max, |b| read_once_uninit(&file, b)) {
        Ok(read) => read,
        Err(e) => {
            // What the file is says more than the read's error (`not a regular file (FIFO)`).
            check_opened(&file, limit)?;
            return Err(e);
        }
    };
    if !bytes.is_empty() && bytes.len() < room {
        return Ok((bytes, Stat::Unasked(file)));
    }
    let opened = check_opened(&file, limit)?;
    // Read on to the end: the read filled all the room it had, so nothing says it got all.
    let bytes = read_on(file, limit, bytes.to_vec())?;
    Ok((bytes.into(), Stat::Known(opened)))
}

/// The most [`read_unsized_shared`] reads before it asks the file's size: a file larger than
/// this (or than the cap) is checked first, not read into the buffer for nothing.
const ROOM: usize = 256 * 1024;

/// [`read_once`] into memory not initialised yet: one `read(2)` (retried when interrupted),
/// which writes at most `buf.len()` bytes and says how many.
fn read_once_uninit(file: &File, buf: &mut [std::mem::MaybeUninit<u8>]) -> Result<usize, Unread> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: `buf` is writable memory of `buf.len()` bytes for the whole call, and the
        // descriptor is open (borrowed from `file`).
        let n = unsafe { libc::read(file.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if let Ok(n) = usize::try_from(n) {
            return Ok(n);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(Unread::Unreadable(e));
        }
    }
}

fn read_opened(file: File, limit: u64) -> Result<(Vec<u8>, Metadata), Unread> {
    let opened = check_opened(&file, limit)?;
    Ok((read_sized(file, limit, opened.len())?, opened))
}

/// [`read_opened`] into the thread's shared buffer.
fn read_opened_shared(file: File, limit: u64) -> Result<(Bytes, Metadata), Unread> {
    let opened = check_opened(&file, limit)?;
    Ok((read_sized_shared(file, limit, opened.len())?, opened))
}

/// The file's bytes, at most `limit`, read as one read of `size + 1` bytes where `size` (its
/// `fstat` size) is right. A regular file that answers that read with exactly its `fstat` size
/// is at its end: the usual probe read that returns 0 is saved. Anything else (an empty-looking
/// procfs file, a file that grew or shrank) reads on to the end ([`read_on`]).
fn read_sized(file: File, limit: u64, size: u64) -> Result<Vec<u8>, Unread> {
    let want = size.min(limit) as usize;
    let mut bytes = vec![0; want + 1];
    let n = read_once(&file, &mut bytes)?;
    bytes.truncate(n);
    if n == want && want > 0 {
        return Ok(bytes);
    }
    read_on(file, limit, bytes)
}

/// [`read_sized`] into the thread's shared buffer.
fn read_sized_shared(file: File, limit: u64, size: u64) -> Result<Bytes, Unread> {
    let want = size.min(limit) as usize;
    let (bytes, n) = shared::read_into(want + 1, |b| read_once(&file, b))?;
    if n == want && want > 0 {
        return Ok(bytes);
    }
    Ok(read_on(file, limit, bytes.to_vec())?.into())
}

/// The opened file's metadata, when it is a regular file of at most `limit` bytes.
fn check_opened(file: &File, limit: u64) -> Result<Metadata, Unread> {
    let opened = file.metadata().map_err(Unread::Unreadable)?;
    if !opened.is_file() {
        return Err(Unread::NotRegular(kind_of(&opened)));
    }
    if opened.len() > limit {
        return Err(Unread::TooLarge(opened.len()));
    }
    Ok(opened)
}

/// One read of up to `buf.len()` bytes (retried when interrupted).
fn read_once(mut file: &File, buf: &mut [u8]) -> Result<usize, Unread> {
    loop {
        match file.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Unread::Unreadable(e)),
        }
    }
}

/// The whole file, given `bytes`, what a first read returned that does not show the end: read
/// on to the end, capped.
fn read_on(file: File, limit: u64, mut bytes: Vec<u8>) -> Result<Vec<u8>, Unread> {
    file.take(limit + 1 - bytes.len() as u64)
        .read_to_end(&mut bytes)
        .map_err(Unread::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(Unread::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Like [`read_capped`], but a missing file is `Ok(None)` and every other failure an I/O error.
pub(crate) fn read_regular(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    match read_capped(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(Unread::Missing) => Ok(None),
        Err(Unread::Unreadable(e)) => Err(e),
        Err(other) => Err(io::Error::other(other.to_string())),
    }
}

fn classify(e: io::Error) -> Unread {
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Unread::Missing,
        _ => Unread::Unreadable(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_is_not_regular_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(matches!(
            read_capped(&fifo, 10),
            Err(Unread::NotRegular("FIFO"))
        ));
    }

    #[test]
    fn cap_is_inclusive_and_missing_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_capped(&f, 5).unwrap(), b"12345");
        assert!(matches!(read_capped(&f, 4), Err(Unread::TooLarge(5))));
        assert!(matches!(
            read_capped(&dir.path().join("nope"), 4),
            Err(Unread::Missing)
        ));
        assert!(matches!(
            read_capped(dir.path(), 4),
            Err(Unread::NotRegular("directory"))
        ));
    }

    #[test]
    fn a_known_regular_file_is_still_checked_once_opened() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_capped_regular(&f, 5, 5).unwrap(), b"12345");
        assert!(matches!(
            read_capped_regular(&f, 4, 5),
            Err(Unread::TooLarge(5))
        ));
        // The file grew past the cap after the lstat that reported 3 bytes.
        assert!(matches!(
            read_capped_regular(&f, 4, 3),
            Err(Unread::TooLarge(5))
        ));
        // Swapped for a FIFO after the lstat: refused, and no blocking.
        std::fs::remove_file(&f).unwrap();
        let c = std::ffi::CString::new(f.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        assert!(matches!(
            read_capped_regular(&f, 10, 3),
            Err(Unread::NotRegular("FIFO"))
        ));
    }

    #[test]
    fn files_whose_size_says_nothing_are_read_to_the_end() {
        // procfs reports size 0 for files with content.
        let status = read_capped(Path::new("/proc/self/status"), 1 << 20).unwrap();
        assert!(status.starts_with(b"Name:") && status.ends_with(b"\n"));
        // A file that grew after the size was taken is read whole, and still capped.
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"0123456789").unwrap();
        assert_eq!(read_capped_regular(&f, 100, 4).unwrap(), b"0123456789");
        let open = || File::open(&f).unwrap();
        assert!(matches!(read_sized(open(), 8, 4), Err(Unread::TooLarge(9))));
        assert!(matches!(
            read_sized_shared(open(), 8, 4),
            Err(Unread::TooLarge(9))
        ));
        assert_eq!(read_sized(open(), 10, 4).unwrap(), b"0123456789");
        assert_eq!(
            &read_sized_shared(open(), 10, 4).unwrap()[..],
            b"0123456789"
        );
        // A file that shrank is read to its end, and one the right size in one read.
        assert_eq!(
            &read_sized_shared(open(), 100, 20).unwrap()[..],
            b"0123456789"
        );
        assert_eq!(
            &read_sized_shared(open(), 100, 10).unwrap()[..],
            b"0123456789"
        );
    }

    #[test]
    fn a_listed_file_is_read_without_fstat_only_when_the_read_says_it_is_whole() {
        let dir = tempfile::tempdir().unwrap();
        let root = File::open(dir.path()).unwrap();
        let write = |name: &str, bytes: &[u8]| std::fs::write(dir.path().join(name), bytes);
        let read = |name: &str, limit: u64| read_regular_at(&root, Path::new(name), limit, false);
        write("small", b"0123456789").unwrap();
        write("empty", b"").unwrap();
        // Larger than a thread's first buffer: its read fills the room it was given.
        let big: Vec<u8> = (0..300 * 1024).map(|k| (k % 251) as u8).collect();
        write("big", &big).unwrap();
        let (bytes, stat) = read("small", 100).unwrap();
        assert_eq!(&bytes[..], b"0123456789");
        assert!(matches!(stat, Stat::Unasked(_)));
        // Asked afterwards, the metadata is the file's.
        assert_eq!(stat.metadata().unwrap().len(), 10);
        // Exactly the cap is read; one byte less is too large, with the size on disk.
        assert!(matches!(read("small", 10), Ok((b, Stat::Unasked(_))) if b.len() == 10));
        assert!(matches!(read("small", 9), Err(Unread::TooLarge(10))));
        // An empty read is checked: an empty file, and a FIFO (no writer), which must not hang.
        assert!(matches!(read("empty", 100), Ok((b, Stat::Known(_))) if b.is_empty()));
        let fifo = std::ffi::CString::new(dir.path().join("fifo").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        assert!(matches!(read("fifo", 100), Err(Unread::NotRegular("FIFO"))));
        // With a writer and nothing written, the read fails (`EAGAIN`): still a FIFO.
        let _writer = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(dir.path().join("fifo"))
            .unwrap();
        assert!(matches!(read("fifo", 100), Err(Unread::NotRegular("FIFO"))));
        // A read that filled its room goes on to the end, on a fresh thread (a first buffer).
        let (bytes, stat) = std::thread::scope(|s| s.spawn(|| read("big", 1 << 20)).join())
            .unwrap()
            .unwrap();
        assert!(bytes[..] == big[..] && matches!(stat, Stat::Known(_)));
        assert!(matches!(
            std::thread::scope(|s| s.spawn(|| read("big", 1000)).join()).unwrap(),
            Err(Unread::TooLarge(n)) if n == big.len() as u64
        ));
    }

    #[test]
    fn symlink_loop_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::os::unix::fs::symlink(&a, &a).unwrap();
        assert!(matches!(read_capped(&a, 4), Err(Unread::Unreadable(_))));
    }
}

/// Why an operation on `path` failed, in words and once: the real cause named (a part of the path
/// that is a file, a folder that cannot be entered), without the OS's `(os error N)`.
pub(crate) fn describe(path: &Path, e: &io::Error) -> String {
    let blocking = |want: fn(&Metadata) -> bool| {
        path.ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .find(|a| std::fs::metadata(a).is_ok_and(|m| want(&m)))
            .map(Path::to_path_buf)
    };
    match e.raw_os_error() {
        Some(libc::ENOTDIR) => match blocking(|m| !m.is_dir()) {
            Some(file) => format!("{} is a file, not a folder", file.display()),
            None => "a part of the path is not a folder".to_owned(),
        },
        Some(libc::ENOENT) => "does not exist".to_owned(),
        Some(libc::EACCES) => "permission denied".to_owned(),
        Some(libc::ELOOP) => "too many levels of symbolic links (a loop?)".to_owned(),
        _ => {
            let text = e.to_string();
            match text.rfind(" (os error ") {
                Some(at) => text[..at].to_owned(),
                None => text,
            }
        }
    }
}

/// Why `path` is not a memory folder ccmem can work in (`None`: it is one).
pub(crate) fn memory_folder_problem(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => match std::fs::read_dir(path) {
            Ok(_) => None,
            Err(e) => Some(format!(
                "{}: the memory folder cannot be read: {}",
                path.display(),
                describe(path, &e)
            )),
        },
        Ok(m) => Some(format!(
            "{}: is a {}, not a memory folder (pass the folder that holds MEMORY.md)",
            path.display(),
            kind_of(&m)
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            Some(format!("{}: no such memory folder", path.display()))
        }
        Err(e) => Some(format!("{}: {}", path.display(), describe(path, &e))),
    }
}

#[cfg(test)]
mod describe_tests {
    use super::*;

    #[test]
    fn names_the_real_cause_once() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let e = std::fs::read_dir(file.join("x")).unwrap_err();
        let s = describe(&file.join("x"), &e);
        assert_eq!(s, format!("{} is a file, not a folder", file.display()));
        assert!(!s.contains("os error"));
        let p = memory_folder_problem(&file).unwrap();
        assert!(p.contains("is a file, not a memory folder"), "{p}");
        assert!(
            memory_folder_problem(&d.path().join("gone"))
                .unwrap()
                .contains("no such")
        );
        assert!(memory_folder_problem(d.path()).is_none());
    }
}
