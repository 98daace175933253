//! Reading MEMORY.md and turning it into what the model gets: frontmatter and comment stripping,
//! the cut (`text::cut`), sanitizing twice; plus the measurement (`Measure`, `Cut`, dark lines
//! mapped back to 1-based lines of the file on disk).

use std::path::Path;

use super::{Cut, DarkLine, IndexState, Measure};
use crate::constants::MAX_FILE_BYTES;
use crate::fsread::{self, Unread};
use crate::text::{comments, cut, frontmatter, js, sanitize::sanitize_times};

/// MEMORY.md processed the client's way.
#[derive(Debug, Clone, Default)]
pub struct Processed {
    /// The measurement (and cut with dark lines).
    pub measure: Measure,
    /// The entry content: cut + warning, sanitized twice (the renderer trims it).
    pub content: String,
}

/// Reads and processes a MEMORY.md file, returning its bytes too; `Err` holds the state when
/// it does not load.
pub fn read(path: &Path) -> Result<(Processed, Vec<u8>), IndexState> {
    match fsread::read_capped(path, MAX_FILE_BYTES) {
        Ok(bytes) => Ok((process_file(&bytes), bytes)),
        Err(Unread::Missing) => Err(IndexState::Missing),
        Err(Unread::NotRegular(what)) => Err(IndexState::NotRegular { what: what.into() }),
        Err(Unread::TooLarge(bytes)) => Err(IndexState::TooLarge { bytes }),
        Err(Unread::Unreadable(e)) => Err(IndexState::Unreadable {
            error: e.to_string(),
        }),
    }
}

/// MEMORY.md's bytes as the client decodes them, the one decoding every command uses (the
/// loader, and the memory library's links, so `receipt`, `audit` and the hooks count what it
/// reaches alike): UTF-8, each invalid sequence one U+FFFD (case `mem-sanitize-invalid-utf8`).
/// No byte-order mark is looked at, unlike the client's settings reader (`Owe`): a UTF-16 file reads as its
/// BOM's two bytes made U+FFFD and every ASCII character beside a NUL, and the sanitizer (`c()`,
/// SPEC-automemory 9.1) drops the NUL bytes after the cut, so the model gets its ASCII text
/// (`cases-captured/mem-utf16le-bom`, `mem-utf16be-bom`).
pub fn decode(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    js::utf8_lossy(bytes)
}

/// Processes the bytes of a MEMORY.md file: decoded ([`decode`]), frontmatter and top-level
/// comments stripped, then cut and sanitized.
pub fn process_file(bytes: &[u8]) -> Processed {
    let text = decode(bytes);
    let split = frontmatter::split(&text);
    let body_line0 = text[..split.body_start].matches('\n').count();
    let (stripped, map) = comments::strip_mapped(split.body);
    let mut p = finish(&stripped, bytes.len() as u64, &text, 2);
    if let Some(cut) = p.measure.cut.as_mut() {
        cut.dark = dark_lines(&stripped, &map, body_line0, &cut::truncate(&stripped));
    }
    p
}

/// Processes `CLAUDE_COWORK_MEMORY_INDEX_CONTENT`: no frontmatter or comment stripping.
pub fn process_env(text: &str) -> Processed {
    process_raw(text, 2)
}

/// Processes a subagent's MEMORY.md (`Oa` → `HMo` → `BQ`, SPEC-agents 3.6–3.8): no
/// frontmatter or comment stripping, sanitized once (the main index is sanitized twice).
pub fn process_agent(text: &str) -> Processed {
    process_raw(text, 1)
}

fn process_raw(text: &str, sanitize_passes: usize) -> Processed {
    let mut p = finish(text, text.len() as u64, text, sanitize_passes);
    if let Some(cut) = p.measure.cut.as_mut() {
        let map: Vec<usize> = (0..text.split('\n').count()).collect();
        cut.dark = dark_lines(text, &map, 0, &cut::truncate(text));
    }
    p
}

fn finish(body: &str, file_bytes: u64, file_text: &str, sanitize_passes: usize) -> Processed {
    let t = cut::truncate(body);
    let content = sanitize_times(&t.content, sanitize_passes);
    let measure = Measure {
        file_bytes,
        file_lines: file_lines(file_text),
        lines: t.lines,
        utf16: t.utf16,
        bytes: t.trimmed_bytes,
        cut: t.cut.map(|c| Cut {
            line_over: c.line_over,
            size_over: c.size_over,
            kept_lines: c.kept_lines,
            kept_utf16: c.kept_utf16,
            dark: Vec::new(),
            warning: c.warning,
        }),
    };
    Processed { measure, content }
}

/// Newline count + 1 for a non-empty last line.
fn file_lines(text: &str) -> usize {
    let n = js::newlines(text);
    if text.is_empty() || text.ends_with('\n') {
        n
    } else {
        n + 1
    }
}

/// Every line of `body` (the stripped text) that the cut keeps from the model, numbered in the
/// file on disk through `map` (body line → 0-based input line) and `body_line0`.
fn dark_lines(body: &str, map: &[usize], body_line0: usize, t: &cut::Truncation) -> Vec<DarkLine> {
    let Some(c) = &t.cut else { return Vec::new() };
    let kept_end = t.start_bytes + c.kept_bytes;
    let trim_end = t.start_bytes + t.trimmed_bytes;
    let mut out = Vec::new();
    let mut start = 0;
    for (i, line) in body.split('\n').enumerate() {
        let end = start + line.len();
        if start >= trim_end {
            break;
        }
        if end > kept_end {
            let in_body = map.get(i).copied().unwrap_or(i);
            out.push(DarkLine {
                line: body_line0 + in_body + 1,
                text: line.trim_end_matches('\r').to_owned(),
                partial: start < kept_end,
            });
        }
        start = end + 1;
    }
    out
}

/// The 1-based line, in the file on disk, of the first line the client counts past a budget
/// of `lines` lines / `utf16` UTF-16 units (frontmatter and comments stripped, leading
/// whitespace trimmed, as the client measures); `None` when the text fits.
pub fn first_line_over(file_text: &str, lines: usize, utf16: usize) -> Option<usize> {
    let split = frontmatter::split(file_text);
    let body_line0 = file_text[..split.body_start].matches('\n').count();
    let (body, map) = comments::strip_mapped(split.body);
    let t = cut::truncate(&body);
    let trimmed_end = t.start_bytes + t.trimmed_bytes;
    let first_body_line = body[..t.start_bytes].matches('\n').count();
    let mut counted_units = 0;
    let mut start = body[..t.start_bytes].rfind('\n').map_or(0, |i| i + 1);
    for (k, line) in body[start..trimmed_end].split('\n').enumerate() {
        // The trimmed text's first line starts at the trim, not at its line's start.
        let from = if k == 0 { t.start_bytes } else { start };
        counted_units += js::utf16_len(&body[from..start + line.len()]) + usize::from(k > 0);
        if k + 1 > lines || counted_units > utf16 {
            let i = first_body_line + k;
            return Some(body_line0 + map.get(i).copied().unwrap_or(i) + 1);
        }
        start += line.len() + 1;
    }
    None
}

/// Measures any MEMORY.md file as the client would load it (for audit, tier, hook and budget
/// commands).
pub fn measure(path: &Path) -> IndexState {
    match read(path) {
        Ok((p, _)) => IndexState::Loaded(p.measure),
        Err(state) => state,
    }
}

/// Whether the processed content is empty once trimmed (the client then sends no entry).
pub fn is_empty(content: &str) -> bool {
    js::trim(content).is_empty()
}

#[cfg(test)]
mod tests;
