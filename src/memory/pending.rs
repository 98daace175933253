//! An interrupted ccmem write in a memory folder, as every reader reports it.
//!
//! A `tier --write`, `add` or `undo` killed between its first and last rename leaves
//! `.ccmem/journal.json` (see `crate::write::journal`). In a folder of the user's own, the next
//! ccmem write finishes it or rolls it back before doing anything else; until then the files on
//! disk are half of one state and half of another. In a checked-in folder ([`checked_in`]: a
//! subagent's memory, anything inside a git work tree) a journal is never applied by itself: a
//! repository can ship one, so ccmem says what it found and how to look at it (`ccmem undo
//! --status`) and apply (`--recover`) or drop (`--discard`) it.
//!
//! Readers never recover (they hold no lock and write nothing). `audit` asks
//! [`crate::write::preview`] what recovery will leave in a folder of the user's own and audits
//! that state; `receipt`, `budget`, the hooks and the status line read the journal alone
//! ([`crate::write::peek`]: bounded, none of the files it names) and say that the folder is
//! mid-operation.

use std::path::Path;

use serde::Serialize;

use crate::write::{Lock, Recovered, WriteError};

/// Files a pending journal's one-line message names; the rest are counted ("and N more").
/// A journal is state anyone can drop in a folder, and the message reaches the session-start
/// hook's `systemMessage` and the audit: 3,000 long names made it 753 KB.
pub const MAX_NAMED_FILES: usize = 5;

/// What recovery will do with the interrupted operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "recovery", rename_all = "kebab-case")]
pub enum Recovery {
    /// Every new file is ready: recovery finishes the operation.
    Finish,
    /// Recovery restores the files the operation had already replaced.
    RollBack,
    /// Not worked out: only the journal was read (`ccmem undo --status` works it out).
    Unchecked,
    /// The journal cannot be read or breaks ccmem's rules: nothing will be done with it.
    Unreadable {
        /// Why.
        error: String,
    },
}

/// An interrupted operation in a memory folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pending {
    /// The operation (`tier`, `add feedback_x.md`, `undo of tier`); `?` when unreadable.
    pub op: String,
    /// What recovery will do.
    #[serde(flatten)]
    pub recovery: Recovery,
    /// The files the operation touches.
    pub files: Vec<String>,
    /// Why ccmem will not recover it by itself (the folder is checked in); `None`: the next
    /// ccmem write in the folder does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// The memory folder, as the commands that deal with it are given it.
    #[serde(skip)]
    pub folder: String,
}

/// The preview of recovery: what each file of the operation will hold (`None`: absent).
pub(crate) type Restored = Vec<(String, Option<Vec<u8>>)>;

/// Why `folder` counts as checked in, where a journal is never recovered by itself (`None`: it
/// is the user's own): a subagent's memory folder (`…/agent-memory/NAME`, meant to be checked
/// in, or `…/agent-memory-local/NAME`), or a folder inside a git work tree.
pub fn checked_in(folder: &Path) -> Option<String> {
    if crate::load::agent::memory::is_folder(folder) {
        return Some(
            "a subagent's memory folder (project agent memory is meant to be checked in)"
                .to_owned(),
        );
    }
    let real = folder.canonicalize().ok()?;
    crate::load::git::git_root(&real)
        .map(|root| format!("inside the git work tree {}", root.display()))
}

/// Recovers what an interrupted write left in `folder` before a write command (`tier --write`,
/// `add`, `undo`) goes on, under its lock. In a checked-in folder ([`checked_in`]) a pending
/// journal is never applied by itself: the command stops with [`WriteError::Held`], which says
/// what to do instead.
pub fn recover(lock: &Lock, folder: &Path) -> Result<Option<Recovered>, WriteError> {
    if lock.has_journal()?
        && let Some(why) = checked_in(folder)
    {
        let op = pending(folder).map_or_else(|| "?".to_owned(), |p| p.op);
        return Err(WriteError::Held {
            folder: folder.to_owned(),
            op,
            why,
        });
    }
    lock.recover()
}

fn unreadable(folder: &Path, error: String) -> Pending {
    Pending {
        op: "?".to_owned(),
        recovery: Recovery::Unreadable { error },
        files: Vec::new(),
        held: checked_in(folder),
        folder: folder.display().to_string(),
    }
}

/// The interrupted operation in `folder`, if any, and what its files will hold after recovery
/// (nothing restored in a checked-in folder, which recovery does not touch by itself). Reads
/// only (one `lstat` when there is none).
pub(crate) fn find(folder: &Path) -> Option<(Pending, Restored)> {
    if !crate::write::has_journal(folder) {
        return None;
    }
    if checked_in(folder).is_some() {
        return pending(folder).map(|p| (p, Vec::new()));
    }
    match crate::write::preview(folder) {
        Ok(None) => None,
        Ok(Some(p)) => Some((
            Pending {
                op: p.op,
                recovery: if p.forward {
                    Recovery::Finish
                } else {
                    Recovery::RollBack
                },
                files: p.files.iter().map(|f| f.name.clone()).collect(),
                held: None,
                folder: folder.display().to_string(),
            },
            p.files.into_iter().map(|f| (f.name, f.content)).collect(),
        )),
        Err(e) => Some((unreadable(folder, e.cause()), Vec::new())),
    }
}

/// The interrupted operation in `folder`, for readers that only report it: its journal alone
/// is read (at most 1 MiB), none of the files it names. One `lstat` when there is none.
pub fn pending(folder: &Path) -> Option<Pending> {
    if !crate::write::has_journal(folder) {
        return None;
    }
    match crate::write::peek(folder) {
        Ok(None) => None,
        Ok(Some(p)) => Some(Pending {
            op: p.op,
            recovery: Recovery::Unchecked,
            files: p.files,
            held: checked_in(folder),
            folder: folder.display().to_string(),
        }),
        Err(e) => Some(unreadable(folder, e.cause())),
    }
}

/// The interrupted operation in a session's auto-memory folder, if it has one.
pub fn of_session(session: &crate::load::Session) -> Option<Pending> {
    let folder = session.automem.folder.as_deref()?;
    pending(Path::new(folder))
}

impl Pending {
    /// One sentence for any reader.
    pub fn message(&self) -> String {
        let dir = shell_words::quote(self.folder.trim_end_matches('/')).into_owned();
        let status = format!("`ccmem undo --status {dir}`");
        let named = &self.files[..self.files.len().min(MAX_NAMED_FILES)];
        let more = match self.files.len() - named.len() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let files = format!("{} file(s) ({}{more})", self.files.len(), named.join(", "));
        if let Recovery::Unreadable { error } = &self.recovery {
            return format!(
                "an interrupted ccmem write left a journal that ccmem will not act on ({error}); \
                 see it with {status}, drop it with `ccmem undo --discard {dir}`"
            );
        }
        if let Some(why) = &self.held {
            return format!(
                "an interrupted `{}` left a journal naming {files} in this folder, which is \
                 {why}: ccmem never applies such a journal by itself; see what it would do with \
                 {status}, then apply it (`ccmem undo --recover {dir}`) or drop it (`ccmem undo \
                 --discard {dir}`)",
                self.op
            );
        }
        let next = "the next `ccmem tier --write`, `ccmem add` or `ccmem undo` here does it first";
        match &self.recovery {
            Recovery::Finish => format!(
                "an interrupted `{}` left {files} half-written; recovery will finish it ({status} \
                 shows it file by file): {next}",
                self.op
            ),
            Recovery::RollBack => format!(
                "an interrupted `{}` left {files} half-written; recovery will restore them \
                 ({status} shows it file by file): {next}",
                self.op
            ),
            _ => format!(
                "an interrupted `{}` left {files} half-written; {status} shows what recovery \
                 will do: {next}",
                self.op
            ),
        }
    }
}
