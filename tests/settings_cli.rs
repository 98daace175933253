//! `ccmem hook install` / `uninstall` on the settings files real users have (issue 14, cases
//! 1–8): special files, links, modes, the client's limits, leftovers.
//!
//! Unix only: symbolic links and permission bits in most cases.
#![cfg(unix)]

mod common;

use common::cli::{Test, snapshot};

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

struct Home {
    t: Test,
    root: PathBuf,
}

impl Home {
    fn new() -> Self {
        let t = Test::new();
        let root = t.root().to_path_buf();
        Home { t, root }
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

    /// `ccmem hook ARGS` in HOME.
    fn ccmem(&self, args: &[&str]) -> Test {
        (self.t.ccmem(["hook"]).args(args))
            .env("XDG_STATE_HOME", self.state())
            .current_dir(self.home())
            .timeout(Duration::from_secs(20))
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
    common::cli::fifo(&h.settings());
    let mut runs = Vec::new();
    for args in [
        &["install", "--yes"][..],
        &["install", "--dry-run"],
        &["uninstall", "--yes"],
        &["uninstall", "--dry-run"],
    ] {
        let t = Instant::now();
        let out = h.ccmem(args).run().code(2);
        assert!(t.elapsed() < Duration::from_secs(5), "{args:?} hung");
        runs.push(out.transcript());
    }
    snapshot!("fifo_refused", runs.join("\n"));
}

#[test]
fn case2_a_dangling_link_is_refused_and_kept_a_live_one_written_through() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let real = h.root.join("dotfiles/claude.json");
    std::os::unix::fs::symlink(&real, h.settings()).unwrap();
    for args in [&["install", "--yes"][..], &["install", "--dry-run"]] {
        let out = h.ccmem(args).run().code(2);
        snapshot!(format!("dangling_link_{}", args[1]), out);
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
    h.ccmem(&["install", "--yes"]).run().code(0);
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
    h.ccmem(&["uninstall", "--yes"]).run().code(0);
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
    h.ccmem(&["install", "--yes"]).run().code(0);
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
    h.ccmem(&["install", "--yes"]).run().code(0);
    let now = std::fs::read_to_string(h.settings()).unwrap();
    assert!(
        now.starts_with("{\"n\": 123456789012345678901234567890, \"hooks\": {"),
        "{now}"
    );
    h.ccmem(&["uninstall", "--yes"]).run().code(0);
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
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ccmem"), &tool).unwrap();
    let bin = tool.to_str().unwrap();
    h.ccmem(&["install", "--yes", "--bin", bin]).run().code(0);
    let again = h.ccmem(&["install", "--yes", "--bin", bin]).run();
    snapshot!("already_installed", again.code(0));
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(h.settings()).unwrap()).unwrap();
    assert_eq!(v["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    assert_eq!(
        v["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "ccmem-wrapper hook session-start --my-flag"
    );
    h.ccmem(&["uninstall", "--yes"]).run().code(0);
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), original);
    // A file holding only the user's own ccmem commands is theirs: uninstall leaves it.
    let own = r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "ccmem hook session-start --always --recover"}]}]}}"#;
    std::fs::write(h.settings(), own).unwrap();
    let out = h.ccmem(&["uninstall", "--yes"]).run();
    snapshot!("not_installed", out.code(0));
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), own);
}

#[test]
fn case7_deep_nesting_and_a_bom_are_fine_and_the_clients_size_limit_is_named() {
    let h = Home::new();
    std::fs::create_dir_all(h.settings().parent().unwrap()).unwrap();
    let deep = format!("\u{feff}{{\"d\": {}{}}}", "[".repeat(128), "]".repeat(128));
    std::fs::write(h.settings(), &deep).unwrap();
    h.ccmem(&["install", "--yes"]).run().code(0);
    let now = std::fs::read_to_string(h.settings()).unwrap();
    assert!(now.starts_with(&deep[..deep.len() - 1]), "{now}");
    h.ccmem(&["uninstall", "--yes"]).run().code(0);
    assert_eq!(std::fs::read_to_string(h.settings()).unwrap(), deep);
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(17 << 20));
    std::fs::write(h.settings(), &big).unwrap();
    snapshot!(
        "over_the_clients_limit",
        h.ccmem(&["install", "--yes"]).run().code(2)
    );
}

#[test]
fn case8_uninstall_removes_what_install_created_and_leftovers_are_cleaned() {
    let h = Home::new();
    h.ccmem(&["install", "--yes"]).run().code(0);
    assert_eq!(mode(&h.settings()), 0o600);
    h.ccmem(&["uninstall", "--yes"]).run().code(0);
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
    h.ccmem(&["install", "--yes"]).run().code(0);
    assert_eq!(
        names(&h.home().join(".claude")),
        [".other.ccmem-tmp.abcdef", "settings.json"]
    );
}
