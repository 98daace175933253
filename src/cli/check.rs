//! `ccmem check`: what every start directory of a repository loads, and the traps that drop
//! instructions silently.

use std::io::Write;
use std::path::PathBuf;

use super::config::RuleFilter;
use super::{ClientArgs, SizeArgs};
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::render::check::{self as view, Format, View};
use crate::repo::Root;
use crate::rules::repo::{self as check, Environment, Options};
use crate::rules::{Command, FailOn};

/// Check a repository: what a session started in each of its directories loads and loses, and
/// the instruction files that never load.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The repository (default: the git repository of the current directory, else the
    /// current directory).
    #[arg(value_name = "PATH")]
    path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// The least severe finding that makes the exit status 1.
    #[arg(long, value_enum, default_value = "error", value_name = "SEVERITY")]
    fail_on: FailOn,
    /// A ccmem.toml to use instead of the one at the repository root.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(flatten)]
    size: SizeArgs,
    /// Start directories checked at most (default 2000).
    #[arg(long, value_name = "N")]
    max_dirs: Option<usize>,
    /// Start sessions with your own ~/.claude files, settings, approvals and managed policy
    /// (default: a clean environment, what a fresh clone shows a new teammate and CI).
    #[arg(long)]
    user_config: bool,
    /// List every start directory in the human view, not only those that lose something.
    #[arg(long)]
    all_dirs: bool,
    #[command(flatten)]
    rules: RuleFilter,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let root = Root::find(args.path.as_deref(), process.cwd()?).map_err(anyhow::Error::msg)?;
    let config = super::config::load(&root.real, args.config.as_deref())?;
    let mut config = config.check;
    config.disable.extend(args.rules.disabled(Command::Check)?);
    let size = args
        .size
        .model((config.context_window, config.chars_per_token))?;
    let home = tempfile::Builder::new().prefix("ccmem-check").tempdir()?;
    let env = if args.user_config {
        Environment::User(process.vars().clone())
    } else {
        Environment::Clean(home.path().to_path_buf(), process.platform()?)
    };
    let flags = args.client.client_env(process)?.flags;
    let opts = Options {
        max_dirs: args
            .max_dirs
            .or(config.max_dirs)
            .unwrap_or(check::DEFAULT_MAX_DIRS),
        config,
        size,
        env,
        flags,
        given: None,
    };
    let report = check::check(&root.real, &opts);
    for e in &report.repo.errors {
        super::output::eprint_line(format_args!("ccmem: warning: {e}"));
    }
    let format = args
        .format
        .with_json(super::output::json())
        .map_err(anyhow::Error::msg)?;
    let view = View {
        given: &root.given,
        all_dirs: args.all_dirs,
    };
    let mut out = super::output::findings(format);
    view::render(&mut out, format, &report, view)?;
    out.flush()?;
    Ok(args.fail_on.status(&report.findings))
}
