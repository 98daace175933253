//! The index the client generates when MEMORY.md is missing (`fQr`/`dQr`/`lQr`/`uQr`,
//! chunk-bqhgd24a). The client WRITES it and then loads it; ccmem only computes it.
//!
//! It runs only when the folder has no entry named `MEMORY.md` (of any type) and has a candidate
//! (a `.md` regular file or a sub-folder, not hidden, not an excluded top folder). The scan is
//! recursive over regular single-link files (symlinks not followed); paths with a hidden or
//! excluded segment are dropped; files are ordered by mtime, newest first. One line per file:
//! `- [name](path) — description`, at most 140 lines and 17,500 UTF-16 units.

use std::fs;
use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use crate::text::{cut, frontmatter, js, sanitize::sanitize};

use crate::constants::{
    BACKFILL_EXCLUDED, BACKFILL_LINE_BUDGET_UTF16, BACKFILL_MAX_LINES, BACKFILL_MAX_UTF16,
    INDEX_FILE,
};
/// The head of a topic file read for its frontmatter: lines and bytes.
const HEAD_LINES: usize = 30;
const HEAD_BYTES: u64 = 64 * 1024;

/// One topic file found by the scan.
#[derive(Debug, Clone)]
struct Topic {
    rel: String,
    mtime_ms: f64,
    description: Option<String>,
}

/// The lines of the index the client would write for `folder`, or `None` when it would write
/// nothing (MEMORY.md entry present, no candidate, nothing linkable, unreadable folder).
pub fn generate(folder: &Path) -> Option<Vec<String>> {
    let entries: Vec<fs::DirEntry> = fs::read_dir(folder).ok()?.flatten().collect();
    if entries.iter().any(|e| e.file_name() == INDEX_FILE) {
        return None;
    }
    let candidate = entries.iter().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        if excluded_top(&name) {
            return false;
        }
        match e.file_type() {
            Ok(t) if t.is_file() => name.ends_with(".md"),
            Ok(t) => t.is_dir(),
            Err(_) => false,
        }
    });
    if !candidate {
        return None;
    }
    let mut topics = Vec::new();
    scan(folder, "", &mut topics, 0);
    topics.retain(|t| {
        !t.rel
            .split('/')
            .any(|s| s.starts_with('.') || BACKFILL_EXCLUDED.contains(&fold(s).as_str()))
    });
    topics.sort_by(|a, b| b.mtime_ms.total_cmp(&a.mtime_ms));
    let lines = cap(topics.iter().filter_map(line));
    (!lines.is_empty()).then_some(lines)
}

/// `vzt`: NFC, trailing dots and spaces removed, lower-cased.
fn fold(segment: &str) -> String {
    let s: String = segment.nfc().collect();
    s.trim_end_matches(['.', ' ']).to_lowercase()
}

/// `j8` on a top-level name: hidden, or an excluded folder.
fn excluded_top(name: &str) -> bool {
    name.starts_with('.') || BACKFILL_EXCLUDED.contains(&fold(name).as_str())
}

fn scan(dir: &Path, prefix: &str, out: &mut Vec<Topic>, depth: usize) {
    if depth > 64 {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let Ok(meta) = fs::symlink_metadata(e.path()) else {
            continue;
        };
        if meta.is_dir() {
            scan(&e.path(), &rel, out, depth + 1);
        } else if meta.is_file()
            && crate::sys::nlink(&meta) == 1
            && rel.ends_with(".md")
            && name != INDEX_FILE
        {
            let mtime_ms = crate::sys::mtime_ms(&meta);
            out.push(Topic {
                rel,
                mtime_ms,
                description: description(&e.path()),
            });
        }
    }
}

/// The frontmatter `description` in the first 30 lines / 64 KiB of a topic file.
fn description(path: &Path) -> Option<String> {
    let bytes = crate::fsread::read_head(path, HEAD_BYTES).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let head_end = text
        .match_indices('\n')
        .nth(HEAD_LINES - 1)
        .map_or(text.len(), |(i, _)| i);
    // The memory scan reads the head with `h$` (`qd` → `DDr`, then `Iu`): a description is a
    // non-empty string, as the client's YAML and its lenient pass read it.
    frontmatter::read(&text[..head_end]).memory().description
}

/// `lQr`: the index line of one topic file, or `None` when its path cannot be linked.
fn line(topic: &Topic) -> Option<String> {
    let n = &topic.rel;
    if n.contains(['[', ']', '(', ')', '\n', '\r', '\u{2028}', '\u{2029}']) {
        return None;
    }
    let bare: String = n
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r' | '\u{2028}' | '\u{2029}'))
        .collect();
    if sanitize(&bare) != *n {
        return None;
    }
    let base = n.rsplit('/').next().unwrap_or(n);
    let stem = base
        .strip_suffix(".md")
        .filter(|s| !s.is_empty())
        .unwrap_or(base);
    let o = format!("- [{stem}]({n})");
    let desc = sanitize(topic.description.as_deref().unwrap_or(""));
    let g = js::trim(&collapse_space(&desc)).to_owned();
    let budget = BACKFILL_LINE_BUDGET_UTF16 as i64 - js::utf16_len(&o) as i64 - 3;
    if g.is_empty() || budget <= 1 {
        return Some(o);
    }
    Some(format!(
        "{o} \u{2014} {}",
        sanitize(&cut::preview(&g, budget as usize))
    ))
}

/// JS `.replace(/\s+/g, " ")`.
fn collapse_space(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_space = false;
    for c in s.chars() {
        if js::is_js_space(c) {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
        } else {
            out.push(c);
            in_space = false;
        }
    }
    out
}

/// `dQr`: lines are taken until one would pass 140 lines or 17,500 units; all later are dropped.
fn cap(lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut units = 0;
    for l in lines {
        let len = js::utf16_len(&l);
        if out.len() + 1 > BACKFILL_MAX_LINES || units + len + 1 > BACKFILL_MAX_UTF16 {
            break;
        }
        units += len + 1;
        out.push(l);
    }
    out
}

/// The file text the client writes: each line followed by `\n`.
pub fn text(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[cfg(test)]
mod tests;
