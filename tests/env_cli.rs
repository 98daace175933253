//! The process environment as ccmem reads it: once, lossily, never panicking (issue 14, case 12).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use assert_cmd::Command;

fn ccmem(home: &Path) -> Command {
    let mut cmd = Command::cargo_bin("ccmem").unwrap();
    cmd.env_clear()
        .env("HOME", home)
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("NO_COLOR", "1")
        .env("CCMEM_MANAGED_DIR", home.join("no-managed"))
        .current_dir(home);
    cmd
}

#[test]
fn a_variable_that_is_not_utf8_never_panics_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::write(home.join("CLAUDE.md"), "be brief\n").unwrap();
    let bad = OsStr::from_bytes(b"\xff\xfe");
    let runs: [&[&str]; 5] = [
        &["receipt"],
        &["context"],
        &["budget"],
        &["audit", "--all"],
        &["statusline"],
    ];
    for args in runs {
        let out = ccmem(&home)
            .env("X", bad)
            .env(OsStr::from_bytes(b"K\xff"), "v")
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(0..=2)),
            "{args:?}: exit {code:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    // The variable is seen (lossily), as node's `process.env` sees it: a switch still works.
    ccmem(&home)
        .env("X", bad)
        .env("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")
        .arg("context")
        .assert()
        .success()
        .stdout("");
}

#[test]
fn a_vanished_working_directory_is_an_error_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let gone = home.join("gone");
    std::fs::create_dir(&gone).unwrap();
    // A shell left in a removed directory: the command starts there.
    let script = format!(
        "cd '{}' && rmdir '{}' && exec '{}' receipt",
        gone.display(),
        gone.display(),
        assert_cmd::cargo::cargo_bin("ccmem").display()
    );
    let out = std::process::Command::new("sh")
        .args(["-c", &script])
        .env_clear()
        .env("HOME", &home)
        .env("CCMEM_MANAGED_DIR", home.join("no-managed"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot read the current directory") && !stderr.contains("panicked"),
        "{stderr}"
    );
}
