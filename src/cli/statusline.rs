//! `ccmem statusline`: reads Claude Code's statusLine JSON on stdin and prints one line such as
//! `mem 187/200 lines · 2 dark`. On bad input it prints a short fallback line, never an error
//! trace, since the client shows whatever the command prints.

use std::io::{IsTerminal, Write};

use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::input;
use crate::hook::statusline::Status;
use crate::load;
use crate::render::statusline as view;

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
                super::output::eprint_line(format_args!("ccmem statusline: {e:#}"));
                String::new()
            }
        }
    };
    let mut out = super::output::stdout();
    // Like the hooks, a session directory that is gone is not ccmem's error to break the
    // status line with: one line on stderr, a placeholder the client can show, exit 0.
    let env = match process.client_env_in(&dir) {
        Ok(env) => env,
        Err(e) => {
            super::output::eprint_line(format_args!("ccmem statusline: {e:#}"));
            let text = if super::output::json() {
                view::unknown_json(&format!("{e:#}"))
            } else {
                view::unknown_human()
            };
            out.write_all(text.as_bytes())?;
            return Ok(ExitStatus::Clean);
        }
    };
    let status = Status::of(&load::load_session_with(&env, load::Detail::Reminder));
    let text = if super::output::json() {
        view::json(&status)
    } else {
        view::human(&status)
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::Clean)
}
