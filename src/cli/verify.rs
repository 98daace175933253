//! `ccmem verify`: run the installed client against a loopback stub and compare the memory
//! reminder it sends with ccmem's prediction, byte for byte.
//!
//! Exit status: 0 match, 1 mismatch, 2 could not run (client missing, failing, too old for a
//! flag, timed out, sent no request). `--capture CASE_DIR` writes a conformance case;
//! `--replay CASES_DIR` runs a case corpus live (exit 1 when any case mismatches or errors).
//!
//! JSON (`--json`), single run: `{"status": "match"|"mismatch"|"error", "client_bin",
//! "client_version", "modeled_version", "client_ms", "diff", "client", "predicted", "error"}`.
//! Replay: `{"passed", "failed", "skipped", "cases": [{"name", "status", "detail", "client_ms"}]}`.
//! Capture: `{"case", "copied", "recaptured", "expected", "predicted"}`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use super::output::{stdout as out_stream, with_schema};

use super::ClientArgs;
use crate::env::{CLIENT_VERSION, ClientFlags, ProcessEnv};
use crate::exit::ExitStatus;
use crate::verify::{self, Options, VerifyError, capture, replay, version};

/// Run the installed client against a local stub and compare its memory reminder with ccmem's.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The client binary (a path, or a name looked up on PATH).
    #[arg(long, value_name = "BIN", default_value = "claude")]
    claude: String,
    /// Time limit for the client, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    #[command(flatten)]
    client: ClientArgs,
    /// Write a conformance case (tree/, case.json, expected.txt) into CASE_DIR; re-capture
    /// expected.txt when CASE_DIR already holds a case (tree/ or case.json).
    #[arg(long, value_name = "CASE_DIR", conflicts_with = "replay")]
    capture: Option<PathBuf>,
    /// Run every case under CASES_DIR through the client and ccmem, byte for byte.
    #[arg(long, value_name = "CASES_DIR")]
    replay: Option<PathBuf>,
    /// With --replay: only cases whose name starts with PREFIX.
    #[arg(long, value_name = "PREFIX", default_value = "", requires = "replay")]
    only: String,
}

/// Runs the command.
pub(super) fn run(args: Args, env: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    anyhow::ensure!(
        args.timeout.is_finite() && args.timeout > 0.0,
        "--timeout must be a positive number of seconds"
    );
    let timeout = Duration::from_secs_f64(args.timeout);
    if let Some(cases) = &args.replay {
        return run_replay(&args, cases, timeout, env.vars());
    }
    let cwd = env.cwd()?.to_owned();
    let vars = env.vars().clone();
    let flags = flags_of(&args.client);
    if let Some(case) = &args.capture {
        let mut client_args = verify::flag_args(&flags);
        if let Some(s) = &flags.settings {
            client_args.extend(["--settings".to_owned(), s.clone()]);
        }
        let written =
            capture::capture(case, &cwd, &client_args, &vars, Some(&args.claude), timeout)?;
        return print_capture(&written);
    }
    let opts = Options {
        bin: Some(args.claude.clone()),
        cwd,
        vars: vars.clone(),
        flags,
        timeout,
    };
    match verify::verify(&opts) {
        Ok(outcome) => {
            let installed = crate::env::cache_dir(&vars)
                .and_then(|dir| version::cached_version(&outcome.bin, &dir))
                .unwrap_or_else(|| "unknown".into());
            print_outcome(&outcome, &installed)
        }
        Err(e) => print_error(&e),
    }
}

fn flags_of(c: &ClientArgs) -> ClientFlags {
    ClientFlags {
        add_dirs: c.add_dirs.clone(),
        settings: c.settings.clone(),
        setting_sources: c.setting_sources.clone(),
        bare: c.bare,
        safe_mode: c.safe_mode,
        agents: c.agents.clone(),
    }
}

fn print_outcome(o: &verify::Outcome, installed: &str) -> anyhow::Result<ExitStatus> {
    let mut out = out_stream();
    let diff = o.diff();
    let ms = o.capture.elapsed.as_millis();
    if super::output::json() {
        let v = json!({
            "status": if o.matched() { "match" } else { "mismatch" },
            "client_bin": o.bin, "client_version": installed, "modeled_version": CLIENT_VERSION,
            "client_ms": ms, "diff": diff, "client": o.client, "predicted": o.predicted,
            "error": null,
        });
        writeln!(out, "{:#}", with_schema("ccmem.verify/1", v))?;
    } else {
        if o.matched() {
            writeln!(out, "match")?;
        } else {
            write!(out, "{diff}")?;
            writeln!(out, "mismatch")?;
        }
        writeln!(
            out,
            "client: {} ({installed}); ccmem models {CLIENT_VERSION}; client ran {ms} ms",
            o.bin.display()
        )?;
        if let Some(note) = version::mismatch_note(installed).filter(|_| installed != "unknown") {
            writeln!(out, "note: {note}")?;
        }
    }
    out.flush()?;
    Ok(ExitStatus::findings_if(!o.matched()))
}

fn print_error(e: &VerifyError) -> anyhow::Result<ExitStatus> {
    if super::output::json() {
        let v =
            json!({"status": "error", "error": e.to_string(), "modeled_version": CLIENT_VERSION});
        writeln!(out_stream(), "{:#}", with_schema("ccmem.verify/1", v))?;
    } else {
        eprintln!("ccmem verify: {e}");
    }
    Ok(ExitStatus::Error)
}

fn print_capture(w: &capture::Written) -> anyhow::Result<ExitStatus> {
    let mut out = out_stream();
    if super::output::json() {
        let v = with_schema("ccmem.verify-capture/1", serde_json::to_value(w)?);
        writeln!(out, "{v:#}")?;
    } else {
        let what = if w.recaptured {
            "re-captured"
        } else {
            "captured"
        };
        writeln!(
            out,
            "{what} {} ({} files copied, expected.txt {} bytes); ccmem: {}",
            w.case.display(),
            w.copied,
            w.expected.len(),
            if w.expected == w.predicted {
                "match"
            } else {
                "mismatch"
            }
        )?;
    }
    Ok(ExitStatus::Clean)
}

fn run_replay(
    args: &Args,
    cases: &std::path::Path,
    timeout: Duration,
    host: &BTreeMap<String, String>,
) -> anyhow::Result<ExitStatus> {
    let json = super::output::json();
    let results = replay::replay(cases, &args.only, Some(&args.claude), timeout, host, |r| {
        if !json {
            let _ = print_case(r);
        }
    })?;
    let count = |s: replay::Status| results.iter().filter(|r| r.status == s).count();
    let passed = count(replay::Status::Match) + count(replay::Status::Drift);
    let failed = count(replay::Status::Mismatch) + count(replay::Status::Error);
    let skipped = count(replay::Status::Skipped);
    let mut out = out_stream();
    if json {
        let v = json!({"passed": passed, "failed": failed, "skipped": skipped, "cases": results});
        writeln!(out, "{:#}", with_schema("ccmem.verify-replay/1", v))?;
    } else {
        writeln!(
            out,
            "verify: {passed} passed, {failed} failed, {skipped} skipped"
        )?;
    }
    out.flush()?;
    Ok(ExitStatus::findings_if(failed > 0))
}

fn print_case(r: &replay::CaseResult) -> std::io::Result<()> {
    let mut out = out_stream();
    let tag = match r.status {
        replay::Status::Match => "ok",
        replay::Status::Drift => "DRIFT",
        replay::Status::Mismatch => "MISMATCH",
        replay::Status::Skipped => "skip",
        replay::Status::Error => "ERROR",
    };
    writeln!(out, "{tag} {} ({} ms)", r.name, r.client_ms)?;
    if r.status != replay::Status::Skipped {
        for line in r.detail.lines().take(40) {
            writeln!(out, "    {line}")?;
        }
    }
    out.flush()
}
