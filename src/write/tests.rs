//! Tests of the write path: round trips, conflicts, locks, recovery.

use std::cell::RefCell;
use std::fs;
use std::path::Path;

use super::*;

type Hook = Box<dyn FnMut(&Path)>;

thread_local! {
    static HOOK: RefCell<Option<Hook>> = RefCell::new(None);
}

/// Called just before each rename re-check (tests only).
pub(super) fn before_rename(path: &Path) {
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
fn apply_then_undo_is_byte_identical_and_undo_twice_redoes() {
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
    let undone = lock.undo().unwrap();
    assert_eq!(undone.op, "undo of tier");
    assert_eq!(snapshot(dir.path()), before);
    lock.undo().unwrap();
    assert_eq!(snapshot(dir.path()), after);
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
            .all(|(n, _)| !n.ends_with("tmp"))
    );
}

#[test]
fn second_lock_is_refused_naming_the_lock_file() {
    let dir = folder();
    let _held = lock(dir.path()).unwrap();
    let err = lock(dir.path()).unwrap_err();
    assert!(matches!(err, WriteError::Locked(_)));
    assert!(err.to_string().contains(".ccmem.lock: locked by another"));
}

#[test]
fn symlink_targets_are_refused() {
    let dir = folder();
    std::os::unix::fs::symlink("a.md", dir.path().join("l.md")).unwrap();
    let lock = lock(dir.path()).unwrap();
    let c = Change {
        name: "l.md".into(),
        expect: Some(Hash::of("日本語\n".as_bytes())),
        new: Some(b"x".to_vec()),
    };
    let err = lock.apply("t", &[c]).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert_eq!(
        fs::read(dir.path().join("a.md")).unwrap(),
        "日本語\n".as_bytes()
    );
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
        lock.undo().unwrap();
        let paths = journal::Paths::of(dir.path());
        let mut j = Journal::parse(&paths.last, &fs::read(&paths.last).unwrap()).unwrap();
        j.op = "tier".into();
        for e in &mut j.entries {
            std::mem::swap(&mut e.old, &mut e.new);
            e.temp = Some(format!(".{}.ccmem-tmp", e.name));
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
