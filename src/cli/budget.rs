//! `ccmem budget`: MEMORY.md files measured against the client's limits.

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
    /// [default: the config dir's projects/, every project swept, and the current project's
    /// memory folder when its settings move it elsewhere (`autoMemoryDirectory`)].
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
    let roots = match args.path.or(agent_dir) {
        Some(p) => vec![p],
        None => default_roots(process)?,
    };
    let mut paths = Vec::new();
    for path in &roots {
        paths.extend(budget::find_indexes(path).map_err(|e| {
            anyhow::anyhow!("{}: {}", path.display(), crate::fsread::describe(path, &e))
        })?);
    }
    let bar = super::progress::bar(paths.len() as u64, "measuring");
    let result = budget::sweep(&paths, || bar.inc(1));
    bar.finish_and_clear();
    super::output::print_plain(&if super::output::json() {
        render::budget::json(&result)
    } else {
        render::budget::human(&result)
    })?;
    Ok(ExitStatus::findings_if(result.summary.over > 0))
}

/// What `budget` measures with no PATH: the config dir's projects folder (when it is there, or
/// when nothing else is) and the current project's memory folder when its settings put it
/// outside that folder (`autoMemoryDirectory`), where the sweep would not find it.
fn default_roots(process: &ProcessEnv) -> anyhow::Result<Vec<PathBuf>> {
    let env = process.client_env(ClientFlags::default())?;
    let projects = env.config_dir().join(crate::constants::PROJECTS_DIR);
    let settings = crate::settings::Settings::load(&env);
    let moved = crate::load::automem::resolve_folder(&env, &settings)
        .filter(|f| !f.starts_with(&projects) && f.is_dir());
    let mut roots = Vec::new();
    if projects.is_dir() || moved.is_none() {
        roots.push(projects);
    }
    roots.extend(moved);
    Ok(roots)
}
