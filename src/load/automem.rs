//! Auto memory: the folder, the MEMORY.md index, its cut, and the topic files.
//! (Owner: the auto-memory work. This file fixes the report's shape that other commands read.)

use std::collections::HashSet;
use std::path::PathBuf;

use serde::Serialize;

use super::model::{Lazy, Loaded};
use crate::env::ClientEnv;
use crate::settings::Settings;

/// What the client does with auto memory in this session.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Why auto memory is off, if it is (e.g. `CLAUDE_CODE_DISABLE_AUTO_MEMORY`).
    pub off: Option<String>,
    /// The resolved memory folder with its trailing `/`, exactly as the client prints it.
    pub folder: Option<String>,
    /// Where the folder came from (default, `autoMemoryDirectory` in FILE, an env override).
    pub folder_source: Option<String>,
    /// `folder + "MEMORY.md"`.
    pub index_path: Option<String>,
    /// What happened to the index.
    pub index: IndexState,
    /// The MEMORY.md entry, if it is in the reminder.
    #[serde(skip)]
    pub entry: Option<Loaded>,
    /// Topic files (read on demand), with whether the loaded index links them.
    pub lazy: Vec<Lazy>,
}

/// The state of MEMORY.md at session start.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum IndexState {
    /// Auto memory is off or has no folder.
    #[default]
    NotApplicable,
    /// No MEMORY.md and nothing the client would generate one from.
    Missing,
    /// No MEMORY.md: the client would WRITE a generated index with these lines, then load it.
    /// ccmem never writes it.
    WouldGenerate { lines: Vec<String> },
    /// MEMORY.md exists but is not a regular file (directory, FIFO, dangling link…).
    NotRegular { what: String },
    /// Bigger than 4 MiB: skipped whole.
    TooLarge { bytes: u64 },
    /// Could not be read.
    Unreadable { error: String },
    /// Replaced by `CLAUDE_COWORK_MEMORY_INDEX_CONTENT`.
    FromEnv(Measure),
    /// Read and measured.
    Loaded(Measure),
}

/// MEMORY.md measured the client's way.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Measure {
    /// Bytes on disk.
    pub file_bytes: u64,
    /// Lines on disk (newline count + 1 for a non-empty last line).
    pub file_lines: usize,
    /// Lines the client counts (after frontmatter and comment stripping and trim).
    pub lines: usize,
    /// UTF-16 units the client counts.
    pub utf16: usize,
    /// UTF-8 bytes of the counted text.
    pub bytes: usize,
    /// The cut, when the index is over a limit.
    pub cut: Option<Cut>,
}

/// Where the client cut MEMORY.md and what went dark.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cut {
    /// Over 200 lines.
    pub line_over: bool,
    /// Over 25,000 UTF-16 units.
    pub size_over: bool,
    /// Complete lines kept (0 = cut inside line 1).
    pub kept_lines: usize,
    /// UTF-16 units kept.
    pub kept_utf16: usize,
    /// Every line that does not reach the model, with its 1-based line number in the file on
    /// disk (a line cut in the middle is listed too).
    pub dark: Vec<DarkLine>,
    /// The client's warning text (what the model sees).
    pub warning: String,
}

/// One line of MEMORY.md that the model never sees.
#[derive(Debug, Clone, Serialize)]
pub struct DarkLine {
    /// 1-based line number in the file on disk.
    pub line: usize,
    /// The line's text.
    pub text: String,
    /// Only part of the line was cut (the size cut fell inside it).
    pub partial: bool,
}

impl Report {
    /// Auto memory is off for the whole session.
    pub fn off(why: &str) -> Self {
        Report {
            off: Some(why.to_owned()),
            ..Report::default()
        }
    }
}

/// The auto-memory folder the client would use here (`None` when auto memory is off), for
/// commands that work on the memory library (audit, tier, add).
pub fn resolve_folder(env: &ClientEnv, settings: &Settings) -> Option<PathBuf> {
    let _ = (env, settings);
    None
}

/// Resolves and loads the auto-memory index.
pub fn load(_env: &ClientEnv, _settings: &Settings, _processed: &HashSet<String>) -> Report {
    Report::default()
}

/// Reads and measures MEMORY.md at `path` exactly as the client does at session start.
///
/// PLACEHOLDER on the `audit` branch so it builds before the `automem` branch lands: a naive
/// count (no frontmatter/comment stripping, line cut only). On merge, take automem's version.
pub fn measure_index(path: &std::path::Path) -> IndexState {
    let bytes = match crate::fsread::read_capped(path, 4 << 20) {
        Ok(b) => b,
        Err(crate::fsread::Unread::Missing) => return IndexState::Missing,
        Err(crate::fsread::Unread::TooLarge(bytes)) => return IndexState::TooLarge { bytes },
        Err(e) => {
            return IndexState::Unreadable {
                error: e.to_string(),
            };
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.trim().lines().collect();
    let dark: Vec<DarkLine> = lines
        .iter()
        .enumerate()
        .skip(crate::text::cut::MAX_LINES)
        .map(|(i, l)| DarkLine {
            line: i + 1,
            text: (*l).to_owned(),
            partial: false,
        })
        .collect();
    IndexState::Loaded(Measure {
        file_bytes: bytes.len() as u64,
        file_lines: text.lines().count(),
        lines: lines.len(),
        utf16: crate::text::js::utf16_len(text.trim()),
        bytes: text.trim().len(),
        cut: (!dark.is_empty()).then(|| Cut {
            line_over: true,
            dark,
            ..Cut::default()
        }),
    })
}
