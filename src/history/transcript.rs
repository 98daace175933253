//! One transcript read into its sessions: the client's record of what each run of a session had
//! at start, attached later, read, wrote and compacted (Claude Code 2.1.332's records; see
//! [`super::record`] for what each looks like).
//!
//! What the records say, as this client writes them (pinned by the captured histories in
//! `tests/oracle/history/`):
//! - The first `instructions` attachment of a run is its start block: every instruction file
//!   and MEMORY.md as the model got them (MEMORY.md cut, the client's warning appended).
//! - After a `compact_boundary` system record the client sends the start block again: that
//!   `instructions` attachment is a re-injection, not a start.
//! - `cost-state` is written when the process ends. A resumed session (`--continue`,
//!   `--resume ID`) appends to the same file, same id: the records after a `cost-state` are a
//!   new run. The model of a resumed run sees the conversation as recorded, so its start block is
//!   the session's first one; the client sends an `instructions` attachment again only with the
//!   files that changed since (kept as [`Session::resent`]). A `/clear` starts a new session id
//!   in a new file.
//! - `nested_memory` attachments are files attached after a read (nested CLAUDE.md, path rules).
//! - The first `prompt_snapshot` of a run holds the system prompt: its memory section names the
//!   memory folder (`persistent file-based memory at \`DIR\``); no section means auto memory off.
//! - A subagent writes its own transcript, `<session-id>/subagents/agent-<id>.jsonl`, beside a
//!   `.meta.json` naming its type; its system prompt's `## MEMORY.md` section is its own memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::entries::Today;
use super::lines::{Item, Lines};
use super::model::{Diagnostic, Event, Session, Subagent};
use super::record::{self, Envelope};

mod fold;
mod parts;

use fold::Fold;
pub use parts::{content_hash, split_warning};

/// What the scan of a transcript needs to know of the project.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// Today's MEMORY.md, whose lines are matched against each start block.
    pub today: Option<&'a Today>,
    /// The project's memory folder (with its trailing `/`): a Read inside it is a topic read.
    pub memory_folder: Option<&'a str>,
}

/// A transcript's sessions and what could not be read.
#[derive(Debug, Default)]
pub struct Scanned {
    /// Its runs, in file order.
    pub sessions: Vec<Session>,
    /// Diagnostics.
    pub diagnostics: Vec<Diagnostic>,
}

/// Opens a transcript without following a link and without blocking; only a regular file.
pub fn open(path: &Path) -> std::io::Result<(File, u64)> {
    let file = crate::sys::open_no_follow(std::fs::OpenOptions::new().read(true), path, true)?;
    let m = file.metadata()?;
    if !m.is_file() {
        return Err(std::io::Error::other(format!(
            "not a regular file ({})",
            crate::fsread::kind_of(&m)
        )));
    }
    Ok((file, m.len()))
}

/// Reads the main transcript at `path` (file name `<session-id>.jsonl`).
pub fn scan(path: &Path, ctx: Context<'_>) -> Scanned {
    let (_, fold) = read(path, ctx, false);
    let (runs, diagnostics) = fold.finish();
    Scanned {
        sessions: runs.into_iter().map(|(s, _)| s).collect(),
        diagnostics,
    }
}

/// Reads a subagent's transcript and its `.meta.json`.
pub fn scan_subagent(path: &Path, ctx: Context<'_>) -> (Subagent, Vec<Diagnostic>) {
    let (name, fold) = read(path, ctx, true);
    let kind = read_meta(&path.with_extension("meta.json"));
    let (runs, diagnostics) = fold.finish();
    let (run, memory) = runs.into_iter().next().unzip();
    let sub = Subagent {
        id: name.strip_prefix("agent-").unwrap_or(&name).to_owned(),
        kind,
        started: run.as_ref().and_then(|r| r.started.clone()),
        start: run
            .as_ref()
            .map(|r| {
                r.start
                    .iter()
                    .map(|f| Event {
                        path: f.path.clone(),
                        time: None,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        memory: memory.flatten(),
    };
    (sub, diagnostics)
}

/// The transcript at `path` read whole; the fold's id is the file name's stem.
fn read<'c>(path: &Path, ctx: Context<'c>, subagent: bool) -> (String, Fold<'c>) {
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut fold = Fold::new(path, &id, ctx, subagent);
    match open(path) {
        Ok((file, len)) => fold.read(file, len),
        Err(e) => fold.diag(None, format!("cannot read: {}", describe(&e))),
    }
    (id, fold)
}

/// The files of the start block recorded on the line at `offset` of the transcript at `path`,
/// with their content (read again for `--check`'s details).
pub fn start_files_at(path: &Path, offset: u64) -> Option<Vec<(String, String)>> {
    use std::io::{Seek, SeekFrom};
    let (mut file, len) = open(path).ok()?;
    file.seek(SeekFrom::Start(offset)).ok()?;
    let mut lines = Lines::new(file, len.saturating_sub(offset));
    let Ok(Some(Item::Line { bytes, .. })) = lines.next(|_, _| true) else {
        return None;
    };
    let mut scratch = Vec::new();
    let (env, _) = record::parse::<Envelope>(bytes, &mut scratch).ok()?;
    let att = serde_json::from_str::<record::Instructions>(env.attachment?.get()).ok()?;
    Some(
        att.files
            .into_iter()
            .map(|f| (f.path.into_owned(), f.content.into_owned()))
            .collect(),
    )
}

/// The subagent type its `.meta.json` names (at most 64 KiB read).
fn read_meta(path: &Path) -> Option<String> {
    let (file, _) = open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(64 << 10).read_to_end(&mut bytes).ok()?;
    serde_json::from_slice::<record::AgentMeta>(&bytes)
        .ok()?
        .agent_type
}

fn describe(e: &std::io::Error) -> String {
    match crate::sys::os_error(e) {
        Some(crate::sys::OsError::Loop) => "a symbolic link (not followed)".into(),
        _ => crate::write::describe_io(e),
    }
}

#[cfg(test)]
mod tests;
