//! `ccmem statusline`: reads Claude Code's statusLine JSON on stdin and prints one line such as
//! `mem 187/200 lines · 2 dark`. On bad input it prints a short fallback line, never an error
//! trace, since the client shows whatever the command prints.

use std::io::{IsTerminal, Write};

use crate::exit::ExitStatus;
use crate::hook::statusline::Status;
use crate::hook::{self, input};
use crate::load;

/// Print one status line for Claude Code's `statusLine` command.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the numbers as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitStatus> {
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
    let env = hook::client_env(&dir)?;
    let status = Status::of(&load::load_session_with(&env, load::Detail::Reminder));
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&status)?)?;
    } else {
        writeln!(out, "{}", status.line())?;
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
