//! The live conformance run: every case of a corpus, materialized, run through the real client
//! and through ccmem's loader in the same run, compared byte for byte.
//!
//! A case passes when ccmem's text equals the client's. The stored `expected.txt` is compared
//! too: when the client itself no longer says what the file says (a new client version, or a
//! file-system-dependent case such as raw `readdir` order), the case is reported as drift.
//! Reading cases (with `read` in `case.json`) are startup-only here and are skipped.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use super::case::{self, Spec};
use super::{Options, extract};

/// How one case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// ccmem == client == expected.txt.
    Match,
    /// ccmem == client, but the client no longer says what expected.txt says.
    Drift,
    /// ccmem differs from the client.
    Mismatch,
    /// Not a startup case.
    Skipped,
    /// The case or the client could not run.
    Error,
}

/// One case's result.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    /// The case folder's name.
    pub name: String,
    /// How it ended.
    pub status: Status,
    /// Diff client → ccmem (mismatch), or expected.txt → client (drift), or the error.
    pub detail: String,
    /// Client wall time in milliseconds.
    pub client_ms: u128,
}

/// The client's text and ccmem's, both normalized, for one case.
pub struct Run {
    /// The client's reminder (`{ROOT}`-normalized).
    pub client: String,
    /// ccmem's prediction (`{ROOT}`-normalized).
    pub predicted: String,
    /// Client wall time.
    pub elapsed: Duration,
}

/// Materializes one case and runs the client and ccmem on it; `host` is ccmem's own
/// environment, the base of the case's.
pub fn run_case(
    case: &Path,
    spec: &Spec,
    bin: Option<&str>,
    timeout: Duration,
    host: &BTreeMap<String, String>,
) -> anyhow::Result<Run> {
    let m = case::materialize(case, spec, host)?;
    let flags = case::parse_flags(&m.args)?;
    let outcome = super::verify(&Options {
        bin: bin.map(str::to_owned),
        cwd: m.cwd.clone(),
        vars: m.vars.clone(),
        flags,
        timeout,
    })?;
    let root = m.root.to_string_lossy().into_owned();
    let run = Run {
        client: extract::normalize(&outcome.client, &root),
        predicted: extract::normalize(&outcome.predicted, &root),
        elapsed: outcome.capture.elapsed,
    };
    drop(m);
    settle_managed(&root);
    Ok(run)
}

/// Runs every case under `cases` whose name starts with `only`, one at a time, in name order,
/// calling `each` as each case ends.
pub fn replay(
    cases: &Path,
    only: &str,
    bin: Option<&str>,
    timeout: Duration,
    host: &BTreeMap<String, String>,
    mut each: impl FnMut(&CaseResult),
) -> anyhow::Result<Vec<CaseResult>> {
    let mut names: Vec<String> = std::fs::read_dir(cases)
        .map_err(|e| anyhow::anyhow!("{}: {e}", cases.display()))?
        .filter_map(Result::ok)
        .filter(|e| e.path().join("expected.txt").is_file())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.starts_with(only))
        .collect();
    names.sort();
    Ok(names
        .iter()
        .map(|n| {
            let r = one(&cases.join(n), n, bin, timeout, host);
            each(&r);
            r
        })
        .collect())
}

fn one(
    case: &Path,
    name: &str,
    bin: Option<&str>,
    timeout: Duration,
    host: &BTreeMap<String, String>,
) -> CaseResult {
    let result = |status, detail: String, client_ms| CaseResult {
        name: name.to_owned(),
        status,
        detail,
        client_ms,
    };
    let spec = match Spec::load(case) {
        Ok(s) => s,
        Err(e) => return result(Status::Error, format!("{e:#}"), 0),
    };
    if spec.read.is_some() {
        return result(Status::Skipped, "reading case".into(), 0);
    }
    let expected = match crate::fsread::read_capped(&case.join("expected.txt"), 64 << 20) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => return result(Status::Error, format!("expected.txt: {e}"), 0),
    };
    match run_case(case, &spec, bin, timeout, host) {
        Err(e) => result(Status::Error, format!("{e:#}"), 0),
        Ok(run) => {
            let ms = run.elapsed.as_millis();
            if run.client != run.predicted {
                result(
                    Status::Mismatch,
                    super::diff(&run.client, &run.predicted, "client", "ccmem"),
                    ms,
                )
            } else if run.client != expected {
                result(
                    Status::Drift,
                    super::diff(&expected, &run.client, "expected.txt", "client"),
                    ms,
                )
            } else {
                result(Status::Match, String::new(), ms)
            }
        }
    }
}

/// Cases that create `/etc/claude-code` remove it from a watcher once ROOT is gone: wait for
/// that before the next case starts (as the oracle's `conform.py` does).
fn settle_managed(root: &str) {
    let owner = Path::new("/etc/claude-code/.oracle-owner");
    for _ in 0..200 {
        match crate::fsread::read_capped(owner, 4096) {
            Ok(s) if String::from_utf8_lossy(&s).trim() == root => {
                std::thread::sleep(Duration::from_millis(50))
            }
            _ => return,
        }
    }
}
