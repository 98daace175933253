//! What a record's parts say: a start block's files, MEMORY.md as the model got it (and the
//! client's cut warning), the memory sections of a system prompt, a Bash command's writes.

use crate::history::entries::Today;
use crate::history::model::{AgentMemory, AutoMemory, FileRecord, IndexRecord};
use crate::history::record;
use crate::text::js;

/// The client's warning after a cut index (`HMo`), what `text::cut` appends.
const CUT_WARNING: &str = "\n\n> WARNING: MEMORY.md is ";

pub(super) fn is_index(f: &record::File<'_>) -> bool {
    match f.kind.as_deref() {
        Some(k) => k == "AutoMem",
        None => f.path.ends_with("/MEMORY.md"),
    }
}

pub(super) fn file_record(f: &record::File<'_>) -> FileRecord {
    let shown = js::trim(&f.content);
    FileRecord {
        path: f.path.to_string(),
        kind: f.kind.as_deref().unwrap_or("").to_owned(),
        lines: if shown.is_empty() {
            0
        } else {
            js::newlines(shown) + 1
        },
        hash: content_hash(&f.content),
    }
}

/// The hash `--check` compares: of the content as the model got it, JS-trimmed.
pub fn content_hash(content: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(js::trim(content).as_bytes())
}

/// The part of a recorded MEMORY.md before the client's cut warning, and whether it had one.
pub fn split_warning(content: &str) -> (&str, bool) {
    match content.rfind(CUT_WARNING) {
        Some(at) if content.trim_end().ends_with("topic files.") => (&content[..at], true),
        _ => (content, false),
    }
}

pub(super) fn index_record(f: &record::File<'_>, today: Option<&Today>) -> IndexRecord {
    // The client trims the index, then cuts it: the kept part keeps its last line whole.
    let (loaded, warned) = split_warning(js::trim(&f.content));
    let lines = if loaded.is_empty() {
        0
    } else {
        js::newlines(loaded) + 1
    };
    let today = match today {
        Some(t) if t.path == f.path => t.mark(loaded.split('\n')),
        _ => Vec::new(),
    };
    IndexRecord {
        path: f.path.to_string(),
        lines,
        warned,
        today,
    }
}

/// Auto memory as the main session's system prompt shows it.
pub(super) fn auto_memory(parts: &[std::borrow::Cow<'_, str>]) -> AutoMemory {
    for p in parts {
        if let Some(folder) = backticked_after(p, "persistent file-based memory at `") {
            return AutoMemory::On { folder };
        }
    }
    AutoMemory::Off
}

fn backticked_after(text: &str, marker: &str) -> Option<String> {
    let at = text.find(marker)? + marker.len();
    let rest = &text[at..];
    Some(rest[..rest.find('`')?].to_owned())
}

/// A subagent's own memory: the `## MEMORY.md` section of its system prompt.
pub(super) fn agent_memory(parts: &[std::borrow::Cow<'_, str>]) -> Option<AgentMemory> {
    const SECTION: &str = "\n## MEMORY.md\n\n";
    let part = parts.iter().find(|p| p.contains(SECTION))?;
    let folder = backticked_after(part, "memory system at `");
    let body = part.split_once(SECTION)?.1;
    let body = body
        .split_once("\n\nMessages from the agent that launched you")
        .map_or(body, |(b, _)| b);
    let (state, lines, warned) = if body.starts_with("Your MEMORY.md is currently empty") {
        ("empty", 0, false)
    } else if body.starts_with("Your MEMORY.md was not loaded") {
        ("refused", 0, false)
    } else {
        let (loaded, warned) = split_warning(body);
        let loaded = loaded.trim_end_matches('\n');
        ("loaded", js::newlines(loaded) + 1, warned)
    };
    Some(AgentMemory {
        state,
        lines,
        warned,
        folder,
    })
}

/// The memory file a Bash command writes into `folder`: a redirection (`>`, `>>`), `tee`,
/// `sed -i`, `mv`, `cp` or `rm` naming a path in the folder. A heuristic for the timeline only.
pub(super) fn bash_write_into(cmd: &str, folder: &str) -> Option<String> {
    let at = cmd.find(folder)?;
    let writes = cmd.contains('>')
        || cmd.contains("tee ")
        || cmd.contains("sed -i")
        || ["mv ", "cp ", "rm "].iter().any(|w| cmd.contains(w));
    if !writes {
        return None;
    }
    let path: String = cmd[at..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, '\'' | '"' | ';' | '|' | '&' | ')'))
        .collect();
    Some(path)
}
