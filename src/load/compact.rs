//! The first request after a compaction (SPEC-compaction part A; `K7e`, `QWe` → `Ovs` → `kbr`,
//! chunk-bqhgd24a).
//!
//! - The startup block is rebuilt from disk (`XR(session, "compaction")` clears the cached
//!   one), so files edited since start come back edited; lazily attached files do not (A3).
//! - Up to 5 files of the session's read state come back as plain Read results (A4): every
//!   file read (any range), written, seen through a tracked Bash read, or attached as nested
//!   memory, except the user, project-root, local-root and managed `CLAUDE.md` and the
//!   auto-memory index. Newest recorded mtime first; ties keep the read state's recency order,
//!   which every tool call turns around ([`held_files`], captured: compact-equal-mtimes*). Each
//!   is re-read now, whole; a missing file is dropped; one over 5,000 estimated tokens
//!   (`round(chars/4)`, `/2` for `.json`/`.jsonl`/`.jsonc` in any case) comes back only as a
//!   note naming it, in the system message (`compact_file_reference`); then, in order, an
//!   attachment is kept only while the running total of `round(len(JSON(attachment))/4)`
//!   stays at most 50,000 (pinned to the token by compact-total-at-limit / -one-over).
//! - Manual `/compact`: restored files, then the startup block; auto-compaction: the startup
//!   block first (A2).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Session;
use super::model::Loaded;
use super::steps::Timeline;
use crate::constants::{
    CHARS_PER_TOKEN, CHARS_PER_TOKEN_JSON, CLAUDE_LOCAL_MD, CLAUDE_MD, MAX_FILE_BYTES,
    RESTORE_FILE_MAX_TOKENS, RESTORE_MAX_FILES, RESTORE_TOTAL_MAX_TOKENS,
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
    /// Over 5,000 estimated tokens: a note names the file ("was read before the last
    /// conversation was summarized, but the contents are too large to include"), its text does
    /// not come back.
    TooLarge {
        /// The estimate.
        tokens: usize,
    },
    /// Would pass the 50,000-token total of the restored attachments.
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

impl Candidate {
    /// A nested CLAUDE.md or a path rule (an instruction file the session got from a read).
    pub fn is_instruction(&self) -> bool {
        matches!(self.how, "nested memory" | "rule")
    }

    /// Its text is not in the first request after the compaction, neither restored nor in the
    /// startup block.
    pub fn is_gone(&self) -> bool {
        !matches!(self.dropped, None | Some(Dropped::InStartupBlock))
    }
}

impl AfterCompact {
    /// The files that come back, in order.
    pub fn restored(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates.iter().filter(|c| c.dropped.is_none())
    }

    /// The instruction files the session had that do not come back: what users lose.
    pub fn lost(&self) -> impl Iterator<Item = &Candidate> {
        self.candidates
            .iter()
            .filter(|c| c.is_instruction() && c.is_gone())
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
        // Non-blocking and capped: a held path may be a FIFO or a huge file by now.
        let bytes = match crate::fsread::read_capped(Path::new(&c.path), MAX_FILE_BYTES) {
            Ok(bytes) => bytes,
            Err(crate::fsread::Unread::TooLarge(size)) => {
                c.dropped = Some(Dropped::TooLarge {
                    tokens: tokens(usize::try_from(size).unwrap_or(usize::MAX), CHARS_PER_TOKEN),
                });
                continue;
            }
            Err(_) => {
                c.dropped = Some(Dropped::Gone);
                continue;
            }
        };
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let display = relative(&env.cwd.to_string_lossy(), &c.path);
        let estimate = estimate(&text, &c.path);
        // A file over the per-file limit comes back as a note that names it
        // (`compact_file_reference`), which counts towards the total too.
        let (cost, dropped) = if estimate > RESTORE_FILE_MAX_TOKENS {
            let note = serde_json::json!({
                "type": "compact_file_reference", "filename": c.path, "displayPath": display,
            });
            let cost = tokens(js::utf16_len(&note.to_string()), CHARS_PER_TOKEN);
            (cost, Some(Dropped::TooLarge { tokens: estimate }))
        } else {
            (attachment_tokens(&c.path, &display, &text), None)
        };
        if total + cost > RESTORE_TOTAL_MAX_TOKENS {
            c.dropped = Some(Dropped::OverTotal);
            continue;
        }
        total += cost;
        match dropped {
            Some(d) => c.dropped = Some(d),
            None => c.text = Some(text),
        }
    }
    AfterCompact {
        startup: start.entries.clone(),
        candidates,
        auto,
    }
}

/// The read state after the turn, most recently used first, each path once (`Ovs` takes
/// `Object.entries` of the client's LRU map, newest first, then sorts by mtime, stably).
///
/// The recency order is the client's, captured (compact-equal-mtimes*): each tool call runs on a
/// copy of the read state and is merged back by `pBl`, which walks the copy newest first and
/// moves every entry to the front, so every call turns the whole order around, a call that
/// reads nothing included. The files a call records move to the front of the copy first (a
/// Read, a Write, a Bash read the client tracks, held or new); the nested memory a call attaches
/// is recorded on the merged state afterwards, in attach order.
fn held_files(env: &ClientEnv, start: &Session, calls: &[Call]) -> Vec<(PathBuf, &'static str)> {
    super::memo::reset();
    let mut loader = super::instructions::Loader::new(env, &start.settings);
    let mut timeline = Timeline::new(env, start, &mut loader);
    let mut state = Recency::default();
    for call in calls {
        let (result, how) = match call {
            Call::Read { read, .. } => (timeline.read(read), "read"),
            Call::Bash { bash } => (
                timeline.bash(bash, &super::bash::track::Outcome::default()),
                "bash",
            ),
            Call::Write { write, .. } => {
                let p = super::git::normalize(&env.cwd.join(write));
                state.touch(p, "write");
                state.merge_back();
                continue;
            }
        };
        for p in result.recorded {
            state.touch(p, how);
        }
        state.merge_back();
        for e in result.attached {
            let how = if e.path.contains("/.claude/rules/") {
                "rule"
            } else {
                "nested memory"
            };
            state.touch(PathBuf::from(&e.path), how);
        }
    }
    state.0
}

/// The read state's recency order, most recent first.
#[derive(Default)]
struct Recency(Vec<(PathBuf, &'static str)>);

impl Recency {
    /// `set` or `get`: the entry becomes the most recent.
    fn touch(&mut self, path: PathBuf, how: &'static str) {
        self.0.retain(|(q, _)| *q != path);
        self.0.insert(0, (path, how));
    }

    /// `pBl(state, copy)` after a tool call: the order turns around.
    fn merge_back(&mut self) {
        self.0.reverse();
    }
}

/// `eRs`: files never restored (they are in the startup block).
fn excluded(env: &ClientEnv, startup: &Session) -> Vec<String> {
    let cwd = env.cwd.to_string_lossy();
    let mut out = vec![
        env.config_dir()
            .join(CLAUDE_MD)
            .to_string_lossy()
            .into_owned(),
        format!("{cwd}/{CLAUDE_MD}"),
        format!("{cwd}/{CLAUDE_LOCAL_MD}"),
        env.managed_dir
            .join(CLAUDE_MD)
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

/// `lzn`: `round(chars / 4)`, `/ 2` for `.json`, `.jsonl`, `.jsonc` in any case (`big.JSON`
/// counts as JSON: compact-json-token-estimate).
fn estimate(text: &str, path: &str) -> usize {
    let ext = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let per = if matches!(ext.as_str(), "json" | "jsonl" | "jsonc") {
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

/// `Wl(_(attachment))`: the attachment's JSON length / 4, rounded. The attachment, as the
/// client's transcript stores it: `{type:"file", filename, content:{type:"text",
/// file:{filePath, content, numLines, startLine, totalLines}}, displayPath, savedCopyFraming:
/// {enveloped:false}}`, `displayPath` relative to the start directory (compact-total-at-limit
/// and compact-total-one-over pin the count to the token).
fn attachment_tokens(path: &str, display: &str, text: &str) -> usize {
    let lines = text.split('\n').count();
    let value = serde_json::json!({
        "type": "file",
        "filename": path,
        "content": {"type": "text", "file": {
            "filePath": path, "content": text, "numLines": lines, "startLine": 1, "totalLines": lines,
        }},
        "displayPath": display,
        "savedCopyFraming": {"enveloped": false},
    });
    // serde_json escapes as JSON.stringify does (control characters as `\u00XX`).
    let json = value.to_string();
    tokens(js::utf16_len(&json), CHARS_PER_TOKEN)
}

/// node's `path.relative(from, to)` for absolute, normalized paths (`GA`, the attachment's
/// `displayPath`).
fn relative(from: &str, to: &str) -> String {
    let parts = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (f, t) = (parts(from), parts(to));
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".to_owned(); f.len() - common];
    out.extend(t[common..].iter().cloned());
    out.join("/")
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
