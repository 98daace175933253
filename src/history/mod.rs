//! What past sessions loaded, from the client's own record: `ccmem history`.
//!
//! Data flow: [`find::Project`] (the project the client would use in a directory: its root, its
//! linked worktrees, its memory folder; the loader's own slug and git-root logic) →
//! [`find::transcripts`] (its transcripts under `<config>/projects/`, never through a link) →
//! [`transcript::scan`] on each, in parallel (line by line, [`lines`]; records pre-filtered and
//! parsed borrowed, [`record`]) → [`model::Session`]s, one per run of the client → ccmem's own
//! log ([`log`]) for the sessions whose transcripts the client has deleted → sorted oldest
//! first → [`entries`] (every line of today's MEMORY.md with the last session that loaded it).
//! [`check`] compares each record with the loader's prediction; [`usage`] is the small API
//! other commands use (the receipt's dark entries, tier's ordering).
//!
//! Everything read here is untrusted: a transcript may be cut mid-line, hold bytes that are not
//! UTF-8, lines of any length, records of another client version or none of the ones read. Each
//! is a counted [`model::Diagnostic`], never an error: `history` shows what the record has.
//!
//! JSON schema (`schema: "ccmem.history/1"`, `docs/schemas/ccmem.history.1.schema.json`; fields
//! are only ever added within a version): `client_version` (modeled), `project` {`root`,
//! `worktrees[]`, `memory_folder`, `index_path`}, `sources` {`transcripts`, `log`,
//! `log_records`, `from_log`}, `sessions[]` (each a [`model::Session`]: `id`, `run`, `source`,
//! `started`, `ended`, `version`, `cwd`, `git_branch`, `transcript`, `start[]` {`path`, `kind`,
//! `lines`}, `memory_index` {`path`, `lines`, `warned`} or null, `resent[]`, `auto_memory`
//! {`state`, `folder`}, `lazy[]` / `topic_reads[]` {`path`, `time`}, `memory_writes[]` {`path`,
//! `tool`, `time`}, `compactions`, `subagents[]` {`id`, `type`, `started`, `start[]`, `memory`
//! {`state`, `lines`, `warned`, `folder`} or null}), `entries[]` {`line`, `text`, `last_loaded`,
//! `last_loaded_at`, `sessions_since`, `dark_since`}, `diagnostics[]` {`path`, `line`,
//! `message`}. `history --check --json` prints `ccmem.history-check/1`: [`check::Report`].

pub mod check;
pub mod entries;
pub mod find;
pub mod lines;
pub mod log;
pub mod model;
pub mod record;
pub mod transcript;
pub mod usage;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::env::ClientEnv;
use crate::settings::Settings;
pub use entries::Entry;
pub use model::{Diagnostic, Session, Source};

/// The versioned schema name of `history --json`.
pub const SCHEMA: &str = "ccmem.history/1";
/// The versioned schema name of `history --check --json`.
pub const CHECK_SCHEMA: &str = "ccmem.history-check/1";
/// Diagnostics listed at most (all are counted).
const MAX_DIAGNOSTICS: usize = 50;

/// The project a history is of.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectView {
    /// Its root (canonical git root, else the directory).
    pub root: String,
    /// Its linked worktrees.
    pub worktrees: Vec<String>,
    /// Its memory folder.
    pub memory_folder: Option<String>,
    /// Its MEMORY.md.
    pub index_path: Option<String>,
}

/// What was read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Sources {
    /// Transcripts read (main and subagent).
    pub transcripts: usize,
    /// ccmem's log, when there is one.
    pub log: Option<String>,
    /// Records in it.
    pub log_records: usize,
    /// Sessions known only from the log (their transcripts are gone).
    pub from_log: usize,
}

/// A project's recorded sessions and today's MEMORY.md lines.
#[derive(Debug, Clone, Serialize)]
pub struct History {
    /// The project.
    pub project: ProjectView,
    /// What was read.
    pub sources: Sources,
    /// Every session, oldest first.
    pub sessions: Vec<Session>,
    /// Every non-blank line of today's MEMORY.md.
    pub entries: Vec<Entry>,
    /// What could not be read (the first [`MAX_DIAGNOSTICS`]).
    pub diagnostics: Vec<Diagnostic>,
    /// How many diagnostics there were.
    pub diagnostics_total: usize,
}

/// How to read.
#[derive(Default)]
pub struct Options<'a> {
    /// ccmem's log (see [`log::path`]).
    pub log: Option<PathBuf>,
    /// Called once per transcript read (progress).
    pub tick: Option<&'a (dyn Fn() + Sync)>,
    /// Today's MEMORY.md when the caller read it already: its path as the client prints it,
    /// and its bytes (the receipt's, from the loader). Used when it is the project's index,
    /// instead of reading the file again.
    pub index: Option<(&'a str, &'a [u8])>,
}

/// Reads the history of the project the client would use in `env`'s start directory.
pub fn read(env: &ClientEnv, settings: &Settings, opts: &Options<'_>) -> History {
    let project = find::Project::of(env, settings);
    let index_path = project.index_path();
    let today = index_path.as_deref().and_then(|p| match opts.index {
        Some((path, bytes)) if path == p => Some(entries::Today::of(
            p,
            &crate::load::automem::index::decode(bytes),
        )),
        _ => entries::Today::read(&project.on_disk(p).to_string_lossy()).map(|mut t| {
            t.path = p.to_owned();
            t
        }),
    });
    let mut diagnostics = Vec::new();
    let found = find::transcripts(&project, &mut diagnostics);
    let ctx = transcript::Context {
        today: today.as_ref(),
        memory_folder: project.memory_folder.as_deref(),
    };
    let files = AtomicU64::new(0);
    let scanned: Vec<_> = found
        .par_iter()
        .map(|f| {
            let main = transcript::scan(&f.path, ctx);
            let subs: Vec<_> = f
                .subagents
                .iter()
                .map(|p| transcript::scan_subagent(p, ctx))
                .collect();
            files.fetch_add(1 + f.subagents.len() as u64, Ordering::Relaxed);
            if let Some(tick) = opts.tick {
                tick();
            }
            (f, main, subs)
        })
        .collect();
    let root_folder = crate::load::automem::slug::slug(&project.root.to_string_lossy());
    let mut sessions = Vec::new();
    for (f, main, subs) in scanned {
        let in_root_folder = f
            .path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n.to_string_lossy() == root_folder);
        let mut runs: Vec<Session> = main
            .sessions
            .into_iter()
            .filter(|s| match &s.cwd {
                Some(cwd) => project.holds(cwd),
                None => in_root_folder,
            })
            .collect();
        if runs.is_empty() {
            continue;
        }
        diagnostics.extend(main.diagnostics);
        for (sub, d) in subs {
            diagnostics.extend(d);
            let at = runs
                .iter()
                .rposition(|r| r.started.is_some() && r.started <= sub.started)
                .unwrap_or(0);
            runs[at].subagents.push(sub);
        }
        for r in &mut runs {
            r.subagents.sort_by(|a, b| a.started.cmp(&b.started));
        }
        sessions.extend(runs);
    }
    let mut sources = Sources {
        transcripts: files.load(Ordering::Relaxed) as usize,
        ..Sources::default()
    };
    if let Some(log_path) = &opts.log {
        let records = log::read(log_path, &mut diagnostics);
        sources.log = Some(log_path.to_string_lossy().into_owned());
        sources.log_records = records.len();
        let known: std::collections::HashSet<String> =
            sessions.iter().map(|s| s.id.clone()).collect();
        let mut runs: std::collections::HashMap<String, u32> = Default::default();
        for r in records
            .iter()
            .filter(|r| !known.contains(&r.session) && project.holds(&r.cwd))
        {
            let mut s = log::to_session(r, today.as_ref());
            let n = runs.entry(r.session.clone()).or_insert(0);
            *n += 1;
            s.run = *n;
            sessions.push(s);
            sources.from_log += 1;
        }
    }
    sessions.sort_by(|a, b| (a.started_at(), &a.id, a.run).cmp(&(b.started_at(), &b.id, b.run)));
    let entries = today
        .as_ref()
        .map(|t| entries::entries(t, &sessions))
        .unwrap_or_default();
    let diagnostics_total = diagnostics.len();
    diagnostics.truncate(MAX_DIAGNOSTICS);
    History {
        project: ProjectView {
            root: project.root.to_string_lossy().into_owned(),
            worktrees: project
                .worktrees
                .iter()
                .map(|w| w.to_string_lossy().into_owned())
                .collect(),
            memory_folder: project.memory_folder.clone(),
            index_path,
        },
        sources,
        sessions,
        entries,
        diagnostics,
        diagnostics_total,
    }
}

impl History {
    /// Keeps the sessions that started at or after `since`, or the one session whose id is or
    /// starts with `session` (its every run). `Err` names what did not match.
    pub fn select(
        &mut self,
        session: Option<&str>,
        since: Option<jiff::Timestamp>,
    ) -> Result<(), String> {
        if let Some(t) = since {
            self.sessions
                .retain(|s| s.started_at().is_some_and(|s| s >= t));
        }
        if let Some(id) = session {
            let exact = self.sessions.iter().any(|s| s.id == id);
            let ids: std::collections::BTreeSet<&str> = self
                .sessions
                .iter()
                .filter(|s| {
                    if exact {
                        s.id == id
                    } else {
                        s.id.starts_with(id)
                    }
                })
                .map(|s| s.id.as_str())
                .collect();
            let ids: Vec<&str> = ids.into_iter().collect();
            match ids.as_slice() {
                [] => return Err(format!("no recorded session of this project has id {id:?}")),
                [one] => {
                    let one = (*one).to_owned();
                    self.sessions.retain(|s| s.id == one);
                }
                more => {
                    return Err(format!(
                        "{id:?} matches {} sessions ({}…): give more of the id",
                        more.len(),
                        more.iter()
                            .take(3)
                            .map(|s| &s[..s.len().min(12)])
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
