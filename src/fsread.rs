//! Every read of a user's file: bounded, never blocking, never of anything but a regular file.
//!
//! The client `stat`s a path (following symlinks), skips anything that is not a regular file
//! (directories, FIFOs, sockets, devices), skips files larger than its cap, and only then reads.
//! We do the same, and open with `O_NONBLOCK` and check the opened file again (`fstat`), so a
//! path swapped for a FIFO between the two steps still cannot hang us. At most `limit + 1`
//! bytes are ever read, and a file is read until a read returns 0 (a short read is not its
//! end: a network or FUSE file system may answer short in the middle of a file).
//!
//! - [`read_capped`]: a file by path, at most `limit` bytes (what most readers want).
//! - [`read_with_meta`]: the same with the opened file's metadata, for a path the caller may
//!   have seen to be a regular file already (a directory listing, an `lstat`).
//! - [`read_head`]: the first bytes of a regular file of any size.
//! - [`read_named`]: a file a person or a record names, refused with words that say why.
//! - [`read_regular`]: [`read_capped`] for callers that speak `io::Result`.
//! - [`md_files_batched`]: the one walk of a memory folder.

use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::path::Path;

use crate::constants::{Bytes, Count};

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
            Unread::TooLarge(n) => write!(f, "too large ({} bytes)", Count(*n as usize)),
            Unread::Unreadable(e) => write!(f, "unreadable: {e}"),
        }
    }
}

/// Describes a non-regular file type in words.
pub(crate) fn kind_of(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if let Some(special) = crate::sys::special_kind(&t) {
        special
    } else if t.is_file() {
        "file"
    } else {
        "special file"
    }
}

/// Reads a regular file of at most `limit` bytes (a file of exactly `limit` bytes is read),
/// following links.
pub(crate) fn read_capped(path: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    read_with_meta(path, limit, false).map(|(bytes, _)| bytes)
}

/// [`read_capped`], returning the metadata of the file read too (its time and mode, with no
/// second `stat`).
///
/// `seen_regular`: the caller has just seen the path to be a regular file, not a link (a
/// directory listing's entry type, an `lstat`), so the `stat` before opening, whose purpose is
/// never to open a device or FIFO at all, is skipped. The opened file is checked either way.
pub(crate) fn read_with_meta(
    path: &Path,
    limit: u64,
    seen_regular: bool,
) -> Result<(Vec<u8>, Metadata), Unread> {
    if !seen_regular {
        let meta = std::fs::metadata(path).map_err(classify)?;
        check(&meta, limit)?;
    }
    read_opened(open(path)?, limit)
}

/// Opens `path` for reading without blocking (a FIFO swapped in has no writer to wait for).
fn open(path: &Path) -> Result<File, Unread> {
    crate::sys::no_block(std::fs::OpenOptions::new().read(true))
        .open(path)
        .map_err(classify)
}

/// An opened file's bytes and metadata, when it is a regular file of at most `limit` bytes.
fn read_opened(file: File, limit: u64) -> Result<(Vec<u8>, Metadata), Unread> {
    let meta = file.metadata().map_err(Unread::Unreadable)?;
    check(&meta, limit)?;
    let bytes = read_to_end_capped(file, meta.len(), limit)?;
    Ok((bytes, meta))
}

/// Every byte `reader` gives up to its end (a read that returns 0), refused as too large past
/// `limit` (at most `limit + 1` bytes are read). `size`, the file's size when it was opened,
/// only sizes the buffer: procfs says 0 for files with content, and a file may grow or shrink.
fn read_to_end_capped(reader: impl Read, size: u64, limit: u64) -> Result<Vec<u8>, Unread> {
    // Room for the file and for the read that finds its end.
    let room = usize::try_from(size.min(limit)).map_or(0, |n| n + 1);
    let mut bytes = Vec::with_capacity(room);
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Unreadable)?;
    if bytes.len() as u64 > limit {
        return Err(Unread::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Whether `meta` is a regular file of at most `limit` bytes.
fn check(meta: &Metadata, limit: u64) -> Result<(), Unread> {
    if !meta.is_file() {
        return Err(Unread::NotRegular(kind_of(meta)));
    }
    if meta.len() > limit {
        return Err(Unread::TooLarge(meta.len()));
    }
    Ok(())
}

/// The first `limit` bytes of a regular file (all of a smaller one): for readers that look at a
/// file's head only. Opened without blocking and checked once open, as [`read_capped`] is.
pub(crate) fn read_head(path: &Path, limit: u64) -> Result<Vec<u8>, Unread> {
    let file = open(path)?;
    let meta = file.metadata().map_err(Unread::Unreadable)?;
    check(&meta, u64::MAX)?;
    let mut bytes = Vec::new();
    file.take(limit)
        .read_to_end(&mut bytes)
        .map_err(Unread::Unreadable)?;
    Ok(bytes)
}

/// A file a person or a record names (`--history FILE`, `--input FILE`, a transcript path, a
/// settings file): it must be a regular file of at most `limit` bytes, and the error says which
/// file and why not, in words (`what` names it: "history file"). Never blocks on a FIFO, never
/// reads more than `limit + 1` bytes (`/dev/zero` is refused before a byte is read).
pub(crate) fn read_named(path: &Path, limit: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    read_capped(path, limit).map_err(|why| {
        let shown = path.display();
        match why {
            Unread::Missing => anyhow::anyhow!("{what} {shown}: does not exist"),
            Unread::NotRegular(kind) => anyhow::anyhow!(
                "{what} {shown}: is a {kind}, not a regular file; ccmem reads only regular files here"
            ),
            Unread::TooLarge(n) => anyhow::anyhow!(
                "{what} {shown}: is {} bytes, over the limit of {} for a {what}",
                Count(n as usize),
                Bytes(limit)
            ),
            Unread::Unreadable(e) => {
                anyhow::anyhow!("{what} {shown}: cannot be read: {}", describe(path, &e))
            }
        }
    })
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

    #[cfg(unix)]
    fn mkfifo(path: &Path) {
        crate::sys::mkfifo(path, 0o644).unwrap();
    }

    // Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
    #[cfg(unix)]
    #[test]
    fn fifo_is_not_regular_and_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        mkfifo(&fifo);
        assert!(matches!(
            read_capped(&fifo, 10),
            Err(Unread::NotRegular("FIFO"))
        ));
        // Seen as regular by a listing, then swapped: opened without blocking, then refused.
        assert!(matches!(
            read_with_meta(&fifo, 10, true),
            Err(Unread::NotRegular("FIFO"))
        ));
    }

    // Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
    #[cfg(unix)]
    #[test]
    fn a_fifo_with_a_writer_that_has_written_is_still_refused() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("f");
        mkfifo(&fifo);
        let mut writer = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fifo)
            .unwrap();
        writer.write_all(b"text").unwrap();
        for seen in [false, true] {
            assert!(matches!(
                read_with_meta(&fifo, 10, seen),
                Err(Unread::NotRegular("FIFO"))
            ));
        }
    }

    #[test]
    fn cap_is_inclusive_and_missing_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_capped(&f, 5).unwrap(), b"12345");
        assert!(matches!(read_capped(&f, 4), Err(Unread::TooLarge(5))));
        assert!(matches!(
            read_with_meta(&f, 4, true),
            Err(Unread::TooLarge(5))
        ));
        assert!(matches!(
            read_capped(&dir.path().join("nope"), 4),
            Err(Unread::Missing)
        ));
        assert!(matches!(
            read_capped(dir.path(), 4),
            Err(Unread::NotRegular("directory"))
        ));
        let (bytes, meta) = read_with_meta(&f, 5, true).unwrap();
        assert_eq!((&bytes[..], meta.len()), (&b"12345"[..], 5));
        // Empty and large files are read whole.
        std::fs::write(&f, b"").unwrap();
        assert_eq!(read_capped(&f, 5).unwrap(), b"");
        let big: Vec<u8> = (0..300 * 1024).map(|k| (k % 251) as u8).collect();
        std::fs::write(&f, &big).unwrap();
        assert_eq!(read_capped(&f, 1 << 20).unwrap(), big);
        assert!(matches!(
            read_capped(&f, 1000),
            Err(Unread::TooLarge(n)) if n == big.len() as u64
        ));
    }

    #[test]
    fn files_whose_size_says_nothing_are_read_to_the_end() {
        // procfs reports size 0 for files with content.
        let status = read_capped(Path::new("/proc/self/status"), 1 << 20).unwrap();
        assert!(status.starts_with(b"Name:") && status.ends_with(b"\n"));
        // `/proc/self/status` is larger than a few bytes: the cap holds where the size says 0.
        assert!(matches!(
            read_capped(Path::new("/proc/self/status"), 8),
            Err(Unread::TooLarge(9))
        ));
    }

    #[test]
    fn a_file_that_changed_since_its_size_was_taken_is_read_whole_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"0123456789").unwrap();
        let open = || File::open(&f).unwrap();
        // Grew after the size (4) was taken: read whole, still capped.
        assert_eq!(read_to_end_capped(open(), 4, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read_to_end_capped(open(), 4, 8),
            Err(Unread::TooLarge(9))
        ));
        // Shrank: read to its end.
        assert_eq!(read_to_end_capped(open(), 20, 100).unwrap(), b"0123456789");
    }

    /// A network or FUSE file system may answer a read short in the middle of a file: the
    /// whole file is still read, and the cap still holds.
    #[test]
    fn short_reads_are_not_the_end() {
        struct Short<'a>(&'a [u8]);
        impl Read for Short<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(3);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text = b"0123456789";
        assert_eq!(read_to_end_capped(Short(text), 10, 10).unwrap(), text);
        assert!(matches!(
            read_to_end_capped(Short(text), 10, 9),
            Err(Unread::TooLarge(10))
        ));
    }

    // Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
    #[cfg(unix)]
    #[test]
    fn a_named_file_is_refused_with_its_name_and_why() {
        let dir = tempfile::tempdir().unwrap();
        let err = |p: &Path, limit: u64| {
            read_named(p, limit, "history file")
                .unwrap_err()
                .to_string()
        };
        let zero = err(Path::new("/dev/zero"), 1 << 20);
        assert_eq!(
            zero,
            "history file /dev/zero: is a device, not a regular file; ccmem reads only regular files here"
        );
        let fifo = dir.path().join("f");
        mkfifo(&fifo);
        assert!(
            err(&fifo, 10)
                .ends_with("f: is a FIFO, not a regular file; ccmem reads only regular files here")
        );
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'x'; 11]).unwrap();
        assert!(
            err(&big, 10)
                .ends_with("big: is 11 bytes, over the limit of 10 bytes for a history file")
        );
        assert!(err(&dir.path().join("gone"), 10).ends_with("gone: does not exist"));
        assert_eq!(read_named(&big, 11, "x").unwrap().len(), 11);
        // A head is read from a file of any size, and never from a FIFO.
        assert_eq!(read_head(&big, 4).unwrap(), b"xxxx");
        assert!(matches!(
            read_head(&fifo, 4),
            Err(Unread::NotRegular("FIFO"))
        ));
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn symlink_loop_is_unreadable() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::os::unix::fs::symlink(&a, &a).unwrap();
        assert!(matches!(read_capped(&a, 4), Err(Unread::Unreadable(_))));
        assert!(read_regular(&a, 4).is_err());
        assert!(matches!(
            read_regular(&dir.path().join("gone"), 4),
            Ok(None)
        ));
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
    use crate::sys::OsError;
    match crate::sys::os_error(e) {
        Some(OsError::NotADirectory) => match blocking(|m| !m.is_dir()) {
            Some(file) => format!("{} is a file, not a folder", file.display()),
            None => "a part of the path is not a folder".to_owned(),
        },
        // Windows says "path not found" where Unix says ENOTDIR (a file in the middle of the
        // path): the nearest part that exists tells them apart.
        Some(OsError::NotFound) => match blocking(|_| true) {
            Some(file) if file != path && std::fs::metadata(&file).is_ok_and(|m| !m.is_dir()) => {
                format!("{} is a file, not a folder", file.display())
            }
            _ => "does not exist".to_owned(),
        },
        Some(OsError::AccessDenied) => "permission denied".to_owned(),
        Some(OsError::Loop) => "too many levels of symbolic links (a loop?)".to_owned(),
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
