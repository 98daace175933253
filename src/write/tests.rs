//! Tests of the write path: round trips, conflicts, locks, recovery.

use std::cell::RefCell;
use std::fs;
use std::path::Path;

use super::*;

type Hook = Box<dyn FnMut(&Path)>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = RefCell::new(None);
}

/// Called in the window between a target's check and its swap (tests only).
pub(super) fn before_swap(path: &Path) {
    HOOK.with(|h| {
        if let Some(f) = h.borrow_mut().as_mut() {
            f(path)
        }
    });
}

fn set_hook(f: impl FnMut(&Path) + 'static) {
    HOOK.with(|h| *h.borrow_mut() = Some(Box::new(f)));
}

fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with(".ccmem"))
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn change(dir: &Path, name: &str, new: Option<&[u8]>) -> Change {
    let expect = fs::read(dir.join(name)).ok().map(|b| Hash::of(&b));
    Change {
        name: name.into(),
        expect,
        new: new.map(<[u8]>::to_vec),
    }
}

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("MEMORY.md"),
        b"- [a](a.md)\r\n\xef\xbb\xbfx\n",
    )
    .unwrap();
    fs::write(dir.path().join("a.md"), "日本語\n").unwrap();
    dir
}

#[test]
fn apply_then_undo_is_byte_identical_and_undo_twice_is_one_undo() {
    let dir = folder();
    let before = snapshot(dir.path());
    let lock = lock(dir.path()).unwrap();
    let changes = [
        change(dir.path(), "MEMORY.md", Some(b"- [h](h.md)\n")),
        change(dir.path(), "h.md", Some(b"- [a](a.md)\r\n")),
        change(dir.path(), "a.md", None),
    ];
    lock.apply("tier", &changes).unwrap();
    let after = snapshot(dir.path());
    assert_ne!(before, after);
    assert!(!dir.path().join("a.md").exists());
    let Undone::Reversed(undone) = lock.undo().unwrap() else {
        panic!("nothing undone");
    };
    assert_eq!(undone.op, "undo of tier");
    assert_eq!(snapshot(dir.path()), before);
    let Undone::Nothing { why, .. } = lock.undo().unwrap() else {
        panic!("the second undo changed files");
    };
    assert!(why.contains("`tier` was already undone"), "{why}");
    assert_eq!(snapshot(dir.path()), before);
    let Undone::Reversed(redone) = lock.redo().unwrap() else {
        panic!("nothing redone");
    };
    assert_eq!(redone.op, "tier");
    assert_eq!(snapshot(dir.path()), after);
    assert!(matches!(lock.redo().unwrap(), Undone::Nothing { .. }));
}

#[test]
fn stale_plan_is_refused_before_anything_is_written() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    let c = change(dir.path(), "MEMORY.md", Some(b"new"));
    fs::write(dir.path().join("MEMORY.md"), b"edited by the client").unwrap();
    let before = snapshot(dir.path());
    let err = lock.apply("tier", &[c]).unwrap_err();
    assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
    assert!(err.to_string().contains("MEMORY.md: changed on disk"));
    assert_eq!(snapshot(dir.path()), before);
    assert!(!dir.path().join(".ccmem/journal.json").exists());
}

#[test]
fn edit_between_renames_aborts_and_reverts_earlier_renames() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    let changes = [
        change(dir.path(), "a.md", Some(b"A2")),
        change(dir.path(), "MEMORY.md", Some(b"M2")),
    ];
    let memory = dir.path().join("MEMORY.md");
    set_hook(move |p| {
        if p.ends_with("MEMORY.md") {
            fs::write(p, b"client wrote this").unwrap();
        }
    });
    let err = lock.apply("tier", &changes).unwrap_err();
    HOOK.with(|h| *h.borrow_mut() = None);
    assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
    assert_eq!(fs::read(&memory).unwrap(), b"client wrote this");
    assert_eq!(
        fs::read(dir.path().join("a.md")).unwrap(),
        "日本語\n".as_bytes()
    );
    assert!(!dir.path().join(".ccmem/journal.json").exists());
    assert!(
        snapshot(dir.path())
            .iter()
            .all(|(n, _)| !n.contains("ccmem-tmp"))
    );
}

#[test]
fn second_lock_is_refused_naming_the_folder_and_creates_nothing() {
    let dir = folder();
    let before = snapshot_all(dir.path());
    let _held = lock(dir.path()).unwrap();
    let err = lock(dir.path()).unwrap_err();
    assert!(matches!(err, WriteError::Locked(_)));
    assert!(
        err.to_string().contains("another ccmem is writing here"),
        "{err}"
    );
    assert_eq!(
        snapshot_all(dir.path()),
        before,
        "no lock file, no state folder"
    );
}

/// Every name in the folder, ccmem's own included.
fn snapshot_all(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn symlinks_are_written_through_and_never_replaced() {
    let dir = folder();
    std::os::unix::fs::symlink("a.md", dir.path().join("l.md")).unwrap();
    std::os::unix::fs::symlink("gone.md", dir.path().join("d.md")).unwrap();
    let lock = lock(dir.path()).unwrap();
    let c = Change {
        name: "l.md".into(),
        expect: Some(Hash::of("日本語\n".as_bytes())),
        new: Some(b"x".to_vec()),
    };
    lock.apply("t", &[c]).unwrap();
    assert!(
        fs::symlink_metadata(dir.path().join("l.md"))
            .unwrap()
            .is_symlink()
    );
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"x");
    let dangling = Change {
        name: "d.md".into(),
        expect: None,
        new: Some(b"y".to_vec()),
    };
    let err = lock.apply("t", &[dangling]).unwrap_err().to_string();
    assert!(err.contains("gone.md, which does not exist"), "{err}");
    assert!(
        fs::symlink_metadata(dir.path().join("d.md"))
            .unwrap()
            .is_symlink()
    );
    assert!(!dir.path().join("gone.md").exists());
    let bad = Change {
        name: "../x.md".into(),
        expect: None,
        new: Some(vec![]),
    };
    assert!(lock.apply("t", &[bad]).is_err());
}

#[test]
fn recovery_rolls_forward_with_intact_temps_and_back_without() {
    for intact in [true, false] {
        let dir = folder();
        let old = snapshot(dir.path());
        let lock = lock(dir.path()).unwrap();
        let changes = [
            change(dir.path(), "a.md", Some(b"A2")),
            change(dir.path(), "MEMORY.md", Some(b"M2")),
        ];
        lock.apply("tier", &changes).unwrap();
        let new = snapshot(dir.path());
        // Rebuild the moment after the first rename of a second run of the same operation.
        assert!(matches!(lock.undo().unwrap(), Undone::Reversed(_)));
        let paths = journal::Paths::of(dir.path());
        let mut j = Journal::parse(&paths.last, &fs::read(&paths.last).unwrap()).unwrap();
        j.op = "tier".into();
        for e in &mut j.entries {
            std::mem::swap(&mut e.old, &mut e.new);
            e.temp = Some(format!(".{}.ccmem-tmp", e.name).into());
        }
        j.entries.reverse();
        fs::write(dir.path().join(".a.md.ccmem-tmp"), b"A2").unwrap();
        fs::rename(dir.path().join(".a.md.ccmem-tmp"), dir.path().join("a.md")).unwrap();
        let memory_new: &[u8] = if intact { b"M2" } else { b"M" };
        fs::write(dir.path().join(".MEMORY.md.ccmem-tmp"), memory_new).unwrap();
        for (_, bytes) in &old {
            fs::write(paths.backup_of(&Hash::of(bytes)), bytes).unwrap();
        }
        fs::write(&paths.pending, j.to_bytes()).unwrap();
        let r = lock.recover().unwrap().unwrap();
        let expected = if intact { &new } else { &old };
        assert_eq!(&snapshot(dir.path()), expected, "{r:?}");
        assert!(!paths.pending.exists());
        assert!(lock.recover().unwrap().is_none());
    }
}

use super::journal::Journal;

fn clear_hook() {
    HOOK.with(|h| *h.borrow_mut() = None);
}

#[test]
fn a_line_appended_or_renamed_in_during_the_swap_window_is_merged_never_lost() {
    for replace in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("MEMORY.md"), "# M\n- a\n- b\n").unwrap();
        let lock = lock(dir.path()).unwrap();
        let c = change(dir.path(), "MEMORY.md", Some(b"# M\n- [hub](hub.md)\n"));
        set_hook(move |p| {
            if replace {
                // A writer that replaces the file by a rename of its own (as the client's does).
                let tmp = p.with_file_name(".client-tmp");
                fs::write(&tmp, "# M\n- a\n- b\n- client line\n").unwrap();
                fs::rename(&tmp, p).unwrap();
            } else {
                use std::io::Write;
                let mut f = fs::OpenOptions::new().append(true).open(p).unwrap();
                f.write_all(b"- client line\n").unwrap();
            }
        });
        let applied = lock.apply("tier", &[c]).unwrap();
        clear_hook();
        assert_eq!(
            fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
            "# M\n- [hub](hub.md)\n- client line\n",
            "replace: {replace}"
        );
        assert_eq!(applied.merged.len(), 1);
        // Undo keeps the merged line too.
        assert!(matches!(lock.undo().unwrap(), Undone::Reversed(_)));
        assert_eq!(
            fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
            "# M\n- a\n- b\n- client line\n"
        );
    }
}

#[test]
fn modes_and_backups_keep_the_originals_mode_and_new_files_take_the_librarys() {
    use std::os::unix::fs::PermissionsExt;
    let dir = folder();
    let m = dir.path().join("MEMORY.md");
    fs::set_permissions(&m, fs::Permissions::from_mode(0o600)).unwrap();
    let lock = lock(dir.path()).unwrap();
    assert_eq!(lock.create_mode(), 0o600);
    let changes = [
        change(dir.path(), "MEMORY.md", Some(b"new\n")),
        change(dir.path(), "hub.md", Some(b"hub\n")),
    ];
    let before = fs::read(&m).unwrap();
    lock.apply("tier", &changes).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&m), 0o600);
    assert_eq!(mode(&dir.path().join("hub.md")), 0o600);
    let backup = journal::Paths::of(dir.path()).backup_of(&Hash::of(&before));
    assert_eq!(mode(&backup), 0o600);
    assert_eq!(mode(&dir.path().join(".ccmem")), 0o700);
}

#[test]
fn a_fifo_target_is_refused_without_blocking_and_left_alone() {
    let dir = folder();
    let fifo = dir.path().join("p.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let temp = dir.path().join(".p.md.ccmem-tmp.abcdef");
    let c = std::ffi::CString::new(temp.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let lock = lock(dir.path()).unwrap();
    let ch = Change {
        name: "p.md".into(),
        expect: None,
        new: Some(b"x".to_vec()),
    };
    let err = lock.apply("t", &[ch]).unwrap_err().to_string();
    assert!(err.contains("not a regular file (FIFO)"), "{err}");
    assert!(
        lock.recover().unwrap().is_none(),
        "a FIFO named like a temp is not ours"
    );
    assert!(fs::symlink_metadata(&temp).unwrap().file_type().is_fifo());
}

use std::os::unix::fs::FileTypeExt;
