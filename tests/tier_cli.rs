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

/// `ccmem add`'s arguments for one small user memory.
const ADD_TZ: [&str; 6] = [
    "--type",
    "user",
    "--topic",
    "tz",
    "--description",
    "Lives in UTC+9",
];

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

/// `ccmem tier DIR` with the default target.
fn tier_default(dir: &Path) -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("ccmem");
    cmd.arg("tier").arg(dir);
    cmd.env("NO_COLOR", "1").env_remove("CCMEM_FAULT_AT");
    cmd
}

/// `ccmem tier DIR` with an 8-line target (what [`library`] is over).
fn tier(dir: &Path) -> assert_cmd::Command {
    let mut cmd = tier_default(dir);
    cmd.args(["--target-lines", "8"]);
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
fn impossible_targets_are_refused_and_create_nothing() {
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
}

#[test]
fn a_symlinked_index_is_written_through_and_the_link_kept() {
    let dir = library();
    let elsewhere = tempfile::tempdir().unwrap();
    let real = elsewhere.path().join("MEMORY.md");
    fs::rename(dir.path().join("MEMORY.md"), &real).unwrap();
    std::os::unix::fs::symlink(&real, dir.path().join("MEMORY.md")).unwrap();
    let old = fs::read(&real).unwrap();
    let out = tier(dir.path()).arg("--write").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains('✗'), "{text}");
    let link = dir.path().join("MEMORY.md");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_link(&link).unwrap(),
        real,
        "the link itself is kept"
    );
    let new = fs::read_to_string(&real).unwrap();
    assert!(new.contains("reference_build_hub.md"), "{new}");
    cargo_bin_cmd!("ccmem")
        .arg("undo")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(fs::read(&real).unwrap(), old);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
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
fn add_past_the_cap_writes_nothing_exits_one_and_says_what_makes_room() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "MEMORY.md",
        &"- a rule that loads\n".repeat(210),
    );
    let add = |extra: &[&str]| {
        let mut c = cargo_bin_cmd!("ccmem");
        c.arg("add").arg(dir.path());
        c.args(ADD_TZ).args(extra);
        c
    };
    let names = listing(dir.path());
    let out = add(&[]).assert().code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // Rule lines fill it, and tier keeps rule lines: tier cannot make room, CLAUDE.md can.
    assert!(
        text.contains("would never be seen")
            && text.contains("`ccmem tier` cannot make room")
            && text.contains("CLAUDE.md"),
        "{text}"
    );
    assert_eq!(
        listing(dir.path()),
        names,
        "nothing written, no state either"
    );
    // Entry lines fill it: tier moves them into hubs, so tier is the way.
    let entries: String = (0..210)
        .map(|i| format!("- [Entry {i}](project_e{i}.md) — about {i}\n"))
        .collect();
    fs::write(dir.path().join("MEMORY.md"), &entries).unwrap();
    let out = add(&["--json"]).assert().code(1);
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["refused"], "index-past-cap");
    assert!(
        doc["fix"].as_str().unwrap().starts_with("ccmem tier "),
        "{doc}"
    );
    let names = listing(dir.path());
    add(&["--dry-run"]).assert().code(1);
    assert_eq!(listing(dir.path()), names);
    fs::write(dir.path().join("MEMORY.md"), "# M\n").unwrap();
    let names = listing(dir.path());
    add(&["--dry-run"]).assert().success();
    assert_eq!(listing(dir.path()), names, "a dry run creates nothing");
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn unreadable_topics_never_block_and_are_reported_and_left_untouched() {
    let dir = library();
    let latin1 = b"---\nname: cafe\n---\nLikes caf\xe9 au lait\n".to_vec();
    fs::write(dir.path().join("user_latin1.md"), &latin1).unwrap();
    mkfifo(&dir.path().join("project_pipe.md"));
    std::os::unix::fs::symlink("nowhere.md", dir.path().join("project_gone.md")).unwrap();
    for args in [&[][..], &["--write"][..]] {
        let out = tier(dir.path()).args(args).assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        for note in [
            "note: user_latin1.md is not valid UTF-8 (byte 28): left as it is",
            "note: project_pipe.md cannot be read: not a regular file (FIFO): left as it is",
            "note: project_gone.md is a symbolic link to nowhere.md, which does not exist: left",
        ] {
            assert!(text.contains(note), "{note}\n{text}");
        }
        assert!(!text.contains('✗'), "{text}");
    }
    assert!(
        fs::read_to_string(dir.path().join("MEMORY.md"))
            .unwrap()
            .contains("reference_build_hub.md")
    );
    assert_eq!(fs::read(dir.path().join("user_latin1.md")).unwrap(), latin1);
    let pipe = fs::symlink_metadata(dir.path().join("project_pipe.md")).unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&pipe.file_type()));
    let gone = dir.path().join("project_gone.md");
    assert_eq!(fs::read_link(&gone).unwrap(), Path::new("nowhere.md"));
}

/// Runs `cmd` as a dry run and with `--write`: both must refuse (exit 2) with the same words.
/// Returns those words and the two runs' stdout.
fn refused_alike(cmd: impl Fn() -> assert_cmd::Command) -> (String, Vec<String>) {
    let (mut errs, mut outs) = (Vec::new(), Vec::new());
    for args in [&[][..], &["--write"][..]] {
        let out = cmd().args(args).assert().code(2);
        let out = out.get_output();
        errs.push(String::from_utf8_lossy(&out.stderr).into_owned());
        outs.push(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    assert_eq!(errs[0], errs[1], "the dry run refuses as --write does");
    (errs.swap_remove(0), outs)
}

#[test]
fn a_hub_tier_would_write_but_cannot_read_is_refused_alike_in_the_dry_run() {
    let dir = library();
    mkfifo(&dir.path().join("reference_build_hub.md"));
    let old = listing(dir.path());
    let (err, _) = refused_alike(|| tier(dir.path()));
    assert!(
        err.contains("reference_build_hub.md: cannot be read: not a regular file (FIFO)")
            && err.contains("repair, rename or remove it"),
        "{err}"
    );
    assert_eq!(listing(dir.path()), old);
}

#[test]
fn a_symlinked_hub_is_written_through_unless_it_aliases_a_file_of_the_folder() {
    let dir = library();
    put(dir.path(), "elsewhere.md", "# hub kept elsewhere\n");
    let hub = dir.path().join("reference_build_hub.md");
    std::os::unix::fs::symlink("elsewhere.md", &hub).unwrap();
    let old = snapshot(dir.path());
    let out = tier(dir.path()).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("reference_build_hub.md: is a symbolic link to elsewhere.md, another file of this folder"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), old);
    let outside = tempfile::tempdir().unwrap();
    fs::rename(
        dir.path().join("elsewhere.md"),
        outside.path().join("elsewhere.md"),
    )
    .unwrap();
    fs::remove_file(&hub).unwrap();
    std::os::unix::fs::symlink(outside.path().join("elsewhere.md"), &hub).unwrap();
    let out = tier(dir.path()).arg("--write").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(!text.contains('✗'), "{text}");
    assert!(fs::symlink_metadata(&hub).unwrap().file_type().is_symlink());
    let real = fs::read_to_string(outside.path().join("elsewhere.md")).unwrap();
    assert!(
        real.starts_with("# hub kept elsewhere\n") && real.contains("(project_build0.md)"),
        "{real}"
    );
}

#[test]
fn an_index_tier_cannot_read_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "ccmem.toml", "[audit]\nmax-file-bytes = 1000\n");
    put(
        dir.path(),
        "MEMORY.md",
        &"- a rule that loads\n".repeat(100),
    );
    let out = tier(dir.path()).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("MEMORY.md: is 2000 bytes, more than tier reads (1000, `max-file-bytes`)")
            && err.contains("set `max-file-bytes = 2000` under `[audit]` in")
            && !err.contains("the audit reads"),
        "{err}"
    );
    fs::write(dir.path().join("MEMORY.md"), b"- caf\xe9\n").unwrap();
    let out = tier(dir.path()).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("is not valid UTF-8 (byte 5)") && err.contains("convert it to UTF-8"),
        "{err}"
    );
}

/// 150 plain rule lines (they stay) and 80 entries (they can move): the default target of 120
/// lines cannot be reached, the client's cap can.
fn rules_and_entries() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut index = String::from("# Memory\n\n");
    for i in 0..150 {
        index.push_str(&format!("- Always run check {i} before committing\n"));
    }
    index.push_str("\n## Project\n");
    for i in 0..80 {
        let file = format!("project_fact{i:02}.md");
        index.push_str(&format!("- [Fact {i}]({file}) — fact {i}\n"));
        put(dir.path(), &file, &format!("fact {i}\n"));
    }
    put(dir.path(), "MEMORY.md", &index);
    dir
}

#[test]
fn an_unreachable_default_target_does_the_most_and_the_dry_run_says_what_write_does() {
    let dir = rules_and_entries();
    let old = snapshot(dir.path());
    let out = tier_default(dir.path()).assert().success();
    let dry = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        dry.contains("note: the target (120 lines / 16000 UTF-16 units) cannot be reached")
            && dry.contains("so every entry loads")
            && dry.contains("Dry run: nothing written. Apply with --write")
            && !dry.contains('✗'),
        "{dry}"
    );
    assert_eq!(snapshot(dir.path()), old);
    // Asked for explicitly, the same target is refused, by the dry run as by --write.
    let (err, outs) = refused_alike(|| {
        let mut c = tier_default(dir.path());
        c.args(["--target-lines", "120"]);
        c
    });
    for text in outs {
        assert!(!text.contains("Dry run: nothing written. Apply"), "{text}");
        assert!(
            !text.contains("aggregated the pointers of the 1 "),
            "one hub is never aggregated: {text}"
        );
    }
    assert!(
        err.contains("cannot get within the target (120 lines")
            && err.contains("--target-lines 153"),
        "{err}"
    );
    assert_eq!(snapshot(dir.path()), old);
    let out = tier_default(dir.path()).arg("--write").assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("Wrote 2 files") && !text.contains('✗'),
        "{text}"
    );
    let index = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    assert!(index.lines().count() <= 200, "{index}");
    assert!(!index.contains("More hubs"), "{index}");
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
            "---\nname: globs\ndescription: \"use ** for deep globs\"\nmetadata:\n  node_type: memory\n  type: feedback\n  modified: 20"
        ),
        "the client's own format in a library that follows no other: {entry}"
    );
    assert!(entry.ends_with("**Why:** it broke\n"));
    let index = fs::read_to_string(dir.path().join("MEMORY.md")).unwrap();
    assert!(index.ends_with("- [Globs](feedback_globs.md) — use ** for deep globs\n"));
    // A near-duplicate is a finding (exit 1), not a usage error.
    let out = add("globs2", "use ** for deep globs").assert().code(1);
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(
        (v["message"].as_str().unwrap()).contains("near-duplicate of feedback_globs.md"),
        "{v}"
    );
    cargo_bin_cmd!("ccmem")
        .arg("undo")
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(snapshot(dir.path()), old);
}

#[test]
fn add_creates_the_projects_first_memory_folder_and_a_dry_run_only_says_so() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    fs::create_dir_all(project.join(".git")).unwrap();
    let add = |extra: &[&str]| {
        let mut c = cargo_bin_cmd!("ccmem");
        c.arg("add").current_dir(&project);
        c.env("HOME", home.path()).env_remove("CLAUDE_CONFIG_DIR");
        c.env("NO_COLOR", "1");
        c.args(ADD_TZ);
        c.args(extra);
        c
    };
    // A refusal creates nothing, not even the folder.
    cargo_bin_cmd!("ccmem")
        .arg("add")
        .current_dir(&project)
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .args(["--type", "user", "--topic", "MyTopic", "--description", "d"])
        .assert()
        .code(2);
    assert!(!home.path().join(".claude").exists());
    let out = add(&["--dry-run"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("would create the memory folder "), "{text}");
    assert!(
        !home.path().join(".claude").exists(),
        "a dry run creates nothing"
    );
    let out = add(&[]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("created the memory folder "), "{text}");
    let projects: Vec<_> = fs::read_dir(home.path().join(".claude/projects"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(projects.len(), 1);
    let memory = projects[0].path().join("memory");
    assert!(text.contains(&memory.display().to_string()), "{text}");
    let index = fs::read_to_string(memory.join("MEMORY.md")).unwrap();
    assert!(index.contains("(user_tz.md)"), "{index}");
    assert!(memory.join("user_tz.md").is_file());
    // The client's own mkdir: the default mode under the umask, as a plain create_dir gets.
    use std::os::unix::fs::PermissionsExt;
    let plain = home.path().join("plain");
    fs::create_dir(&plain).unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&memory), mode(&plain));
}

#[test]
fn add_near_duplicate_is_a_finding_with_a_typed_similar() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "MEMORY.md",
        "- [Deploy](project_deploy.md) — staging first\n",
    );
    put(
        dir.path(),
        "project_deploy.md",
        "---\nname: deploy\ndescription: deploys go through the staging cluster first\nmetadata:\n  type: project\n---\nAlways deploy to staging before production on Fridays.\n\n**Why:** x\n",
    );
    let add = |extra: &[&str]| {
        let mut c = cargo_bin_cmd!("ccmem");
        c.arg("add").arg(dir.path()).env("NO_COLOR", "1");
        c.args(["--type", "project", "--topic", "deploy2", "--why", "x"]);
        c.args([
            "--description",
            "deploys go through the staging cluster first",
        ]);
        c.args(["--body-file"]).arg(dir.path().join("body.txt"));
        c.args(extra);
        c
    };
    fs::write(
        dir.path().join("body.txt"),
        "Always deploy to staging before production on Fridays.\n",
    )
    .unwrap();
    let old = snapshot(dir.path());
    let out = add(&[]).assert().code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("near-duplicate of project_deploy.md") && text.contains("--force"),
        "{text}"
    );
    let out = add(&["--json"]).assert().code(1);
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["refused"], "near-duplicate");
    assert_eq!(doc["similar"]["file"], "project_deploy.md");
    assert!(
        doc["similar"]["similarity"].as_f64().unwrap() >= 0.8,
        "{doc}"
    );
    assert_eq!(snapshot(dir.path()), old, "nothing written");
    // Nothing alike: no "closest" at all, never a 0.00 one.
    let out = cargo_bin_cmd!("ccmem")
        .arg("add")
        .arg(dir.path())
        .args(ADD_TZ)
        .args(["--dry-run", "--json"])
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(doc["similar"].is_null(), "{doc}");
}

#[test]
fn tier_without_a_memory_folder_names_it_once() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    fs::create_dir_all(project.join(".git")).unwrap();
    let out = cargo_bin_cmd!("ccmem")
        .arg("tier")
        .current_dir(&project)
        .env("HOME", home.path())
        .env_remove("CLAUDE_CONFIG_DIR")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("/memory/: no such memory folder") && err.matches("No such file").count() == 0,
        "{err}"
    );
}
