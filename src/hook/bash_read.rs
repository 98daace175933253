//! `ccmem hook post-tool-use` on `Bash`: the instructions a Read would have attached, for the
//! reads the client does not track itself.
//!
//! The client attaches nested CLAUDE.md files and path rules after a Bash call only for the
//! simple forms it recognises (`load::bash::client_reads`); for everything else
//! (`cat f | head`, `cd x && cat f`, `cat a b`, `awk`, `less`, a grep over a folder) the model
//! never sees the instructions that govern the file it just read. This hook finds those reads
//! (`load::bash::untracked`) and gives the model, as `additionalContext`, exactly the blocks a
//! Read of each file would have attached, never a second copy of one the session holds:
//! the startup block, what the client attaches for this very command, and every
//! `Contents of PATH` the transcript already shows.
//!
//! Cost: a command that names no reader is decided from its text alone (no file is read, the
//! session is not loaded).

use std::collections::HashSet;
use std::path::Path;

use super::input::PostToolUse;
use super::output::{Event, HookOutput};
use crate::env::ProcessEnv;
use crate::load::bash::track::{Outcome, Shell};
use crate::load::bash::untracked;
use crate::load::steps::Timeline;
use crate::load::{self, Loaded};

/// Runs the hook for one Bash call.
pub(crate) fn run(input: &PostToolUse, process: &ProcessEnv) -> anyhow::Result<Option<HookOutput>> {
    let Some(command) = input.tool_input.command.as_deref() else {
        return Ok(None);
    };
    if !untracked::may_read(command) {
        return Ok(None);
    }
    let env = process.client_env_in(&input.common.cwd)?;
    let session = load::load_session_with(&env, load::Detail::Reminder);
    let outcome = Outcome {
        exit_code: input.tool_response.exit_code(),
        output: input.tool_response.stdout.clone(),
    };
    let held = super::transcript::Transcript::read(Path::new(&input.common.transcript_path)).shown;
    let blocks = attach(&env, &session, command, &outcome, &held);
    if blocks.is_empty() {
        return Ok(None);
    }
    let files: Vec<&str> = blocks.iter().map(|b| b.path.as_str()).collect();
    let message = format!(
        "ccmem: this Bash read attaches nothing in the client; added what a Read would have: {}",
        files.join(", ")
    );
    let context = blocks
        .iter()
        .map(|e| format!("Contents of {}:\n\n{}", e.path, e.content))
        .collect::<Vec<_>>()
        .join("\n\n");
    Ok(Some(HookOutput::new(
        Event::PostToolUse,
        Some(message),
        Some(context),
    )))
}

/// The blocks a Read of each untracked file of `command` would attach, given the paths the
/// session already holds.
pub(crate) fn attach(
    env: &crate::env::ClientEnv,
    session: &load::Session,
    command: &str,
    outcome: &Outcome,
    held: &HashSet<String>,
) -> Vec<Loaded> {
    load::memo::reset();
    let mut loader = load::instructions::Loader::new(env, &session.settings);
    let mut timeline = Timeline::new(env, session, &mut loader);
    for p in held {
        timeline.hold(Path::new(p));
    }
    let shell = Shell::new(env);
    // What the client attaches itself for this command comes first, and is never repeated.
    let tracked = timeline.bash(command, outcome).recorded;
    let mut out = Vec::new();
    for file in untracked::reads(env, &shell, command, outcome.output.as_deref()) {
        if tracked.contains(&file) {
            continue;
        }
        out.extend(timeline.attach_as_read(&file));
    }
    out
}
