//! `ccmem budget`: MEMORY.md files measured against the client's limits.

use std::io::Write;
use std::path::PathBuf;

use crate::budget;
use crate::env::{ClientFlags, ProcessEnv};
use crate::exit::ExitStatus;
use crate::render;

/// Measure MEMORY.md files the client's way (lines and UTF-16 units after stripping) and show
/// the exact cut and the first dark entry. Exit 1 when any index is over.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// A MEMORY.md, a memory folder, a project folder, or a projects folder
    /// [default: the config dir's projects/, every project swept].
    path: Option<PathBuf>,
    /// Measure subagent NAME's MEMORY.md (its memory folder, as `ccmem receipt --agent NAME`
    /// shows it) instead of a path.
    #[arg(long, value_name = "NAME", conflicts_with = "path")]
    agent: Option<String>,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let agent_dir = match &args.agent {
        Some(name) => Some(super::agent_memory::folder(
            name,
            &super::ClientArgs::default(),
            process,
        )?),
        None => None,
    };
    let path = match args.path.or(agent_dir) {
        Some(p) => p,
        None => process
            .client_env(ClientFlags::default())?
            .config_dir()
            .join("projects"),
    };
    let paths = budget::find_indexes(&path).map_err(|e| {
        anyhow::anyhow!("{}: {}", path.display(), crate::fsread::describe(&path, &e))
    })?;
    let bar = super::progress::bar(paths.len() as u64, "measuring");
    let result = budget::sweep(&paths, || bar.inc(1));
    bar.finish_and_clear();
    let text = if super::output::json() {
        render::budget::json(&result)
    } else {
        render::budget::human(&result)
    };
    let mut out = super::output::stdout_plain();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitStatus::findings_if(result.summary.over > 0))
}
