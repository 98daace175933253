//! Live verification: run the user's real Claude Code against a loopback stub, take the memory
//! reminder it sends, and hold ccmem's own prediction against it byte for byte.
//!
//! Data flow: [`stub::Stub`] (127.0.0.1, ephemeral port) ← [`client::run`] (the real client,
//! kept from every credential by [`isolate`]) → [`extract::reminder`] (the client's text); in parallel
//! [`predict`] (`load::load_session` + `load::reminder::startup`, for the same directory,
//! environment and flags) → [`Outcome`]. [`capture`] writes a conformance case from a run;
//! [`replay`] runs a whole case corpus live; [`version`] caches `claude --version`.

pub mod capture;
pub mod case;
pub mod client;
pub mod extract;
pub mod isolate;
pub mod replay;
pub mod stub;
pub mod version;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::constants::CLIENT_VERSION;
use crate::env::{ClientEnv, ClientFlags};
use crate::settings::Settings;

/// Why a verification could not run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// No client binary at the given path or on `PATH`.
    #[error("Claude Code client not found: {0} (install it, or pass --claude BIN)")]
    ClientMissing(String),
    /// The client ran past the time limit and was killed.
    #[error("the client did not finish within {0} s and was stopped (raise --timeout)")]
    TimedOut(f64),
    /// The client exited unsuccessfully.
    #[error("the client failed ({status}); its last output:\n{output}")]
    ClientFailed {
        /// Exit status, described.
        status: String,
        /// The tail of its output.
        output: String,
    },
    /// The client rejected a flag: it is a different version than the one modelled.
    #[error(
        "the client does not know the flag {0}: it is older (or newer) than the Claude Code {CLIENT_VERSION} ccmem models"
    )]
    FlagUnsupported(String),
    /// The client exited cleanly but never called the Messages API.
    #[error(
        "the client sent no Messages request to the stub ({refused} refused); its last output:\n{output}"
    )]
    NoRequest {
        /// Requests the stub refused (non-loopback peer or host).
        refused: usize,
        /// The tail of its output.
        output: String,
    },
    /// Something the client reads changed while it ran, so the comparison would mean nothing.
    #[error("{0} changed while the client ran (another process is writing it); run again")]
    Unstable(String),
    /// The run would not be isolated, so it is refused.
    #[error("refusing to run the client: {0}")]
    Unsafe(String),
    /// Anything else, with what was being done.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

/// What to verify.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--claude BIN` (a path, or a name looked up on `PATH`); `None` means `claude`.
    pub bin: Option<String>,
    /// The directory to verify (a real path).
    pub cwd: PathBuf,
    /// The environment the client would start with (before isolation).
    pub vars: BTreeMap<String, String>,
    /// Client flags.
    pub flags: ClientFlags,
    /// Time limit for the client.
    pub timeout: Duration,
}

/// The result of one verification.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The client binary that ran.
    pub bin: PathBuf,
    /// What the client sent (`""` when it sent no memory reminder).
    pub client: String,
    /// What ccmem predicts for the same inputs.
    pub predicted: String,
    /// The client run itself.
    pub capture: client::Capture,
}

impl Outcome {
    /// True when the two texts are byte-identical.
    pub fn matched(&self) -> bool {
        self.client == self.predicted
    }

    /// A unified diff from the client's text to ccmem's (empty when they match).
    pub fn diff(&self) -> String {
        diff(&self.client, &self.predicted, "client", "ccmem")
    }
}

/// A unified diff of two texts, three lines of context.
pub fn diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old == new {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

/// ccmem's prediction for an environment: the startup reminder, or `""` when none is sent.
pub fn predict(env: &ClientEnv) -> String {
    let session = crate::load::load_session_with(env, crate::load::Detail::Reminder);
    crate::load::reminder::startup(&session.entries).unwrap_or_default()
}

/// The client's command-line flags for these flags, except `--settings` (passed separately).
pub fn flag_args(flags: &ClientFlags) -> Vec<String> {
    let mut args = Vec::new();
    for dir in &flags.add_dirs {
        args.extend(["--add-dir".to_owned(), dir.clone()]);
    }
    if let Some(list) = &flags.setting_sources {
        args.extend(["--setting-sources".to_owned(), list.clone()]);
    }
    if flags.bare {
        args.push("--bare".into());
    }
    if flags.safe_mode {
        args.push("--safe-mode".into());
    }
    args
}

/// Runs the client against a fresh stub and ccmem's prediction side by side.
pub fn verify(opts: &Options) -> Result<Outcome, VerifyError> {
    let bin = client::resolve_bin(
        opts.bin.as_deref(),
        opts.vars.get("PATH").map(String::as_str),
    )?;
    let stub =
        stub::Stub::start().map_err(|e| VerifyError::Io("cannot start the stub".into(), e))?;
    let base_url = stub.base_url();
    let user_env = ClientEnv::new(opts.cwd.clone(), opts.vars.clone(), opts.flags.clone());
    let settings = Settings::load(&user_env);
    if let Some(why) = isolate::policy_blocker(&settings) {
        return Err(VerifyError::Unsafe(why));
    }
    let flag_settings = isolate::settings_override(&settings, &base_url);
    let invocation = client::Invocation {
        bin: bin.clone(),
        cwd: opts.cwd.clone(),
        vars: opts.vars.clone(),
        args: flag_args(&opts.flags),
        settings: flag_settings.clone(),
        timeout: opts.timeout,
    };
    let mut flags = opts.flags.clone();
    flags.settings = Some(flag_settings.to_string());
    let model_env = ClientEnv::new(
        opts.cwd.clone(),
        isolate::isolated_env(&opts.vars, &base_url),
        flags,
    );
    let managed_before = fingerprint(&model_env.managed_dir);
    let (capture, predicted) = std::thread::scope(|s| {
        let prediction = s.spawn(|| predict(&model_env));
        let capture = client::run(&invocation, &stub);
        (capture, prediction.join().unwrap_or_default())
    });
    let capture = capture?;
    if fingerprint(&model_env.managed_dir) != managed_before {
        return Err(VerifyError::Unstable(
            model_env.managed_dir.display().to_string(),
        ));
    }
    let client = extract::first_messages_call(&capture.requests)
        .map(|r| extract::reminder(&r.body))
        .unwrap_or_default();
    Ok(Outcome {
        bin,
        client,
        predicted,
        capture,
    })
}

/// Every path below `dir` with its size and modification time (empty when `dir` is absent).
/// The managed folder is shared machine-wide; a change during a run voids the comparison.
fn fingerprint(dir: &std::path::Path) -> Vec<(PathBuf, u64, Option<std::time::SystemTime>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() && out.len() < 10_000 {
                stack.push(e.path());
            }
            out.push((e.path(), meta.len(), meta.modified().ok()));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_is_empty_on_match_and_unified_otherwise() {
        assert_eq!(diff("a\n", "a\n", "x", "y"), "");
        let d = diff("a\nb\n", "a\nc\n", "client", "ccmem");
        assert!(d.starts_with("--- client\n+++ ccmem\n"), "{d}");
        assert!(d.contains("-b\n") && d.contains("+c\n"), "{d}");
    }

    #[test]
    fn fingerprint_sees_changes() {
        let t = tempfile::tempdir().unwrap();
        let before = fingerprint(t.path());
        assert_eq!(before, fingerprint(t.path()));
        std::fs::create_dir(t.path().join(".claude")).unwrap();
        std::fs::write(t.path().join(".claude/r.md"), "x").unwrap();
        let after = fingerprint(t.path());
        assert_ne!(before, after);
        assert_eq!(after.len(), 2);
        assert!(fingerprint(&t.path().join("absent")).is_empty());
    }

    #[test]
    fn flag_args_follow_client_names() {
        let flags = ClientFlags {
            add_dirs: vec!["../x".into()],
            settings: Some("{}".into()),
            setting_sources: Some("user".into()),
            bare: true,
            safe_mode: false,
            agents: None,
        };
        assert_eq!(
            flag_args(&flags),
            ["--add-dir", "../x", "--setting-sources", "user", "--bare"]
        );
    }
}
