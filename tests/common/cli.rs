//! The one way a test runs ccmem (just's `Test`): a sandbox folder, the arguments, the
//! environment, the working directory and standard input, then a [`Run`] that pins the exit
//! status and shows the whole output, paths redacted, for [`snapshot!`](crate::snapshot).
//!
//! Every run starts from a cleared environment, so nothing of the machine's leaks in: `PATH`,
//! `HOME` = `ROOT/home`, `NO_COLOR=1`, the clock at 2026-11-29 (`CCMEM_NOW`), `TZ=UTC`, and a
//! managed-policy folder inside the sandbox that does not exist (`CCMEM_MANAGED_DIR`), and so is
//! the macOS managed-preferences folder (`CCMEM_MANAGED_PREFERENCES`: a Mac's own plists are
//! read under its default model), and the Windows host's managed folder WSL reads
//! (`CCMEM_WSL_WINDOWS_MANAGED`). A test
//! changes any of them with [`Test::env`] / [`Test::env_remove`].
//!
//! ```ignore
//! let t = Test::new().file("mem/MEMORY.md", "- [a](user_a.md)\n");
//! let run = t.args(["audit", "mem"]).run().code(1);
//! snapshot!("broken_link", run);
//! ```

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The clock every run sees unless a test says otherwise.
pub(crate) const NOW: &str = "2026-11-29T00:00:00Z";

/// A command to run in a sandbox. Cheap to clone: several runs share one sandbox.
#[derive(Clone)]
pub(crate) struct Test {
    _tmp: Option<Arc<tempfile::TempDir>>,
    root: PathBuf,
    cwd: PathBuf,
    args: Vec<OsString>,
    env: BTreeMap<OsString, Option<OsString>>,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
    redactions: Vec<(String, String)>,
    patterns: Vec<(String, String)>,
}

impl Test {
    /// A fresh sandbox (a temporary folder, removed when the last clone is dropped) holding an
    /// empty `home/`; the working directory is its root.
    pub(crate) fn new() -> Test {
        let tmp = tempfile::Builder::new().prefix("ccmem-").tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("home")).unwrap();
        let mut t = Test::at(&root);
        t._tmp = Some(Arc::new(tmp));
        t
    }

    /// A run in a sandbox the test made itself, rooted at `root` (made absolute and real); its
    /// `HOME` is `root/home`, which this does not create.
    pub(crate) fn at(root: &Path) -> Test {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut env = BTreeMap::new();
        let mut set = |k: &str, v: &OsStr| {
            env.insert(OsString::from(k), Some(v.to_os_string()));
        };
        set("PATH", &std::env::var_os("PATH").unwrap_or_default());
        set("HOME", root.join("home").as_os_str());
        set("NO_COLOR", "1".as_ref());
        set("CCMEM_NOW", NOW.as_ref());
        set("TZ", "UTC".as_ref());
        set("CCMEM_MANAGED_DIR", root.join("no-managed").as_os_str());
        set(
            "CCMEM_MANAGED_PREFERENCES",
            root.join("no-managed-preferences").as_os_str(),
        );
        set(
            "CCMEM_WSL_WINDOWS_MANAGED",
            root.join("no-wsl-windows-managed").as_os_str(),
        );
        Test {
            _tmp: None,
            cwd: root.clone(),
            root,
            args: Vec::new(),
            env,
            stdin: None,
            timeout: None,
            redactions: Vec::new(),
            patterns: Vec::new(),
        }
    }

    /// This sandbox and environment with `args` as the arguments (any set before replaced).
    pub(crate) fn ccmem<I, S>(&self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut t = self.clone();
        t.args.clear();
        t.args(args)
    }

    /// The sandbox's root (real path).
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// `rel` inside the sandbox (an absolute `rel` is returned as it is).
    pub(crate) fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// The `HOME` runs see.
    pub(crate) fn home(&self) -> PathBuf {
        self.env
            .get(OsStr::new("HOME"))
            .and_then(|v| v.clone())
            .map_or_else(|| self.root.join("home"), PathBuf::from)
    }

    /// Writes `text` to `rel` in the sandbox, making its folders.
    pub(crate) fn file(self, rel: impl AsRef<Path>, text: impl AsRef<[u8]>) -> Test {
        let p = self.path(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
        self
    }

    /// Writes every `(path, text)` of `files` ([`Test::file`]).
    pub(crate) fn tree(self, files: &[(&str, &str)]) -> Test {
        files.iter().fold(self, |t, (rel, text)| t.file(rel, text))
    }

    /// Makes the folder `rel` (and its parents).
    pub(crate) fn dir(self, rel: impl AsRef<Path>) -> Test {
        fs::create_dir_all(self.path(rel)).unwrap();
        self
    }

    /// Copies the repository's `from` (relative to the crate root: `tests/fixtures/…`,
    /// `examples/…`) to `to` in the sandbox, links kept as links.
    pub(crate) fn copy(self, from: &str, to: impl AsRef<Path>) -> Test {
        let from = Path::new(env!("CARGO_MANIFEST_DIR")).join(from);
        let to = self.path(to);
        super::copy_tree(&from, &to);
        pin_mtimes(&to);
        self
    }

    /// A named pipe at `rel` ([`fifo`]).
    pub(crate) fn fifo(self, rel: impl AsRef<Path>) -> Test {
        fifo(&self.path(rel));
        self
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Test {
        self.args.push(arg.as_ref().to_os_string());
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Test {
        (self.env).insert(key.as_ref().into(), Some(value.as_ref().into()));
        self
    }

    /// Every variable of `vars` ([`Test::env`]).
    pub(crate) fn envs<K, V>(self, vars: impl IntoIterator<Item = (K, V)>) -> Test
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        vars.into_iter().fold(self, |t, (k, v)| t.env(k, v))
    }

    /// No variable at all, the defaults included (an oracle case brings its own environment).
    pub(crate) fn env_clear(mut self) -> Test {
        self.env.clear();
        self
    }

    pub(crate) fn env_remove(mut self, key: impl AsRef<OsStr>) -> Test {
        self.env.insert(key.as_ref().into(), None);
        self
    }

    /// The working directory: `dir` inside the sandbox (or absolute).
    pub(crate) fn current_dir(mut self, dir: impl AsRef<Path>) -> Test {
        self.cwd = self.root.join(dir);
        self
    }

    pub(crate) fn stdin(mut self, input: impl Into<Vec<u8>>) -> Test {
        self.stdin = Some(input.into());
        self
    }

    /// Fails the test if the run takes longer than `limit` (the process is killed).
    pub(crate) fn timeout(mut self, limit: Duration) -> Test {
        self.timeout = Some(limit);
        self
    }

    /// Shows `text` as `placeholder` in [`Run::transcript`], beside the sandbox's own.
    pub(crate) fn redact(mut self, text: impl Into<String>, placeholder: &str) -> Test {
        self.redactions.push((text.into(), placeholder.to_owned()));
        self
    }

    /// Shows whatever matches the regular expression `pattern` as `placeholder` in
    /// [`Run::transcript`] (a wall-clock time, a random id).
    pub(crate) fn redact_regex(mut self, pattern: &str, placeholder: &str) -> Test {
        self.patterns
            .push((pattern.to_owned(), placeholder.to_owned()));
        self
    }

    /// The command this test would run, for the rare test that drives the process itself
    /// (timing, a signal, a terminal).
    pub(crate) fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ccmem"));
        cmd.args(&self.args).current_dir(&self.cwd).env_clear();
        for (k, v) in &self.env {
            if let Some(v) = v {
                cmd.env(k, v);
            }
        }
        cmd
    }

    /// Starts ccmem with each file swap slowed by `delay_ms` (`CCMEM_TEST_DELAY_MS`), its output
    /// piped, and returns once `path` exists (the run reached the step that makes it); fails
    /// the test when that takes 30 s.
    pub(crate) fn spawn_until(&self, delay_ms: u32, path: &Path) -> Child {
        let child = (self.command())
            .env("CCMEM_TEST_DELAY_MS", delay_ms.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while !path.exists() {
            assert!(
                Instant::now() < deadline,
                "ccmem {:?} never made {}",
                self.args,
                path.display()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        child
    }

    /// Runs ccmem and waits for it.
    pub(crate) fn run(&self) -> Run {
        let mut cmd = self.command();
        cmd.stdin(if self.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        if let Some(input) = &self.stdin {
            let mut pipe = child.stdin.take().unwrap();
            // ccmem may exit before reading it all (a refused input): a broken pipe is fine.
            let _ = pipe.write_all(input);
        }
        let output = match self.timeout {
            None => child.wait_with_output().unwrap(),
            Some(limit) => wait_at_most(child, limit, &self.args),
        };
        self.outcome(output)
    }

    /// The [`Run`] of `output`, for a test that drove [`Test::command`] itself (a watch on its
    /// memory): its transcript redacted as [`Test::run`]'s is.
    pub(crate) fn outcome(&self, output: Output) -> Run {
        let mut redactions = self.redactions.clone();
        let root = self.root.to_string_lossy().into_owned();
        redactions.push((env!("CARGO_BIN_EXE_ccmem").to_owned(), "[CCMEM]".to_owned()));
        redactions.push((super::slug(&root), "[ROOT_SLUG]".to_owned()));
        redactions.push((root, "[ROOT]".to_owned()));
        Run {
            args: self.args.clone(),
            output,
            redactions,
            // No time is redacted: every time ccmem prints (an undo journal's too) is
            // `CCMEM_NOW`'s, so a wall-clock time in a snapshot fails it.
            patterns: self.patterns.clone(),
        }
    }
}

/// Waits for `child` until `limit`, reading its output meanwhile; kills it and fails the test
/// when it is still running then.
fn wait_at_most(mut child: Child, limit: Duration, args: &[OsString]) -> Output {
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ccmem {args:?} still running after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// What one run did: its exit status, stdout and stderr ([`Output`]'s fields, through `Deref`).
pub(crate) struct Run {
    args: Vec<OsString>,
    output: Output,
    redactions: Vec<(String, String)>,
    patterns: Vec<(String, String)>,
}

impl std::ops::Deref for Run {
    type Target = Output;
    fn deref(&self) -> &Output {
        &self.output
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.transcript())
    }
}

impl Run {
    /// The exit code (a run ended by a signal fails the test).
    pub(crate) fn exit_code(&self) -> i32 {
        (self.status.code()).unwrap_or_else(|| panic!("killed by a signal\n{}", self.transcript()))
    }

    /// Fails the test, showing the whole run, unless it exited with `code`.
    #[track_caller]
    pub(crate) fn code(self, code: i32) -> Run {
        assert_eq!(self.exit_code(), code, "\n{}", self.transcript());
        self
    }

    pub(crate) fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub(crate) fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    /// Fails the test unless stdout is exactly `expected`.
    #[track_caller]
    pub(crate) fn stdout_is(self, expected: &str) -> Run {
        assert_eq!(self.stdout(), expected, "\n{}", self.transcript());
        self
    }

    /// Fails the test unless stderr is exactly `expected`.
    #[track_caller]
    pub(crate) fn stderr_is(self, expected: &str) -> Run {
        assert_eq!(self.stderr(), expected, "\n{}", self.transcript());
        self
    }

    /// stdout as JSON; fails the test, showing the run, when it is not.
    #[track_caller]
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.output.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON: {e}\n{}", self.transcript()))
    }

    /// `text` with the sandbox's paths (and the test's own redactions) as placeholders.
    pub(crate) fn redacted(&self, text: &str) -> String {
        let text =
            (self.redactions.iter()).fold(text.to_owned(), |t, (from, to)| t.replace(from, to));
        (self.patterns.iter()).fold(text, |t, (pattern, to)| {
            let re = regex::Regex::new(pattern).unwrap();
            re.replace_all(&t, to.as_str()).into_owned()
        })
    }

    /// The whole run as a snapshot holds it: the arguments, the exit code, stdout and stderr,
    /// the sandbox's paths redacted.
    pub(crate) fn transcript(&self) -> String {
        let args: Vec<String> = (self.args.iter())
            .map(|a| shell_quote(&a.to_string_lossy()))
            .collect();
        self.redacted(&format!(
            "$ ccmem {}\nexit: {}\n----- stdout -----\n{}----- stderr -----\n{}",
            args.join(" "),
            self.status
                .code()
                .map_or("signal".to_owned(), |c| c.to_string()),
            self.stdout(),
            self.stderr(),
        ))
    }
}

fn shell_quote(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Sets every file under `dir` to one modification time (2026-11-01, four weeks before [`NOW`]):
/// what a run reports from file times is the same on every machine and day.
pub(crate) fn pin_mtimes(dir: &Path) {
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_793_491_200);
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let t = entry.file_type().unwrap();
        if t.is_dir() {
            pin_mtimes(&entry.path());
        } else if t.is_file() {
            fs::File::open(entry.path())
                .and_then(|f| f.set_modified(when))
                .unwrap();
        }
    }
}

/// A named pipe at `path`, made by the system's `mkfifo` (no `unsafe` in tests).
pub(crate) fn fifo(path: &Path) {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
}

/// What a snapshot holds: a run's [`Run::transcript`], or a text (a file after the run).
pub(crate) trait Snap {
    fn snap(&self) -> String;
}

impl Snap for Run {
    fn snap(&self) -> String {
        self.transcript()
    }
}

impl Snap for String {
    fn snap(&self) -> String {
        self.clone()
    }
}

impl Snap for &str {
    fn snap(&self) -> String {
        (*self).to_owned()
    }
}

/// Pins a [`Run`]'s whole [`Run::transcript`] (or a text) as
/// `tests/snapshots/<test file>__<name>.snap`. `cargo test` fails on any difference;
/// `INSTA_UPDATE=always cargo test` or `cargo insta review` accepts a change (CONTRIBUTING.md).
#[allow(unused_macros, reason = "not every test file pins a snapshot")]
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({
            snapshot_path => concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots"),
            omit_expression => true,
        }, {
            insta::assert_snapshot!($name, $crate::common::cli::Snap::snap(&$value));
        })
    };
}
#[allow(unused_imports, reason = "not every test file pins a snapshot")]
pub(crate) use snapshot;
