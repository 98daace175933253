//! An interrupted ccmem write in a memory folder, as every reader reports it.
//!
//! A `tier --write`, `add` or `undo` killed between its first and last rename leaves
//! `.ccmem/journal.json` (see `crate::write::journal`). The next ccmem write finishes it or
//! rolls it back before doing anything else; until then the files on disk are half of one
//! state and half of another. Readers never recover (they hold no lock and write nothing): they
//! ask [`crate::write::preview`] what recovery will leave, `audit` audits that state, and
//! `receipt`, `budget` and the hooks say that the folder is mid-operation.

use std::path::Path;

use serde::Serialize;

/// What recovery will do with the interrupted operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "recovery", rename_all = "kebab-case")]
pub enum Recovery {
    /// Every new file is ready: recovery finishes the operation.
    Finish,
    /// Recovery restores the files the operation had already replaced.
    RollBack,
    /// The journal cannot be read; recovery will refuse until it is looked at.
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
}

/// The preview of recovery: what each file of the operation will hold (`None`: absent).
pub(crate) type Restored = Vec<(String, Option<Vec<u8>>)>;

/// The interrupted operation in `folder`, if any, and what its files will hold after recovery.
/// Reads only (one `stat` when there is none).
pub(crate) fn find(folder: &Path) -> Option<(Pending, Restored)> {
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
                files: p.files.iter().map(|(n, _)| n.clone()).collect(),
            },
            p.files,
        )),
        Err(e) => Some((
            Pending {
                op: "?".to_owned(),
                recovery: Recovery::Unreadable {
                    error: e.to_string(),
                },
                files: Vec::new(),
            },
            Vec::new(),
        )),
    }
}

/// The interrupted operation in `folder`, for readers that only report it.
pub fn pending(folder: &Path) -> Option<Pending> {
    find(folder).map(|(p, _)| p)
}

/// The interrupted operation in a session's auto-memory folder, if it has one.
pub fn of_session(session: &crate::load::Session) -> Option<Pending> {
    let folder = session.automem.folder.as_deref()?;
    pending(Path::new(folder))
}

impl Pending {
    /// One sentence for any reader.
    pub fn message(&self) -> String {
        let next = "the next `ccmem tier --write`, `ccmem add` or `ccmem undo` completes it first";
        match &self.recovery {
            Recovery::Finish => format!(
                "an interrupted `{}` left {} file(s) half-written ({}); recovery will finish it: {next}",
                self.op,
                self.files.len(),
                self.files.join(", ")
            ),
            Recovery::RollBack => format!(
                "an interrupted `{}` left {} file(s) half-written ({}); recovery will restore them: {next}",
                self.op,
                self.files.len(),
                self.files.join(", ")
            ),
            Recovery::Unreadable { error } => format!(
                "an interrupted ccmem write left a journal that cannot be read ({error}); look at \
                 .ccmem/journal.json before writing"
            ),
        }
    }
}
