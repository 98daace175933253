//! `ccmem undo`: what was taken back (or redone, recovered, discarded), the undo history, and an
//! interrupted write's journal, for a person or as JSON.
//!
//! JSON: `ccmem.undo/1` `{folder, recovered, discarded, undone: {action: "reversed", op, files,
//! merged} | {action: "nothing", op, why} | null}`; `ccmem.undo-list/1` `{folder, max, done:
//! [{op, started, files}], undone: [...]}` (newest first); `ccmem.undo-status/1` `{folder,
//! held, error, pending: {op, started, recovery, files: [{name, action}]} | null}`.

use std::fmt::Write as _;

use serde::Serialize;

use crate::write::journal::{History, Journal, MAX_HISTORY};
use crate::write::{Action, Discarded, Preview, Recovered, Undone};

/// What `undo` was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// Take back the newest operation.
    Undo,
    /// Apply again the newest undone one.
    Redo,
    /// Apply an interrupted write's journal.
    Recover,
    /// Drop it.
    Discard,
}

/// What `undo` did at the place it worked on (`shown`, as the user named it).
#[derive(Debug, Clone, Copy)]
pub struct Done<'a> {
    /// The folder or settings file, as the user named it.
    pub shown: &'a str,
    /// What was asked.
    pub asked: Asked,
    /// What recovery did first (or, with `--recover`, at all).
    pub recovered: Option<&'a Recovered>,
    /// What `--discard` dropped.
    pub discarded: Option<&'a Discarded>,
    /// What `undo` or `--redo` did.
    pub undone: Option<&'a Undone>,
}

#[derive(Serialize)]
struct DoneView<'a> {
    folder: &'a str,
    recovered: Option<&'a Recovered>,
    discarded: Option<&'a Discarded>,
    undone: Option<&'a Undone>,
}

/// What `undo` did, as JSON.
pub fn json(d: &Done<'_>) -> String {
    let view = DoneView {
        folder: d.shown,
        recovered: d.recovered,
        discarded: d.discarded,
        undone: d.undone,
    };
    super::json::document("ccmem.undo/1", &view)
}

/// What `undo` did, for a person.
pub fn human(d: &Done<'_>) -> String {
    let mut out = String::new();
    let _ = write_human(&mut out, d);
    out
}

fn write_human(out: &mut String, d: &Done<'_>) -> std::fmt::Result {
    let shown = d.shown;
    if let Some(r) = d.recovered {
        writeln!(out, "{}", super::writes::recovered_line(r))?;
    } else if d.asked == Asked::Recover {
        writeln!(out, "{shown}: no interrupted ccmem write to recover")?;
    }
    if d.asked == Asked::Discard {
        match d.discarded {
            Some(x) if x.temps.is_empty() => writeln!(
                out,
                "{shown}: dropped the journal of the interrupted `{}`; its files are left as they \
                 are",
                x.op
            )?,
            Some(x) => writeln!(
                out,
                "{shown}: dropped the journal of the interrupted `{}` and its temp files ({}); its \
                 files are left as they are",
                x.op,
                x.temps.join(", ")
            )?,
            None => writeln!(out, "{shown}: no interrupted ccmem write here")?,
        }
    }
    match d.undone {
        Some(Undone::Reversed(a)) => {
            let verb = if d.asked == Asked::Redo {
                "redid"
            } else {
                "undid"
            };
            let what = a.op.strip_prefix("undo of ").unwrap_or(&a.op);
            writeln!(
                out,
                "{shown}: {verb} `{what}` ({} files restored)",
                a.files.len()
            )?;
            for f in &a.files {
                writeln!(out, "  {f}")?;
            }
            for m in &a.merged {
                writeln!(
                    out,
                    "  kept {} line(s) another writer added to {} since",
                    m.lines, m.file
                )?;
            }
        }
        Some(Undone::Nothing { why, .. }) => writeln!(out, "{shown}: {why}")?,
        None => {}
    }
    Ok(())
}

#[derive(Serialize)]
struct OpView<'a> {
    op: &'a str,
    started: &'a str,
    files: Vec<&'a str>,
}

impl<'a> OpView<'a> {
    fn of(j: &'a Journal) -> Self {
        OpView {
            op: &j.op,
            started: &j.started,
            files: j.entries.iter().map(|e| e.name.as_str()).collect(),
        }
    }
}

#[derive(Serialize)]
struct ListView<'a> {
    folder: &'a str,
    max: usize,
    done: Vec<OpView<'a>>,
    undone: Vec<OpView<'a>>,
}

/// `undo --list` as JSON (newest first).
pub fn list_json(shown: &str, h: &History) -> String {
    let view = ListView {
        folder: shown,
        max: MAX_HISTORY,
        done: h.done.iter().rev().map(OpView::of).collect(),
        undone: h.undone.iter().rev().map(OpView::of).collect(),
    };
    super::json::document("ccmem.undo-list/1", &view)
}

/// `undo --list` for a person: what `undo` takes back, then what `--redo` applies again.
pub fn list_human(shown: &str, h: &History) -> String {
    let mut out = String::new();
    let line = |op: &str, j: &Journal| {
        let files: Vec<&str> = j.entries.iter().map(|e| e.name.as_str()).collect();
        format!(
            "`{op}` ({}): {} file(s): {}",
            j.started,
            files.len(),
            files.join(", ")
        )
    };
    if h.done.is_empty() {
        let _ = writeln!(out, "{shown}: nothing ccmem wrote here can be undone");
    } else {
        let _ = writeln!(
            out,
            "{shown}: `ccmem undo` takes these back, newest first (the last {MAX_HISTORY} are kept):"
        );
        for (i, j) in h.done.iter().rev().enumerate() {
            let _ = writeln!(out, "  {}. {}", i + 1, line(&j.op, j));
        }
    }
    if !h.undone.is_empty() {
        out.push_str("`ccmem undo --redo` applies these again, newest first:\n");
        for (i, j) in h.undone.iter().rev().enumerate() {
            let op = j.undo_of.as_deref().unwrap_or(&j.op);
            let _ = writeln!(out, "  {}. {}", i + 1, line(op, j));
        }
    }
    out
}

/// What `undo --status` found at the place it looked.
#[derive(Debug, Clone, Copy)]
pub struct Status<'a> {
    /// The folder or settings file, as the user named it.
    pub shown: &'a str,
    /// Why the folder is checked in, where a journal is never applied by itself.
    pub held: Option<&'a str>,
    /// What recovery would do, file by file.
    pub preview: Option<&'a Preview>,
    /// The journal ccmem will not act on, and why.
    pub error: Option<&'a str>,
    /// A journal is pending (a settings file's is only known to be there).
    pub pending: bool,
}

#[derive(Serialize)]
struct FileAction<'a> {
    name: &'a str,
    action: Action,
}

#[derive(Serialize)]
struct PendingView<'a> {
    op: &'a str,
    started: &'a str,
    recovery: &'static str,
    files: Vec<FileAction<'a>>,
}

#[derive(Serialize)]
struct StatusView<'a> {
    folder: &'a str,
    held: Option<&'a str>,
    error: Option<&'a str>,
    pending: Option<PendingView<'a>>,
}

/// `undo --status` as JSON.
pub fn status_json(s: &Status<'_>) -> String {
    let pending = s.preview.map(|p| PendingView {
        op: &p.op,
        started: &p.started,
        recovery: if p.forward { "finish" } else { "roll-back" },
        files: (p.files.iter())
            .map(|f| FileAction {
                name: &f.name,
                action: f.action,
            })
            .collect(),
    });
    let view = StatusView {
        folder: s.shown,
        held: s.held,
        error: s.error,
        pending,
    };
    super::json::document("ccmem.undo-status/1", &view)
}

/// `undo --status` for a person: the journal's operation, what recovery would do with each
/// file, and the two commands that settle it.
pub fn status_human(s: &Status<'_>) -> String {
    let mut out = String::new();
    let shown = s.shown;
    let dir = shell_words::quote(shown).into_owned();
    if let Some(e) = s.error {
        let _ = writeln!(out, "{e}");
        let _ = writeln!(
            out,
            "ccmem will not act on it; drop it with `ccmem undo --discard {dir}`"
        );
    } else if let Some(p) = s.preview {
        let _ = writeln!(
            out,
            "{shown}: an interrupted `{}` (started {}) left a journal; recovery would {}:",
            p.op,
            p.started,
            if p.forward {
                "finish it"
            } else {
                "restore its files"
            }
        );
        for f in &p.files {
            let _ = writeln!(out, "  {}: {}", f.name, f.action.describe());
        }
        if let Some(why) = s.held {
            let _ = writeln!(
                out,
                "This folder is {why}: ccmem does not apply the journal by itself."
            );
        }
        let _ = writeln!(
            out,
            "Apply it: `ccmem undo --recover {dir}` · drop it (the files stay as they are): \
             `ccmem undo --discard {dir}`"
        );
    } else if s.pending {
        let _ = writeln!(
            out,
            "{shown}: an interrupted `hook` write left a journal; `ccmem undo --recover \
             --hook …` applies it, `--discard` drops it"
        );
    } else {
        let _ = writeln!(out, "{shown}: no interrupted ccmem write here");
    }
    out
}
