//! Every line of today's MEMORY.md with the last session that loaded it: how long each entry has
//! been dark, from the record.
//!
//! A line counts as loaded by a session when the exact text is among the index lines that reached
//! that session's model (the part before the client's cut warning) and that index is today's
//! file (the same path). Transcripts are matched on the text itself as they are read; ccmem's log
//! keeps a 32-bit hash of each loaded line ([`line_hash`]), matched on that.

use std::collections::HashMap;

use serde::Serialize;

use super::model::Session;

/// Today's MEMORY.md: its non-blank lines, in order.
#[derive(Debug, Clone, Default)]
pub struct Today {
    /// The index path as the client prints it.
    pub path: String,
    /// `(1-based line number, text)` of every non-blank line.
    pub lines: Vec<(usize, String)>,
    by_hash: HashMap<u64, Vec<u32>>,
}

/// Largest MEMORY.md whose lines are listed (the client reads at most 4 MiB of it).
const MAX_INDEX: u64 = 4 << 20;

impl Today {
    /// Reads the index at `path` (missing, unreadable or over 4 MiB: `None`).
    pub fn read(path: &str) -> Option<Today> {
        let bytes = crate::fsread::read_capped(std::path::Path::new(path), MAX_INDEX).ok()?;
        Some(Today::of(
            path,
            &crate::load::automem::index::decode(&bytes),
        ))
    }

    /// Today's index from its text.
    pub fn of(path: &str, text: &str) -> Today {
        let lines: Vec<(usize, String)> = text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| (i + 1, l.to_owned()))
            .collect();
        let mut by_hash: HashMap<u64, Vec<u32>> = HashMap::new();
        for (k, (_, text)) in lines.iter().enumerate() {
            by_hash.entry(hash64(text)).or_default().push(k as u32);
        }
        Today {
            path: path.to_owned(),
            lines,
            by_hash,
        }
    }

    /// Which of today's lines are among `loaded` (exact text), as bits by position.
    pub fn mark<'a>(&self, loaded: impl Iterator<Item = &'a str>) -> Vec<u64> {
        let mut bits = vec![0u64; self.lines.len().div_ceil(64)];
        for line in loaded {
            for &k in self.by_hash.get(&hash64(line)).into_iter().flatten() {
                let k = k as usize;
                if self.lines[k].1 == line {
                    bits[k / 64] |= 1 << (k % 64);
                }
            }
        }
        bits
    }

    /// Which of today's lines have a hash among `hashes` (ccmem's log), as bits by position.
    pub fn mark_hashed(&self, hashes: &[u32]) -> Vec<u64> {
        let set: std::collections::HashSet<u32> = hashes.iter().copied().collect();
        let mut bits = vec![0u64; self.lines.len().div_ceil(64)];
        for (k, (_, text)) in self.lines.iter().enumerate() {
            if set.contains(&line_hash(text)) {
                bits[k / 64] |= 1 << (k % 64);
            }
        }
        bits
    }
}

fn hash64(s: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(s.as_bytes())
}

/// The 32-bit hash ccmem's log keeps of each loaded index line.
pub fn line_hash(s: &str) -> u32 {
    hash64(s) as u32
}

/// One line of today's MEMORY.md and when it last reached the model.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The line.
    pub text: String,
    /// The last session whose start block carried this exact line (`null`: none recorded).
    pub last_loaded: Option<String>,
    /// When that session started.
    pub last_loaded_at: Option<String>,
    /// Sessions that loaded this index since, without this line (all of them when it never
    /// loaded).
    pub sessions_since: usize,
    /// When the first of those started: the line has been dark since then.
    pub dark_since: Option<String>,
}

/// The entries of `today`, given the sessions oldest first.
pub fn entries(today: &Today, sessions: &[Session]) -> Vec<Entry> {
    let loading: Vec<&Session> = sessions
        .iter()
        .filter(|s| {
            s.memory_index
                .as_ref()
                .is_some_and(|i| i.path == today.path)
        })
        .collect();
    today
        .lines
        .iter()
        .enumerate()
        .map(|(k, (line, text))| {
            let last = loading
                .iter()
                .rposition(|s| s.memory_index.as_ref().is_some_and(|i| i.has_today(k)));
            let after = &loading[last.map_or(0, |l| l + 1)..];
            Entry {
                line: *line,
                text: text.clone(),
                last_loaded: last.map(|l| loading[l].id.clone()),
                last_loaded_at: last.and_then(|l| loading[l].started.clone()),
                sessions_since: after.len(),
                dark_since: after.first().and_then(|s| s.started.clone()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::model::{IndexRecord, Source};

    fn session(id: &str, t: &str, today: &Today, loaded: &[&str]) -> Session {
        let mut s = Session::new(id, 1, Source::Transcript);
        s.started = Some(t.into());
        s.memory_index = Some(IndexRecord {
            path: today.path.clone(),
            lines: loaded.len(),
            warned: false,
            today: today.mark(loaded.iter().copied()),
        });
        s
    }

    #[test]
    fn last_loaded_dark_since_and_never_loaded() {
        let today = Today::of("/m/MEMORY.md", "# Memory\n\n- a\n- b\n- c\n");
        let s1 = session(
            "s1",
            "2026-11-02T00:00:00Z",
            &today,
            &["# Memory", "", "- a", "- b"],
        );
        let s2 = session(
            "s2",
            "2026-11-12T00:00:00Z",
            &today,
            &["# Memory", "", "- a"],
        );
        let s3 = session(
            "s3",
            "2026-11-13T00:00:00Z",
            &today,
            &["# Memory", "", "- a"],
        );
        let got = entries(&today, &[s1, s2, s3]);
        let brief: Vec<_> = got
            .iter()
            .map(|e| {
                (
                    e.line,
                    e.last_loaded.as_deref(),
                    e.sessions_since,
                    e.dark_since.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            brief,
            vec![
                (1, Some("s3"), 0, None),
                (3, Some("s3"), 0, None),
                (4, Some("s1"), 2, Some("2026-11-12T00:00:00Z")),
                (5, None, 3, Some("2026-11-02T00:00:00Z")),
            ]
        );
    }

    #[test]
    fn another_index_and_hashed_log_lines() {
        let today = Today::of("/m/MEMORY.md", "- a\n- b\n");
        let mut other = session("o", "2026-11-02T00:00:00Z", &today, &["- a"]);
        other.memory_index.as_mut().unwrap().path = "/elsewhere/MEMORY.md".into();
        let got = entries(&today, &[other]);
        assert_eq!(got[0].last_loaded, None);
        assert_eq!(got[0].sessions_since, 0);
        let bits = today.mark_hashed(&[line_hash("- b")]);
        assert_eq!(bits, vec![0b10]);
    }
}
