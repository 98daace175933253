//! `ccmem tier`: plan (and with `--write` apply) a hub-first restructure of MEMORY.md, with
//! its proof. Dry run by default.
//!
//! The dry run refuses what `--write` refuses, with the same words and exit status. A target
//! given with `--target-lines`/`--target-utf16` that cannot be reached is refused (exit 2,
//! naming the target that can); the default or `ccmem.toml` target gives way to the most tier
//! can do when that is within the client's cap (every entry then loads), and says so. Files
//! tier cannot read never block it unless it would write them ([`crate::tier::check_writes`]);
//! they are reported in `skipped`.
//!
//! The work is the library's ([`crate::tier::run`]); the views are `render::tier`'s. A run that
//! refuses (exit 2) prints its report with `failure` set, and the reason on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::ClientArgs;
use crate::constants::INDEX_FILE;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::render;
use crate::tier::budget::{self, Target};
use crate::tier::run::{self, Request};
use crate::tier::{Folder, Options};
use crate::write;

/// Restructure an over-budget MEMORY.md into hubs, proving nothing is lost.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR")]
    dir: Option<PathBuf>,
    /// Apply the plan (default: dry run).
    #[arg(long, conflicts_with = "check")]
    write: bool,
    /// Exit 1 when MEMORY.md is over the target (writes nothing).
    #[arg(long)]
    check: bool,
    /// Also propose shorter descriptions for long index lines (shown, never applied).
    #[arg(long)]
    compress: bool,
    /// Target line count (default: `ccmem.toml` `[tier] target-lines`, else `[audit]
    /// target-lines`, else 120).
    #[arg(long, value_name = "N")]
    target_lines: Option<usize>,
    /// Target size in UTF-16 units (default: `ccmem.toml` `[tier] target-utf16`, else
    /// `[audit] target-utf16`, else 16000).
    #[arg(long, value_name = "N")]
    target_utf16: Option<usize>,
    /// Restructure subagent NAME's memory folder (as `ccmem receipt --agent NAME` shows it).
    #[arg(long, value_name = "NAME", conflicts_with = "dir")]
    agent: Option<String>,
    #[command(flatten)]
    client: ClientArgs,
}

/// The memory folder: the argument, else the auto-memory folder the client would use here.
pub(super) fn memory_dir(
    arg: Option<PathBuf>,
    client: &ClientArgs,
    process: &ProcessEnv,
) -> anyhow::Result<PathBuf> {
    if let Some(dir) = arg {
        if let Some(problem) = crate::fsread::memory_folder_problem(&dir) {
            anyhow::bail!("{problem}");
        }
        return Ok(dir);
    }
    let env = client.client_env(process)?;
    let settings = crate::settings::Settings::load(&env);
    crate::load::automem::resolve_folder(&env, &settings)
        .context("auto memory is off or has no folder here; pass MEMORY_DIR")
}

/// The memory folder at `path` as `tier` and `add` work on it: how the client reads it through
/// links, its `ccmem.toml`, and `HOME`.
pub(super) fn open(
    path: PathBuf,
    client: &ClientArgs,
    process: &ProcessEnv,
) -> anyhow::Result<Folder> {
    Ok(Folder {
        links: super::agent_memory::client_links(&path, client, process)?,
        config: super::config::load(&path, None)?,
        home: process.var("HOME").map(PathBuf::from),
        path,
    })
}

/// `--agent NAME` resolved to the agent's memory folder, which then stands as MEMORY_DIR.
fn with_agent_dir(mut args: Args, process: &ProcessEnv) -> anyhow::Result<Args> {
    if let Some(name) = args.agent.take() {
        args.dir = Some(super::agent_memory::folder(&name, &args.client, process)?);
    }
    Ok(args)
}

/// "Now": `CCMEM_NOW` when set (so runs compare byte for byte, as for `audit`), else the clock.
pub(super) fn now(process: &ProcessEnv) -> anyhow::Result<jiff::Timestamp> {
    match process.var("CCMEM_NOW") {
        Some(t) => t
            .parse::<jiff::Timestamp>()
            .map_err(|e| anyhow::anyhow!("CCMEM_NOW: {e}")),
        None => Ok(jiff::Timestamp::now()),
    }
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let args = with_agent_dir(args, process)?;
    let folder = memory_dir(args.dir.clone(), &args.client, process)?;
    if args.dir.is_none()
        && let Some(problem) = crate::fsread::memory_folder_problem(&folder)
    {
        anyhow::bail!(
            "{problem} (this is the auto-memory folder of the current project: the client \
             creates it when it first runs here, `ccmem add` too; or pass MEMORY_DIR)"
        );
    }
    let memory = open(folder, &args.client, process)?;
    let folder = memory.path.as_path();
    let (lines, utf16) = memory.config.target();
    let target = Target {
        lines: args.target_lines.unwrap_or(lines),
        utf16: args.target_utf16.unwrap_or(utf16),
    };
    if args.check {
        return check(folder, target);
    }
    // A dry run writes nothing, not even to finish an interrupted run (it says so instead).
    let lock = if args.write {
        Some(write::lock(folder)?.stamped(now(process)?))
    } else {
        None
    };
    let recovered = match &lock {
        Some(l) => crate::memory::pending::recover(l, folder)?,
        None => None,
    };
    let pending = (lock.is_none() && write::needs_recovery(folder))
        .then(|| crate::memory::pending::pending(folder));
    // Usage evidence only: an environment that cannot be resolved plans without it.
    let env = args.client.client_env(process).ok();
    let request = Request {
        folder: &memory,
        usage: env.as_ref(),
        opts: Options {
            target,
            compress: args.compress,
            now: now(process)?,
        },
        // A target given on the command line is a demand (unreachable: refused); the default
        // or `ccmem.toml`'s is a goal (unreachable: tier does the most it can).
        explicit: args.target_lines.is_some() || args.target_utf16.is_some(),
    };
    let outcome = run::run(&request, lock.as_ref())?;
    drop(lock);
    let cx = render::tier::Context {
        folder,
        named: args.dir.is_some(),
        write: args.write,
        recovered: recovered.as_ref(),
        pending: pending.as_ref().map(Option::as_ref),
        requested_target: target,
    };
    let text = if super::output::json() {
        render::tier::json(&outcome, &cx)
    } else {
        render::tier::human(&outcome, &cx)
    };
    let mut out = super::output::stdout_plain();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    // The report says why (one JSON document on stdout, with `failure`); stderr too.
    if let Some(why) = render::tier::failure(&outcome, &cx) {
        super::output::eprint_line(format_args!("ccmem: error: {why}"));
        return Ok(ExitStatus::Error);
    }
    Ok(ExitStatus::Clean)
}

/// `--check`: MEMORY.md measured against the target; exit 1 when over.
fn check(folder: &Path, target: Target) -> anyhow::Result<ExitStatus> {
    let file = folder.join(INDEX_FILE);
    let size = budget::on_disk(&file).with_context(|| format!("{}", file.display()))?;
    let check = render::tier::SizeCheck {
        file: &file,
        size,
        target,
    };
    let text = if super::output::json() {
        render::tier::check_json(&check)
    } else {
        render::tier::check_human(&check)
    };
    let mut out = super::output::stdout_plain();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::findings_if(!target.fits(size)))
}
