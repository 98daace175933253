//! Tests of the write path: round trips, conflicts, locks, recovery (the swap window's are in
//! `swap/tests.rs`).

use std::fs;
use std::path::Path;

use super::swap::tests::apply_racing;
use super::*;

/// Nothing of an operation is left over: no pending journal, no temp file.
pub(super) fn assert_no_leftovers(dir: &Path) {
    assert!(!dir.join(".ccmem/journal.json").exists());
    let names = snapshot(dir);
    assert!(
        names.iter().all(|(n, _)| !n.contains("ccmem-tmp")),
        "{names:?}"
    );
}

pub(super) fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
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

pub(super) fn change(dir: &Path, name: &str, new: Option<&[u8]>) -> Change {
    let expect = fs::read(dir.join(name)).ok().map(|b| Hash::of(&b));
    Change {
        name: name.into(),
        expect,
        new: new.map(<[u8]>::to_vec),
    }
}

pub(super) fn folder() -> tempfile::TempDir {
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
pub(super) fn snapshot_all(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
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
    // A link out of the folder is never written through.
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("CLAUDE.md"), "mine\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("CLAUDE.md"), dir.path().join("o.md")).unwrap();
    let out = Change {
        name: "o.md".into(),
        expect: Some(Hash::of(b"mine\n")),
        new: Some(b"theirs".to_vec()),
    };
    let err = lock.apply("t", &[out]).unwrap_err().to_string();
    assert!(err.contains("outside the memory folder"), "{err}");
    assert_eq!(
        fs::read(outside.path().join("CLAUDE.md")).unwrap(),
        b"mine\n"
    );
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
        let state = dir.path().join(".ccmem");
        let history: journal::History =
            serde_json::from_slice(&fs::read(state.join("history.json")).unwrap()).unwrap();
        let mut j = history.undone.last().unwrap().clone();
        (j.op, j.id, j.undo_of, j.reverses) = ("tier".into(), "again".into(), None, None);
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
            fs::write(state.join("backup").join(Hash::of(bytes).as_str()), bytes).unwrap();
        }
        let pending = state.join("journal.json");
        fs::write(&pending, j.to_bytes()).unwrap();
        let r = lock.recover().unwrap().unwrap();
        let expected = if intact { &new } else { &old };
        assert_eq!(&snapshot(dir.path()), expected, "{r:?}");
        assert!(!pending.exists());
        assert!(lock.recover().unwrap().is_none());
    }
}

// Unix only: permission bits (Windows has only the read-only attribute: crate::sys::mode).
#[cfg(unix)]
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
    let backup = dir
        .path()
        .join(".ccmem/backup")
        .join(Hash::of(&before).as_str());
    assert_eq!(mode(&backup), 0o600);
    assert_eq!(mode(&dir.path().join(".ccmem")), 0o700);
}

// Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
#[cfg(unix)]
#[test]
fn a_fifo_target_is_refused_without_blocking_and_left_alone() {
    let dir = folder();
    let fifo = dir.path().join("p.md");
    crate::sys::mkfifo(&fifo, 0o644).unwrap();
    let temp = dir.path().join(".p.md.ccmem-tmp.abcdef");
    crate::sys::mkfifo(&temp, 0o644).unwrap();
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

#[cfg(unix)]
use std::os::unix::fs::FileTypeExt;

#[test]
fn undo_is_a_stack_and_redo_walks_it_back_up() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    let s0 = snapshot(dir.path());
    lock.apply("first", &[change(dir.path(), "a.md", Some(b"A1\n"))])
        .unwrap();
    let s1 = snapshot(dir.path());
    lock.apply(
        "second",
        &[
            change(dir.path(), "MEMORY.md", Some(b"M2\n")),
            change(dir.path(), "h.md", Some(b"H2\n")),
        ],
    )
    .unwrap();
    let s2 = snapshot(dir.path());
    let undone = |u: Undone| match u {
        Undone::Reversed(a) => a.op,
        Undone::Nothing { why, .. } => panic!("nothing done: {why}"),
    };
    assert_eq!(undone(lock.undo().unwrap()), "undo of second");
    assert_eq!(snapshot(dir.path()), s1);
    assert_eq!(undone(lock.undo().unwrap()), "undo of first");
    assert_eq!(snapshot(dir.path()), s0);
    assert!(matches!(lock.undo().unwrap(), Undone::Nothing { .. }));
    assert_eq!(undone(lock.redo().unwrap()), "first");
    assert_eq!(snapshot(dir.path()), s1);
    assert_eq!(undone(lock.redo().unwrap()), "second");
    assert_eq!(snapshot(dir.path()), s2);
    // A new operation after an undo ends what can be redone.
    assert_eq!(undone(lock.undo().unwrap()), "undo of second");
    lock.apply("third", &[change(dir.path(), "a.md", Some(b"A3\n"))])
        .unwrap();
    assert!(matches!(lock.redo().unwrap(), Undone::Nothing { .. }));
    let h = lock.list().unwrap();
    let ops: Vec<&str> = h.done.iter().map(|j| j.op.as_str()).collect();
    assert_eq!(ops, ["first", "third"]);
}

#[test]
fn an_undo_whose_file_changed_since_is_refused_naming_it() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    lock.apply("t", &[change(dir.path(), "a.md", Some(b"one\ntwo\n"))])
        .unwrap();
    fs::write(dir.path().join("a.md"), "one\nTWO\n").unwrap();
    let err = lock.undo().unwrap_err().to_string();
    assert!(
        err.contains("a.md") && err.contains("the undo stopped"),
        "{err}"
    );
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), b"one\nTWO\n");
}

#[test]
fn the_history_keeps_a_bounded_number_of_operations_and_prunes_backups() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    for i in 0..journal::MAX_HISTORY + 5 {
        let text = format!("version {i}\n");
        lock.apply(
            &format!("op {i}"),
            &[change(dir.path(), "a.md", Some(text.as_bytes()))],
        )
        .unwrap();
    }
    let h = lock.list().unwrap();
    assert_eq!(h.done.len(), journal::MAX_HISTORY);
    assert_eq!(h.done[0].op, "op 5");
    let backups = fs::read_dir(dir.path().join(".ccmem/backup"))
        .unwrap()
        .count();
    assert_eq!(
        backups,
        journal::MAX_HISTORY + 1,
        "one old and one new per kept op"
    );
}

#[test]
fn an_older_last_json_is_read_and_migrated() {
    let dir = folder();
    let before = snapshot(dir.path());
    let lock = lock(dir.path()).unwrap();
    lock.apply("tier", &[change(dir.path(), "a.md", Some(b"new\n"))])
        .unwrap();
    let state = dir.path().join(".ccmem");
    let h: journal::History =
        serde_json::from_slice(&fs::read(state.join("history.json")).unwrap()).unwrap();
    // What ccmem 2 wrote: one record, absolute paths, no id.
    let mut last = h.done[0].clone();
    last.version = 2;
    last.id.clear();
    for e in &mut last.entries {
        e.path = lock.folder().join(&e.path);
    }
    fs::remove_file(state.join("history.json")).unwrap();
    fs::write(state.join("last.json"), last.to_bytes()).unwrap();
    assert!(matches!(lock.undo().unwrap(), Undone::Reversed(_)));
    assert_eq!(snapshot(dir.path()), before);
    assert!(!state.join("last.json").exists());
    assert!(state.join("history.json").exists());
}

// Unix only: permission bits (Windows has only the read-only attribute: crate::sys::mode).
#[cfg(unix)]
#[test]
fn a_read_only_target_is_refused_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = folder();
    let m = dir.path().join("MEMORY.md");
    fs::set_permissions(&m, fs::Permissions::from_mode(0o444)).unwrap();
    let before = fs::read(&m).unwrap();
    let lock = lock(dir.path()).unwrap();
    let err = lock
        .apply("t", &[change(dir.path(), "MEMORY.md", Some(b"x"))])
        .unwrap_err()
        .to_string();
    assert!(err.contains("MEMORY.md: is read-only (mode 0444)"), "{err}");
    assert_eq!(fs::read(&m).unwrap(), before);
}

#[test]
fn a_bad_record_is_reported_and_nothing_is_done() {
    let dir = folder();
    let lock = lock(dir.path()).unwrap();
    lock.apply("t", &[change(dir.path(), "a.md", Some(b"x"))])
        .unwrap();
    let after = snapshot(dir.path());
    let pending = dir.path().join(".ccmem/journal.json");
    let journal = format!(
        r#"{{"version":3,"op":"add","started":"","entries":[
            {{"name":"a.md","path":"a.md","old":null,"new":"{}","temp":null,"mode":420}},
            {{"name":"x","path":"../../etc/x","old":null,"new":"{}","temp":".x.ccmem-tmp.aaaaaa","mode":493}}]}}"#,
        Hash::of(b"x"),
        Hash::of(b"evil")
    );
    fs::write(&pending, journal).unwrap();
    let err = lock.recover().unwrap_err().to_string();
    assert!(
        err.contains("journal.json: entry 2 (\"x\"): its file: \"../../etc/x\" is a path"),
        "{err}"
    );
    assert!(err.contains("ccmem did nothing with it"), "{err}");
    assert!(pending.exists());
    assert_eq!(snapshot(dir.path()), after);
}

#[test]
fn after_a_rolled_back_operation_undo_says_so_once_then_goes_on() {
    for said_first in [true, false] {
        let dir = folder();
        let s0 = snapshot(dir.path());
        let lock = lock(dir.path()).unwrap();
        lock.apply("add", &[change(dir.path(), "n.md", Some(b"new\n"))])
            .unwrap();
        let changes = [change(dir.path(), "MEMORY.md", Some(b"M2"))];
        let racing = apply_racing(&lock, ("tier", &changes), "MEMORY.md", |p| {
            fs::write(p, b"rewritten by the client").unwrap();
        });
        assert!(racing.is_err());
        fs::write(
            dir.path().join("MEMORY.md"),
            b"- [a](a.md)\r\n\xef\xbb\xbfx\n",
        )
        .unwrap();
        if said_first {
            let Undone::Nothing { why, .. } = lock.undo().unwrap() else {
                panic!("undo went past the rolled-back tier without a word");
            };
            assert!(
                why.contains("`tier`")
                    && why.contains("was rolled back")
                    && why.contains("takes back the one before it, `add`"),
                "{why}"
            );
            assert!(matches!(lock.undo().unwrap(), Undone::Reversed(_)));
        } else {
            assert!(matches!(
                lock.undo_last_done().unwrap(),
                Undone::Reversed(_)
            ));
        }
        assert_eq!(snapshot(dir.path()), s0);
    }
}
