//! The operating system, in one place: every call ccmem makes that is not plain `std` goes
//! through here, and this is the only module that may hold `unsafe` (`lib.rs` denies
//! `unsafe_code` everywhere else). Most calls are safe `rustix` wrappers; the few left to raw
//! `libc` (a file lease, `mkfifo` for tests) are in
//! `unix.rs`, each with its SAFETY note.
//!
//! Each function is the portable contract, documented where Unix implements it (`unix.rs`,
//! re-exported here) with what it means on each platform; `windows.rs` implements the same. Unix
//! (Linux and macOS) is the platform ccmem is proven on; Windows is built and modelled
//! (issue 28, `SPEC-platforms.md`), its unit tests run under wine (`scripts/wine-test.sh`), and
//! the Windows semantics are the ones below:
//!
//! - **Owners**: Windows files have no numeric owner. [`uid`], [`gid`], [`euid`] and [`egid`]
//!   are 0 there, so every "owned by this user" test passes; ACLs are not read. [`is_root`] is
//!   false (elevation is not modelled).
//! - **Modes**: Windows has only the read-only attribute. [`mode`] reports it as owner-only bits
//!   (`0o600`, read-only `0o400`; folders `0o700`), so the "private state folder" tests pass;
//!   [`set_mode`] preserves what Windows can hold: the read-only attribute, set when `mode` has
//!   no owner write bit. Creation modes ([`create_mode`], [`dir_mode`]) and [`fchown`] do
//!   nothing there.
//! - **Links**: a final symbolic link (or junction) is never followed where Unix uses
//!   `O_NOFOLLOW`: the file is opened with `FILE_FLAG_OPEN_REPARSE_POINT` and an opened link is
//!   refused with the same error a loop gives ([`OsError::Loop`]). Hard links are not counted
//!   ([`nlink`] is 1): the client's Windows build reads any regular file directly (its
//!   `A()==="windows"` short-cut in `xT`, SPEC-platforms §10).
//! - **Special files**: Windows has no FIFOs, sockets or devices in a folder; [`special_kind`]
//!   is `None` and opening never blocks, so [`no_block`] does nothing.
//! - **Identity**: std gives no file index on stable Rust, so [`file_id`] is `None` there; the
//!   folder walk then relies on its depth limit, and [`same_file`] compares canonical paths.
//! - **Locks**: a folder's lock is a byte-range lock on a lock file of its own in `%TEMP%`
//!   ([`lock_dir`]), not on the folder.
//! - **Folders**: no descriptor-relative calls: [`Dir`] keeps the path and checks it again
//!   (`symlink_metadata`) before each use, so a junction swapped in between two calls is a
//!   window ccmem cannot close there. Folders are not `fsync`ed ([`sync_dir`]: NTFS journals
//!   its metadata and `FlushFileBuffers` refuses a folder handle).
//! - **Replacing a file**: std's `rename` is `MoveFileExW(MOVEFILE_REPLACE_EXISTING)`, and on
//!   "access denied" a rename with POSIX semantics (`FileRenameInfoEx`), which replaces a file
//!   that others hold open (sharing delete, as std and libuv open files) on NTFS since Windows 10
//!   1809. Where that is missing (FAT, exFAT, many network shares, wine) a file open anywhere,
//!   ccmem's own handle included, cannot be replaced: the writer then lets go of its handle and
//!   tries once more (`write::ops`).
//! - **Processes**: a child runs in a new process group (`CREATE_NEW_PROCESS_GROUP`) and is
//!   ended with its tree by `taskkill /T /F`.
//! - **`renameat2`, leases, `statfs`** are Linux's: elsewhere a swap or no-replace rename is
//!   reported unsupported (the writer falls back to a link and an unlink), "open for writing
//!   elsewhere" is unknown, and no folder is an autofs root (the client asks only on Linux).

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as imp;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as imp;

/// The errors ccmem tells apart that `std::io::ErrorKind` does not name on stable Rust (or
/// names more widely: `PermissionDenied` is `EPERM` too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(windows, allow(dead_code, reason = "some have no Windows counterpart"))]
pub(crate) enum OsError {
    /// `ENOENT` (Windows: file or path not found).
    NotFound,
    /// `EACCES` (Windows: access denied).
    AccessDenied,
    /// `ENOTDIR` (Windows: `ERROR_DIRECTORY`).
    NotADirectory,
    /// `ELOOP`: a symbolic link where none is followed, or a loop (Windows:
    /// `ERROR_CANT_RESOLVE_FILENAME`, and an opened link refused by [`open_no_follow`]).
    Loop,
    /// `EMLINK` (what some systems give for `O_NOFOLLOW` on a link).
    TooManyLinks,
    /// `ENXIO`: a socket, or a FIFO with no reader opened for writing.
    NoDevice,
}

/// What a file is, as `fstat` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    windows,
    allow(dead_code, reason = "Windows has no special files in a folder")
)]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
    Unknown,
}

/// What [`Dir`] says about a file: its kind, owner and permission bits.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stat {
    pub kind: Kind,
    pub uid: u32,
    /// Permission bits (`& 0o7777`).
    pub mode: u32,
}

pub(crate) use imp::{
    Dir, create_mode, dir_mode, egid, euid, fchown, file_id, gid, is_autofs, is_executable,
    is_root, kill_group, kill_self, kind, lock_dir, mkdir, mode, mtime_ms, new_process_group,
    nlink, no_block, open_for_writing_elsewhere, open_no_follow, os_error, rename_exchange,
    rename_noreplace, same_file, set_mode, special_kind, sync_dir, uid, umask, writable,
};

/// How a `renameat2` flag fared.
#[derive(Debug)]
#[cfg_attr(
    not(target_os = "linux"),
    allow(dead_code, reason = "renameat2 is Linux's")
)]
pub(crate) enum Renamed {
    /// Done.
    Done,
    /// The file system (or the kernel, or the platform) does not offer the flag.
    Unsupported,
}

#[cfg(all(test, unix))]
pub(crate) use imp::mkfifo;

/// A registry hive (Windows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(windows), allow(dead_code, reason = "the registry is Windows'"))]
pub(crate) enum Hive {
    /// `HKEY_LOCAL_MACHINE`.
    Machine,
    /// `HKEY_CURRENT_USER`.
    User,
}

/// One registry value as the registry holds it.
#[derive(Debug)]
#[cfg_attr(not(windows), allow(dead_code, reason = "the registry is Windows'"))]
pub(crate) enum RegValue {
    /// No such key, or no such value in it.
    Missing,
    /// The value's type (the registry's `REG_*` number) and its bytes.
    Data {
        /// `REG_SZ` is 1, `REG_EXPAND_SZ` 2, `REG_DWORD` 4, `REG_MULTI_SZ` 7.
        ty: u32,
        /// The stored bytes (a string is UTF-16LE, usually ending with a NUL).
        bytes: Vec<u8>,
    },
    /// Longer than the bound asked for (its length in bytes, or the bound when it grew while
    /// being read).
    TooLarge(usize),
    /// Could not be read (access denied, say).
    Error(std::io::Error),
}

/// The value `name` of the key `path` under `hive`, read only when it is at most `max` bytes
/// (its size is asked first, then the bytes are read into a buffer of that size, so a value
/// that grows in between is reported too large, never read unbounded). Windows only: there is
/// no registry elsewhere. The key is opened for reading only.
#[cfg(windows)]
pub(crate) fn registry_value(hive: Hive, path: &str, name: &str, max: usize) -> RegValue {
    imp::registry_value(hive, path, name, max)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    /// The lock refuses a second writer and leaves the folder usable: files are created in it,
    /// renamed into it from outside and inside, replaced and listed while it is held (on NTFS a
    /// share-mode lock refused renames into the folder); the folder holds no file of the lock.
    #[test]
    fn a_held_lock_refuses_a_second_and_lets_files_be_renamed_into_the_folder() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("mémoire");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("MEMORY.md"), "- [Build](build.md)\n").unwrap();
        let held = lock_dir(&folder).unwrap().expect("free");
        assert!(
            lock_dir(&folder).unwrap().is_none(),
            "a second lock is refused"
        );
        assert_eq!(
            names(&folder),
            ["MEMORY.md"],
            "nothing of the lock in the folder"
        );

        let outside = t.path().join("build.md.tmp");
        std::fs::write(&outside, "# ビルド\n").unwrap();
        std::fs::rename(&outside, folder.join("build.md")).expect("rename into the folder");
        std::fs::write(folder.join(".MEMORY.md.tmp"), "- [Build](build.md): how\n").unwrap();
        std::fs::rename(folder.join(".MEMORY.md.tmp"), folder.join("MEMORY.md"))
            .expect("a replacing rename inside the folder");
        std::fs::create_dir(folder.join(".ccmem")).unwrap();
        std::fs::rename(folder.join("build.md"), folder.join(".ccmem").join("b"))
            .expect("a rename into a folder below");
        assert_eq!(names(&folder), [".ccmem", "MEMORY.md"]);
        assert!(lock_dir(&folder).unwrap().is_none(), "still held");

        drop(held);
        assert!(
            lock_dir(&folder).unwrap().is_some(),
            "free again once dropped"
        );
    }

    #[test]
    fn a_missing_folder_and_a_file_are_named_as_such() {
        let t = tempfile::tempdir().unwrap();
        let missing = lock_dir(&t.path().join("absent")).unwrap_err();
        assert_eq!(os_error(&missing), Some(OsError::NotFound), "{missing}");
        std::fs::write(t.path().join("notes.md"), "x").unwrap();
        let file = lock_dir(&t.path().join("notes.md")).unwrap_err();
        assert_eq!(os_error(&file), Some(OsError::NotADirectory), "{file}");
    }

    /// Windows names fold case: the folder named in another case is the same folder, with the
    /// same lock.
    #[cfg(windows)]
    #[test]
    fn the_folder_in_another_case_shares_its_lock() {
        let t = tempfile::tempdir().unwrap();
        let folder = t.path().join("Projets");
        std::fs::create_dir(&folder).unwrap();
        let _held = lock_dir(&folder).unwrap().expect("free");
        assert!(lock_dir(&t.path().join("PROJETS")).unwrap().is_none());
    }

    /// Two folders have two locks (the Windows lock files are per folder).
    #[test]
    fn each_folder_has_its_own_lock() {
        let t = tempfile::tempdir().unwrap();
        let (a, b) = (t.path().join("a"), t.path().join("b"));
        std::fs::create_dir(&a).unwrap();
        std::fs::create_dir(&b).unwrap();
        let _a = lock_dir(&a).unwrap().expect("a free");
        assert!(lock_dir(&b).unwrap().is_some(), "b is another folder");
        assert!(lock_dir(&a).unwrap().is_none());
    }

    /// The registry read under wine only (`scripts/wine-test.sh` sets `CCMEM_WINE_TEST`, and
    /// wine's own `HKCU\Software\Wine` is there): it writes a throwaway key under HKCU and
    /// removes it. Never on a real user's Windows, where it says why it did nothing.
    #[cfg(windows)]
    #[test]
    fn a_registry_value_is_read_within_its_bound() {
        use windows_registry::CURRENT_USER;
        let wine = std::env::var_os("CCMEM_WINE_TEST").is_some()
            && CURRENT_USER.open(r"Software\Wine").is_ok();
        if !wine {
            eprintln!("skipped: writes the registry, so it runs only under scripts/wine-test.sh");
            return;
        }
        let path = format!(r"Software\ccmem-test-{}", std::process::id());
        let key = CURRENT_USER.create(&path).unwrap();
        key.set_string("Settings", r#"{"claudeMd":"x"}"#).unwrap();
        key.set_u32("Number", 7).unwrap();
        let text = |v: RegValue| match v {
            RegValue::Data { ty: 1, bytes } => String::from_utf16_lossy(
                &bytes
                    .chunks_exact(2)
                    .map(|p| u16::from_le_bytes([p[0], p[1]]))
                    .collect::<Vec<_>>(),
            ),
            other => panic!("{other:?}"),
        };
        let got = text(registry_value(Hive::User, &path, "Settings", 1024));
        assert_eq!(got, "{\"claudeMd\":\"x\"}\0");
        // 34 bytes of UTF-16 with the NUL: past a bound of 33, nothing is read.
        assert!(matches!(
            registry_value(Hive::User, &path, "Settings", 33),
            RegValue::TooLarge(34)
        ));
        assert!(matches!(
            registry_value(Hive::User, &path, "Number", 1024),
            RegValue::Data { ty: 4, .. }
        ));
        assert!(matches!(
            registry_value(Hive::User, &path, "Absent", 1024),
            RegValue::Missing
        ));
        CURRENT_USER.remove_tree(&path).unwrap();
        assert!(matches!(
            registry_value(Hive::User, &path, "Settings", 1024),
            RegValue::Missing
        ));
    }
}
