//! `ccmem hook install` / `uninstall` on the settings files real users have (issue 14, cases
//! 1–8): special files, links, modes, the client's limits, leftovers.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

struct Home {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home")).unwrap();
        Home { _dir: dir, root }
    }

    fn home(&self) -> PathBuf {
        self.root.join("home")
    }

    fn settings(&self) -> PathBuf {
        self.home().join(".claude/settings.json")
    }

    fn state(&self) -> PathBuf {
        self.root.join("state")
    }

    fn ccmem(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("ccmem").unwrap();
        c.env_clear()
            .env("HOME", self.home())
            .env("XDG_STATE_HOME", self.state())
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .current_dir(self.home())
            .args(["hook"])
            .args(args)
            .timeout(Duration::from_secs(20));
        c
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn case1_a_fifo_at_settings_json_is_refused_at_once_even_with_dry_run() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(h.settings().to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for args in [
        &["install", "--yes"][..],
        &["install", "--dry-run"],
        &["uninstall", "--yes"],
        &["uninstall", "--dry-run"],
    ] {
        let t = Instant::now();
        let out = h.ccmem(args).assert().code(2);
        assert!(t.elapsed() < Duration::from_secs(5), "{args:?} hung");
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(
            err.contains("is not a regular file (FIFO)"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn case2_a_dangling_link_is_refused_and_kept_a_live_one_written_through() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let real = h.root.join("dotfiles/claude.json");
    std::os::unix::fs::symlink(&real, h.settings()).unwrap();
    for args in [&["install", "--yes"][..], &["install", "--dry-run"]] {
        let out = h.ccmem(args).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains("which does not exist"), "{err}");
        assert!(
            std::fs::symlink_metadata(h.settings())
                .unwrap()
                .is_symlink()
        );
        assert!(!real.exists());
    }
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "{\"model\": \"x\"}\n").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    h.ccmem(&["install", "--yes"]).assert().success();
    assert!(
        std::fs::symlink_metadata(h.settings())
            .unwrap()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .contains("# ccmem-managed")
    );
    assert_eq!(mode(&real), 0o600);
    h.ccmem(&["uninstall", "--yes"]).assert().success();
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "{\"model\": \"x\"}\n"
    );
    assert!(
        std::fs::symlink_metadata(h.settings())
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn case3_the_backup_of_a_private_settings_file_is_private_and_nothing_sits_beside_it() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    std::fs::write(h.settings(), "{\"env\": {\"ANTHROPIC_API_KEY\": \"sk-x\"}}").unwrap();
    std::fs::set_permissions(h.settings(), std::fs::Permissions::from_mode(0o600)).unwrap();
    h.ccmem(&["install", "--yes"]).assert().success();
    assert_eq!(mode(&h.settings()), 0o600);
    assert_eq!(names(&h.home().join(".claude")), ["settings.json"]);
    let mut backups = Vec::new();
    for e in walk(&h.state()) {
        if e.parent().is_some_and(|p| p.ends_with("backup")) {
            backups.push(e);
        }
    }
    // The original's bytes, and what ccmem wrote (kept so an undo can merge later edits).
    assert_eq!(backups.len(), 2, "{backups:?}");
    for b in &backups {
        assert_eq!(mode(b), 0o600, "{}", b.display());
    }
    assert!(
        backups
            .iter()
            .any(|b| std::fs::read(b).unwrap() == b"{\"env\": {\"ANTHROPIC_API_KEY\": \"sk-x\"}}")
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            if e.path().is_dir() {
                out.extend(walk(&e.path()));
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

#[test]
fn case4_values_are_kept_as_written_when_the_file_has_hooks() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let original = "{\"n\": 123456789012345678901234567890, \"hooks\": {}}";
    std::fs::write(h.settings(), original).unwrap();
    h.ccmem(&["install", "--yes"]).assert().success();
    let now = std::fs::read_to_string(h.settings()).unwrap();
    assert!(
        now.starts_with("{\"n\": 123456789012345678901234567890, \"hooks\": {"),
        "{now}"
    );
    h.ccmem(&["uninstall", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), original);
}

#[test]
fn case5_and_6_ownership_is_the_marker_whatever_the_binary_is_called() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let original = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "ccmem-wrapper hook session-start --my-flag"}]}]}}"#;
    std::fs::write(h.settings(), original).unwrap();
    let tool = h.root.join("bin/memory-tool");
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("ccmem"), &tool).unwrap();
    let bin = tool.to_str().unwrap();
    h.ccmem(&["install", "--yes", "--bin", bin])
        .assert()
        .success();
    h.ccmem(&["install", "--yes", "--bin", bin])
        .assert()
        .success()
        .stdout(predicates::str::contains("already installed"));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(h.settings()).unwrap()).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "ccmem-wrapper hook session-start --my-flag"
    );
    h.ccmem(&["uninstall", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), original);
    // A file holding only the user's own ccmem commands is theirs: uninstall leaves it.
    let own = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "ccmem hook session-start --always --recover"}]}]}}"#;
    std::fs::write(h.settings(), own).unwrap();
    h.ccmem(&["uninstall", "--yes"])
        .assert()
        .success()
        .stdout(predicates::str::contains("not installed"));
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), own);
}

#[test]
fn case7_deep_nesting_and_a_bom_are_fine_and_the_clients_size_limit_is_named() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let deep = format!("\u{feff}{{\"d\": {}{}}}", "[".repeat(128), "]".repeat(128));
    std::fs::write(h.settings(), &deep).unwrap();
    h.ccmem(&["install", "--yes"]).assert().success();
    let now = std::fs::read_to_string(h.settings()).unwrap();
    assert!(now.starts_with(&deep[..deep.len() - 1]), "{now}");
    h.ccmem(&["uninstall", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), deep);
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(17 << 20));
    std::fs::write(h.settings(), &big).unwrap();
    let out = h.ccmem(&["install", "--yes"]).assert().code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("over the client's 2097152-byte limit") && err.contains("loads none of it"),
        "{err}"
    );
}

#[test]
fn case8_uninstall_removes_what_install_created_and_leftovers_are_cleaned() {
    let h = Home::new();
    h.ccmem(&["install", "--yes"]).assert().success();
    assert_eq!(mode(&h.settings()), 0o600);
    h.ccmem(&["uninstall", "--yes"]).assert().success();
    assert!(
        !h.home().join(".claude").exists(),
        "the ~/.claude install made is gone"
    );
    // A killed install's temp file (and nothing else) is cleaned by the next run.
    std::fs::create_dir_all(h.home().join(".claude")).unwrap();
    std::fs::write(
        h.home().join(".claude/.settings.json.ccmem-tmp.k1ll3d"),
        "{",
    )
    .unwrap();
    std::fs::write(h.home().join(".claude/.other.ccmem-tmp.abcdef"), "x").unwrap();
    h.ccmem(&["install", "--yes"]).assert().success();
    assert_eq!(
        names(&h.home().join(".claude")),
        [".other.ccmem-tmp.abcdef", "settings.json"]
    );
}
