//! `ccmem context`: print exactly the memory reminder the client would send.

use std::io::Write;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::load;
use crate::render::reminder;

/// Print exactly the memory reminder block(s) the client would send.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Also print what the client attaches when it reads PATH during the session (repeatable,
    /// in order).
    #[arg(long, value_name = "PATH")]
    reading: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let env = args.client.client_env(process)?;
    let session = load::load_session_with(&env, load::Detail::Reminder);
    let mut out = std::io::stdout().lock();
    if args.reading.is_empty() {
        if let Some(text) = reminder::startup(&session.entries) {
            out.write_all(text.as_bytes())?;
        }
    } else {
        let blocks: Vec<String> = load::reading::load(&env, &session, &args.reading)
            .iter()
            .flatten()
            .map(|e| reminder::nested(e).trim_end_matches('\n').to_owned())
            .collect();
        out.write_all(blocks.join("\n\n").as_bytes())?;
    }
    out.flush()?;
    Ok(ExitStatus::Clean)
}
