//! `ccmem hook instructions-loaded`: the client's own report of each instruction file it loads
//! (`InstructionsLoaded`, fired by `S_o` in chunk-bqhgd24a with `memory_type` and `load_reason`:
//! `session_start`, `include`, `nested_traversal`, `path_glob_match`), logged beside what ccmem
//! predicts, so that an operator can compare the two in a live session (`ccmem receipt --session
//! ID`). The client never fires it for MEMORY.md, AGENTS.md or agent memory.
//!
//! The log is one JSON line per event in `<cache>/sessions/<session id>.jsonl` (ccmem's own
//! state, never a user's file; appended whole lines through [`crate::write::append`], so
//! concurrent hooks do not interleave and a link planted there is never followed).
//! The hook prints nothing.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::env::ProcessEnv;
use crate::load;

/// Input of an `InstructionsLoaded` hook.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Input {
    /// The session's id.
    pub session_id: String,
    /// The session's working directory.
    pub cwd: String,
    /// The file loaded.
    pub file_path: String,
    /// `User`, `Project`, `Local`, `Managed`.
    pub memory_type: String,
    /// Why it loaded.
    pub load_reason: String,
    /// The rule's `paths:` globs (for `path_glob_match`).
    pub globs: Option<Vec<String>>,
    /// The file whose read triggered the load (lazy loads).
    pub trigger_file_path: Option<String>,
    /// The importing file (for `include`).
    pub parent_file_path: Option<String>,
}

/// One line of the log.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Entry {
    /// What the client reported.
    pub reported: Input,
    /// Whether ccmem predicts this load.
    pub predicted: bool,
}

/// The files of `session`'s startup block the log does not report (the client reports neither
/// MEMORY.md nor AGENTS.md through this hook).
pub(crate) fn unreported(session: &crate::load::Session, entries: &[Entry]) -> Vec<String> {
    let reported: Vec<&str> = (entries.iter())
        .map(|e| e.reported.file_path.as_str())
        .collect();
    (session.entries.iter())
        .filter(|e| e.kind != crate::load::Kind::AutoMem && !is_agents_md(&e.path))
        .filter(|e| !reported.contains(&e.path.as_str()))
        .map(|e| e.path.clone())
        .collect()
}

fn is_agents_md(path: &str) -> bool {
    (path.strip_suffix(crate::constants::AGENTS_MD)).is_some_and(|dir| dir.ends_with('/'))
}

/// The log file of a session.
pub(crate) fn log_path(process: &ProcessEnv, session_id: &str) -> Option<PathBuf> {
    let safe: String = session_id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        return None;
    }
    let cache = crate::env::cache_dir(process.vars())?;
    Some(cache.join("sessions").join(format!("{safe}.jsonl")))
}

/// Logs one event with ccmem's prediction, through the writer of ccmem's own logs (never
/// through a link planted at the log or its folder; rotated at [`LOG_CAP`]).
pub(crate) fn run(input: &Input, process: &ProcessEnv) -> anyhow::Result<()> {
    let Some(path) = log_path(process, &input.session_id) else {
        anyhow::bail!("no session id in the hook input");
    };
    let env = process.client_env_in(&input.cwd)?;
    let entry = Entry {
        predicted: predicted(&env, input),
        reported: input.clone(),
    };
    let line = format!("{}\n", serde_json::to_string(&entry)?);
    crate::write::append::append_line(&path, line.as_bytes(), LOG_CAP)
        .map_err(|e| anyhow::anyhow!("cannot append to the session log: {e}"))?;
    Ok(())
}

/// Size at which a session's log is moved to its `.1` sibling (half of what is read back).
const LOG_CAP: u64 = LOG_MAX_BYTES / 2;

/// Whether ccmem predicts the load: in the startup block, or attached by a read of the
/// trigger file.
pub(crate) fn predicted(env: &crate::env::ClientEnv, input: &Input) -> bool {
    let session = load::load_session_with(env, load::Detail::Reminder);
    if session.entries.iter().any(|e| e.path == input.file_path) {
        return true;
    }
    let Some(trigger) = input.trigger_file_path.as_deref() else {
        return false;
    };
    load::reading::load(env, &session, &[trigger.to_owned()])
        .iter()
        .flatten()
        .any(|e| e.path == input.file_path)
}

/// Largest InstructionsLoaded log read (a line per instruction file a session loads).
const LOG_MAX_BYTES: u64 = 64 * 1024 * 1024;

/// The entries logged for a session.
pub(crate) fn read_log(path: &Path) -> anyhow::Result<Vec<Entry>> {
    let bytes = match crate::fsread::read_capped(path, LOG_MAX_BYTES) {
        Err(crate::fsread::Unread::Missing) => anyhow::bail!(
            "no InstructionsLoaded log at {}; install the hook with `ccmem hook install` and run a session",
            path.display()
        ),
        _ => crate::fsread::read_named(path, LOG_MAX_BYTES, "InstructionsLoaded log")?,
    };
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}
