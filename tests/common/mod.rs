//! Shared by the oracle replays (`conformance`, `sessions`): cases on disk, materialized the way
//! the capture harness did it (tree copied to a fresh ROOT, HOME = ROOT/home, the case's env and
//! setup script; `/etc/claude-code` redirected into ROOT through `CCMEM_MANAGED_DIR`, and macOS's
//! `/Library/Managed Preferences` through `CCMEM_MANAGED_PREFERENCES`), and
//! ccmem run in the case's cwd with its output normalized (ROOT written `{ROOT}`). [`cli`] is the
//! one way every test runs ccmem.
#![allow(dead_code)]

pub(crate) mod cli;
pub(crate) mod shapes;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub(crate) const MANAGED: &str = "/etc/claude-code";
/// The macOS build's managed folder (`cases-macos/`).
pub(crate) const MANAGED_MACOS: &str = "/Library/Application Support/ClaudeCode";
/// The macOS managed-preferences folder (`cases-macos/policy-plist-*`), redirected into ROOT
/// through `CCMEM_MANAGED_PREFERENCES` as the managed folder is.
pub(crate) const MANAGED_PREFERENCES: &str = "/Library/Managed Preferences";
/// The Windows host's managed folder seen from WSL (`cases-wsl/`), redirected into ROOT through
/// `CCMEM_WSL_WINDOWS_MANAGED` as the managed folder is.
pub(crate) const WSL_WINDOWS_MANAGED: &str = "/mnt/c/Program Files/ClaudeCode";

pub(crate) struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub spec: Value,
    pub expected: String,
}

impl Case {
    /// The platform model the case replays with: `macos` for `cases-macos/` (captured with the
    /// darwin build), else the case's `platform`, else none (the host's, Linux here).
    pub(crate) fn platform(&self) -> Option<&str> {
        if self.name.starts_with("cases-macos/") {
            return Some("macos");
        }
        self.spec.get("platform").and_then(Value::as_str)
    }

    /// The managed folder the case's client read.
    pub(crate) fn managed(&self) -> &'static str {
        match self.platform() {
            Some("macos") => MANAGED_MACOS,
            _ => MANAGED,
        }
    }
}

pub(crate) fn cases(folders: &[&str]) -> Vec<Case> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    let mut out = Vec::new();
    for folder in folders {
        let Ok(entries) = fs::read_dir(base.join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            let dir = entry.path();
            let Ok(expected) = fs::read(dir.join("expected.txt")) else {
                continue;
            };
            let spec = fs::read_to_string(dir.join("case.json"))
                .ok()
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or(Value::Null);
            let expected = String::from_utf8_lossy(&expected).into_owned();
            let name = format!("{folder}/{}", entry.file_name().to_string_lossy());
            out.push(Case {
                name,
                dir,
                spec,
                expected,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

pub(crate) fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let t = entry.file_type().unwrap();
        if t.is_symlink() {
            let target = fs::read_link(&src).unwrap();
            #[cfg(unix)]
            std::os::unix::fs::symlink(target, &dst).unwrap();
            #[cfg(windows)]
            std::os::windows::fs::symlink_file(target, &dst).unwrap();
        } else if t.is_dir() {
            copy_tree(&src, &dst);
        } else {
            fs::copy(&src, &dst).unwrap();
        }
    }
}

/// The client's project slug (`J$`), the loader's own.
pub(crate) fn slug(p: &str) -> String {
    ccmem::load::automem::slug::slug(p)
}

/// A case laid out on disk.
pub(crate) struct Materialized {
    pub tmp: tempfile::TempDir,
    pub root: String,
    /// The managed folder inside ROOT, and the client's own it stands for.
    pub managed: String,
    pub managed_real: &'static str,
    /// The managed-preferences folder inside ROOT (it stands for [`MANAGED_PREFERENCES`]).
    pub prefs: String,
    /// The WSL Windows host's managed folder inside ROOT (it stands for
    /// [`WSL_WINDOWS_MANAGED`]).
    pub windows: String,
    pub cwd: PathBuf,
    pub env: BTreeMap<String, String>,
}

impl Materialized {
    /// `{ROOT}` replaced by the root.
    pub(crate) fn sub(&self, s: &str) -> String {
        s.replace("{ROOT}", &self.root)
    }

    /// Runs ccmem with `args` in the case's cwd; returns (stdout normalized, stderr, success).
    pub(crate) fn ccmem(&self, args: &[String]) -> (String, String, bool) {
        let out = cli::Test::at(self.tmp.path())
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.cwd)
            .args(args)
            .run();
        let got = String::from_utf8_lossy(&out.stdout)
            .replace(&self.managed, self.managed_real)
            .replace(&self.prefs, MANAGED_PREFERENCES)
            .replace(&self.windows, WSL_WINDOWS_MANAGED)
            .replace(&self.root, "{ROOT}")
            .replace(&slug(&self.root), "{ROOT_SLUG}");
        (
            got,
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.success(),
        )
    }
}

/// Copies the case's tree to a fresh ROOT and runs its setup script.
pub(crate) fn materialize(case: &Case) -> Materialized {
    let mut builder = tempfile::Builder::new();
    builder.prefix("ccoracle");
    // A case whose expected text depends on ROOT's length (the restore total counts the paths
    // in each attachment's JSON) names the length it was captured with.
    if let Some(len) = case.spec.get("root_len").and_then(Value::as_u64) {
        let base = std::env::temp_dir().join("ccoracle");
        let have = base.to_str().unwrap().len();
        assert!(
            have < len as usize,
            "{}: ROOT must be {len} characters long, and {} is already {have}",
            case.name,
            base.display()
        );
        builder.rand_bytes(len as usize - have);
    }
    let tmp = builder.tempdir().unwrap();
    let root = tmp.path().to_str().unwrap().to_owned();
    if case.dir.join("tree").is_dir() {
        copy_tree(&case.dir.join("tree"), tmp.path());
    }
    fs::create_dir_all(tmp.path().join("home")).unwrap();
    let managed = format!("{root}/etc-claude-code");
    let mut env: BTreeMap<String, String> = std::env::vars()
        .filter(|(k, _)| {
            !k.starts_with("CLAUDE")
                && !k.starts_with("ANTHROPIC")
                && k != "CCMEM_MANAGED_DIR"
                && k != "CCMEM_MANAGED_PREFERENCES"
                && k != "CCMEM_PLATFORM"
                && k != "CCMEM_WSL_WINDOWS_MANAGED"
                && !k.starts_with("WSL_")
        })
        .collect();
    env.insert("HOME".into(), format!("{root}/home"));
    env.insert("ROOT".into(), root.clone());
    env.insert(
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
        "1".into(),
    );
    env.insert("DISABLE_AUTOUPDATER".into(), "1".into());
    env.insert("CCMEM_MANAGED_DIR".into(), managed.clone());
    let prefs = format!("{root}/managed-preferences");
    env.insert("CCMEM_MANAGED_PREFERENCES".into(), prefs.clone());
    let windows = format!("{root}/mnt-c-program-files-claudecode");
    env.insert("CCMEM_WSL_WINDOWS_MANAGED".into(), windows.clone());
    if let Some(platform) = case.platform() {
        env.insert("CCMEM_PLATFORM".into(), platform.into());
    }
    if let Some(vars) = case.spec.get("env").and_then(Value::as_object) {
        for (k, v) in vars {
            env.insert(k.clone(), v.as_str().unwrap_or("").replace("{ROOT}", &root));
        }
    }
    if let Some(setup) = case.spec.get("setup").and_then(Value::as_str) {
        let setup = setup
            .replace(case.managed(), &managed)
            .replace(MANAGED_PREFERENCES, &prefs)
            .replace(WSL_WINDOWS_MANAGED, &windows);
        let ok = Command::new("bash")
            .args(["-ec", &setup])
            .current_dir(tmp.path())
            .env_clear()
            .envs(&env)
            .status()
            .unwrap()
            .success();
        assert!(ok, "{}: setup failed", case.name);
    }
    let cwd = tmp
        .path()
        .join(case.spec.get("cwd").and_then(Value::as_str).unwrap_or("."));
    Materialized {
        tmp,
        root,
        managed,
        managed_real: case.managed(),
        prefs,
        windows,
        cwd,
        env,
    }
}

/// The case's client flags (`args`).
pub(crate) fn client_args(case: &Case) -> Vec<String> {
    case.spec
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Runs `compare` on every case, four at a time; fails with every difference.
pub(crate) fn check_all(all: &[Case], compare: impl Fn(&Case) -> Option<String> + Sync) {
    assert!(!all.is_empty(), "no cases found");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(case) = all.get(i) else { break };
                    if let Some(failure) = compare(case) {
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap();
    failures.sort();
    let n = all.len();
    assert!(
        failures.is_empty(),
        "{}/{n} cases differ from the client:\n\n{}",
        failures.len(),
        failures.join("\n\n=====\n\n")
    );
    eprintln!("{n}/{n} cases byte-exact");
}
