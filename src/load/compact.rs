//! The first request after a compaction (SPEC-compaction part A; `K7e`, `QWe` → `Ovs` → `kbr`,
//! chunk-bqhgd24a).
//!
//! - The startup block is rebuilt from disk (`XR(session, "compaction")` clears the cached
//!   one), so files edited since start come back edited; lazily attached files do not (A3).
//! - Up to 5 files of the session's read state come back as plain Read results (A4): every
//!   file read (any range), written, seen through a tracked Bash read, or attached as nested
//!   memory, except the user, project-root, local-root and managed `CLAUDE.md` and the
//!   auto-memory index. Newest recorded mtime first (ties: the most recently recorded first,
//!   a guess: every captured case gives distinct mtimes); each re-read now, whole; a missing
//!   file or one over 5,000 estimated tokens (`round(chars/4)`, `/2` for JSON) is dropped,
//!   not cut; then, in order, a file is kept only while the running total of
//!   `round(len(JSON(attachment))/4)` stays at most 50,000.
//! - Manual `/compact`: restored files, then the startup block; auto-compaction: the startup
//!   block first (A2).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Session;
use super::model::Loaded;
use super::steps::Timeline;
use crate::constants::{
    CHARS_PER_TOKEN, CHARS_PER_TOKEN_JSON, RESTORE_FILE_MAX_TOKENS, RESTORE_MAX_FILES,
    RESTORE_TOTAL_MAX_TOKENS,
};
use crate::env::ClientEnv;
use crate::text::js;

/// One tool call of the turn before the compaction (the `--history` file's items).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum Call {
    /// `{"read": PATH, "offset": N, "limit": N}`.
    Read {
        /// The path, relative to the start directory or absolute.
        read: String,
        /// Ignored by the restore (the whole file comes back).
        #[serde(default)]
        offset: Option<u64>,
        /// Ignored by the restore.
        #[serde(default)]
        limit: Option<u64>,
    },
    /// `{"bash": COMMAND}`.
    Bash {
        /// The command.
        bash: String,
    },
    /// `{"write": PATH, "content": TEXT}` (already written on disk).
    Write {
        /// The path.
        write: String,
        /// The content written.
        #[serde(default)]
        content: String,
    },
}

/// Why a file the session held does not come back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Dropped {
    /// A root instruction file or the auto-memory index (it comes back in the startup block).
    InStartupBlock,
    /// Older than the 5 newest.
    OutsideWindow,
    /// Deleted or unreadable now.
    Gone,
    /// Over 5,000 estimated tokens.
    TooLarge {
        /// The estimate.
        tokens: usize,
    },
    /// Would pass the 50,000-token total.
    OverTotal,
}

/// A file of the read state and its fate.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Absolute path.
    pub path: String,
    /// How the session got it (read, write, bash, nested memory or rule).
    pub how: &'static str,
    /// Its recorded mtime, in milliseconds.
    pub mtime_ms: i128,
    /// `None` when it comes back.
    pub dropped: Option<Dropped>,
    /// The restored text (when it comes back).
    #[serde(skip)]
    pub text: Option<String>,
}

/// The first request after compaction.
#[derive(Debug, Clone)]
pub struct AfterCompact {
    /// The rebuilt startup block's entries.
    pub startup: Vec<Loaded>,
    /// Every file of the read state, newest first, with what became of it.
    pub candidates: Vec<Candidate>,
    /// Auto-compaction (startup block first).
    pub auto: bool,
}

impl AfterCompact {
    /// The files that come back, in order.
    pub fn restored(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().filter(|c| c.dropped.is_none())
    }
}

/// Replays the turn's calls on the session as it started (`start`), then rebuilds what the
/// first request after the compaction carries.
pub fn load(env: &ClientEnv, start: &Session, calls: &[Call], auto: bool) -> AfterCompact {
    let held = held_files(env, start, calls);
    // The startup block is re-read from disk: `start` is loaded now, after the turn.
    let excluded = excluded(env, start);
    let mut candidates: Vec<Candidate> = held
        .into_iter()
        .rev()
        .map(|(path, how)| Candidate {
            mtime_ms: mtime_ms(&path),
            path: path.to_string_lossy().into_owned(),
            how,
            dropped: None,
            text: None,
        })
        .collect();
    candidates.sort_by_key(|c| std::cmp::Reverse(c.mtime_ms));
    let mut kept = 0;
    let mut total = 0;
    for c in &mut candidates {
        if excluded.iter().any(|e| e == &c.path) {
            c.dropped = Some(Dropped::InStartupBlock);
            continue;
        }
        if kept == RESTORE_MAX_FILES {
            c.dropped = Some(Dropped::OutsideWindow);
            continue;
        }
        kept += 1;
        let Ok(bytes) = std::fs::read(&c.path) else {
            c.dropped = Some(Dropped::Gone);
            continue;
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let tokens = estimate(&text, &c.path);
        if tokens > RESTORE_FILE_MAX_TOKENS {
            c.dropped = Some(Dropped::TooLarge { tokens });
            continue;
        }
        let cost = attachment_tokens(&c.path, &text);
        if total + cost > RESTORE_TOTAL_MAX_TOKENS {
            c.dropped = Some(Dropped::OverTotal);
            continue;
        }
        total += cost;
        c.text = Some(text);
    }
    AfterCompact {
        startup: start.entries.clone(),
        candidates,
        auto,
    }
}

/// The read state after the turn, oldest first, each path once (its last recording).
fn held_files(env: &ClientEnv, start: &Session, calls: &[Call]) -> Vec<(PathBuf, &'static str)> {
    super::memo::reset();
    let mut loader = super::instructions::Loader::new(env, &start.settings);
    let mut timeline = Timeline::new(env, start, &mut loader);
    let mut held: Vec<(PathBuf, &'static str)> = Vec::new();
    let record = |p: PathBuf, how: &'static str, held: &mut Vec<(PathBuf, &'static str)>| {
        held.retain(|(q, _)| *q != p);
        held.push((p, how));
    };
    for call in calls {
        let (result, how) = match call {
            Call::Read { read, .. } => (timeline.read(read), "read"),
            Call::Bash { bash } => (
                timeline.bash(bash, &super::bash::track::Outcome::default()),
                "bash",
            ),
            Call::Write { write, .. } => {
                let p = super::git::normalize(&env.cwd.join(write));
                record(p, "write", &mut held);
                continue;
            }
        };
        for p in result.recorded {
            record(p, how, &mut held);
        }
        for e in result.attached {
            let how = if e.path.contains("/.claude/rules/") {
                "rule"
            } else {
                "nested memory"
            };
            record(PathBuf::from(&e.path), how, &mut held);
        }
    }
    held
}

/// `eRs`: files never restored (they are in the startup block).
fn excluded(env: &ClientEnv, startup: &Session) -> Vec<String> {
    let cwd = env.cwd.to_string_lossy();
    let mut out = vec![
        env.config_dir()
            .join("CLAUDE.md")
            .to_string_lossy()
            .into_owned(),
        format!("{cwd}/CLAUDE.md"),
        format!("{cwd}/CLAUDE.local.md"),
        env.managed_dir
            .join("CLAUDE.md")
            .to_string_lossy()
            .into_owned(),
    ];
    out.extend(startup.automem.index_path.clone());
    out
}

fn mtime_ms(path: &Path) -> i128 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(i128::MIN, |d| d.as_millis() as i128)
}

/// `lzn`: `round(chars / 4)`, `/ 2` for `.json`, `.jsonl`, `.jsonc`.
fn estimate(text: &str, path: &str) -> usize {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    let per = if matches!(ext, "json" | "jsonl" | "jsonc") {
        CHARS_PER_TOKEN_JSON
    } else {
        CHARS_PER_TOKEN
    };
    tokens(js::utf16_len(text), per)
}

/// `C` in `Wl`: `Math.round(length / per)` (a half rounds up, as `f64::round` does for
/// positive values).
fn tokens(utf16_len: usize, per: usize) -> usize {
    (utf16_len as f64 / per as f64).round() as usize
}

/// `Wl(_(attachment))`: the attachment's JSON length / 4, rounded. The attachment is
/// `{type:"file", filename, content:{type:"text", file:{filePath, content, numLines,
/// startLine, totalLines}}, displayPath}`; its field order is modeled, not captured.
fn attachment_tokens(path: &str, text: &str) -> usize {
    let lines = text.split('\n').count();
    let value = serde_json::json!({
        "type": "file",
        "filename": path,
        "content": {"type": "text", "file": {
            "filePath": path, "content": text, "numLines": lines, "startLine": 1, "totalLines": lines,
        }},
        "displayPath": path,
    });
    // serde_json escapes as JSON.stringify does (control characters as `\u00XX`).
    let json = value.to_string();
    tokens(js::utf16_len(&json), CHARS_PER_TOKEN)
}

/// The two blocks of a restored file (`Tve` and `zJe` on the Read listing).
pub fn render_restored(path: &str, text: &str) -> [String; 2] {
    let call = format!(
        "<system-reminder>\nCalled the Read tool with the following input: {{\"file_path\":{}}}\n</system-reminder>",
        crate::text::js::json_quote(path)
    );
    let listing = if text.is_empty() {
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
            .to_owned()
    } else {
        let text = text.replace("\r\n", "\n");
        text.split('\n')
            .enumerate()
            .map(|(i, l)| format!("{}\t{l}", i + 1))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let result = format!(
        "<system-reminder>\nResult of calling the Read tool:\n{listing}\n</system-reminder>"
    );
    [call, result]
}
