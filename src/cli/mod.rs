//! Command-line interface: clap derive, one file per subcommand. Raw arguments become
//! immutable values once; commands receive those, never raw strings.
//!
//! The process boundary: the one module that prints (what `render` made, progress, errors).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "cli is the process boundary: it prints what render made, and the errors"
)]

mod add;
mod agent_memory;
mod audit;
mod budget;
mod check;
mod client_args;
mod completions;
mod config;
mod context;
mod explain;
mod history;
mod hook;
mod man;
pub mod output;
pub mod progress;
mod receipt;
mod receipt_shapes;
mod size_args;
mod statusline;
mod tier;
mod undo;
mod verify;

pub use client_args::ClientArgs;
pub use size_args::SizeArgs;

use clap::{Parser, Subcommand};

use crate::env::ProcessEnv;
use crate::exit::ExitStatus;

/// Makes Claude Code's memory observable: what loads, what is cut, what is never reached.
#[derive(Debug, Parser)]
#[command(name = "ccmem", version, about, long_about = None)]
#[command(after_help = concat!("Models Claude Code ", crate::constants::client_version!(), "."))]
pub struct Cli {
    /// Run as if started in DIR (as `git -C`): the client's start directory.
    #[arg(short = 'C', global = true, value_name = "DIR")]
    directory: Option<std::path::PathBuf>,
    /// Print one JSON document on stdout, errors included; its `schema` key names its JSON
    /// Schema (`ccmem.<command>/<n>`, in docs/schemas/).
    #[arg(long, global = true)]
    json: bool,
    /// When to colour the output.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t)]
    color: output::ColorWhen,
    /// Print no report and no progress: the exit status tells the result (errors and --json
    /// output are still printed).
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

/// `defer`: a subcommand's arguments are defined only when it runs (or help, completions or the
/// man page need them), not for every command line (the hooks run in every session).
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Print exactly the memory reminder the client would send at session start.
    Context(context::Args),
    /// Restructure an over-budget MEMORY.md into hubs, proving nothing is lost (dry run by default).
    Tier(tier::Args),
    /// Add a typed memory entry, indexed where the budget allows.
    Add(add::Args),
    /// Undo the last `tier --write` or `add`, byte for byte.
    Undo(undo::Args),
    /// Claude Code hooks: session-start receipt, memory-write guard, install/uninstall.
    Hook(hook::Args),
    /// One compact line for Claude Code's statusLine command.
    Statusline(statusline::Args),
    /// Measure MEMORY.md files against the client's limits; exit 1 if any is over.
    Budget(budget::Args),
    /// Audit a memory library against the typed write spec.
    Audit(audit::Args),
    /// Check a repository: what each start directory loads and loses, and files that never load.
    Check(check::Args),
    /// Print the documentation of an audit or check rule.
    Explain(explain::Args),
    /// Show what loads at session start, why, what is cut, lazy and skipped.
    Receipt(receipt::Args),
    /// Show what past sessions loaded, from the client's transcripts; how long each entry is dark.
    History(history::Args),
    /// Run the installed client against a local stub and compare its memory reminder with ccmem's.
    Verify(verify::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(completions::Args),
    /// Print the manual page (roff): `ccmem man | man -l -`.
    Man(man::Args),
}

/// Parses the process arguments, runs the command, and returns its exit status. Errors are
/// printed to stderr with their cause chain.
pub fn main() -> ExitStatus {
    if let Some(status) = hook::fast_path(std::env::args_os().skip(1)) {
        return status;
    }
    let cli = match bare_context(std::env::args_os().skip(1)).map_or_else(parse, Ok) {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                let _ = e.print();
                return ExitStatus::Clean;
            }
            // A usage error: as JSON too when --json is among the arguments.
            if std::env::args_os().skip(1).any(|a| a == "--json") {
                let rendered = e.render().to_string();
                let first = rendered.lines().next().unwrap_or_default();
                print_error_json(first.strip_prefix("error: ").unwrap_or(first), &[]);
            }
            let _ = e.print();
            return ExitStatus::Error;
        }
    };
    output::Output {
        json: cli.json,
        quiet: cli.quiet,
        color: cli.color,
    }
    .install();
    // `-C` first: the environment below is read once, in the directory the command runs in.
    if let Some(dir) = &cli.directory
        && let Err(e) = std::env::set_current_dir(dir)
    {
        let message = format!("-C {}: {}", dir.display(), crate::fsread::describe(dir, &e));
        if cli.json {
            print_error_json(&message, &[]);
        }
        output::eprint_line(format_args!("ccmem: error: {message}"));
        return ExitStatus::Error;
    }
    let env = ProcessEnv::read();
    for d in env.dropped() {
        output::eprint_line(format_args!("ccmem: warning: {d}"));
    }
    crate::write::fault::arm(&env);
    let result = match cli.command {
        Command::Context(args) => context::run(args, &env),
        Command::Tier(args) => tier::run(args, &env),
        Command::Add(args) => add::run(args, &env),
        Command::Undo(args) => undo::run(args, &env),
        Command::Hook(args) => hook::run(args, &env),
        Command::Statusline(args) => statusline::run(args, &env),
        Command::Budget(args) => budget::run(args, &env),
        Command::Audit(args) => audit::run(args, &env),
        Command::Check(args) => check::run(args, &env),
        Command::Explain(args) => explain::run(args),
        Command::Receipt(args) => receipt::run(args, &env),
        Command::History(args) => history::run(args, &env),
        Command::Verify(args) => verify::run(args, &env),
        Command::Completions(args) => completions::run(args),
        Command::Man(args) => man::run(args),
    };
    match result {
        Ok(status) => status,
        Err(e) if is_broken_pipe(&e) => ExitStatus::Clean,
        Err(e) => {
            if output::json() {
                let causes: Vec<String> = e.chain().skip(1).map(|c| c.to_string()).collect();
                print_error_json(&e.to_string(), &causes);
            }
            output::eprint_line(format_args!("ccmem: error: {e:#}"));
            ExitStatus::Error
        }
    }
}

/// The `ccmem.error/1` document on stdout (`--json`).
fn print_error_json(message: &str, causes: &[String]) {
    use std::io::Write;
    let mut out = output::stdout_json();
    let _ = out.write_all(crate::render::error::json(message, causes).as_bytes());
    let _ = out.flush();
}

/// `Cli::try_parse`, with a `--version` that names the platform model in use.
fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    // clap takes the version as a `&'static str`.
    static VERSION: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let version = VERSION.get_or_init(|| {
        format!(
            "{} (models Claude Code {}; platform model: {})",
            env!("CARGO_PKG_VERSION"),
            crate::constants::CLIENT_VERSION,
            crate::env::platform_in_use()
        )
    });
    let mut command = Cli::command().version(version.as_str());
    let mut matches = command.try_get_matches_from_mut(std::env::args_os())?;
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut command))
}

/// `ccmem context` alone (what scripts and the start-up benchmark run) is parsed without clap,
/// which would build the whole command tree for it. Any other command line goes through clap;
/// a test holds the two to the same value.
fn bare_context(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<Cli> {
    (args.next()? == "context" && args.next().is_none()).then(|| Cli {
        directory: None,
        json: false,
        color: output::ColorWhen::default(),
        quiet: false,
        command: Command::Context(context::Args::default()),
    })
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn args(line: &[&str]) -> impl Iterator<Item = std::ffi::OsString> {
        line.iter().map(Into::into).collect::<Vec<_>>().into_iter()
    }

    #[test]
    fn bare_context_is_what_clap_makes_of_it() {
        let fast = bare_context(args(&["context"])).expect("the bare form is taken");
        let clap = Cli::try_parse_from(["ccmem", "context"]).unwrap();
        assert_eq!(format!("{fast:?}"), format!("{clap:?}"));
    }

    #[test]
    fn any_other_command_line_goes_to_clap() {
        for line in [
            &["context", "--json"][..],
            &["context", "--reading", "f"],
            &["context", ""],
            &["-C", "x", "context"],
            &["contexts"],
            &["receipt"],
            &[],
        ] {
            assert!(bare_context(args(line)).is_none(), "{line:?}");
        }
    }
}
