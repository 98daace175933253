//! `ccmem verify`: run the installed client against a loopback stub and compare the memory
//! reminder it sends with ccmem's prediction, byte for byte.
//!
//! Exit status: 0 match, 1 mismatch, 2 could not run (client missing, failing, too old for a
//! flag, timed out, sent no request). `--capture CASE_DIR` writes a conformance case;
//! `--replay CASES_DIR` runs a case corpus live (exit 1 when any case mismatches or errors).
//!
//! The views, human and JSON, are `render::verify`'s.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use super::ClientArgs;
use crate::env::{ClientFlags, ProcessEnv};
use crate::exit::ExitStatus;
use crate::render::verify as view;
use crate::verify::{self, Options, capture, replay, version};

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
        print(&if super::output::json() {
            view::capture_json(&written)
        } else {
            view::capture_human(&written)
        })?;
        return Ok(ExitStatus::Clean);
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
            print(&if super::output::json() {
                view::json(&outcome, &installed)
            } else {
                view::human(&outcome, &installed)
            })?;
            Ok(ExitStatus::findings_if(!outcome.matched()))
        }
        Err(e) if super::output::json() => {
            print(&view::error_json(&e))?;
            Ok(ExitStatus::Error)
        }
        Err(e) => {
            let _ = super::output::stderr().write_all(view::error_human(&e).as_bytes());
            Ok(ExitStatus::Error)
        }
    }
}

/// Prints `text` on stdout (escaped and styled as `--color` says).
fn print(text: &str) -> std::io::Result<()> {
    let mut out = super::output::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()
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

fn run_replay(
    args: &Args,
    cases: &std::path::Path,
    timeout: Duration,
    host: &BTreeMap<String, String>,
) -> anyhow::Result<ExitStatus> {
    let json = super::output::json();
    let results = replay::replay(cases, &args.only, Some(&args.claude), timeout, host, |r| {
        if !json {
            let _ = print(&view::case(r));
        }
    })?;
    print(&if json {
        view::replay_json(&results)
    } else {
        view::replay_human(&results)
    })?;
    Ok(ExitStatus::findings_if(
        view::Tally::of(&results).failed > 0,
    ))
}
