//! `ccmem statusline`: reads Claude Code's statusLine JSON on stdin and prints one line such as
//! `mem 187/200 lines · 2 dark`. On bad input it prints a short fallback line, never an error
//! trace, since the client shows whatever the command prints.

use std::io::{IsTerminal, Write};

use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::input;
use crate::hook::statusline::Status;
use crate::load;

/// What the status line shows when there is no session directory to measure.
const UNKNOWN: &str = "mem ?";

/// The schema of `--json` (one line, for scripts and status bars that parse it).
const SCHEMA: &str = "ccmem.statusline/1";

/// Print one status line for Claude Code's `statusLine` command.
#[derive(Debug, clap::Args)]
pub(super) struct Args {}

/// Runs the command.
pub(super) fn run(_args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let stdin = std::io::stdin();
    let dir = if stdin.is_terminal() {
        String::new()
    } else {
        match input::read::<input::StatusLine>(stdin.lock()) {
            Ok(s) => s.dir().to_owned(),
            Err(e) => {
                eprintln!("ccmem statusline: {e:#}");
                String::new()
            }
        }
    };
    let mut out = std::io::stdout().lock();
    // Like the hooks, a session directory that is gone is not ccmem's error to break the
    // status line with: one line on stderr, a placeholder the client can show, exit 0.
    let env = match process.client_env_in(&dir) {
        Ok(env) => env,
        Err(e) => {
            eprintln!("ccmem statusline: {e:#}");
            if super::output::json() {
                let v = serde_json::json!({ "error": format!("{e:#}") });
                writeln!(out, "{}", super::output::with_schema(SCHEMA, v))?;
            } else {
                writeln!(out, "{UNKNOWN}")?;
            }
            return Ok(ExitStatus::Clean);
        }
    };
    let status = Status::of(&load::load_session_with(&env, load::Detail::Reminder));
    if super::output::json() {
        let v = super::output::with_schema(SCHEMA, serde_json::to_value(&status)?);
        writeln!(out, "{v}")?;
    } else {
        writeln!(out, "{}", status.line())?;
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
