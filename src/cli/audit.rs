//! `ccmem audit`: check a memory library against the typed write spec.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use jiff::Timestamp;

use super::ClientArgs;
use super::config::RuleFilter;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::load::automem;
use crate::memory::Library;
use crate::render::audit::{self as view, Audited, Format};
use crate::rules::run::{self, Audit};
use crate::rules::{Command, FailOn};
use crate::settings::Settings;

/// Audit a memory library (MEMORY.md, hubs, entries) against the typed write spec.
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder the client uses here).
    #[arg(value_name = "MEMORY_DIR", conflicts_with = "all")]
    dir: Option<PathBuf>,
    /// Audit every project's memory under the config dir's `projects/`.
    #[arg(long)]
    all: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Exit 1 on warnings too.
    #[arg(long)]
    strict: bool,
    /// A ccmem.toml to use instead of the one in the memory folder.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The project the memory is about, whose paths `stale-reference` checks (default: the
    /// client's project here, when the folder audited is its auto-memory folder).
    #[arg(long, value_name = "DIR", conflicts_with = "all")]
    project: Option<PathBuf>,
    /// Audit subagent NAME's memory folder (as `ccmem receipt --agent NAME` shows it).
    #[arg(long, value_name = "NAME", conflicts_with_all = ["dir", "all"])]
    agent: Option<String>,
    #[command(flatten)]
    rules: RuleFilter,
    #[command(flatten)]
    client: ClientArgs,
}

/// Runs the command.
pub(super) fn run(mut args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    if let Some(name) = args.agent.take() {
        args.dir = Some(super::agent_memory::folder(&name, &args.client, process)?);
    }
    let env = args.client.client_env(process)?;
    let now = match env.var("CCMEM_NOW") {
        Some(t) => t
            .parse::<Timestamp>()
            .map_err(|e| anyhow::anyhow!("CCMEM_NOW: {e}"))?,
        None => Timestamp::now(),
    };
    let format = args
        .format
        .with_json(super::output::json())
        .map_err(anyhow::Error::msg)?;
    let folders = if args.all {
        let projects = env.config_dir().join("projects");
        automem::folder::every_project(&projects)
            .map_err(|e| anyhow::anyhow!("{}: {e}", projects.display()))?
    } else {
        match &args.dir {
            Some(d) => vec![d.clone()],
            None => {
                let settings = Settings::load(&env);
                let dir = automem::resolve_folder(&env, &settings).ok_or_else(|| {
                    anyhow::anyhow!("auto memory is off here and no MEMORY_DIR was given")
                })?;
                vec![dir]
            }
        }
    };
    if !args.all
        && let Some(problem) = crate::fsread::memory_folder_problem(&folders[0])
    {
        anyhow::bail!("{problem}");
    }
    let off = args.rules.disabled(Command::Audit)?;
    let project = project(&args, &env)?;
    let bar = progress(args.all, folders.len());
    let mut audits: Vec<(PathBuf, Audit)> = Vec::new();
    let mut failed = false;
    for dir in folders {
        bar.set_message(dir.display().to_string());
        let home = env.var("HOME").map(Path::new);
        let audited = super::config::load(&dir, args.config.as_deref())
            .map_err(|e| e.to_string())
            .and_then(|mut config| {
                config.audit.disable.extend(off.iter().cloned());
                let mut lib =
                    Library::load_configured(&dir, config, home).map_err(|e| e.to_string())?;
                lib.project = project.as_ref().and_then(|p| p.of(&dir));
                Ok(lib)
            })
            .and_then(|lib| run::audit(lib, now).map_err(|e| format!("{}: {e}", dir.display())));
        match audited {
            Ok(a) => audits.push((dir, a)),
            Err(e) if args.all => {
                bar.suspend(|| {
                    super::output::eprint_line(format_args!("ccmem: {}: {e}", dir.display()))
                });
                failed = true;
            }
            Err(e) => anyhow::bail!("{e}"),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let shown: Vec<Audited> = audits
        .iter()
        .map(|(root, audit)| Audited { root, audit })
        .collect();
    let mut out = super::output::findings(format);
    view::render(&mut out, format, &shown, args.all)?;
    out.flush()?;
    let fail_on = if args.strict {
        FailOn::Warning
    } else {
        FailOn::Error
    };
    let status = fail_on.status(audits.iter().flat_map(|(_, a)| &a.diagnostics));
    Ok(if failed { ExitStatus::Error } else { status })
}

/// The project whose paths `stale-reference` checks.
enum Project {
    /// `--project DIR` (not with `--all`): the project of the folder audited.
    Given(PathBuf),
    /// The client's project here (its root), for its own auto-memory folder only.
    Here { root: PathBuf, folder: PathBuf },
}

impl Project {
    /// The project of the memory folder `dir`.
    fn of(&self, dir: &Path) -> Option<PathBuf> {
        match self {
            Project::Given(p) => Some(p.clone()),
            Project::Here { root, folder } => {
                let dir = std::fs::canonicalize(dir).ok()?;
                (dir == *folder).then(|| root.clone())
            }
        }
    }
}

/// `--project`, checked; else the client's project root here and its auto-memory folder (the
/// folder it maps the project to, `load::automem::folder`), when auto memory is on.
fn project(args: &Args, env: &crate::env::ClientEnv) -> anyhow::Result<Option<Project>> {
    if let Some(p) = &args.project {
        if !p.is_dir() {
            anyhow::bail!("--project {}: not a directory", p.display());
        }
        return Ok(Some(Project::Given(p.clone())));
    }
    let settings = Settings::load(env);
    let Some(folder) = automem::resolve_folder(env, &settings) else {
        return Ok(None);
    };
    let root = PathBuf::from(automem::folder::project_key(env));
    Ok(std::fs::canonicalize(&folder)
        .ok()
        .map(|folder| Project::Here { root, folder }))
}

fn progress(all: bool, n: usize) -> ProgressBar {
    if !all || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(n as u64);
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {wide_msg}") {
        bar.set_style(style);
    }
    bar
}
