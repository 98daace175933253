//! The lookup tables of a library (by path, by frontmatter `name`) and the write spec its files
//! vote for, gathered in one pass over the files.

use std::sync::Arc;

use rayon::prelude::*;

use super::position;
use crate::config::Config;
use crate::constants::INDEX_FILE;
use crate::memory::file::{MemFile, Role};
use crate::memory::meta::KindAt;
use crate::memory::spec::{self, Detected, Spec};

/// The table of names of a library and the write spec its files vote for.
pub(super) struct Tables {
    /// The first file (by path) with each frontmatter `name`, trimmed, when not empty.
    pub(super) by_name: foldhash::HashMap<String, usize>,
    pub(super) spec: Detected,
}

impl Tables {
    /// The votes are counted on the pool beside the table of names.
    pub(super) fn of(files: &[Arc<MemFile>], config: &Config) -> Tables {
        let (by_name, [client, manager]) = rayon::join(
            || {
                let mut by_name = foldhash::HashMap::default();
                for (i, f) in files.iter().enumerate() {
                    let name = f.meta().and_then(|m| m.name.as_deref()).map(str::trim);
                    if let Some(n) = name.filter(|n| !n.is_empty() && !by_name.contains_key(*n)) {
                        by_name.insert(n.to_owned(), i);
                    }
                }
                by_name
            },
            || {
                (files.par_iter().filter_map(|f| vote(f)))
                    .fold(
                        || [0, 0],
                        |mut votes, v| {
                            votes[v as usize] += 1;
                            votes
                        },
                    )
                    .reduce(|| [0, 0], |a, b| [a[0] + b[0], a[1] + b[1]])
            },
        );
        let index_marks = position(files, INDEX_FILE)
            .and_then(|i| files[i].text())
            .is_some_and(spec::index_marks);
        Tables {
            by_name,
            spec: Detected::from_votes(config.spec, client, manager).with_index_marks(index_marks),
        }
    }
}

/// A memory file's vote for a write spec.
#[derive(Debug, Clone, Copy)]
enum Vote {
    Client = 0,
    Manager = 1,
}

/// The vote of `f`. The client's own marks: `metadata.type` (2.1.214 and later), and in its
/// older flat format (top-level `type`, files also named `<type>_<topic>.md`) the
/// `originSessionId` / `node_type` its writer stamps, a name that is not the file's kebab-case
/// topic, inline `**Why:**` labels. claude-memory-manager's: `## Why` / `## 根因` sections,
/// `⚠️ Superseded by [[…]]` tombstones (a hub votes by its frontmatter like any file: `tier`
/// writes hubs in the library's own form, and must not turn the library's spec). A flat file with neither
/// votes by its name: a free name is the client's, a slug claude-memory-manager's.
fn vote(f: &MemFile) -> Option<Vote> {
    if f.role == Role::Index {
        return None;
    }
    let meta = f.meta()?;
    match meta.kind_at {
        KindAt::Nowhere => None,
        KindAt::Nested => Some(Vote::Client),
        KindAt::Flat => {
            let topic = match &f.role {
                Role::Entry { topic, .. } => topic.as_str(),
                Role::Hub { group } => group.as_str(),
                _ => return Some(Vote::Client),
            };
            let (text, parsed) = f.parsed()?;
            let (front, body) = text.split_at(parsed.body_start);
            if front.contains("originSessionId") || meta.node_type.is_some() {
                return Some(Vote::Client);
            }
            let stem = f.name().trim_end_matches(".md");
            let name = meta.name.as_deref().map(str::trim);
            // A name that is the file's topic (`feedback_x_y.md`, `name: x-y`) or its stem is
            // claude-memory-manager's rule; the client's older template asked for a free name.
            if name.is_some_and(|n| n == topic.replace('_', "-") || n == topic || n == stem) {
                return Some(Vote::Manager);
            }
            match spec::body_marks(body) {
                Some(Spec::Manager) => Some(Vote::Manager),
                Some(Spec::Client) => Some(Vote::Client),
                None => match name {
                    Some(n) if !spec::is_kebab_slug(n) => Some(Vote::Client),
                    _ => Some(Vote::Manager),
                },
            }
        }
    }
}
