//! `ccmem check`: what every start directory of a repository loads, and the traps that drop
//! instructions silently.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{ClientArgs, SizeArgs};
use crate::check::{self, Environment, Options};
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::render::check::{self as view, Format, View};
use crate::severity::Severity;

/// The least severe finding that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum FailOn {
    /// Errors fail (the default).
    Error,
    /// Errors and warnings fail.
    Warning,
    /// Nothing fails (exit 0 unless the check could not run).
    Never,
}

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
    client: ClientArgs,
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let cwd = process.cwd()?.to_path_buf();
    let (root, given) = match &args.path {
        Some(p) => (p.clone(), p.clone()),
        None => {
            let root = crate::load::git::git_root(&cwd).unwrap_or_else(|| cwd.clone());
            let given = relative_to(&root, &cwd);
            (root, given)
        }
    };
    let real = std::fs::canonicalize(&root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => anyhow::anyhow!("{}: no such folder", root.display()),
        _ => anyhow::anyhow!("{}: {}", root.display(), crate::write::describe_io(&e)),
    })?;
    if !real.is_dir() {
        anyhow::bail!("{}: not a directory", root.display());
    }
    let config = super::config::load(&real, args.config.as_deref())?;
    let config = config.check;
    let size = args
        .size
        .model((config.context_window, config.chars_per_token))?;
    let home = tempfile::Builder::new().prefix("ccmem-check").tempdir()?;
    let env = if args.user_config {
        Environment::User(process.vars().clone())
    } else {
        Environment::Clean(home.path().to_path_buf())
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
    };
    let report = check::check(&real, &opts);
    for e in &report.repo.errors {
        eprintln!("ccmem: warning: {e}");
    }
    let format = match (super::output::json(), args.format) {
        (false, format) => format,
        (true, Format::Human | Format::Json) => Format::Json,
        (true, _) => anyhow::bail!("--json and --format ask for two formats; pick one"),
    };
    let shown = View {
        given: &given,
        all_dirs: args.all_dirs,
    };
    if format == Format::Human {
        let mut out = std::io::BufWriter::new(super::output::stdout());
        view::render(&mut out, format, &report, shown)?;
        out.flush()?;
    } else {
        let mut out = std::io::BufWriter::new(super::output::stdout_plain());
        view::render(&mut out, format, &report, shown)?;
        out.flush()?;
    }
    let fails = |s: Severity| match args.fail_on {
        FailOn::Error => s == Severity::Error,
        FailOn::Warning => true,
        FailOn::Never => false,
    };
    Ok(ExitStatus::findings_if(
        report.findings.iter().any(|f| fails(f.severity)),
    ))
}

/// `root` as a path relative to `cwd` when it is `cwd` or one of its ancestors (`.`, `..`).
fn relative_to(root: &Path, cwd: &Path) -> PathBuf {
    match cwd.strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rest) => rest
            .components()
            .map(|_| "..")
            .collect::<Vec<_>>()
            .join("/")
            .into(),
        Err(_) => root.to_path_buf(),
    }
}
