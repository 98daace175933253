//! `ccmem hook install` / `uninstall`: plan the settings edit ([`Setup`]), show its diff
//! (`render::hook_install`), ask, write it through the one writer.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::ArgGroup;

use crate::cli::output::eprint_line;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::install::Scope;
use crate::hook::install::setup::{Action, Setup, Target};
use crate::render::hook_install as view;
use crate::write;

#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("scope").args(["user", "project", "local"])))]
pub(super) struct Args {
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
    /// The program the hooks run (install only): an absolute path, or a name found in an
    /// absolute PATH entry [default: the absolute path of `ccmem` on PATH when that is this
    /// binary, else this binary's]. Relative PATH entries are never searched.
    #[arg(long, value_name = "PATH")]
    bin: Option<String>,
}

impl Args {
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

/// ccmem's state home: `$XDG_STATE_HOME/ccmem`, else `~/.local/state/ccmem`.
pub(in crate::cli) fn state_home(env: &ProcessEnv) -> anyhow::Result<PathBuf> {
    match (
        env.var("XDG_STATE_HOME").filter(|v| v.starts_with('/')),
        env.var("HOME"),
    ) {
        (Some(x), _) => Ok(Path::new(x).join("ccmem")),
        (None, Some(h)) if !h.is_empty() => Ok(Path::new(h).join(".local/state/ccmem")),
        _ => anyhow::bail!(
            "neither XDG_STATE_HOME nor HOME is set: ccmem has nowhere to keep the backup of the \
             settings file"
        ),
    }
}

/// Install or uninstall: plan, show the diff, ask, write.
pub(super) fn run(a: Args, installing: bool, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let env = crate::cli::ClientArgs::default().client_env(process)?;
    let target = Target::of(&env, a.scope())?;
    let state = write::settings_state(&state_home(process)?, &target.real);
    // A write first finishes what an interrupted run left, then plans from the result; a dry
    // run takes no lock and changes nothing.
    let lock = if a.dry_run {
        None
    } else {
        let (lock, name) = write::lock_file(&target.real, &state, target.scope.create_mode())?;
        let lock = lock.stamped(crate::cli::tier::now(process)?);
        if let Some(r) = lock.recover()? {
            eprint_line(format_args!(
                "ccmem: {}",
                crate::render::writes::recovered_line(&r)
            ));
        }
        Some((lock, name))
    };
    let setup = Setup::plan(
        target,
        installing,
        &state,
        a.bin.as_deref(),
        process.exe(),
        process.var("PATH"),
    )?;
    let json = super::super::output::json();
    let mut out = super::super::output::stdout_plain();
    // The summary (JSON), or the notes and warnings, close every run.
    let report = |out: &mut Box<dyn Write>, written: bool| -> anyhow::Result<()> {
        if json {
            out.write_all(view::json(&setup, written).as_bytes())?;
        } else {
            out.write_all(view::notes(&setup).as_bytes())?;
            for w in view::warnings(&setup) {
                eprint_line(format_args!("{w}"));
            }
        }
        Ok(())
    };
    if setup.action == Action::Unchanged {
        if !json {
            out.write_all(view::unchanged(&setup).as_bytes())?;
        }
        report(&mut out, false)?;
        return Ok(ExitStatus::Clean);
    }
    if !json {
        out.write_all(view::change(&setup).as_bytes())?;
        out.flush()?;
    }
    if a.dry_run {
        report(&mut out, false)?;
        return Ok(ExitStatus::Clean);
    }
    if !a.yes && !confirm(&setup.target.path)? {
        report(&mut out, false)?;
        return Ok(ExitStatus::Error);
    }
    let Some((lock, name)) = lock else {
        anyhow::bail!("the lock is taken for a write");
    };
    setup.apply(&lock, name)?;
    drop(lock);
    if !json {
        out.write_all(view::done(&setup).as_bytes())?;
    }
    report(&mut out, true)?;
    Ok(ExitStatus::Clean)
}

fn confirm(path: &Path) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        eprint_line(format_args!(
            "ccmem: not writing {}: stdin is not a terminal; pass --yes to confirm",
            path.display()
        ));
        return Ok(false);
    }
    let _ = super::super::output::stderr().write_all(view::prompt(path).as_bytes());
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        return Ok(true);
    }
    eprint_line(format_args!("ccmem: nothing written"));
    Ok(false)
}
