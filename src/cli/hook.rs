//! `ccmem hook …`: the Claude Code hook handlers and their installation.
//!
//! `session-start` and `post-tool-use` read the client's hook JSON on stdin and print hook JSON
//! on stdout (nothing when there is nothing to say). They never break a session: ccmem's own
//! failures print one line on stderr and exit 0.

use std::io::{BufRead, IsTerminal, Read, Write};

use clap::{ArgGroup, Subcommand};
use serde::Serialize;

use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::install::{self, Change, Scope};
use crate::hook::output::HookOutput;
use crate::hook::{input, post_tool_use, session_start};
use crate::load;

/// Claude Code hooks: session-start receipt, memory-write guard, install/uninstall.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    Install(InstallArgs),
    /// Remove ccmem's hooks from a settings file (restores the original when it can).
    Uninstall(InstallArgs),
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
            Some(path) => {
                let file = std::fs::File::open(path)
                    .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                input::read(file)
            }
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
}

#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("scope").args(["user", "project", "local"])))]
struct InstallArgs {
    /// ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json): every project [default].
    #[arg(long)]
    user: bool,
    /// .claude/settings.json of the current directory (checked in, shared with the team).
    #[arg(long)]
    project: bool,
    /// .claude/settings.local.json of the current directory (yours only).
    #[arg(long)]
    local: bool,
    /// Write without asking.
    #[arg(long, short = 'y')]
    yes: bool,
    /// Show the diff, write nothing.
    #[arg(long)]
    dry_run: bool,
    /// The ccmem command the hooks run (install only).
    #[arg(long, value_name = "PATH", default_value = "ccmem")]
    bin: String,
    /// Print a JSON summary instead of the diff.
    #[arg(long)]
    json: bool,
}

impl InstallArgs {
    fn scope(&self) -> Scope {
        if self.project {
            Scope::Project
        } else if self.local {
            Scope::Local
        } else {
            Scope::User
        }
    }
}

/// Runs the command.
pub fn run(args: Args, env: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    match args.command {
        Command::SessionStart(a) => Ok(guarded("session-start", || session_start_run(a, env))),
        Command::PostToolUse(a) => Ok(guarded("post-tool-use", || post_tool_use_run(a, env))),
        Command::InstructionsLoaded(a) => Ok(guarded("instructions-loaded", || {
            let inp: crate::hook::instructions_loaded::Input = a.read()?;
            crate::hook::instructions_loaded::run(&inp, env).map(|()| None)
        })),
        Command::Install(a) => edit(a, true, env),
        Command::Uninstall(a) => edit(a, false, env),
    }
}

/// Runs a hook handler; prints its JSON on stdout, or one line on stderr when ccmem itself
/// fails. Always exit 0: a broken ccmem must never break the session.
fn guarded(name: &str, f: impl FnOnce() -> anyhow::Result<Option<HookOutput>>) -> ExitStatus {
    match f() {
        Ok(Some(out)) => {
            if let Some(line) = out.to_line() {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout
                    .write_all(line.as_bytes())
                    .and_then(|()| stdout.flush());
            }
        }
        Ok(None) => {}
        Err(e) => eprintln!("ccmem hook {name}: {e:#}"),
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

fn post_tool_use_run(a: InputArg, env: &ProcessEnv) -> anyhow::Result<Option<HookOutput>> {
    let inp: input::PostToolUse = a.read()?;
    post_tool_use::run(&inp, env)
}

#[derive(Serialize)]
struct Summary<'a> {
    path: String,
    scope: Scope,
    action: &'a str,
    written: bool,
    diff: String,
}

/// Install or uninstall: plan, show the diff, ask, write.
fn edit(a: InstallArgs, installing: bool, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let env = crate::cli::ClientArgs::default().client_env(process)?;
    let scope = a.scope();
    let path = scope.path(&env);
    let target = install::write_target(&path);
    let before = read_optional(&target)?;
    let before_text = match &before {
        Some(b) => Some(
            std::str::from_utf8(b)
                .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?,
        ),
        None => None,
    };
    let change = if installing {
        install::plan_install(before_text, &a.bin)
    } else {
        let backup = read_optional(&install::backup_path(&target))?;
        install::plan_uninstall(before_text, backup.as_deref())
    }
    .map_err(|e| anyhow::anyhow!("{}: {e:#}", path.display()))?;
    let after: Option<String> = match &change {
        Change::Unchanged => before_text.map(str::to_owned),
        Change::Write(t) => Some(t.clone()),
        Change::RestoreBackup(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Change::Delete => None,
    };
    let diff = install::diff(
        &path,
        before_text.unwrap_or(""),
        after.as_deref().unwrap_or(""),
    );
    let action = match change {
        Change::Unchanged => "unchanged",
        Change::Write(_) => "write",
        Change::RestoreBackup(_) => "restore-backup",
        Change::Delete => "delete",
    };
    let mut out = std::io::stdout().lock();
    let report = |out: &mut std::io::StdoutLock, written: bool| -> anyhow::Result<()> {
        if a.json {
            let s = Summary {
                path: path.display().to_string(),
                scope,
                action,
                written,
                diff: diff.clone(),
            };
            writeln!(out, "{}", serde_json::to_string_pretty(&s)?)?;
        }
        Ok(())
    };
    if change == Change::Unchanged {
        if !a.json {
            let what = if installing {
                "already installed in"
            } else {
                "not installed in"
            };
            writeln!(out, "ccmem hooks {what} {}", path.display())?;
        }
        report(&mut out, false)?;
        return Ok(ExitStatus::Clean);
    }
    if !a.json {
        out.write_all(diff.as_bytes())?;
        if change == Change::Delete {
            writeln!(out, "(the file is removed: install created it)")?;
        }
        out.flush()?;
    }
    if a.dry_run {
        report(&mut out, false)?;
        return Ok(ExitStatus::Clean);
    }
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            eprintln!(
                "ccmem: not writing {}: stdin is not a terminal; pass --yes to confirm",
                path.display()
            );
            return Ok(ExitStatus::Error);
        }
        eprint!("Write {}? [y/N] ", path.display());
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            eprintln!("ccmem: nothing written");
            return Ok(ExitStatus::Error);
        }
    }
    install::apply(&path, before.as_deref(), &change)?;
    if !a.json {
        writeln!(out, "ccmem: {action} {}", path.display())?;
    }
    report(&mut out, true)?;
    Ok(ExitStatus::Clean)
}

/// A file's bytes, `None` when it does not exist.
fn read_optional(path: &std::path::Path) -> anyhow::Result<Option<Vec<u8>>> {
    match std::fs::File::open(path) {
        Ok(f) => {
            let mut buf = Vec::new();
            f.take(16 << 20)
                .read_to_end(&mut buf)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
            Ok(Some(buf))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(anyhow::anyhow!("cannot read {}: {e}", path.display())),
    }
}
