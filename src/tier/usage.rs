//! Usage evidence for the plan: how often the model read each file of the library in the
//! sessions the client's transcripts still hold ([`crate::history::usage`]). Within a rank,
//! the pieces whose files were read least move first ([`super::groups::Piece::order_key`]), so
//! entries read recently stay before unread ones, and the dry run says how many sessions
//! ordered the plan.
//!
//! Only reads of files inside the memory folder count, by their path relative to it (the
//! names [`crate::memory::Library`] holds): a read recorded for another folder (another
//! project, an agent's memory) orders nothing. No transcripts, or none that read a file of this
//! folder: no evidence, and the plan is the one made without it.

use std::collections::HashMap;
use std::path::{Component, Path};

use crate::constants::INDEX_FILE;
use crate::env::ClientEnv;
use crate::history::usage::Usage;
use crate::memory::Library;

/// Recorded reads of a memory folder's files.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reads {
    /// Read calls per file, by its path relative to the memory folder (`feedback_x.md`).
    pub files: HashMap<String, usize>,
    /// The recorded sessions those reads come from (0 when no file was read).
    pub sessions: usize,
}

impl Reads {
    /// The reads `usage` recorded of files in `folder` (as given, or its real path: the client
    /// records the path it was told).
    pub fn of(usage: &Usage, folder: &Path) -> Reads {
        let real = std::fs::canonicalize(folder).ok();
        let mut files: HashMap<String, usize> = HashMap::new();
        for (path, topic) in &usage.topics {
            let path = Path::new(path);
            let Some(rel) = [Some(folder), real.as_deref()]
                .into_iter()
                .flatten()
                .find_map(|f| path.strip_prefix(f).ok())
            else {
                continue;
            };
            // `..` and the like never name a file of the folder.
            if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                continue;
            }
            let Some(rel) = rel.to_str().filter(|r| !r.is_empty()) else {
                continue;
            };
            *files.entry(rel.replace('\\', "/")).or_default() += topic.reads;
        }
        let sessions = if files.is_empty() { 0 } else { usage.sessions };
        Reads { files, sessions }
    }

    /// The reads recorded of `lib`'s folder in the sessions of the project the client would
    /// use in `env`'s start directory (its transcripts; ccmem's log is not read). MEMORY.md is
    /// the library's: not read again.
    pub fn of_library(env: &ClientEnv, lib: &Library) -> Reads {
        let settings = crate::settings::Settings::load(env);
        let index = lib.root.join(INDEX_FILE);
        let index = index.to_string_lossy();
        let today = Some((index.as_ref(), lib.index_text().as_bytes()));
        Reads::of(&Usage::of_session(env, &settings, None, today), &lib.root)
    }

    /// Whether there is no evidence.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::usage::TopicUse;

    fn usage(paths: &[(&str, usize)]) -> Usage {
        Usage {
            sessions: 4,
            topics: (paths.iter())
                .map(|&(p, reads)| {
                    let u = TopicUse {
                        reads,
                        sessions: 1,
                        last_read: None,
                        last_session: "s".into(),
                    };
                    (p.to_owned(), u)
                })
                .collect(),
            ..Usage::default()
        }
    }

    #[test]
    fn only_files_of_the_folder_count_by_their_name_in_it() {
        let u = usage(&[
            ("/h/.claude/projects/-p/memory/feedback_a.md", 3),
            ("/h/.claude/projects/-p/memory/sub/notes.md", 1),
            ("/h/.claude/projects/-q/memory/feedback_a.md", 9),
            ("/h/.claude/projects/-p/memory/../memory2/x.md", 9),
            ("/h/.claude/projects/-p/memoryX/y.md", 9),
        ]);
        let r = Reads::of(&u, Path::new("/h/.claude/projects/-p/memory"));
        let mut files: Vec<_> = r.files.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        files.sort();
        assert_eq!(files, [("feedback_a.md", 3), ("sub/notes.md", 1)]);
        assert_eq!(r.sessions, 4);
    }

    #[test]
    fn no_read_of_the_folder_is_no_evidence() {
        let u = usage(&[("/elsewhere/feedback_a.md", 3)]);
        let r = Reads::of(&u, Path::new("/h/.claude/projects/-p/memory"));
        assert!(r.is_empty());
        assert_eq!(r.sessions, 0);
        assert_eq!(
            Reads::of(&Usage::default(), Path::new("/m")),
            Reads::default()
        );
    }
}
