//! Tests of the swap window: what another writer does between ccmem's check of a target and
//! its swap (a test hook runs there, see [`apply_racing`]) is merged in, or stops the operation
//! and restores every file; nothing is ever written through a link.

use std::cell::RefCell;
use std::fs;
use std::path::Path;

#[cfg(unix)]
use super::super::tests::snapshot_all;
use super::super::tests::{assert_no_leftovers, change, folder};
use super::super::*;

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

/// `lock.apply(op, changes)` with `act` run in the window between the check and the swap of
/// each target whose path ends with `name`: what another writer could do there.
pub(in crate::write) fn apply_racing(
    lock: &Lock,
    (op, changes): (&str, &[Change]),
    name: &'static str,
    mut act: impl FnMut(&Path) + 'static,
) -> Result<Applied, WriteError> {
    let hook = move |p: &Path| {
        if p.ends_with(name) {
            act(p)
        }
    };
    HOOK.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
    let result = lock.apply(op, changes);
    HOOK.with(|h| *h.borrow_mut() = None);
    result
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
    let err = apply_racing(&lock, ("tier", &changes), "MEMORY.md", |p| {
        fs::write(p, b"client wrote this").unwrap();
    })
    .unwrap_err();
    assert!(matches!(err, WriteError::Conflict { .. }), "{err}");
    assert_eq!(fs::read(&memory).unwrap(), b"client wrote this");
    assert_eq!(
        fs::read(dir.path().join("a.md")).unwrap(),
        "日本語\n".as_bytes()
    );
    assert_no_leftovers(dir.path());
}

/// A new MEMORY.md applied over `index` while another writer adds `line` to it in the swap
/// window: by an append, or (`replace`) by writing a copy and renaming it in, as the client does.
fn race_a_line(
    index: &'static str,
    line: &'static str,
    replace: bool,
) -> (tempfile::TempDir, Lock, Result<Applied, WriteError>) {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("MEMORY.md"), index).unwrap();
    let lock = lock(dir.path()).unwrap();
    let c = change(dir.path(), "MEMORY.md", Some(b"# M\n- [hub](hub.md)\n"));
    let result = apply_racing(&lock, ("tier", &[c]), "MEMORY.md", move |p| {
        if replace {
            let tmp = p.with_file_name(".client-tmp");
            fs::write(&tmp, format!("{index}{line}")).unwrap();
            fs::rename(&tmp, p).unwrap();
        } else {
            use std::io::Write;
            let mut f = fs::OpenOptions::new().append(true).open(p).unwrap();
            f.write_all(line.as_bytes()).unwrap();
        }
    });
    (dir, lock, result)
}

// Linux only: the merge needs the replaced file back under the temp name (`RENAME_EXCHANGE`);
// elsewhere the last check before the rename catches the line (the next test).
#[cfg(target_os = "linux")]
#[test]
fn a_line_appended_or_renamed_in_during_the_swap_window_is_merged_never_lost() {
    for replace in [false, true] {
        let (dir, lock, applied) = race_a_line("# M\n- a\n- b\n", "- client line\n", replace);
        let memory = dir.path().join("MEMORY.md");
        assert_eq!(
            fs::read_to_string(&memory).unwrap(),
            "# M\n- [hub](hub.md)\n- client line\n",
            "replace: {replace}"
        );
        assert_eq!(applied.unwrap().merged.len(), 1);
        // Undo keeps the merged line too.
        assert!(matches!(lock.undo().unwrap(), Undone::Reversed(_)));
        assert_eq!(
            fs::read_to_string(&memory).unwrap(),
            "# M\n- a\n- b\n- client line\n"
        );
    }
}

// Where there is no atomic exchange (macOS, Windows), the hash is checked once more just
// before the rename: a line another writer added in the window is never overwritten, the
// operation stops with a conflict and leaves no temp file. (Windows: only the append, since a
// rename over a file ccmem holds open is refused there where POSIX renames are missing, as
// under wine.)
#[cfg(not(target_os = "linux"))]
#[test]
fn without_an_exchange_a_line_added_in_the_swap_window_is_a_conflict_never_lost() {
    let replaces: &[bool] = if cfg!(windows) {
        &[false]
    } else {
        &[false, true]
    };
    for &replace in replaces {
        let (dir, _lock, result) =
            race_a_line("# Mémoire\n- a\n- b\n", "- ligne du client\n", replace);
        let err = result.unwrap_err();
        assert!(
            matches!(err, WriteError::Conflict { .. }),
            "replace: {replace}: {err}"
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
            "# Mémoire\n- a\n- b\n- ligne du client\n",
            "replace: {replace}"
        );
        assert!(target::stale_temps(dir.path(), None).is_empty());
    }
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn a_target_swapped_for_a_link_mid_way_is_put_back_and_the_rest_restored() {
    let dir = folder();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("elsewhere.md"), "theirs\n").unwrap();
    let before_a = fs::read(dir.path().join("a.md")).unwrap();
    let lock = lock(dir.path()).unwrap();
    let changes = [
        change(dir.path(), "h.md", Some(b"hub\n")),
        change(dir.path(), "a.md", Some(b"A2")),
        change(dir.path(), "MEMORY.md", Some(b"M2")),
    ];
    let link_to = outside.path().join("elsewhere.md");
    let err = apply_racing(&lock, ("tier", &changes), "MEMORY.md", move |p| {
        fs::remove_file(p).unwrap();
        std::os::unix::fs::symlink(&link_to, p).unwrap();
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, WriteError::Stopped { .. }), "{text}");
    assert!(
        text.contains("MEMORY.md: became a symbolic link while ccmem was replacing it")
            && text.contains("every file this `tier` had written (h.md, a.md) was restored"),
        "{text}"
    );
    let m = dir.path().join("MEMORY.md");
    assert!(fs::symlink_metadata(&m).unwrap().is_symlink());
    assert_eq!(
        fs::read(outside.path().join("elsewhere.md")).unwrap(),
        b"theirs\n"
    );
    assert_eq!(fs::read(dir.path().join("a.md")).unwrap(), before_a);
    assert!(!dir.path().join("h.md").exists());
    assert_no_leftovers(dir.path());
}

// Linux only: elsewhere no exchange leaves the replaced file under the temp name, so there is
// no such temp to lose.
#[cfg(target_os = "linux")]
#[test]
fn a_temp_removed_after_its_swap_loses_no_line() {
    // A sync tool (or another process) deletes ccmem's temp file of MEMORY.md after the
    // exchange put the old index there and before ccmem checked it: what the swap took out can
    // no longer be read. That is an error and a roll-back to the checked version, never an
    // empty MEMORY.md.
    let dir = tempfile::tempdir().unwrap();
    let index = "# Memory index\n- [Deploys](project_deploys.md) — staging first\n\
                 - [Café menu](reference_menu.md) — carte du jour\n";
    fs::write(dir.path().join("MEMORY.md"), index).unwrap();
    fs::write(dir.path().join("project_deploys.md"), "staging first\n").unwrap();
    let lock = lock(dir.path()).unwrap();
    let changes = [
        change(
            dir.path(),
            "MEMORY.md",
            Some(format!("{index}- [Ops](project_ops.md) — on call\n").as_bytes()),
        ),
        change(
            dir.path(),
            "project_deploys.md",
            Some(b"staging first, then canary\n"),
        ),
    ];
    let folder = dir.path().to_owned();
    let err = apply_racing(&lock, ("add", &changes), "project_deploys.md", move |_| {
        for e in fs::read_dir(&folder).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if target::is_temp_of(&name, Some("MEMORY.md")) {
                fs::remove_file(e.path()).unwrap();
            }
        }
    })
    .unwrap_err();
    assert!(err.to_string().contains("temp"), "{err}");
    assert_eq!(
        fs::read_to_string(dir.path().join("MEMORY.md")).unwrap(),
        index
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("project_deploys.md")).unwrap(),
        "staging first\n"
    );
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn a_folder_swapped_for_a_link_mid_write_is_never_written_through() {
    // Between two swaps, the memory folder is moved away and a link to another folder put in
    // its place (the other folder holds what ccmem was about to write, so a path-based
    // roll-back would take it for its own and "restore" it). Nothing is written, restored or
    // removed through the link.
    let base = tempfile::tempdir().unwrap();
    let mem = base.path().join("memory");
    let victim = base.path().join("victim");
    fs::create_dir_all(&mem).unwrap();
    fs::create_dir_all(&victim).unwrap();
    let index = "# Index\n- [Deploys](project_deploys.md) — staging first\n";
    let new_index = format!("{index}- [Ops](project_ops.md) — rota\n");
    fs::write(mem.join("MEMORY.md"), index).unwrap();
    fs::write(mem.join("project_deploys.md"), "staging first\n").unwrap();
    fs::write(victim.join("MEMORY.md"), &new_index).unwrap();
    let before = snapshot_all(&victim);
    let lock = lock(&mem).unwrap();
    let changes = [
        change(&mem, "MEMORY.md", Some(new_index.as_bytes())),
        change(&mem, "project_deploys.md", Some(b"staging, then canary\n")),
    ];
    let (m, v, moved) = (mem.clone(), victim.clone(), base.path().join("moved"));
    let moved_to = moved.clone();
    let err = apply_racing(&lock, ("add", &changes), "project_deploys.md", move |_| {
        fs::rename(&m, &moved_to).unwrap();
        std::os::unix::fs::symlink(&v, &m).unwrap();
    })
    .unwrap_err();
    assert!(err.to_string().contains("was replaced"), "{err}");
    assert_eq!(snapshot_all(&victim), before);
    assert_eq!(
        fs::read_to_string(victim.join("MEMORY.md")).unwrap(),
        new_index
    );
}
