//! ccmem's own history log: one compact record of what loaded at each session start, appended
//! by `ccmem hook session-start`, so `ccmem history` still knows a session after the client
//! deleted its transcript (`cleanupPeriodDays`, 30 days by default).
//!
//! Where: `$XDG_STATE_HOME/ccmem/history.jsonl` when `XDG_STATE_HOME` is absolute, else
//! `~/.local/state/ccmem/history.jsonl` (the folder is made 0700, the file 0600).
//! Bound: when the file holds [`LOG_CAP`] bytes it is moved to `history.1.jsonl` (replacing the
//! one there), so the log never takes more than about 2 × 8 MiB; a record is at most
//! [`MAX_RECORD`] bytes (a start block of more files is cut short and says so). At ~1–3 KB a
//! session that is several thousand sessions. Written only through `write::append` (never through
//! a link, one whole line per write).
//!
//! A record is ccmem's prediction at that start, made from the files as they were then: the
//! files that loaded (path, client type, lines, a 64-bit hash of the content) and, of MEMORY.md,
//! how many lines reached the model and a 32-bit hash of each (what `history` matches today's
//! lines against). No file content is kept.
//!
//! Record, one JSON object per line: `v` (1), `time` (RFC 3339), `session`, `source`
//! (`startup`, `resume`, `clear`), `cwd`, `transcript`, `client` (the modeled client version),
//! `auto_memory` (the memory folder, or null when off), `files[]` {`path`, `kind`, `lines`,
//! `hash`}, `index` {`path`, `lines`, `warned`, `hashes` (8 hex digits per loaded line)} or null,
//! `truncated`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::entries::{Today, line_hash};
use super::lines::{Item, Lines};
use super::model::{AutoMemory, Diagnostic, FileRecord, IndexRecord, Session, Source};
use super::transcript::{content_hash, split_warning};
use crate::load::Kind;
use crate::text::js;

/// Bytes the log holds before it is rotated.
pub const LOG_CAP: u64 = 8 << 20;
/// Largest record.
pub const MAX_RECORD: usize = 64 << 10;
/// The log's file name in ccmem's state folder.
pub const FILE_NAME: &str = "history.jsonl";

/// The log's path for these environment variables (`None` without `HOME`).
pub fn path(vars: &BTreeMap<String, String>) -> Option<PathBuf> {
    let state = match vars.get("XDG_STATE_HOME").filter(|v| v.starts_with('/')) {
        Some(x) => PathBuf::from(x),
        None => Path::new(vars.get("HOME")?).join(".local/state"),
    };
    Some(state.join("ccmem").join(FILE_NAME))
}

/// One session start.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// Format version (1).
    pub v: u32,
    /// When (RFC 3339).
    pub time: String,
    /// The session id.
    pub session: String,
    /// `startup`, `resume`, `clear`.
    pub source: String,
    /// The start directory.
    pub cwd: String,
    /// The client's transcript for it.
    #[serde(default)]
    pub transcript: Option<String>,
    /// The client version ccmem models.
    #[serde(default)]
    pub client: Option<String>,
    /// The memory folder, or null when auto memory is off.
    #[serde(default)]
    pub auto_memory: Option<String>,
    /// The files that loaded, in order.
    #[serde(default)]
    pub files: Vec<LogFile>,
    /// MEMORY.md as it loaded.
    #[serde(default)]
    pub index: Option<LogIndex>,
    /// The record was cut to [`MAX_RECORD`].
    #[serde(default)]
    pub truncated: bool,
}

/// One loaded file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogFile {
    /// Its path.
    pub path: String,
    /// The client's type for it.
    pub kind: String,
    /// Lines of the content the model got.
    pub lines: usize,
    /// 64-bit hash of that content, 16 hex digits.
    pub hash: String,
}

/// MEMORY.md as it loaded.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LogIndex {
    /// Its path.
    pub path: String,
    /// Lines that reached the model.
    pub lines: usize,
    /// Whether the model was told it was cut.
    pub warned: bool,
    /// 8 hex digits per loaded line ([`line_hash`]).
    pub hashes: String,
}

/// What the hook knows of the session it runs for.
#[derive(Debug, Clone, Copy)]
pub struct Start<'a> {
    /// The session id.
    pub session: &'a str,
    /// `startup`, `resume`, `clear`.
    pub source: &'a str,
    /// The start directory (real path).
    pub cwd: &'a str,
    /// The transcript path.
    pub transcript: &'a str,
}

/// The client's type name for a loaded file's kind.
pub fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Managed => "Managed",
        Kind::User => "User",
        Kind::Project => "Project",
        Kind::Local => "Local",
        Kind::AutoMem => "AutoMem",
    }
}

/// The record of a session start ccmem predicted.
pub fn record(session: &crate::load::Session, start: Start<'_>, time: &str) -> Record {
    let mut index = None;
    let files = session
        .entries
        .iter()
        .map(|e| {
            if e.kind == Kind::AutoMem && index.is_none() {
                let (loaded, warned) = split_warning(js::trim(&e.content));
                let hashes: String = if loaded.is_empty() {
                    String::new()
                } else {
                    loaded
                        .split('\n')
                        .map(|l| format!("{:08x}", line_hash(l)))
                        .collect()
                };
                index = Some(LogIndex {
                    path: e.path.clone(),
                    lines: hashes.len() / 8,
                    warned,
                    hashes,
                });
            }
            let shown = js::trim(&e.content);
            LogFile {
                path: e.path.clone(),
                kind: kind_name(e.kind).to_owned(),
                lines: if shown.is_empty() {
                    0
                } else {
                    js::newlines(shown) + 1
                },
                hash: format!("{:016x}", content_hash(&e.content)),
            }
        })
        .collect();
    Record {
        v: 1,
        time: time.to_owned(),
        session: start.session.to_owned(),
        source: start.source.to_owned(),
        cwd: start.cwd.to_owned(),
        transcript: Some(start.transcript.to_owned()).filter(|t| !t.is_empty()),
        client: Some(crate::constants::CLIENT_VERSION.to_owned()),
        auto_memory: session.automem.folder.clone(),
        files,
        index,
        truncated: false,
    }
}

/// The record as one line of at most [`MAX_RECORD`] bytes (files dropped from the end, then the
/// line hashes, until it fits).
pub fn encode(record: &Record) -> Vec<u8> {
    let mut r = record.clone();
    loop {
        let mut line = serde_json::to_vec(&r).unwrap_or_default();
        if line.len() < MAX_RECORD
            || (r.files.is_empty() && r.index.as_ref().is_none_or(|i| i.hashes.is_empty()))
        {
            line.push(b'\n');
            return line;
        }
        r.truncated = true;
        if r.files.len() > 1 {
            r.files.truncate(r.files.len() / 2);
        } else if let Some(i) = r.index.as_mut().filter(|i| !i.hashes.is_empty()) {
            i.hashes.clear();
        } else {
            r.files.clear();
        }
    }
}

/// Every record of the log at `path` and of its rotated sibling, oldest first.
pub fn read(path: &Path, diags: &mut Vec<Diagnostic>) -> Vec<Record> {
    let mut out = Vec::new();
    for p in [crate::write::append::rotated_path(path), path.to_owned()] {
        let Ok((file, len)) = super::transcript::open(&p) else {
            continue;
        };
        let mut lines = Lines::new(file, len);
        let mut bad = 0u64;
        while let Ok(Some(item)) = lines.next(|_, _| true) {
            if let Item::Line { bytes, .. } = item {
                match serde_json::from_slice::<Record>(bytes) {
                    Ok(r) if r.v == 1 => out.push(r),
                    _ => bad += 1,
                }
            }
        }
        if bad > 0 {
            diags.push(Diagnostic {
                path: p.to_string_lossy().into_owned(),
                line: None,
                message: format!("{bad} lines are not records of this ccmem: passed over"),
            });
        }
    }
    out
}

/// A log record as a session of the history.
pub fn to_session(r: &Record, today: Option<&Today>) -> Session {
    let mut s = Session::new(&r.session, 1, Source::Log);
    s.started = Some(r.time.clone());
    s.ended = true;
    s.cwd = Some(r.cwd.clone());
    s.transcript = r.transcript.clone();
    s.version = r.client.clone();
    s.auto_memory = match &r.auto_memory {
        Some(folder) => AutoMemory::On {
            folder: folder.clone(),
        },
        None => AutoMemory::Off,
    };
    s.start = r
        .files
        .iter()
        .map(|f| FileRecord {
            path: f.path.clone(),
            kind: f.kind.clone(),
            lines: f.lines,
            hash: u64::from_str_radix(&f.hash, 16).unwrap_or(0),
        })
        .collect();
    s.memory_index = r.index.as_ref().map(|i| {
        let hashes: Vec<u32> = i
            .hashes
            .as_bytes()
            .chunks(8)
            .filter_map(|c| u32::from_str_radix(std::str::from_utf8(c).ok()?, 16).ok())
            .collect();
        IndexRecord {
            path: i.path.clone(),
            lines: i.lines,
            warned: i.warned,
            today: match today {
                Some(t) if t.path == i.path => t.mark_hashed(&hashes),
                _ => Vec::new(),
            },
        }
    });
    s
}
