//! `tier` end to end on folders on disk: the dry run, the write and its proof on disk, a file
//! changed under the plan, and what the proof after writing sees.

use std::path::Path;

use super::*;
use crate::tier::Target;

/// A memory folder over a 12-line target: a crown, two groups of entries, their topic files.
fn folder(dir: &Path) {
    let mut index =
        String::from("# Memory\n\n- ⭐ [Never push](feedback_push.md) — ask first\n\n## Build\n");
    let mut files = vec![("feedback_push.md".to_owned(), "x\n".to_owned())];
    for i in 0..6 {
        index.push_str(&format!("- [b{i}](project_b{i}.md) — build fact {i}\n"));
        files.push((format!("project_b{i}.md"), format!("b{i}\n")));
    }
    index.push_str("\n## Tests\n");
    for i in 0..3 {
        index.push_str(&format!("- [t{i}](feedback_t{i}.md) — test fact {i}\n"));
        files.push((format!("feedback_t{i}.md"), format!("t{i}\n")));
    }
    std::fs::write(dir.join("MEMORY.md"), index).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// Runs `f` with a request for `dir` (target: 12 lines).
fn with_request<T>(dir: &Path, f: impl FnOnce(&Request<'_>) -> T) -> T {
    let req = Request {
        folder: &Folder::at(dir),
        opts: Options {
            target: Target {
                lines: 12,
                utf16: 16_000,
            },
            ..Options::default()
        },
        explicit: true,
        usage: None,
    };
    f(&req)
}

#[test]
fn a_dry_run_plans_and_proves_and_writes_nothing() {
    let t = tempfile::tempdir().unwrap();
    folder(t.path());
    let index = read(t.path(), "MEMORY.md");
    let o = with_request(t.path(), |req| run(req, None)).unwrap();
    assert!(!o.plan.is_noop() && o.proof.ok(), "{:?}", o.proof);
    assert!(o.written.is_none() && o.failure.is_none());
    assert_eq!(o.link_to, vec![None; o.plan.files.len()]);
    assert_eq!(read(t.path(), "MEMORY.md"), index);
    assert!(!t.path().join("reference_build_hub.md").exists());
}

#[test]
fn a_write_puts_the_plan_on_disk_and_proves_it_there() {
    let t = tempfile::tempdir().unwrap();
    folder(t.path());
    let lock = write::lock(t.path()).unwrap();
    let o = with_request(t.path(), |req| run(req, Some(&lock))).unwrap();
    let w = o.written.as_ref().expect("written");
    assert!(w.proof_on_disk.ok(), "{:?}", w.proof_on_disk);
    assert_eq!(
        w.proof_on_disk, o.proof,
        "read back as planned, it proves the same"
    );
    assert!(w.changed_since.is_empty() && o.failure.is_none());
    for f in &o.plan.files {
        assert_eq!(read(t.path(), &f.name), f.new, "{}", f.name);
    }
}

#[test]
fn a_file_changed_under_the_plan_is_planned_again() {
    let t = tempfile::tempdir().unwrap();
    folder(t.path());
    let lock = write::lock(t.path()).unwrap();
    let added = "- [b9](project_b9.md) — build fact 9\n";
    std::fs::write(t.path().join("project_b9.md"), "b9\n").unwrap();
    let mut reads = 0;
    let o = with_request(t.path(), |req| {
        run_reading(req, Some(&lock), || {
            reads += 1;
            let lib = req.folder.load();
            // The client adds an entry after the first read: that plan is stale.
            if reads == 1 {
                let index = read(t.path(), "MEMORY.md");
                std::fs::write(t.path().join("MEMORY.md"), index + added).unwrap();
            }
            lib
        })
    })
    .unwrap();
    assert_eq!(reads, 2);
    assert!(
        o.written.is_some() && o.failure.is_none(),
        "{:?}",
        o.failure
    );
    let on_disk: String = (o.plan.files.iter())
        .map(|f| read(t.path(), &f.name))
        .collect();
    assert!(on_disk.contains(added), "the entry added meanwhile is kept");
}

#[test]
fn a_folder_that_keeps_changing_is_refused_after_the_retries() {
    let t = tempfile::tempdir().unwrap();
    folder(t.path());
    let lock = write::lock(t.path()).unwrap();
    let mut reads = 0;
    let err = with_request(t.path(), |req| {
        run_reading(req, Some(&lock), || {
            reads += 1;
            let lib = req.folder.load();
            let index = read(t.path(), "MEMORY.md");
            std::fs::write(t.path().join("MEMORY.md"), format!("{index}- x{reads}\n")).unwrap();
            lib
        })
    })
    .unwrap_err();
    assert_eq!(reads, STALE_RETRIES + 1);
    assert!(
        matches!(err, Error::Write(WriteError::Conflict { .. })),
        "{err}"
    );
}

/// The proof after writing, with the plan's files written by hand (as the write module would)
/// and then changed as another writer would.
fn on_disk_after(edit: impl FnOnce(&Path, &Plan)) -> Written {
    let t = tempfile::tempdir().unwrap();
    folder(t.path());
    let lib = Folder::at(t.path()).load().unwrap();
    let opts = Options {
        target: Target {
            lines: 12,
            utf16: 16_000,
        },
        ..Options::default()
    };
    let plan = plan::plan(&lib, &opts).unwrap();
    for f in &plan.files {
        std::fs::write(t.path().join(&f.name), &f.new).unwrap();
    }
    edit(t.path(), &plan);
    let planned = applied(&lib, &plan);
    let (baseline, audited) = Baseline::with_audit(&lib, &planned);
    let on_disk = OnDisk {
        baseline: &baseline,
        before: &lib,
        planned: &planned,
        audited: &audited,
        plan: &plan,
    };
    let applied = Applied {
        op: "tier".to_owned(),
        files: plan.files.iter().map(|f| f.name.clone()).collect(),
        merged: Vec::new(),
    };
    on_disk.prove(applied, &ClientLinks::default()).unwrap()
}

#[test]
fn lines_another_writer_added_after_the_write_are_kept_out_of_the_proof() {
    let w = on_disk_after(|dir, _| {
        let index = read(dir, "MEMORY.md");
        std::fs::write(dir.join("MEMORY.md"), index + "- a line of theirs\n").unwrap();
    });
    assert!(w.proof_on_disk.ok(), "{:?}", w.proof_on_disk);
    assert_eq!(w.changed_since, ["MEMORY.md"]);
}

#[test]
fn a_file_that_differs_from_the_plan_on_disk_fails_the_kept_check() {
    let w = on_disk_after(|dir, plan| {
        let hub = &plan
            .files
            .iter()
            .find(|f| f.name != "MEMORY.md")
            .unwrap()
            .name;
        std::fs::write(dir.join(hub), "something else\n").unwrap();
    });
    let kept = w.proof_on_disk.check(Invariant::Kept);
    assert!(!kept.ok);
    assert!(
        kept.detail.contains("differ from the plan on disk"),
        "{}",
        kept.detail
    );
    assert!(w.changed_since.is_empty());
}
