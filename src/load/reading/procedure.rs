//! The instruction loader's per-file procedure ([`Loader`]) seen through [`Procedure`].
//!
//! Two differences from startup, both the client's: each read has its own processed-path set
//! (swapped in around every call), and external imports are never approved (`dfs` / `UHe`
//! pass `includeExternal = false` for project and managed files; user files keep their own
//! rule).

use foldhash::HashSet;
use std::path::Path;

use super::{Candidate, Procedure};
use crate::load::instructions::rules;
use crate::load::instructions::{Loader, paths};
use crate::load::model::{Kind, Why};

impl Procedure for Loader<'_> {
    fn file(&mut self, path: &Path, kind: Kind, processed: &mut HashSet<String>) -> Vec<Candidate> {
        let path = paths::to_string(path);
        let why = Why::Ancestor {
            dir: paths::dirname(self.platform, &path),
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
        conditional: bool,
    ) -> Vec<Candidate> {
        let dir = paths::to_string(dir);
        // `UHe` passes includeExternal = true for user rules only; `dfs` / `YLn` false.
        let include_external = kind == Kind::User;
        with_read_state(self, processed, |loader| {
            let mut skipped = Vec::new();
            rules::collect(
                loader,
                &dir,
                kind,
                include_external,
                conditional,
                &mut skipped,
            )
            .into_iter()
            .map(|e| Candidate {
                loaded: e.loaded,
                globs: e.globs,
            })
            .collect()
        })
    }

    fn denies_read(&self, path: &str) -> bool {
        self.deny.covers(path)
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
