//! The one path for ccmem's own files, never a user's: its bounded logs (the session-start
//! history log, the InstructionsLoaded session logs) are appended to, its caches (the installed
//! client's version) replaced whole. A record is one whole line written with one `write(2)` to a
//! file opened `O_APPEND`, so concurrent hooks never interleave their lines. A cache is replaced
//! by [`replace_own`]: a temp file of an unpredictable name, created exclusively and never
//! through a link, renamed over the old one (a link planted there is replaced, never followed).
//!
//! What is safe when the log's place holds something else:
//! - The log file is opened with `O_NOFOLLOW | O_NONBLOCK`: a planted symbolic link is refused
//!   (`ELOOP`), never followed, and a FIFO cannot make the hook wait. The opened file must be a
//!   regular file owned by this user with one link (a hard link planted to another file is
//!   refused: appending would change that file too).
//! - Its folder (and the one above it, when the folder is made) is created `0700`. An existing
//!   folder must be a real folder owned by this user that no one else can write to (`lstat`:
//!   a folder that is a link is refused, so the log cannot be moved elsewhere through it).
//! - Rotation is bounded: when the file holds `cap` bytes or more, it is renamed to its `.1`
//!   sibling (the previous `.1` is replaced) under an exclusive `flock` of the open file, after
//!   checking that the path still names the file that was opened. A rename moves the name, never
//!   a link's target. The log's folder so holds at most `2 × (cap + one record)` bytes.
//!
//! Appends are not journaled and not undone: the log is ccmem's, and a lost record only means a
//! session older than the client's transcripts is missing from `ccmem history`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::fault::point;
use super::{WriteError, io_at};
use crate::sys::{self as os, OsError};

/// What an append did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Appended {
    /// The record was added to the log.
    Added,
    /// The log was full: it was moved to this `.1` sibling first (the record is its last line).
    Rotated(PathBuf),
}

/// The `.1` sibling a full log is moved to (`history.jsonl` → `history.1.jsonl`).
pub fn rotated_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let rotated = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.1.{ext}"),
        _ => format!("{name}.1"),
    };
    path.with_file_name(rotated)
}

/// Appends `record` (one line, ending in `\n`) to the log at `path`, creating its folder and the
/// file (mode 0600) when missing, and rotating it when it holds `cap` bytes or more.
pub fn append_line(path: &Path, record: &[u8], cap: u64) -> Result<Appended, WriteError> {
    if !record.ends_with(b"\n") || record[..record.len() - 1].contains(&b'\n') {
        return Err(WriteError::Refused {
            path: path.to_owned(),
            why: "a log record must be one line".into(),
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    ensure_private_dir(dir)?;
    let mut file = open_log(path)?;
    let size = file.metadata().map_err(io_at(path))?.len();
    let mut outcome = Appended::Added;
    if size >= cap && file.try_lock().is_ok() {
        // Still the file that was opened (another hook may have rotated it meanwhile)?
        let same = fs::symlink_metadata(path).is_ok_and(|m| {
            let opened = file.metadata().ok();
            // Windows says no identity: rotate whichever log is there.
            opened.is_some_and(|o| os::file_id(&o) == os::file_id(&m))
        });
        if same {
            let to = rotated_path(path);
            point("rename");
            fs::rename(path, &to).map_err(io_at(path))?;
            outcome = Appended::Rotated(to);
        }
    }
    point("write");
    file.write_all(record).map_err(io_at(path))?;
    Ok(outcome)
}

/// Replaces ccmem's own file at `path` (a cache, mode 0600) with `bytes`, making its folder as
/// [`append_line`] does (or checking the one there).
pub fn replace_own(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    ensure_private_dir(dir)?;
    let temp = super::target::temp_for(path);
    super::sys::create_synced(&temp, bytes, 0o600, None).map_err(io_at(&temp))?;
    if let Err(e) = super::sys::rename(&temp, path) {
        let _ = super::sys::unlink(&temp);
        return Err(io_at(path)(e));
    }
    Ok(())
}

/// Opens the log for appending: never through a link, never blocking, only a regular file of
/// ours with one link.
fn open_log(path: &Path) -> Result<File, WriteError> {
    point("open");
    let mut opts = OpenOptions::new();
    os::create_mode(opts.append(true).create(true), 0o600);
    let file = os::open_no_follow(&mut opts, path, true).map_err(|e| match os::os_error(&e) {
        Some(OsError::Loop) => refused(path, "is a symbolic link; ccmem never writes through one"),
        Some(OsError::NoDevice) => refused(path, "is not a regular file"),
        _ => io_at(path)(e),
    })?;
    let m = file.metadata().map_err(io_at(path))?;
    if !m.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    if os::uid(&m) != os::euid() {
        return Err(refused(path, "belongs to another user"));
    }
    if os::nlink(&m) != 1 {
        return Err(refused(
            path,
            "has other hard links; appending would change them too",
        ));
    }
    Ok(file)
}

/// Makes `dir` (0700, and its parent when missing) or checks the one there: a real folder of
/// ours that only we can write to.
fn ensure_private_dir(dir: &Path) -> Result<(), WriteError> {
    match fs::symlink_metadata(dir) {
        Ok(m) => {
            if m.file_type().is_symlink() {
                return Err(refused(
                    dir,
                    "is a symbolic link; the log is not written through it",
                ));
            }
            if !m.is_dir() {
                return Err(refused(dir, "is not a folder"));
            }
            if os::uid(&m) != os::euid() {
                return Err(refused(dir, "belongs to another user"));
            }
            if os::mode(&m) & 0o022 != 0 {
                return Err(refused(dir, "can be written by other users"));
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            point("mkdir");
            os::dir_mode(fs::DirBuilder::new().recursive(true), 0o700)
                .create(dir)
                .map_err(io_at(dir))?;
            ensure_private_dir_made(dir)
        }
        Err(e) => Err(io_at(dir)(e)),
    }
}

/// After `mkdir -p`: the folder must now be a real one (not a link raced into its place).
fn ensure_private_dir_made(dir: &Path) -> Result<(), WriteError> {
    let m = fs::symlink_metadata(dir).map_err(io_at(dir))?;
    if m.is_dir() && !m.file_type().is_symlink() {
        Ok(())
    } else {
        Err(refused(dir, "is not a folder"))
    }
}

fn refused(path: &Path, why: &str) -> WriteError {
    WriteError::Refused {
        path: path.to_owned(),
        why: why.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_in(dir: &Path) -> PathBuf {
        dir.join("state/ccmem/history.jsonl")
    }

    #[test]
    fn appends_whole_lines_and_makes_a_private_folder_and_file() {
        let t = tempfile::tempdir().unwrap();
        let log = log_in(t.path());
        assert_eq!(
            append_line(&log, b"{\"a\":1}\n", 1 << 20).unwrap(),
            Appended::Added
        );
        assert_eq!(
            append_line(&log, b"{\"a\":2}\n", 1 << 20).unwrap(),
            Appended::Added
        );
        assert_eq!(fs::read(&log).unwrap(), b"{\"a\":1}\n{\"a\":2}\n");
        assert_eq!(
            crate::sys::mode(&fs::metadata(&log).unwrap()) & 0o777,
            0o600
        );
        assert_eq!(
            crate::sys::mode(&fs::metadata(log.parent().unwrap()).unwrap()) & 0o777,
            0o700
        );
        assert!(append_line(&log, b"two\nlines\n", 1 << 20).is_err());
        assert!(append_line(&log, b"no newline", 1 << 20).is_err());
    }

    #[test]
    fn a_full_log_is_rotated_once_and_the_folder_stays_bounded() {
        let t = tempfile::tempdir().unwrap();
        let log = log_in(t.path());
        let rec = [b'x'; 99].iter().chain(b"\n").copied().collect::<Vec<u8>>();
        let mut rotations = 0;
        for _ in 0..50 {
            if let Appended::Rotated(to) = append_line(&log, &rec, 1000).unwrap() {
                assert_eq!(to, log.with_file_name("history.1.jsonl"));
                rotations += 1;
            }
        }
        assert!(rotations >= 4, "{rotations}");
        let total: u64 = fs::read_dir(log.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum();
        assert!(total <= 2 * (1000 + 100), "{total}");
    }

    // Unix only: symbolic links, FIFOs (none of them on Windows as
    // wine 8 runs its tests here: see crate::sys).
    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_fifo_or_hard_link_is_refused_and_nothing_is_written_through_it() {
        let t = tempfile::tempdir().unwrap();
        let log = log_in(t.path());
        fs::create_dir_all(log.parent().unwrap()).unwrap();
        fs::set_permissions(
            log.parent().unwrap(),
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )
        .unwrap();
        let victim = t.path().join("victim.txt");
        fs::write(&victim, "keep me\n").unwrap();
        std::os::unix::fs::symlink(&victim, &log).unwrap();
        let e = append_line(&log, b"x\n", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me\n");
        fs::remove_file(&log).unwrap();

        fs::hard_link(&victim, &log).unwrap();
        let e = append_line(&log, b"x\n", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("hard links"), "{e}");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep me\n");
        fs::remove_file(&log).unwrap();

        crate::sys::mkfifo(&log, 0o600).unwrap();
        let e = append_line(&log, b"x\n", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    // Unix only: symbolic links, permission bits (none of them on Windows as
    // wine 8 runs its tests here: see crate::sys).
    #[cfg(unix)]
    #[test]
    fn a_linked_or_shared_folder_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let elsewhere = t.path().join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::create_dir_all(t.path().join("state")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, t.path().join("state/ccmem")).unwrap();
        let e = append_line(&log_in(t.path()), b"x\n", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);

        let open = t.path().join("open/ccmem");
        fs::create_dir_all(&open).unwrap();
        fs::set_permissions(&open, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
        let e = append_line(&open.join("history.jsonl"), b"x\n", 1 << 20).unwrap_err();
        assert!(e.to_string().contains("other users"), "{e}");
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn an_own_file_is_replaced_never_written_through_a_link() {
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("cache/ccmem");
        let file = dir.join("client-version.json");
        replace_own(&file, b"{}").unwrap();
        assert_eq!(fs::read(&file).unwrap(), b"{}");
        assert_eq!(
            crate::sys::mode(&fs::metadata(&file).unwrap()) & 0o777,
            0o600
        );
        // A link planted at the file, or at any predictable temp name, is never followed.
        let victim = t.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        fs::remove_file(&file).unwrap();
        std::os::unix::fs::symlink(&victim, &file).unwrap();
        for pid in [std::process::id(), 1, 2] {
            let planted = dir.join(format!(".client-version.json.{pid}"));
            std::os::unix::fs::symlink(&victim, planted).unwrap();
        }
        replace_own(&file, b"{\"a\":1}").unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        assert!(!fs::symlink_metadata(&file).unwrap().is_symlink());
        assert_eq!(fs::read(&file).unwrap(), b"{\"a\":1}");
        let temps = fs::read_dir(&dir)
            .unwrap()
            .filter(|e| {
                let n = e.as_ref().unwrap().file_name();
                super::super::target::is_temp_of(&n.to_string_lossy(), None)
            })
            .count();
        assert_eq!(temps, 0);
    }

    #[test]
    fn rotated_names() {
        assert_eq!(
            rotated_path(Path::new("/s/history.jsonl")),
            PathBuf::from("/s/history.1.jsonl")
        );
        assert_eq!(rotated_path(Path::new("/s/log")), PathBuf::from("/s/log.1"));
    }
}
