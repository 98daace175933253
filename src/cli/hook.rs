//! `ccmem hook …`: the Claude Code hook handlers and their installation.
//!
//! `session-start` and `post-tool-use` read the client's hook JSON on stdin and print hook JSON
//! on stdout (nothing when there is nothing to say). They never break a session: ccmem's own
//! failures print one line on stderr and exit 0.

mod install;

pub(super) use install::state_home;

use std::io::Write;

use clap::Subcommand;

use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::output::HookOutput;
use crate::hook::{input, post_tool_use, session_start};
use crate::load;

/// Claude Code hooks: session-start receipt, memory-write guard, install/uninstall.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// SessionStart hook: tell the operator what loaded and what went dark.
    SessionStart(StartArgs),
    /// PostToolUse hook (Write|Edit|MultiEdit|Bash): warn when a memory write will go dark;
    /// after a Bash read the client does not track, attach what a Read would have.
    PostToolUse(InputArg),
    /// InstructionsLoaded hook: log what the client reports beside what ccmem predicts
    /// (compare with `ccmem receipt --session ID`).
    InstructionsLoaded(InputArg),
    /// Add ccmem's hooks to a settings file (shows a diff first).
    Install(install::Args),
    /// Remove ccmem's hooks from a settings file (restores the original when it can).
    Uninstall(install::Args),
}

#[derive(Debug, clap::Args)]
struct InputArg {
    /// Read the hook input JSON from FILE instead of stdin (replaying a recorded input).
    #[arg(long, value_name = "FILE")]
    input: Option<std::path::PathBuf>,
}

impl InputArg {
    fn read<T: for<'de> serde::Deserialize<'de>>(&self) -> anyhow::Result<T> {
        match &self.input {
            Some(path) => input::parse(&crate::fsread::read_named(
                path,
                input::MAX_INPUT_BYTES,
                "hook input file",
            )?),
            None => input::read(std::io::stdin().lock()),
        }
    }
}

#[derive(Debug, clap::Args)]
struct StartArgs {
    #[command(flatten)]
    input: InputArg,
    /// Print the receipt even when nothing went dark.
    #[arg(long)]
    always: bool,
    /// Give the dark MEMORY.md entries to the model for this session (bounded, labelled).
    #[arg(long)]
    recover: bool,
    /// Do not add this start to ccmem's history log (see `ccmem history`).
    #[arg(long)]
    no_log: bool,
}

/// Runs the command.
pub(super) fn run(args: Args, env: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    match args.command {
        Command::SessionStart(a) => Ok(guarded("session-start", || session_start_run(a, env))),
        Command::PostToolUse(a) => Ok(guarded("post-tool-use", || post_tool_use_run(a, env))),
        Command::InstructionsLoaded(a) => Ok(guarded("instructions-loaded", || {
            let inp: crate::hook::instructions_loaded::Input = a.read()?;
            crate::hook::instructions_loaded::run(&inp, env).map(|()| None)
        })),
        Command::Install(a) => install::run(a, true, env),
        Command::Uninstall(a) => install::run(a, false, env),
    }
}

/// Runs a hook handler; prints its JSON on stdout, or one line on stderr when ccmem itself
/// fails. Always exit 0: a broken ccmem must never break the session.
fn guarded(name: &str, f: impl FnOnce() -> anyhow::Result<Option<HookOutput>>) -> ExitStatus {
    match f() {
        Ok(Some(out)) => {
            if let Some(line) = out.to_line() {
                let mut stdout = super::output::stdout_json();
                let _ = stdout
                    .write_all(line.as_bytes())
                    .and_then(|()| stdout.flush());
            }
        }
        Ok(None) => {}
        Err(e) => super::output::eprint_line(format_args!("ccmem hook {name}: {e:#}")),
    }
    ExitStatus::Clean
}

fn session_start_run(a: StartArgs, process: &ProcessEnv) -> anyhow::Result<Option<HookOutput>> {
    let inp: input::SessionStart = a.input.read()?;
    let env = process.client_env_in(&inp.common.cwd)?;
    let session = load::load_session_with(&env, load::Detail::Reminder);
    let opts = session_start::Options {
        always: a.always,
        recover: a.recover,
    };
    if !a.no_log
        && inp.source != "compact"
        && let Err(e) = log_start(&session, &inp, &env, process)
    {
        super::output::eprint_line(format_args!("ccmem hook session-start: history log: {e}"));
    }
    if inp.source == "compact" {
        let transcript = crate::hook::transcript::Transcript::read(std::path::Path::new(
            &inp.common.transcript_path,
        ));
        return Ok(session_start::after_compact(
            &env,
            &session,
            &transcript.calls,
        ));
    }
    Ok(Some(session_start::output(&session, opts)))
}

/// Appends this start to ccmem's history log (`history::log`): a compaction is not a start.
fn log_start(
    session: &load::Session,
    inp: &input::SessionStart,
    env: &crate::env::ClientEnv,
    process: &ProcessEnv,
) -> anyhow::Result<()> {
    let time = super::tier::now(process)?.to_string();
    let cwd = env.cwd.to_string_lossy();
    let start = crate::history::log::Start {
        session: &inp.common.session_id,
        source: &inp.source,
        cwd: &cwd,
        transcript: &inp.common.transcript_path,
    };
    session_start::log(session, start, process.vars(), &time)?;
    Ok(())
}

/// `ccmem hook post-tool-use [--input FILE]`, exactly as installed, run without building the
/// command-line parser: the client runs this hook after every Write, Edit and Bash call, so
/// its cost is start-up, and clap's command tree was most of it. Any other argument list is
/// `None` (the parser handles it, errors and `--help` included).
pub(super) fn fast_path(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<ExitStatus> {
    let (Some(hook), Some(event)) = (args.next(), args.next()) else {
        return None;
    };
    if hook != "hook" || event != "post-tool-use" {
        return None;
    }
    let input = match (args.next(), args.next(), args.next()) {
        (None, _, _) => None,
        (Some(flag), Some(file), None) if flag == "--input" => Some(file.into()),
        _ => return None,
    };
    let env = ProcessEnv::read();
    crate::write::fault::arm(&env);
    Some(guarded("post-tool-use", || {
        post_tool_use_run(InputArg { input }, &env)
    }))
}

fn post_tool_use_run(a: InputArg, env: &ProcessEnv) -> anyhow::Result<Option<HookOutput>> {
    let inp: input::PostToolUse = a.read()?;
    post_tool_use::run(&inp, env)
}
