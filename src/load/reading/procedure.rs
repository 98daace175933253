//! The instruction loader's per-file procedure ([`Loader`]) seen through [`Procedure`].
//!
//! Two differences from startup, both the client's: each read has its own processed-path set
//! (swapped in around every call), and external imports are never approved (`dfs` / `UHe`
//! pass `includeExternal = false` for project and managed files; user files keep their own
//! rule).

use std::collections::HashSet;
use std::path::Path;

use super::{Candidate, Procedure};
use crate::load::instructions::rules::{self, RulesOut};
use crate::load::instructions::{Loader, paths};
use crate::load::model::{Kind, LazyWhy, Why};

impl Procedure for Loader<'_> {
    fn file(&mut self, path: &Path, kind: Kind, processed: &mut HashSet<String>) -> Vec<Candidate> {
        let path = paths::to_string(path);
        let why = Why::Ancestor {
            dir: paths::dirname(&path),
        };
        with_read_state(self, processed, |loader| {
            let mut skipped = Vec::new();
            loader
                .load_tree(&path, kind, why, 0, &mut skipped)
                .into_iter()
                .map(|e| Candidate {
                    loaded: e.loaded,
                    globs: e.globs,
                })
                .collect()
        })
    }

    fn rules(
        &mut self,
        dir: &Path,
        kind: Kind,
        processed: &mut HashSet<String>,
        _include_external: bool,
    ) -> Vec<Candidate> {
        let dir = paths::to_string(dir);
        with_read_state(self, processed, |loader| {
            let (mut entries, mut skipped, mut lazy) = (Vec::new(), Vec::new(), Vec::new());
            let mut out = RulesOut {
                entries: &mut entries,
                skipped: &mut skipped,
                lazy: &mut lazy,
            };
            rules::load(loader, &dir, kind, &mut out);
            let mut found: Vec<Candidate> = entries
                .into_iter()
                .map(|e| Candidate {
                    loaded: e.loaded,
                    globs: None,
                })
                .collect();
            // The walk reports conditional entries by path only; the per-file procedure is
            // deterministic, so running it again on the path yields the entry the walk made.
            for item in lazy {
                let LazyWhy::ConditionalRule { globs } = item.why else {
                    continue;
                };
                loader.processed.remove(&paths::normalize(&item.path));
                let why = Why::Rule { dir: dir.clone() };
                let entry = loader
                    .load_tree(&item.path, kind, why, 0, &mut skipped)
                    .into_iter()
                    .next();
                found.extend(entry.map(|e| Candidate {
                    loaded: e.loaded,
                    globs: Some(globs),
                }));
            }
            found
        })
    }
}

/// Runs `f` with the read's processed set and without external-import approval.
fn with_read_state<T>(
    loader: &mut Loader<'_>,
    processed: &mut HashSet<String>,
    f: impl FnOnce(&mut Loader<'_>) -> T,
) -> T {
    std::mem::swap(&mut loader.processed, processed);
    let approved = std::mem::replace(&mut loader.approval.approved, false);
    let out = f(loader);
    loader.approval.approved = approved;
    std::mem::swap(&mut loader.processed, processed);
    out
}
