//! The lookup tables of a library (by path, by frontmatter `name`) and the write spec its files
//! vote for, gathered in one pass over the files.

use std::sync::Arc;

use rayon::prelude::*;

use super::index_of;
use super::keyed::{ByName, ByRel, Keyed, Run};
use crate::config::Config;
use crate::memory::file::{MemFile, Role};
use crate::memory::meta::KindAt;
use crate::memory::spec::{self, Detected, Spec};

/// The lookup tables of a library and the write spec its files vote for.
pub(super) struct Tables {
    pub(super) by_rel: Keyed<ByRel>,
    pub(super) by_name: Keyed<ByName>,
    pub(super) spec: Detected,
}

/// Files whose keys and votes one job of [`Tables::of`] gathers.
const RUN: usize = 1024;

impl Tables {
    /// Each file is reached once, on the pool, for its path, its name and its vote; the tables
    /// are then filled side by side from what was gathered.
    pub(super) fn of(files: &[Arc<MemFile>], config: &Config) -> Tables {
        let runs: Vec<(Run<ByRel>, Run<ByName>, [usize; 2])> = (files.par_chunks(RUN).enumerate())
            .map(|(c, chunk)| {
                let mut rels = Run::with_capacity(chunk.len());
                let mut names = Run::with_capacity(chunk.len());
                let mut votes = [0, 0];
                for (k, f) in chunk.iter().enumerate() {
                    rels.push(c * RUN + k, f);
                    names.push(c * RUN + k, f);
                    if let Some(v) = vote(f) {
                        votes[v as usize] += 1;
                    }
                }
                (rels, names, votes)
            })
            .collect();
        let [client, manager] = (runs.iter()).fold([0, 0], |[c, m], r| [c + r.2[0], m + r.2[1]]);
        let index_marks = index_of(files)
            .and_then(|i| files[i].text())
            .is_some_and(spec::index_marks);
        let (rels, names): (Vec<_>, Vec<_>) = runs.into_iter().map(|(r, n, _)| (r, n)).unzip();
        let (by_rel, by_name) = rayon::join(|| Keyed::from_runs(rels), || Keyed::from_runs(names));
        Tables {
            by_rel,
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
