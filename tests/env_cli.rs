//! The process environment as ccmem reads it: once, lossily, never panicking (issue 14, case 12).

mod common;

use common::cli::{Test, snapshot};

use std::ffi::OsString;
use std::path::Path;

/// `prefix` and then what is no text on this platform: bytes that are not UTF-8 on Unix, a lone
/// surrogate (no UTF-16) on Windows.
fn not_unicode(prefix: &str) -> OsString {
    #[cfg(unix)]
    return std::os::unix::ffi::OsStringExt::from_vec([prefix.as_bytes(), b"\xff\xfe"].concat());
    #[cfg(windows)]
    return std::os::windows::ffi::OsStringExt::from_wide(
        &prefix
            .encode_utf16()
            .chain([0xd800, 0x61])
            .collect::<Vec<u16>>(),
    );
}

/// ccmem with HOME and the working directory at `home`, on the real clock.
fn ccmem(home: &Path) -> Test {
    Test::at(home).env("HOME", home).env_remove("CCMEM_NOW")
}

#[test]
fn a_variable_that_is_not_utf8_never_panics_any_command() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::write(home.join("CLAUDE.md"), "be brief\n").unwrap();
    let bad = not_unicode("");
    let runs: [&[&str]; 5] = [
        &["receipt"],
        &["context"],
        &["budget"],
        &["audit", "--all"],
        &["statusline"],
    ];
    for args in runs {
        let out = ccmem(&home)
            .env("X", &bad)
            .env(not_unicode("K"), "v")
            .args(args)
            .stdin("")
            .run();
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
        .run()
        .code(0)
        .stdout_is("");
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
        env!("CARGO_BIN_EXE_ccmem")
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
    assert_eq!(
        stderr,
        "ccmem: error: cannot read the current directory: No such file or directory (os error 2)\n"
    );
}

#[test]
fn version_names_the_platform_model_and_a_bad_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    snapshot!("version", ccmem(&home).arg("--version").run().code(0));
    let windows = ccmem(&home)
        .env("CCMEM_PLATFORM", "windows")
        .arg("--version");
    snapshot!("version_windows", windows.run().code(0));
    let out = ccmem(&home).env("CCMEM_PLATFORM", "darwin").arg("context");
    snapshot!("bad_platform", out.run().code(2));
}

#[test]
fn a_receipt_says_what_another_platform_model_cannot_verify() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::write(home.join("CLAUDE.md"), "be brief\n").unwrap();
    let receipt = |platform: &str| {
        let out = ccmem(&home)
            .env("CCMEM_PLATFORM", platform)
            .args(["receipt", "--json"])
            .run();
        out.json()["platform"].clone()
    };
    let linux = receipt("linux");
    assert_eq!(linux["model"], "linux");
    assert_eq!(linux["unread_policy"], serde_json::json!([]));
    let windows = receipt("windows");
    assert_eq!(windows["model"], "windows");
    let unverified = windows["unverified"].as_array().unwrap();
    assert!(
        unverified
            .iter()
            .any(|u| u.as_str().unwrap().contains("unverified on this platform"))
    );
    // Off Windows the registry cannot be read, and the receipt says so; on Windows it is read.
    if cfg!(windows) {
        assert_eq!(windows["unread_policy"], serde_json::json!([]));
    } else {
        let policy = windows["unread_policy"][0]["source"].as_str().unwrap();
        assert!(
            policy.starts_with(r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings"),
            "{policy}"
        );
        let note = windows["unread_policy"][0]["note"].as_str().unwrap();
        assert!(note.ends_with("unverified"), "{note}");
    }
}
