//! `hook install` / `uninstall` on one settings file, as the command runs them: which file (and
//! which file a link leads to), what is refused before anything is read or written, the plan
//! from the bytes read the way the client reads them, the action it comes to, and the write
//! through the one writer. The command takes the lock, asks, and renders.

use std::path::{Path, PathBuf};

use super::{ENTRIES, Plan, Resolved, Scope, is_empty_object, plan_install, plan_uninstall};
use crate::constants::{Bytes, Count, MAX_SETTINGS_BYTES};
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::write::{self, Change, Hash, Lock, Undone};

/// The settings file a scope names, and the file it really is.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The scope.
    pub scope: Scope,
    /// The settings file, absolute.
    pub path: PathBuf,
    /// The file written: `path`, or the file its link leads to.
    pub real: PathBuf,
}

impl Target {
    /// The settings file of `scope` for `env`. A project's file that is a link out of the
    /// repository is refused: the repository ships the link, and the file it leads to is not
    /// the project's.
    pub(crate) fn of(env: &ClientEnv, scope: Scope) -> anyhow::Result<Target> {
        let (path, real) = scope.writable_file(env)?;
        Ok(Target { scope, path, real })
    }

    /// The file as the diff names it: `path`, or `path -> file` through a link.
    fn shown(&self) -> String {
        if self.path == self.real {
            self.path.display().to_string()
        } else {
            let real = crate::load::git::normalize(&self.real);
            format!("{} -> {}", self.path.display(), real.display())
        }
    }
}

/// What the command does to the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Nothing: already installed (or not installed, for uninstall).
    Unchanged,
    /// These bytes replace the file's.
    Write(Vec<u8>),
    /// Uninstall right after an install nothing else touched: the install is undone (the bytes
    /// from before it come back, or the file and folders it created go).
    Restore(Option<Vec<u8>>),
    /// The file goes (install created it, and nothing but ccmem's hooks is left).
    Delete,
}

impl Action {
    /// Its name in the JSON summary.
    pub(crate) fn name(&self) -> &'static str {
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

/// An install or uninstall, planned.
#[derive(Debug)]
pub(crate) struct Setup {
    /// The file.
    pub target: Target,
    /// Installing (else uninstalling).
    pub installing: bool,
    /// The file's bytes as read (`None`: no file).
    pub before: Option<Vec<u8>>,
    /// The hooks' program and why (install only).
    pub resolved: Option<Resolved>,
    /// The edit and its notes.
    pub plan: Plan,
    /// What it comes to.
    pub action: Action,
    /// The unified diff of the change.
    pub diff: String,
}

impl Setup {
    /// Plans install (`installing`) or uninstall on `target`, whose undo history is in
    /// `state`. `bin`: `--bin`; `exe`: the running binary; `path_var`: `$PATH`.
    pub(crate) fn plan(
        target: Target,
        installing: bool,
        state: &Path,
        bin: Option<&str>,
        exe: Option<&Path>,
        path_var: Option<&str>,
    ) -> anyhow::Result<Setup> {
        let before = read_settings(&target)?;
        refuse_read_only(&target)?;
        let resolved = installing
            .then(|| super::resolve_bin(bin, exe, path_var))
            .transpose()
            .map_err(|e| anyhow::anyhow!("{e}; nothing written"))?;
        let plan = match &resolved {
            Some(r) => plan_install(before.as_deref(), &r.bin, ENTRIES),
            None => plan_uninstall(before.as_deref()),
        }
        .map_err(|e| anyhow::anyhow!("{}: {e}", target.path.display()))?;
        let last_install = last_install(state, &target.real)?;
        let action = match plan.after.clone() {
            None => Action::Unchanged,
            Some(after) if installing => Action::Write(after),
            Some(after) => match last_install {
                // The file is exactly what the last install wrote: give back what it replaced.
                Some((new, old)) if before.as_deref().map(Hash::of).as_ref() == Some(&new) => {
                    Action::Restore(old)
                }
                Some((_, None)) if is_empty_object(&after) => Action::Delete,
                _ => Action::Write(after),
            },
        };
        let text = |b: Option<&[u8]>| String::from_utf8_lossy(b.unwrap_or_default()).into_owned();
        let diff = super::diff(
            &target.shown(),
            &text(before.as_deref()),
            &text(action.after(before.as_deref())),
        );
        Ok(Setup {
            target,
            installing,
            before,
            resolved,
            plan,
            action,
            diff,
        })
    }

    /// The warnings for the user (a hook program that would not start).
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.resolved
            .iter()
            .filter_map(|r| r.warning.clone())
            .collect()
    }

    /// Writes the action through the lock (`name`: the file's name there), as one operation
    /// of the file's undo history.
    pub(crate) fn apply(&self, lock: &Lock, name: String) -> anyhow::Result<()> {
        let expect = self.before.as_deref().map(Hash::of);
        let op = if self.installing {
            "hook install"
        } else {
            "hook uninstall"
        };
        let new = match &self.action {
            Action::Unchanged => return Ok(()),
            Action::Write(bytes) => Some(bytes.clone()),
            Action::Delete => None,
            Action::Restore(_) => {
                return match lock.undo_last_done()? {
                    Undone::Reversed(_) => Ok(()),
                    Undone::Nothing { why, .. } => {
                        anyhow::bail!("{}: {why}", self.target.path.display())
                    }
                };
            }
        };
        lock.apply(op, &[Change { name, expect, new }])?;
        Ok(())
    }
}

/// The settings file's bytes (`None`: no file), read the way the client reads it: through
/// links, never blocking on a FIFO, refusing what the client would not load.
fn read_settings(t: &Target) -> anyhow::Result<Option<Vec<u8>>> {
    let shown = if t.path == t.real {
        t.path.display().to_string()
    } else {
        format!("{} (→ {})", t.path.display(), t.real.display())
    };
    match fsread::read_capped(&t.real, MAX_SETTINGS_BYTES) {
        Ok(b) => Ok(Some(b)),
        Err(Unread::Missing) => Ok(None),
        Err(Unread::NotRegular(kind)) => anyhow::bail!(
            "{shown}: is not a regular file ({kind}); the client does not load it either, and \
             ccmem never writes to one: replace it with a regular file"
        ),
        Err(Unread::TooLarge(n)) => anyhow::bail!(
            "{shown}: is {} bytes, over the client's {} limit for a settings file: the client \
             loads none of it (its hooks would never run); nothing written",
            Count(n as usize),
            Bytes(MAX_SETTINGS_BYTES)
        ),
        Err(Unread::Unreadable(e)) => {
            anyhow::bail!("{shown}: cannot be read: {}", write::describe_io(&e))
        }
    }
}

/// The last install recorded for this settings file (the newest operation of its undo
/// history): (hash it wrote, bytes it replaced).
fn last_install(state: &Path, target: &Path) -> anyhow::Result<Option<(Hash, Option<Vec<u8>>)>> {
    let folder = target.parent().unwrap_or(Path::new("/"));
    let Ok(history) = write::history(state, folder, true) else {
        return Ok(None);
    };
    let Some(j) = history.done.last().filter(|j| j.op == "hook install") else {
        return Ok(None);
    };
    let Some(e) = j.entries.first() else {
        return Ok(None);
    };
    let Some(new) = e.new.clone() else {
        return Ok(None);
    };
    let old = match &e.old {
        Some(h) => match write::backup(state, h)? {
            Some(b) => Some(b),
            None => return Ok(None),
        },
        None => None,
    };
    Ok(Some((new, old)))
}

/// A read-only settings file (no owner write bit) is refused, dry run included.
fn refuse_read_only(t: &Target) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::metadata(&t.real) else {
        return Ok(());
    };
    let mode = crate::sys::mode(&meta);
    if meta.is_file() && mode & 0o200 == 0 {
        let shown = if t.path == t.real {
            t.path.display().to_string()
        } else {
            format!("{} (-> {})", t.path.display(), t.real.display())
        };
        anyhow::bail!(
            "{shown}: is read-only (mode {mode:04o}); ccmem does not replace a read-only file: \
             make it writable (`chmod u+w`) if the change is wanted; nothing written"
        );
    }
    Ok(())
}
