//! Messages that name the real cause, once, and commands that create nothing when they refuse
//! (issue 14, cases 11 and 13).

mod common;

use common::cli::{Test, snapshot};

use std::fs;
use std::path::Path;

fn stderr(args: &[&str], cwd: &Path) -> (Option<i32>, String) {
    let out = Test::new()
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .run();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `ccmem undo DIR`, DIR shown as `[MEM]`.
fn undo(dir: &Path) -> Test {
    Test::new()
        .args(["undo".as_ref(), dir.as_os_str()])
        .redact(dir.to_string_lossy(), "[MEM]")
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// An index of 12 one-line entries and their files; returns the index text too.
fn flat_library() -> (tempfile::TempDir, String) {
    let d = tempfile::tempdir().unwrap();
    let mut index = String::new();
    for i in 0..12 {
        index.push_str(&format!("- [e{i}](project_e{i}.md) — fact\n"));
        fs::write(d.path().join(format!("project_e{i}.md")), "x\n").unwrap();
    }
    fs::write(d.path().join("MEMORY.md"), &index).unwrap();
    (d, index)
}

/// A `setup()` folder in which `tier --write` was killed at the first write call after its
/// journal: a journal is pending.
fn pending_tier(setup: &dyn Fn() -> tempfile::TempDir) -> tempfile::TempDir {
    (1..200)
        .map(|k| {
            let d = setup();
            let out = Test::new()
                .args(["tier", "--write", "--target-lines", "3"])
                .arg(d.path())
                .env("CCMEM_FAULT_AT", k.to_string())
                .run();
            assert_eq!(out.status.code(), None, "k={k}: killed");
            d
        })
        .find(|d| d.path().join(".ccmem/journal.json").exists())
        .unwrap()
}

#[test]
fn case13_a_file_where_the_memory_folder_should_be_is_named_as_such_once() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("mem"), "x").unwrap();
    for cmd in ["tier", "audit", "undo"] {
        let (code, err) = stderr(&[cmd, "mem"], d.path());
        assert_eq!(code, Some(2), "{cmd}");
        assert_eq!(
            err.trim(),
            "ccmem: error: mem: is a file, not a memory folder (pass the folder that holds MEMORY.md)",
            "{cmd}"
        );
    }
    let (_, err) = stderr(&["budget", "mem/x"], d.path());
    assert_eq!(
        err.trim(),
        "ccmem: error: mem/x: mem is a file, not a folder"
    );
    assert!(!err.contains("os error"));
    let (_, err) = stderr(&["-C", "mem", "receipt"], d.path());
    assert_eq!(
        err.trim(),
        "ccmem: error: -C mem: mem is a file, not a folder"
    );
}

#[test]
fn case11_undo_and_refusals_create_nothing_in_the_folder() {
    let d = tempfile::tempdir().unwrap();
    fs::write(d.path().join("notes.md"), "x").unwrap();
    let out = Test::new()
        .args(["undo", "."])
        .current_dir(d.path())
        .redact(d.path().to_string_lossy(), "[DIR]")
        .run()
        .code(2);
    snapshot!("undo_with_no_record", out);
    assert_eq!(names(d.path()), ["notes.md"], "no .ccmem.lock, no .ccmem/");
}

// Unix only: FIFOs.
#[cfg(unix)]
#[test]
fn case11_a_dry_run_with_a_pending_journal_changes_nothing_and_leaves_a_fifo_alone() {
    let setup = || flat_library().0;
    let d = pending_tier(&setup);
    let dir = d.path();
    let fifo = dir.join(".MEMORY.md.ccmem-tmp");
    common::cli::fifo(&fifo);
    let before: Vec<(String, Vec<u8>)> = names(dir)
        .into_iter()
        .filter(|n| !n.ends_with(".ccmem-tmp"))
        .map(|n| (n.clone(), fs::read(dir.join(&n)).unwrap_or_default()))
        .collect();
    let out = Test::new()
        .args(["tier", "--target-lines", "3"])
        .arg(dir)
        .run();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("an interrupted ccmem write is pending"));
    let after: Vec<(String, Vec<u8>)> = names(dir)
        .into_iter()
        .filter(|n| !n.ends_with(".ccmem-tmp"))
        .map(|n| (n.clone(), fs::read(dir.join(&n)).unwrap_or_default()))
        .collect();
    assert_eq!(before, after);
    use std::os::unix::fs::FileTypeExt;
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(dir.join(".ccmem/journal.json").exists());
}

#[test]
fn case11_undo_after_a_rolled_back_operation_does_not_undo_the_one_before() {
    let setup = || {
        let (d, _) = flat_library();
        Test::new()
            .args([
                "add",
                "--type",
                "user",
                "--topic",
                "first",
                "--description",
                "kept",
            ])
            .arg(d.path())
            .run()
            .code(0);
        d
    };
    let d = pending_tier(&setup);
    // A temp file damaged after the kill: recovery cannot finish the tier, so it rolls it back.
    for n in names(d.path()) {
        if n.contains(".ccmem-tmp.") {
            fs::write(d.path().join(n), "damaged").unwrap();
        }
    }
    let out = undo(d.path()).run().code(0);
    snapshot!("undo_after_a_rollback", out);
    assert!(
        d.path().join("user_first.md").exists(),
        "the add before it stays"
    );
}

#[test]
fn case10_undo_after_another_writer_appended_keeps_the_line_no_dead_end() {
    let (d, index) = flat_library();
    Test::new()
        .args(["tier", "--write", "--target-lines", "3"])
        .arg(d.path())
        .run()
        .code(0);
    // The client adds an entry right after tier wrote.
    let line = "- [late](project_e0.md) — written by the client after tier\n";
    let mut now = fs::read_to_string(d.path().join("MEMORY.md")).unwrap();
    now.push_str(line);
    fs::write(d.path().join("MEMORY.md"), &now).unwrap();
    snapshot!("undo_keeps_an_appended_line", undo(d.path()).run().code(0));
    assert_eq!(
        fs::read_to_string(d.path().join("MEMORY.md")).unwrap(),
        format!("{index}{line}"),
        "the old index back, with the client's line kept"
    );
    // An edit that is not an addition: undo refuses, names why and where the old text is.
    Test::new()
        .args(["tier", "--write", "--target-lines", "3"])
        .arg(d.path())
        .run()
        .code(0);
    fs::write(d.path().join("MEMORY.md"), "rewritten by hand\n").unwrap();
    snapshot!("undo_refuses_an_edit", undo(d.path()).run().code(2));
    assert_eq!(
        fs::read_to_string(d.path().join("MEMORY.md")).unwrap(),
        "rewritten by hand\n"
    );
}
