//! `ccmem undo`: take back ccmem's writes, byte for byte, newest first. Each `tier --write`,
//! `add` and `undo` of a memory folder, and each `hook install` / `uninstall` of a settings
//! file (`--hook SCOPE`), is an operation of that place's undo history: `ccmem undo` takes
//! back the newest one still on disk, and again the one before it, up to the last
//! [`MAX_HISTORY`](crate::write::journal::MAX_HISTORY) operations; `--redo` applies the newest undone one again; `--list` shows
//! both. An undo whose file changed since (other than by added lines, which are kept) is
//! refused, naming the file.
//!
//! An interrupted write's journal: `--status` shows what recovery would do with it, file by
//! file; `--recover` applies it (completes or rolls back, as the journal and the files allow);
//! `--discard` drops it and leaves the files as they are. In a checked-in folder (a subagent's
//! memory, a git work tree) these are the only ways a journal is ever applied.
//!
//! The views, human and JSON, are `render::undo`'s.
//!
//! Exit status: 0 done (or nothing to do); with `--status`, 1 when a journal is pending; 2 an
//! error (the named file changed since, a record ccmem will not act on, a lock held).

use std::path::{Path, PathBuf};

use clap::ArgGroup;

use super::ClientArgs;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::hook::install::Scope;
use crate::render::undo::{Asked, Done, Status};
use crate::write::journal::STATE_DIR;
use crate::write::{self, Lock};

/// Take back ccmem's writes, newest first, byte for byte; see or settle an interrupted one.
#[derive(Debug, clap::Args)]
#[command(group(ArgGroup::new("what").args(["redo", "list", "status", "discard", "recover"])))]
pub(super) struct Args {
    /// The memory folder (default: the auto-memory folder of the current project).
    #[arg(value_name = "MEMORY_DIR", conflicts_with = "hook")]
    dir: Option<PathBuf>,
    /// Apply again the operation the newest `undo` took back.
    #[arg(long)]
    redo: bool,
    /// List the undo history: what `undo` (and `--redo`) would take back, newest first.
    #[arg(long)]
    list: bool,
    /// Show an interrupted write's journal and what recovery would do, file by file.
    #[arg(long)]
    status: bool,
    /// Drop an interrupted write's journal, leaving the files as they are.
    #[arg(long)]
    discard: bool,
    /// Apply an interrupted write's journal: complete it, or restore its files.
    #[arg(long)]
    recover: bool,
    /// Work on the settings file `hook install` writes (user, project or local) instead of a
    /// memory folder: its undo history holds each `hook install` and `uninstall`.
    #[arg(long, value_name = "SCOPE")]
    hook: Option<Scope>,
    #[command(flatten)]
    client: ClientArgs,
}

/// The place whose history the command works on.
struct Place {
    /// As the user named it.
    shown: PathBuf,
    /// The state folder.
    state: PathBuf,
    /// The folder its files are in (real).
    folder: PathBuf,
    /// A settings file: its path, and the mode it is created with.
    settings: Option<(PathBuf, u32)>,
}

impl Place {
    fn lock(&self) -> anyhow::Result<Lock> {
        Ok(match &self.settings {
            Some((path, mode)) => write::lock_file(path, &self.state, *mode)?.0,
            None => write::lock(&self.shown)?,
        })
    }
}

fn place(args: &Args, process: &ProcessEnv) -> anyhow::Result<Place> {
    if let Some(scope) = args.hook {
        let env = args.client.client_env(process)?;
        let (path, target) = scope.writable_file(&env)?;
        let state = write::settings_state(&super::hook::state_home(process)?, &target);
        let folder = target.parent().unwrap_or(Path::new("/")).to_owned();
        return Ok(Place {
            shown: path,
            state,
            folder,
            settings: Some((target, scope.create_mode())),
        });
    }
    let folder = super::tier::memory_dir(args.dir.clone(), &args.client, process)?;
    let real = folder.canonicalize().unwrap_or_else(|_| folder.clone());
    Ok(Place {
        state: real.join(STATE_DIR),
        shown: folder,
        folder: real,
        settings: None,
    })
}

/// Runs the command.
pub(super) fn run(args: Args, process: &ProcessEnv) -> anyhow::Result<ExitStatus> {
    let place = place(&args, process)?;
    if args.list {
        return list(&place);
    }
    if args.status {
        return status(&place);
    }
    let lock = place.lock()?.stamped(super::tier::now(process)?);
    let (asked, recovered, discarded, undone) = if args.discard {
        (Asked::Discard, None, lock.discard()?, None)
    } else if args.recover {
        (Asked::Recover, lock.recover()?, None, None)
    } else {
        let recovered = match &place.settings {
            Some(_) => lock.recover()?,
            None => crate::memory::pending::recover(&lock, &place.shown)?,
        };
        let (asked, undone) = if args.redo {
            (Asked::Redo, lock.redo()?)
        } else {
            (Asked::Undo, lock.undo()?)
        };
        (asked, recovered, None, Some(undone))
    };
    drop(lock);
    let shown = place.shown.display().to_string();
    let done = Done {
        shown: &shown,
        asked,
        recovered: recovered.as_ref(),
        discarded: discarded.as_ref(),
        undone: undone.as_ref(),
    };
    super::output::print_plain(&if super::output::json() {
        crate::render::undo::json(&done)
    } else {
        crate::render::undo::human(&done)
    })?;
    Ok(ExitStatus::Clean)
}

fn list(place: &Place) -> anyhow::Result<ExitStatus> {
    let history = write::history(&place.state, &place.folder, place.settings.is_some())?;
    let shown = place.shown.display().to_string();
    super::output::print_plain(&if super::output::json() {
        crate::render::undo::list_json(&shown, &history)
    } else {
        crate::render::undo::list_human(&shown, &history)
    })?;
    Ok(ExitStatus::Clean)
}

fn status(place: &Place) -> anyhow::Result<ExitStatus> {
    let shown = place.shown.display().to_string();
    let held = match place.settings {
        Some(_) => None,
        None => crate::memory::pending::checked_in(&place.shown),
    };
    // A settings file's journal is in ccmem's state home: only its presence is told here.
    let (preview, error) = match &place.settings {
        Some(_) => (None, None),
        None => match write::preview(&place.shown) {
            Ok(p) => (p, None),
            Err(e) => (None, Some(e.cause())),
        },
    };
    let pending = preview.is_some()
        || error.is_some()
        || std::fs::symlink_metadata(place.state.join(write::journal::PENDING)).is_ok();
    let status = Status {
        shown: &shown,
        held: held.as_deref(),
        preview: preview.as_ref(),
        error: error.as_deref(),
        pending,
    };
    super::output::print_plain(&if super::output::json() {
        crate::render::undo::status_json(&status)
    } else {
        crate::render::undo::status_human(&status)
    })?;
    Ok(ExitStatus::findings_if(pending))
}
