//! `ccmem verify`: the real client's reminder beside ccmem's, a captured case, a replayed
//! corpus, for a person or as JSON.
//!
//! JSON: `ccmem.verify/1` `{status: "match" | "mismatch" | "error", client_bin, client_version,
//! modeled_version, client_ms, diff, client, predicted, error}` (an error has only `status`,
//! `error` and `modeled_version`); `ccmem.verify-replay/1` `{passed, failed, skipped, cases:
//! [{name, status, detail, client_ms}]}`; `ccmem.verify-capture/1` `{case, copied, recaptured,
//! expected, predicted}`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::constants::CLIENT_VERSION;
use crate::verify::capture::Written;
use crate::verify::replay::{CaseResult, Status};
use crate::verify::{self, Outcome, VerifyError};

#[derive(Serialize)]
struct OutcomeView<'a> {
    status: &'static str,
    client_bin: &'a std::path::Path,
    client_version: &'a str,
    modeled_version: &'static str,
    client_ms: u128,
    diff: String,
    client: &'a str,
    predicted: &'a str,
    error: Option<()>,
}

/// One run compared, as JSON; `installed` is the client's version as it reports it.
pub fn json(o: &Outcome, installed: &str) -> String {
    let view = OutcomeView {
        status: if o.matched() { "match" } else { "mismatch" },
        client_bin: &o.bin,
        client_version: installed,
        modeled_version: CLIENT_VERSION,
        client_ms: o.capture.elapsed.as_millis(),
        diff: o.diff(),
        client: &o.client,
        predicted: &o.predicted,
        error: None,
    };
    super::json::document("ccmem.verify/1", &view)
}

/// One run compared, for a person: the diff when they differ, the verdict, the client.
pub fn human(o: &Outcome, installed: &str) -> String {
    let mut out = String::new();
    if o.matched() {
        out.push_str("match\n");
    } else {
        out.push_str(&o.diff());
        out.push_str("mismatch\n");
    }
    let _ = writeln!(
        out,
        "client: {} ({installed}); ccmem models {CLIENT_VERSION}; client ran {} ms",
        o.bin.display(),
        o.capture.elapsed.as_millis()
    );
    if let Some(note) = verify::version::mismatch_note(installed).filter(|_| installed != "unknown")
    {
        let _ = writeln!(out, "note: {note}");
    }
    out
}

#[derive(Serialize)]
struct ErrorView {
    status: &'static str,
    error: String,
    modeled_version: &'static str,
}

/// A run that could not compare (exit 2), as JSON.
pub fn error_json(e: &VerifyError) -> String {
    let view = ErrorView {
        status: "error",
        error: e.to_string(),
        modeled_version: CLIENT_VERSION,
    };
    super::json::document("ccmem.verify/1", &view)
}

/// A run that could not compare, for stderr (the client's own output may follow on lines of
/// its own).
pub fn error_human(e: &VerifyError) -> String {
    format!("ccmem verify: {e}\n")
}

/// A captured case, as JSON.
pub fn capture_json(w: &Written) -> String {
    super::json::document("ccmem.verify-capture/1", w)
}

/// A captured case, for a person: where, how much, and whether ccmem agrees.
pub fn capture_human(w: &Written) -> String {
    format!(
        "{} {} ({} files copied, expected.txt {} bytes); ccmem: {}\n",
        if w.recaptured {
            "re-captured"
        } else {
            "captured"
        },
        w.case.display(),
        w.copied,
        w.expected.len(),
        if w.expected == w.predicted {
            "match"
        } else {
            "mismatch"
        }
    )
}

/// A replayed corpus: how many cases passed (a drift passes: ccmem agrees with the client),
/// failed and were skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Matched, or drifted with ccmem still agreeing with the client.
    pub passed: usize,
    /// Mismatched or could not run.
    pub failed: usize,
    /// Not a startup case.
    pub skipped: usize,
}

impl Tally {
    /// The tally of `results`.
    pub fn of(results: &[CaseResult]) -> Tally {
        let count = |s: Status| results.iter().filter(|r| r.status == s).count();
        Tally {
            passed: count(Status::Match) + count(Status::Drift),
            failed: count(Status::Mismatch) + count(Status::Error),
            skipped: count(Status::Skipped),
        }
    }
}

#[derive(Serialize)]
struct ReplayView<'a> {
    #[serde(flatten)]
    tally: Tally,
    cases: &'a [CaseResult],
}

/// A replayed corpus, as JSON.
pub fn replay_json(results: &[CaseResult]) -> String {
    let view = ReplayView {
        tally: Tally::of(results),
        cases: results,
    };
    super::json::document("ccmem.verify-replay/1", &view)
}

/// A replayed corpus's last line, for a person.
pub fn replay_human(results: &[CaseResult]) -> String {
    let t = Tally::of(results);
    format!(
        "verify: {} passed, {} failed, {} skipped\n",
        t.passed, t.failed, t.skipped
    )
}

/// One replayed case as it finishes: its verdict, and the first 40 lines of its detail.
pub fn case(r: &CaseResult) -> String {
    let tag = match r.status {
        Status::Match => "ok",
        Status::Drift => "DRIFT",
        Status::Mismatch => "MISMATCH",
        Status::Skipped => "skip",
        Status::Error => "ERROR",
    };
    let mut out = format!("{tag} {} ({} ms)\n", r.name, r.client_ms);
    if r.status != Status::Skipped {
        for line in r.detail.lines().take(40) {
            let _ = writeln!(out, "    {line}");
        }
    }
    out
}
