//! `ccmem hook install` / `uninstall`: plan the settings edit, show its diff, ask, write it
//! through the one writer.
//!
//! JSON (`--json`): `{schema: "ccmem.hook-install/1", path, target, scope, action, written,
//! bin, bin_why, warnings, notes, diff}`; `action` is `unchanged`, `write`, `restore` (uninstall
//! after an unchanged install: the bytes from before it) or `delete` (install created the file).

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use clap::ArgGroup;
use serde::Serialize;

use crate::constants::MAX_SETTINGS_BYTES;
use crate::env::ProcessEnv;
use crate::exit::ExitStatus;
use crate::fsread::{self, Unread};
use crate::hook::install::{self, ENTRIES, Scope};
use crate::write::{self, Change, Hash, Undone};

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
    /// The program the hooks run (install only) [default: the absolute path of `ccmem` on PATH
    /// when that is this binary, else this binary's].
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

#[derive(Serialize)]
struct Summary<'a> {
    schema: &'static str,
    path: String,
    target: String,
    scope: Scope,
    action: &'a str,
    written: bool,
    bin: Option<String>,
    bin_why: Option<String>,
    warnings: Vec<String>,
    notes: Vec<String>,
    diff: String,
}

/// What the command will do to the file.
enum Action {
    Unchanged,
    Write(Vec<u8>),
    /// Uninstall right after an install nothing else touched: the install is undone (the bytes
    /// from before it come back, or the file and folders it created go).
    Restore(Option<Vec<u8>>),
    Delete,
}

impl Action {
    fn name(&self) -> &'static str {
        match self {
            Action::Unchanged => "unchanged",
            Action::Write(_) => "write",
            Action::Restore(_) => "restore",
            Action::Delete => "delete",
        }
    }

    fn after<'a>(&'a self, before: Option<&'a [u8]>) -> Option<&'a [u8]> {
        match self {
            Action::Unchanged => before,
            Action::Write(b) => Some(b),
            Action::Restore(b) => b.as_deref(),
            Action::Delete => None,
        }
    }
}

/// ccmem's state home: `$XDG_STATE_HOME/ccmem`, else `~/.local/state/ccmem`.
fn state_home(env: &ProcessEnv) -> anyhow::Result<PathBuf> {
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
    let scope = a.scope();
    let path = std::path::absolute(scope.path(&env))?;
    let target = write::resolve(&path)?;
    let state = write::settings_state(&state_home(process)?, &target);
    // A write first finishes what an interrupted run left, then plans from the result; a dry
    // run takes no lock and changes nothing.
    let lock = if a.dry_run {
        None
    } else {
        let (lock, name) = write::lock_file(&path, &state, scope.create_mode())?;
        if let Some(r) = lock.recover()? {
            eprintln!("ccmem: {}", crate::cli::tier_recovered_line(&r));
        }
        Some((lock, name))
    };
    let before = read_settings(&path, &target)?;
    let resolved = installing
        .then(|| install::resolve_bin(a.bin.as_deref(), process.exe(), process.var("PATH")));
    let plan = match &resolved {
        Some(r) => install::plan_install(before.as_deref(), &r.bin, ENTRIES),
        None => install::plan_uninstall(before.as_deref()),
    }
    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let last_install = last_install(&state)?;
    let action = match plan.after {
        None => Action::Unchanged,
        Some(after) if installing => Action::Write(after),
        Some(after) => match &last_install {
            // The file is exactly what the last install wrote: give back what it replaced.
            Some((new, old)) if before.as_deref().map(Hash::of).as_ref() == Some(new) => {
                Action::Restore(old.clone())
            }
            Some((_, None)) if install::is_empty_object(&after) => Action::Delete,
            _ => Action::Write(after),
        },
    };
    let mut warnings = Vec::new();
    if let Some(w) = resolved.as_ref().and_then(|r| r.warning.clone()) {
        warnings.push(w);
    }
    let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
    let diff = install::diff(
        &path,
        &text(before.as_deref()),
        &text(action.after(before.as_deref())),
    );
    let summary = |written: bool| Summary {
        schema: "ccmem.hook-install/1",
        path: path.display().to_string(),
        target: target.display().to_string(),
        scope,
        action: action.name(),
        written,
        bin: resolved.as_ref().map(|r| r.bin.clone()),
        bin_why: resolved.as_ref().map(|r| r.why.clone()),
        warnings: warnings.clone(),
        notes: plan.notes.clone(),
        diff: diff.clone(),
    };
    let mut out = super::super::output::stdout_plain();
    let report = |out: &mut Box<dyn Write>, written: bool| -> anyhow::Result<()> {
        if super::super::output::json() {
            writeln!(out, "{}", serde_json::to_string_pretty(&summary(written))?)?;
        } else {
            for n in &plan.notes {
                writeln!(out, "note: {n}")?;
            }
            for w in &warnings {
                eprintln!("ccmem: warning: {w}");
            }
        }
        Ok(())
    };
    if matches!(action, Action::Unchanged) {
        if !super::super::output::json() {
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
    if !super::super::output::json() {
        out.write_all(diff.as_bytes())?;
        match &action {
            Action::Delete | Action::Restore(None) => {
                writeln!(out, "(the file is removed: ccmem's install created it)")?
            }
            Action::Restore(Some(_)) => writeln!(
                out,
                "(the file is put back byte for byte as it was before ccmem's install)"
            )?,
            _ => {}
        }
        if let Some(r) = &resolved {
            writeln!(out, "hooks run: {} ({})", r.bin, r.why)?;
        }
        out.flush()?;
    }
    if a.dry_run {
        report(&mut out, false)?;
        return Ok(ExitStatus::Clean);
    }
    if !a.yes && !confirm(&path)? {
        report(&mut out, false)?;
        return Ok(ExitStatus::Error);
    }
    let Some((lock, name)) = lock else {
        anyhow::bail!("the lock is taken for a write");
    };
    let expect = before.as_deref().map(Hash::of);
    let op = if installing {
        "hook install"
    } else {
        "hook uninstall"
    };
    match &action {
        Action::Unchanged => {}
        Action::Write(bytes) => {
            let new = Some(bytes.clone());
            lock.apply(op, &[Change { name, expect, new }])?;
        }
        Action::Delete => {
            lock.apply(
                op,
                &[Change {
                    name,
                    expect,
                    new: None,
                }],
            )?;
        }
        Action::Restore(_) => match lock.undo()? {
            Undone::Reversed(_) => {}
            Undone::Nothing { why, .. } => anyhow::bail!("{}: {why}", path.display()),
        },
    }
    drop(lock);
    if !super::super::output::json() {
        writeln!(out, "ccmem: {} {}", action.name(), path.display())?;
    }
    report(&mut out, true)?;
    Ok(ExitStatus::Clean)
}

/// The settings file's bytes (`None`: no file), read the way the client reads it: through
/// links, never blocking on a FIFO, refusing what the client would not load.
fn read_settings(path: &Path, target: &Path) -> anyhow::Result<Option<Vec<u8>>> {
    let shown = if path == target {
        path.display().to_string()
    } else {
        format!("{} (→ {})", path.display(), target.display())
    };
    match fsread::read_capped(target, MAX_SETTINGS_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(Unread::Missing) => Ok(None),
        Err(Unread::NotRegular(kind)) => anyhow::bail!(
            "{shown}: is not a regular file ({kind}); the client does not load it either, and \
             ccmem never writes to one: replace it with a regular file"
        ),
        Err(Unread::TooLarge(n)) => anyhow::bail!(
            "{shown}: is {n} bytes, over the client's {MAX_SETTINGS_BYTES}-byte limit for a \
             settings file: the client loads none of it (its hooks would never run); nothing \
             written"
        ),
        Err(Unread::Unreadable(e)) => {
            anyhow::bail!("{shown}: cannot be read: {}", write::describe_io(&e))
        }
    }
}

/// The last install recorded for this settings file: (hash it wrote, bytes it replaced).
fn last_install(state: &Path) -> anyhow::Result<Option<(Hash, Option<Vec<u8>>)>> {
    let paths = write::journal::Paths::in_dir(state.to_owned());
    let Ok(bytes) = std::fs::read(&paths.last) else {
        return Ok(None);
    };
    let Ok(j) = write::journal::Journal::parse(&paths.last, &bytes) else {
        return Ok(None);
    };
    if j.op != "hook install" || j.outcome != write::journal::Outcome::Committed {
        return Ok(None);
    }
    let Some(e) = j.entries.first() else {
        return Ok(None);
    };
    let Some(new) = e.new.clone() else {
        return Ok(None);
    };
    let old = match &e.old {
        Some(h) => match std::fs::read(paths.backup_of(h)) {
            Ok(b) if &Hash::of(&b) == h => Some(b),
            _ => return Ok(None),
        },
        None => None,
    };
    Ok(Some((new, old)))
}

fn confirm(path: &Path) -> anyhow::Result<bool> {
    if !std::io::stdin().is_terminal() {
        eprintln!(
            "ccmem: not writing {}: stdin is not a terminal; pass --yes to confirm",
            path.display()
        );
        return Ok(false);
    }
    eprint!("Write {}? [y/N] ", path.display());
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    if matches!(answer.trim(), "y" | "Y" | "yes") {
        return Ok(true);
    }
    eprintln!("ccmem: nothing written");
    Ok(false)
}
