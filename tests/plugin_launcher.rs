//! The plugin's hook launcher (`plugin/bin/ccmem-hook`), run with `sh` as the client runs it: it
//! finds ccmem wherever an installer put it, and when ccmem is nowhere it tells the operator how
//! to install it (one `systemMessage` at session start) instead of failing with exit 127.
//! `tests/hook_e2e.rs` runs the same through the real client.
//!
//! Unix only: the launcher is a POSIX `sh` script.
#![cfg(unix)]

use std::path::{Path, PathBuf};

use std::io::Write as _;
use std::process::{Command, Stdio};

const LAUNCHER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/plugin/bin/ccmem-hook");

/// A project whose MEMORY.md (205 entries) is cut, so a running ccmem always says so.
struct Setup {
    _root: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    proj: PathBuf,
}

fn setup() -> Setup {
    let root = tempfile::tempdir().unwrap();
    let base = root.path().canonicalize().unwrap();
    let (home, proj, mem) = (base.join("home"), base.join("proj"), base.join("mem"));
    for d in [&home, &proj, &mem] {
        std::fs::create_dir_all(d).unwrap();
    }
    let body: String = (1..=205)
        .map(|i| format!("- [e{i}](e{i}.md) — entry {i}\n"))
        .collect();
    std::fs::write(mem.join("MEMORY.md"), body).unwrap();
    Setup {
        _root: root,
        base,
        home,
        proj,
    }
}

/// Puts a link to the ccmem under test at `dir/ccmem`.
fn install_at(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ccmem"), dir.join("ccmem")).unwrap();
}

/// Runs the launcher for `event` with only `/usr/bin:/bin` (plus `extra_path`) on PATH and npm's
/// global prefix pointed at an empty folder; `vars` sets (or, with `None`, removes) variables.
fn launch(
    s: &Setup,
    event: &str,
    extra_path: Option<&Path>,
    vars: &[(&str, Option<PathBuf>)],
) -> String {
    let path = match extra_path {
        Some(p) => format!("{}:/usr/bin:/bin", p.display()),
        None => "/usr/bin:/bin".to_owned(),
    };
    let input = serde_json::json!({"session_id": "s", "transcript_path": "/t", "cwd": s.proj,
        "hook_event_name": "SessionStart", "source": "startup"});
    let mut cmd = Command::new("sh");
    cmd.arg(LAUNCHER)
        .arg(event)
        .env_clear()
        .env("PATH", path)
        .env("HOME", &s.home)
        .env("NO_COLOR", "1")
        .env("NPM_CONFIG_PREFIX", s.base.join("npm-empty"))
        .env("CCMEM_MANAGED_DIR", s.home.join("no-managed"))
        .env("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", s.base.join("mem"))
        .current_dir(&s.proj)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in vars {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The launcher may exit without reading it all (no ccmem found): a broken pipe is fine.
    let _ = stdin.write_all(input.to_string().as_bytes());
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{event}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn ran_ccmem(stdout: &str) -> bool {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap_or_default();
    v["systemMessage"]
        .as_str()
        .is_some_and(|m| m.contains("5 lines dark (201–205)"))
}

#[test]
fn finds_ccmem_on_path() {
    let s = setup();
    let bin = s.base.join("bin");
    install_at(&bin);
    assert!(ran_ccmem(&launch(&s, "session-start", Some(&bin), &[])));
}

#[test]
fn finds_cargo_install_off_path() {
    let s = setup();
    install_at(&s.home.join(".cargo/bin"));
    assert!(ran_ccmem(&launch(&s, "session-start", None, &[])));

    let s = setup();
    let cargo_home = s.base.join("cargo-home");
    install_at(&cargo_home.join("bin"));
    let out = launch(
        &s,
        "session-start",
        None,
        &[("CARGO_HOME", Some(cargo_home))],
    );
    assert!(ran_ccmem(&out), "{out}");
}

#[test]
fn finds_an_npm_global_install_off_path() {
    // npm's prefix from the environment, the usual user prefix, and the one `npm prefix -g`
    // reads from ~/.npmrc.
    let s = setup();
    let prefix = s.base.join("npm-prefix");
    install_at(&prefix.join("bin"));
    let out = launch(
        &s,
        "session-start",
        None,
        &[("NPM_CONFIG_PREFIX", Some(prefix))],
    );
    assert!(ran_ccmem(&out), "{out}");

    let s = setup();
    install_at(&s.home.join(".npm-global/bin"));
    assert!(ran_ccmem(&launch(&s, "session-start", None, &[])));

    let s = setup();
    assert!(
        which("npm").is_some(),
        "npm is not installed: the `npm prefix -g` case cannot run"
    );
    let prefix = s.base.join("npmrc-prefix");
    install_at(&prefix.join("bin"));
    let npmrc = format!("prefix={}\n", prefix.display());
    std::fs::write(s.home.join(".npmrc"), npmrc).unwrap();
    let out = launch(&s, "session-start", None, &[("NPM_CONFIG_PREFIX", None)]);
    assert!(ran_ccmem(&out), "{out}");
}

#[test]
fn ccmem_bin_names_the_binary() {
    let s = setup();
    let other = s.base.join("elsewhere");
    install_at(&other);
    let out = launch(
        &s,
        "session-start",
        None,
        &[("CCMEM_BIN", Some(other.join("ccmem")))],
    );
    assert!(ran_ccmem(&out), "{out}");
}

#[test]
fn missing_ccmem_is_one_system_message_at_session_start_and_silence_after_writes() {
    let s = setup();
    let out = launch(&s, "session-start", None, &[]);
    assert_eq!(out.lines().count(), 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(msg.contains("the ccmem command is not"), "{msg}");
    // The install command that works today (neither crates.io nor npm has ccmem yet).
    assert!(
        msg.contains("cargo install --locked --git https://github.com/ccmem/ccmem ccmem"),
        "{msg}"
    );
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");

    assert_eq!(launch(&s, "post-tool-use", None, &[]), "");
}

fn which(name: &str) -> Option<PathBuf> {
    ["/usr/bin", "/bin", "/usr/local/bin"]
        .iter()
        .map(|d| Path::new(d).join(name))
        .find(|p| p.exists())
}

#[test]
fn a_relative_path_entry_or_ccmem_bin_is_never_run() {
    // The hook runs in the session's directory: a repository shipping `bin/ccmem` (and `npm`)
    // must not be run through a relative PATH entry, nor through a relative CCMEM_BIN its
    // settings' `env` could set.
    let s = setup();
    let marker = s.base.join("pwned");
    let evil = format!("#!/bin/sh\necho pwned > '{}'\n", marker.display());
    for name in ["bin/ccmem", "bin/npm", "evil"] {
        let p = s.proj.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, &evil).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for path in ["bin", "", "."] {
        let out = launch(
            &s,
            "session-start",
            Some(Path::new(path)),
            &[("CCMEM_BIN", Some(PathBuf::from("evil")))],
        );
        assert!(
            !marker.exists(),
            "PATH entry {path:?} ran the repository's program"
        );
        assert!(out.contains("the ccmem command is not"), "{out}");
    }
    // An absolute entry after the relative one is still found.
    let good = s.base.join("good");
    install_at(&good);
    let out = launch(
        &s,
        "session-start",
        Some(Path::new(&format!("bin:{}", good.display()))),
        &[],
    );
    assert!(!marker.exists());
    assert!(ran_ccmem(&out), "{out}");
}
