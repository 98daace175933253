//! Whole-process tests of `ccmem tier`, `add` and `undo`: undo round trips, the lock, refusals
//! (fault injection is in `faults.rs`).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin_cmd;

type Snapshot = BTreeMap<String, Vec<u8>>;

/// Every user file of the folder (ccmem's own `.ccmem*` state excluded).
fn snapshot(dir: &Path) -> Snapshot {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with(".ccmem"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, fs::read(e.path()).unwrap())
        })
        .collect()
}

fn put(dir: &Path, name: &str, text: &str) {
    fs::write(dir.join(name), text).unwrap();
}

/// An index of 3 groups × 5 entries, a crown, CRLF lines and CJK text; over an 8-line target.
fn library() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut index = String::from("# 記憶\r\n\r\n- ⭐ [Crown](feedback_crown.md) — 必読\r\n");
    put(
        dir.path(),
        "feedback_crown.md",
        "---\nname: crown\n---\nbody\n",
    );
    for g in ["Build", "ツール", "Deploy"] {
        index.push_str(&format!("\r\n## {g}\r\n"));
        for i in 0..5 {
            let file = format!("project_{}{i}.md", g.to_lowercase());
            index.push_str(&format!("- [{g} {i}]({file}) — fact {i} 日本語\r\n"));
            put(dir.path(), &file, &format!("fact {i}\n"));
        }
    }
    put(dir.path(), "MEMORY.md", &index);
    put(
        dir.path(),
        "reference_deploy_hub.md",
        "# Deploy hub\n- [Deploy 0](project_deploy0.md)",
    );
    dir
}

fn tier(dir: &Path) -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("ccmem");
    cmd.arg("tier").arg(dir).args(["--target-lines", "8"]);
    cmd.env("NO_COLOR", "1").env_remove("CCMEM_FAULT_AT");
    cmd
}

#[test]
fn write_then_undo_round_trips_byte_for_byte() {
    let dir = library();
    let old = snapshot(dir.path());
    let out = tier(dir.path()).arg("--write").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("Proof (re-read from disk after writing):"),
        "{text}"
    );
    assert!(!text.contains('✗'), "{text}");
    let new = snapshot(dir.path());
    assert_ne!(old, new);
    assert!(new.contains_key("reference_build_hub.md"));
    // The existing hub is appended to, never rewritten.
    assert!(new["reference_deploy_hub.md"].starts_with(&old["reference_deploy_hub.md"]));
    cargo_bin_cmd!("ccmem")
        .arg("undo")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(snapshot(dir.path()), old);
    let out = cargo_bin_cmd!("ccmem")
        .arg("undo")
        .arg(dir.path())
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("nothing to undo: `tier` was already undone"),
        "{text}"
    );
    assert_eq!(snapshot(dir.path()), old, "undo twice is one undo");
    cargo_bin_cmd!("ccmem")
        .args(["undo", "--redo"])
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(snapshot(dir.path()), new, "--redo applies it again");
}

#[test]
fn a_held_lock_is_a_clear_error_and_nothing_is_written() {
    let dir = library();
    let old = snapshot(dir.path());
    let mut holder = Command::new("flock")
        .arg(dir.path())
        .args(["sleep", "30"])
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = tier(dir.path()).arg("--write").assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert!(
        err.contains("another ccmem is writing here (it holds the folder's lock)"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), old);
}

/// Every name in the folder, ccmem's own state included.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn broken_links_long_lines_and_home_pointers_never_block() {
    let dir = library();
    let index = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    let long = "x".repeat(230);
    let index = index.replacen(
        "\r\n## Build\r\n",
        &format!(
            "\r\n- Runbook: [deploy](~/notes/deploy.md)\r\n- [a](a.md\r\n## Build\r\n- [Gone](project_gone.md) — {long}\r\n- [Lost](project_lost.md) — renamed\r\n"
        ),
        1,
    );
    put(dir.path(), "MEMORY.md", &index);
    let out = tier(dir.path()).arg("--write").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("links to `project_gone.md`, which leads to no file: moved verbatim into reference_build_hub.md"),
        "{text}"
    );
    assert!(!text.contains('✗'), "{text}");
    let hub = fs::read_to_string(dir.path().join("reference_build_hub.md")).unwrap();
    assert!(
        hub.contains(&format!("- [Gone](project_gone.md) — {long}\r\n")),
        "{hub}"
    );
    let index = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    assert!(
        index.contains("- Runbook: [deploy](~/notes/deploy.md)\r\n- [a](a.md\r\n"),
        "{index}"
    );
}

#[test]
fn symlinked_index_and_impossible_targets_are_refused_and_create_nothing() {
    let dir = library();
    let names = listing(dir.path());
    let old = snapshot(dir.path());
    let out = cargo_bin_cmd!("ccmem")
        .arg("tier")
        .arg(dir.path())
        .args(["--write", "--target-lines", "2"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("cannot get within the target (2 lines"),
        "{err}"
    );
    assert!(
        err.contains("--target-lines "),
        "names the target that would work: {err}"
    );
    assert_eq!(snapshot(dir.path()), old);
    assert_eq!(
        listing(dir.path()),
        names,
        "a refusal creates nothing, not even state"
    );
    fs::rename(dir.path().join("MEMORY.md"), dir.path().join("real.md")).unwrap();
    std::os::unix::fs::symlink("real.md", dir.path().join("MEMORY.md")).unwrap();
    let names = listing(dir.path());
    let out = tier(dir.path()).arg("--write").assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("MEMORY.md: is a symbolic link"), "{err}");
    assert_eq!(listing(dir.path()), names);
}

#[test]
fn new_hubs_take_the_librarys_mode_and_a_modified_stamp() {
    use std::os::unix::fs::PermissionsExt;
    let dir = library();
    for name in listing(dir.path()) {
        let p = dir.path().join(name);
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
    }
    tier(dir.path())
        .arg("--write")
        .env("CCMEM_NOW", "2026-12-01T09:00:00Z")
        .assert()
        .success();
    let hub = dir.path().join("reference_build_hub.md");
    let mode = fs::metadata(&hub).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the library's mode, not the umask's");
    let text = fs::read_to_string(&hub).unwrap();
    // No file says which spec the library follows: the client's own, which it writes.
    assert!(
        text.starts_with("---\r\nname: reference-build-hub\r\n")
            && text.contains(
                "\r\n  type: reference\r\n  modified: 2026-12-01T09:00:00.000Z\r\n---\r\n"
            ),
        "{text}"
    );
    let audit = cargo_bin_cmd!("ccmem")
        .args(["audit", "--json"])
        .arg(dir.path())
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    let on_hubs: Vec<&serde_json::Value> = (v["diagnostics"].as_array().unwrap().iter())
        .filter(|d| {
            let path = d["path"].as_str().unwrap();
            path.ends_with("_hub.md") && !path.ends_with("reference_deploy_hub.md")
        })
        .collect();
    assert!(
        on_hubs.is_empty(),
        "the hubs tier wrote are clean: {on_hubs:?}"
    );
}

#[test]
fn add_past_the_cap_writes_nothing_exits_one_and_says_tier() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "MEMORY.md",
        &"- a rule that loads\n".repeat(210),
    );
    let add = |extra: &[&str]| {
        let mut c = cargo_bin_cmd!("ccmem");
        c.arg("add").arg(dir.path());
        c.args(["--type", "user", "--topic", "tz"]);
        c.args(["--description", "Lives in UTC+9"]).args(extra);
        c
    };
    let names = listing(dir.path());
    let out = add(&[]).assert().code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("would never be seen") && text.contains("ccmem tier"),
        "{text}"
    );
    assert_eq!(
        listing(dir.path()),
        names,
        "nothing written, no state either"
    );
    add(&["--dry-run"]).assert().code(1);
    assert_eq!(listing(dir.path()), names);
    fs::write(dir.path().join("MEMORY.md"), "# M\n").unwrap();
    let names = listing(dir.path());
    add(&["--dry-run"]).assert().success();
    assert_eq!(listing(dir.path()), names, "a dry run creates nothing");
}

#[test]
fn fifo_topic_and_symlinked_hub_are_refused_without_hanging() {
    let dir = library();
    let fifo = dir.path().join("project_pipe.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let out = tier(dir.path()).arg("--write").assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("project_pipe.md: cannot be read: not a regular file (FIFO)"),
        "{err}"
    );
    fs::remove_file(&fifo).unwrap();

    put(dir.path(), "elsewhere.md", "# hub kept elsewhere\n");
    std::os::unix::fs::symlink("elsewhere.md", dir.path().join("reference_build_hub.md")).unwrap();
    let old = snapshot(dir.path());
    let out = tier(dir.path()).arg("--write").assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("reference_build_hub.md: is a symbolic link"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), old);
}

#[test]
fn dry_run_writes_nothing_and_check_exits_one_when_over() {
    let dir = library();
    let before = fs::read_dir(dir.path()).unwrap().count();
    let out = tier(dir.path()).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("+++ b/reference_build_hub.md") && text.contains("✓ (4)"),
        "{text}"
    );
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        before,
        "no lock file either"
    );
    tier(dir.path()).arg("--check").assert().code(1);
    let mut relaxed = cargo_bin_cmd!("ccmem");
    relaxed
        .arg("tier")
        .arg(dir.path())
        .args(["--check", "--target-lines", "100"]);
    relaxed.assert().code(0);
    let json = tier(dir.path()).arg("--json").assert().success();
    let v: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(v["proof"]["checks"].as_array().unwrap().len(), 5);
}

#[test]
fn add_writes_entry_and_index_line_then_undo_removes_them() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "MEMORY.md",
        "- [a](user_a.md) — lives in Tokyo\n",
    );
    put(
        dir.path(),
        "user_a.md",
        "---\nname: a\ndescription: lives in Tokyo\n---\n",
    );
    let old = snapshot(dir.path());
    let add = |topic: &str, desc: &str| {
        let mut c = cargo_bin_cmd!("ccmem");
        c.arg("add").arg(dir.path());
        c.args([
            "--type",
            "feedback",
            "--topic",
            topic,
            "--description",
            desc,
        ]);
        c.args(["--why", "it broke", "--json"]);
        c
    };
    let out = add("globs", "use ** for deep globs").assert().success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["placed_in"], "MEMORY.md");
    let entry = fs::read_to_string(dir.path().join("feedback_globs.md")).unwrap();
    assert!(
        entry.starts_with(
            "---\nname: feedback-globs\ndescription: \"use ** for deep globs\"\nmetadata:\n  node_type: memory\n  type: feedback\n  modified: 20"
        ),
        "the client's own format in a library that follows no other: {entry}"
    );
    assert!(entry.ends_with("**Why:** it broke\n"));
    let index = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    assert!(index.ends_with("- [Globs](feedback_globs.md) — use ** for deep globs\n"));
    let out = add("globs2", "use ** for deep globs").assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("near-duplicate of feedback_globs.md"), "{err}");
    cargo_bin_cmd!("ccmem")
        .arg("undo")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(snapshot(dir.path()), old);
}
