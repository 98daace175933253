//! `ccmem receipt`: what loads, why, what is cut, what is lazy, what is skipped.

use std::io::Write;

use super::{ClientArgs, SizeArgs};
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::load;
use crate::receipt::{Finding, Receipt};
use crate::render;

/// Show, for a person, what the client loads at session start and why.
///
/// Exit status: 0 when everything that exists loads, 1 when a finding of a kind named by
/// `--fail-on` is present (default: dark,unloadable,blocked,trap), 2 on usage or I/O errors.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Also show what the client attaches when it reads PATH during the session (repeatable).
    #[arg(long, value_name = "PATH")]
    reading: Vec<String>,
    /// List every dark line and unlinked topic file (the text receipt shows the first 10).
    #[arg(long)]
    all: bool,
    /// Which findings make the exit status 1 (comma-separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = Finding::DEFAULT)]
    fail_on: Vec<Finding>,
    /// Show what subagent NAME starts with: its memory folder, cut and dark entries, and what
    /// it inherits from the main session.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["after_compact", "session"])]
    agent: Option<String>,
    /// Show what comes back after a compaction, and what does not (needs --history).
    #[arg(long, requires = "history", conflicts_with = "session")]
    after_compact: bool,
    /// With --after-compact: an auto-compaction.
    #[arg(long, requires = "after_compact")]
    auto: bool,
    /// With --after-compact: the tool calls before it, as JSON (as `context --history`).
    #[arg(long, value_name = "FILE")]
    history: Option<std::path::PathBuf>,
    /// Compare a live session's InstructionsLoaded log (`ccmem hook instructions-loaded`) with
    /// ccmem's prediction.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Leave out what `ccmem check` reports for this start directory (the receipt checks the
    /// git repository it is in, as `ccmem check --user-config` does).
    #[arg(long)]
    no_check: bool,
    #[command(flatten)]
    size: SizeArgs,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let env = args.client.client_env(process)?;
    use super::receipt_shapes::View;
    let view = if let Some(name) = &args.agent {
        Some(View::Agent(name))
    } else if args.after_compact {
        Some(View::AfterCompact {
            history: args.history.as_deref(),
            auto: args.auto,
        })
    } else if let Some(id) = &args.session {
        Some(View::Session(id))
    } else {
        // `--agents` (without JSON: `receipt --agents` lists the agents of this directory).
        args.client.agents.is_some().then_some(View::Agents)
    };
    if let Some(view) = view {
        return super::receipt_shapes::run(view, &env, process, super::output::json());
    }
    let size = args.size.model((None, None))?;
    let session = load::load_session(&env);
    let attached = load::reading::load(&env, &session, &args.reading);
    let mut receipt =
        Receipt::build(&env, &session, &args.fail_on, &size).with_reads(&args.reading, &attached);
    if !args.no_check
        && let Some(traps) = traps(&env, size)
    {
        receipt = receipt.with_traps(traps, &args.fail_on);
    }
    receipt.client_note = client_note(process);
    receipt.dark_history = dark_history(&env, &session, &receipt, process);
    let text = if super::output::json() {
        render::receipt::json(&receipt)
    } else {
        render::receipt::human(&receipt, render::receipt::HumanOptions { all: args.all })
    };
    let mut out = super::output::stdout();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::findings_if(!receipt.findings.is_empty()))
}

/// What `ccmem check --user-config` reports for the receipt's start directory, when it is in a
/// git repository (outside one, `check` would walk whatever folder it is, a home folder
/// included). The repository's `ccmem.toml` applies as it does to `check`; when it cannot be
/// used, the rules run with their defaults and a warning says why.
fn traps(
    env: &crate::env::ClientEnv,
    size: crate::load::size::SizeModel,
) -> Option<crate::receipt::Traps> {
    use crate::rules::repo::{self as check, Environment, Options};
    // The start relative to the root found from it, both as the client holds them (see
    // `start_rel`); the check walks the root's real path.
    let found = crate::load::git::git_root(&env.cwd)?;
    let start = check::start_rel(&found, &env.cwd)?;
    let root = std::fs::canonicalize(&found).ok()?;
    let config = match super::config::load(&root, None) {
        Ok(config) => config.check,
        Err(e) => {
            super::output::eprint_line(format_args!(
                "ccmem: warning: {e} (the repository check runs with the rules' defaults)"
            ));
            Default::default()
        }
    };
    let opts = Options {
        max_dirs: config.max_dirs.unwrap_or(check::DEFAULT_MAX_DIRS),
        config,
        size,
        env: Environment::User(env.vars().clone()),
        flags: env.flags.clone(),
        given: None,
    };
    let command = format!(
        "ccmem check --user-config {}",
        crate::receipt::fix::shell_word(&root.to_string_lossy())
    );
    Some(check::traps(&root, &start, &opts, command))
}

/// When MEMORY.md is cut: how long each dark entry has been dark, from the recorded sessions
/// (read only then: the transcripts can be hundreds of MB).
fn dark_history(
    env: &crate::env::ClientEnv,
    session: &load::Session,
    receipt: &Receipt,
    process: &ProcessEnv,
) -> Option<crate::receipt::DarkHistory> {
    let (load::automem::IndexState::Loaded(m) | load::automem::IndexState::FromEnv(m)) =
        &receipt.auto_memory.index
    else {
        return None;
    };
    m.cut.as_ref()?;
    let log = crate::history::log::path(process.vars());
    // The session's settings and MEMORY.md, as read for the receipt: not read again.
    let automem = &session.automem;
    let index = automem
        .index_path
        .as_deref()
        .zip(automem.index_bytes.as_deref());
    let usage = crate::history::usage::Usage::of_session(env, &session.settings, log, index);
    crate::receipt::DarkHistory::of(&usage, &receipt.auto_memory)
}

/// One line when the installed client differs from the modeled one (its `--version` is
/// cached by binary path, mtime and size, so this costs a file read once warm).
fn client_note(env: &ProcessEnv) -> Option<String> {
    let cache = crate::env::cache_dir(env.vars())?;
    let installed = crate::verify::version::installed_client_version(&cache, env.var("PATH"))?;
    crate::verify::version::mismatch_note(&installed)
}
