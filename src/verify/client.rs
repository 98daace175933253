//! Running the user's real client, isolated ([`super::isolate`]), against the stub.
//!
//! The client runs as `claude -p hi --no-session-persistence --strict-mcp-config --settings JSON
//! [client flags]` in the directory under test, in its own process group (killed whole at the
//! time limit), with stdin closed and both output pipes drained.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::stub::{Recorded, Stub};
use super::{VerifyError, isolate};
use crate::env::is_executable;

/// The prompt the client is given.
pub const PROMPT: &str = "hi";

/// One run of the client to capture.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The client binary (already resolved).
    pub bin: PathBuf,
    /// The directory the client starts in.
    pub cwd: PathBuf,
    /// The environment to start from, before isolation.
    pub vars: BTreeMap<String, String>,
    /// Client flags other than `--settings` (e.g. `--add-dir X`, `--bare`).
    pub args: Vec<String>,
    /// The `--settings` JSON to pass (see [`super::isolate::settings_override`]).
    pub settings: Value,
    /// How long the client may run.
    pub timeout: Duration,
}

/// What one client run produced.
#[derive(Debug, Clone)]
pub struct Capture {
    /// Every request the stub received.
    pub requests: Vec<Recorded>,
    /// The client's stdout (lossy UTF-8).
    pub stdout: String,
    /// The client's stderr (lossy UTF-8).
    pub stderr: String,
    /// Wall time of the client process.
    pub elapsed: Duration,
}

/// Finds the client: `given` as a path when it contains `/`, else a name looked up in `path`
/// (`claude` when `given` is `None`) in its absolute entries only ([`crate::env::find_on_path`]:
/// a relative entry such as `node_modules/.bin` would run a repository's own `claude`).
pub fn resolve_bin(given: Option<&str>, path: Option<&str>) -> Result<PathBuf, VerifyError> {
    let name = given.unwrap_or("claude");
    let missing = || VerifyError::ClientMissing(name.to_owned());
    if name.contains('/') {
        let p = PathBuf::from(name);
        return match p.canonicalize() {
            Ok(real) if is_executable(&real) => Ok(real),
            _ => Err(missing()),
        };
    }
    crate::env::find_on_path(path, name)
        .found
        .ok_or_else(missing)
}

/// Runs the client once against a fresh stub and returns what it sent.
pub fn run(inv: &Invocation, stub: &Stub) -> Result<Capture, VerifyError> {
    let mut cmd = Command::new(&inv.bin);
    cmd.arg("-p")
        .arg(PROMPT)
        .arg("--no-session-persistence")
        .arg("--strict-mcp-config")
        .arg("--settings")
        .arg(inv.settings.to_string())
        .args(&inv.args)
        .current_dir(&inv.cwd)
        .env_clear()
        .envs(isolate::isolated_env(&inv.vars, &stub.base_url()));
    let out = spawn_and_wait(&mut cmd, &inv.bin, inv.timeout)?;
    let capture = Capture {
        requests: stub.requests(),
        stdout: out.stdout,
        stderr: out.stderr,
        elapsed: out.elapsed,
    };
    if let Some(code) = out.code.filter(|c| *c != 0) {
        return Err(exit_error(code, &capture));
    }
    if out.code.is_none() {
        return Err(VerifyError::ClientFailed {
            status: "killed by a signal".into(),
            output: tail(&capture.stderr),
        });
    }
    if super::extract::first_messages_call(&capture.requests).is_none() {
        return Err(VerifyError::NoRequest {
            refused: capture
                .requests
                .iter()
                .filter(|r| r.refused.is_some())
                .count(),
            output: tail(&format!("{}{}", capture.stdout, capture.stderr)),
        });
    }
    Ok(capture)
}

fn exit_error(code: i32, c: &Capture) -> VerifyError {
    let all = format!("{}{}", c.stderr, c.stdout);
    if let Some(flag) = all
        .split("unknown option '")
        .nth(1)
        .and_then(|s| s.split('\'').next())
    {
        return VerifyError::FlagUnsupported(flag.to_owned());
    }
    VerifyError::ClientFailed {
        status: format!("exit status {code}"),
        output: tail(&all),
    }
}

/// `BIN --version`, first line, trimmed.
pub fn version(bin: &Path, timeout: Duration) -> Result<String, VerifyError> {
    let mut cmd = Command::new(bin);
    cmd.arg("--version").env("DISABLE_AUTOUPDATER", "1");
    let out = spawn_and_wait(&mut cmd, bin, timeout)?;
    let line = out.stdout.lines().next().unwrap_or("").trim().to_owned();
    match out.code {
        Some(0) if !line.is_empty() => Ok(line),
        _ => Err(VerifyError::ClientFailed {
            status: format!("`{} --version` failed", bin.display()),
            output: tail(&out.stderr),
        }),
    }
}

/// The version number in a `--version` line (`2.1.332 (Claude Code)` → `2.1.332`).
pub fn version_number(line: &str) -> &str {
    line.split_whitespace().next().unwrap_or("")
}

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// Spawns in a new process group, drains both pipes, and kills the whole group on timeout.
fn spawn_and_wait(cmd: &mut Command, bin: &Path, timeout: Duration) -> Result<Output, VerifyError> {
    let start = Instant::now();
    let mut child = crate::sys::new_process_group(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .spawn()
    .map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => VerifyError::ClientMissing(bin.display().to_string()),
        _ => VerifyError::Io(format!("cannot start {}", bin.display()), e),
    })?;
    let (tx, rx) = mpsc::channel();
    for (i, pipe) in [
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            let _ = tx.send((i, buf));
        });
    }
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() >= timeout => {
                crate::sys::kill_group(child.id());
                let _ = child.wait();
                return Err(VerifyError::TimedOut(timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(VerifyError::Io("waiting for the client".into(), e)),
        }
    };
    let elapsed = start.elapsed();
    let mut streams = [Vec::new(), Vec::new()];
    for _ in 0..2 {
        // A grandchild that keeps a pipe open must not hang the run.
        match rx.recv_timeout(Duration::from_secs(2)) {
            Ok((i, buf)) => streams[i] = buf,
            Err(_) => break,
        }
    }
    Ok(Output {
        code: status.code(),
        stdout: String::from_utf8_lossy(&streams[0]).into_owned(),
        stderr: String::from_utf8_lossy(&streams[1]).into_owned(),
        elapsed,
    })
}

/// The last lines of some output, for error messages.
pub fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_bin_reports_missing() {
        let e = resolve_bin(Some("definitely-not-a-client-xyz"), Some("/nonexistent")).unwrap_err();
        assert!(matches!(e, VerifyError::ClientMissing(_)));
        // A program that is there: `sh` on Unix; on Windows (no `sh`) this test binary, an `.exe`.
        let (name, dirs) = if cfg!(windows) {
            let exe = std::env::current_exe().unwrap();
            let name = exe.file_name().unwrap().to_string_lossy().into_owned();
            (name, exe.parent().unwrap().to_string_lossy().into_owned())
        } else {
            ("sh".to_owned(), "/usr/bin:/bin".to_owned())
        };
        assert!(resolve_bin(Some(&name), Some(&dirs)).is_ok());
        assert!(resolve_bin(Some("/nonexistent/claude"), None).is_err());
    }

    #[test]
    fn version_number_takes_first_word() {
        assert_eq!(version_number("2.1.332 (Claude Code)"), "2.1.332");
        assert_eq!(version_number(""), "");
    }
}
