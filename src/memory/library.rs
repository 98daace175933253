//! The memory library: one snapshot of a memory folder, read once, that every command works
//! on. One [`Library::load`] gives the files (each read once, in parallel), their frontmatter as
//! the client reads it, the links of every file resolved, which files MEMORY.md reaches from
//! the part the client loads, the index as the client measures it, the write spec the library
//! follows and its `ccmem.toml`.
//!
//! A snapshot can also be built from texts in memory ([`Library::from_texts`]) or from another
//! one with some files replaced ([`Library::with`], how `tier` proves a plan before writing).
//!
//! Here: reading and building a snapshot. Beside it: the table of names and the spec vote
//! (`tables`), the links and where they lead (`links`, `wiki` for loose `[[name]]` keys), how
//! MEMORY.md reaches each file (`reach`).

mod links;
mod reach;
mod tables;
mod wiki;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

pub use links::{FileLink, Target};
pub use reach::Reach;

use reach::dark_lines;
use tables::Tables;

use super::file::{MemFile, Role};
use super::pending::{self, Pending};
use super::spec::{Detected, Spec};
use crate::config::{Config, ConfigError};
use crate::fsread::{self, WalkError};
use crate::load::automem::{self, IndexState};

/// How to load a library.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoadOptions<'a> {
    /// A `ccmem.toml` to use instead of the one found from the folder (`--config`).
    pub config: Option<&'a Path>,
    /// `HOME` from the environment snapshot, for `~/` links (`None`: such links stay
    /// unresolved and are not reported).
    pub home: Option<&'a Path>,
}

/// Why a library could not be loaded at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The folder itself cannot be listed.
    #[error("{}: {source}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `ccmem.toml` is unusable.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A memory library.
#[derive(Debug, Clone)]
pub struct Library {
    /// The folder as given.
    pub root: PathBuf,
    /// Every `.md` file, sorted by relative path.
    pub files: Vec<Arc<MemFile>>,
    /// Subfolders that could not be listed.
    pub walk_errors: Vec<WalkError>,
    /// `ccmem.toml` (defaults when there is none; [`Config::path`] is the file used).
    pub config: Config,
    /// The write spec the library is held to.
    pub spec: Detected,
    /// MEMORY.md as the client measures it at load (from the text read here).
    pub index_state: IndexState,
    /// An interrupted ccmem write found in the folder. The files are then the state its
    /// recovery will leave, not the half-written ones on disk.
    pub pending: Option<Pending>,
    /// The project the memory is about (its root), when known: what `stale-reference` checks
    /// the paths a memory names against. The loader does not set it: the audit does, from
    /// the directory it runs in or `--project`.
    pub project: Option<PathBuf>,
    home: Option<PathBuf>,
    links: Vec<Vec<FileLink>>,
    /// Per file: a code span in it was left out of its links because it leads nowhere (see
    /// [`Library::scan_links`]); a file created later may give it a target.
    spans_dropped: Vec<bool>,
    reach: Vec<Reach>,
    /// `root` made absolute once (links leaving the folder are compared with it).
    abs_root: Option<PathBuf>,
    /// The first file (by path) with each frontmatter `name`, trimmed. foldhash, as in
    /// `load::memo`: SipHash's resistance to chosen keys buys nothing for the names of a folder
    /// being read.
    by_name: foldhash::HashMap<String, usize>,
}

/// Files read per job while the walk goes on (a job per file would cost more in scheduling
/// than a small file costs to read).
const READ_BATCH: usize = 64;

impl Library {
    /// Finds `ccmem.toml`, then scans and reads `root` (files larger than `[audit]
    /// max-file-bytes` are reported, not read). Fails only when the folder cannot be listed or
    /// the configuration is unusable.
    pub fn load(root: &Path, opts: &LoadOptions) -> Result<Library, LoadError> {
        let config = Config::find(root, opts.config)?;
        Library::load_configured(root, config, opts.home)
    }

    /// [`Library::load`] with settings already found.
    pub fn load_configured(
        root: &Path,
        config: Config,
        home: Option<&Path>,
    ) -> Result<Library, LoadError> {
        Library::read(root, config, home, None)
    }

    /// [`Library::load_configured`] with MEMORY.md's bytes read already (by the loader, for
    /// the same session): they are used instead of reading the file again.
    pub fn load_with_index(
        root: &Path,
        config: Config,
        home: Option<&Path>,
        index: &[u8],
    ) -> Result<Library, LoadError> {
        Library::read(root, config, home, Some(index))
    }

    /// [`Library::load_configured`]; `index`: MEMORY.md's bytes, when they were read already.
    fn read(
        root: &Path,
        config: Config,
        home: Option<&Path>,
        index: Option<&[u8]>,
    ) -> Result<Library, LoadError> {
        let cap = config.audit.max_file_bytes;
        // The walk hands its entries over a batch at a time, and each batch is read on the
        // pool while the walk lists the next.
        let read = std::sync::Mutex::new(Vec::new());
        let walked = rayon::scope(|s| {
            let read = &read;
            fsread::md_files_batched(root, READ_BATCH, &mut |batch| {
                s.spawn(move |_| {
                    let batch: Vec<Arc<MemFile>> = (batch.into_iter())
                        .map(|e| {
                            let read = index.filter(|_| e.rel == crate::constants::INDEX_FILE);
                            let f = read
                                .and_then(|bytes| MemFile::from_read(root, &e, bytes, cap))
                                .unwrap_or_else(|| MemFile::read(root, e, cap));
                            Arc::new(f)
                        })
                        .collect();
                    read.lock().expect("no reader panics").extend(batch);
                });
            })
        });
        let walk_errors = walked.map_err(|source| LoadError::Folder {
            path: root.to_path_buf(),
            source,
        })?;
        let mut files = read.into_inner().expect("no reader panics");
        // Relative paths are unique: no stable sort needed.
        files.par_sort_unstable_by(|a, b| a.rel.cmp(&b.rel));
        let pending = pending::find(root).map(|(p, restored)| {
            restore(root, &mut files, restored);
            p
        });
        let mut lib = Library::build(root, files, walk_errors, config, home, None);
        lib.pending = pending;
        Ok(lib)
    }

    /// A library of `(relative path, text)` pairs held in memory, as if read from `root`.
    pub fn from_texts<I, S>(root: &Path, config: Config, files: I) -> Library
    where
        I: IntoIterator<Item = (S, String)>,
        S: Into<String>,
    {
        let mut files: Vec<Arc<MemFile>> = files
            .into_iter()
            .map(|(rel, text)| Arc::new(MemFile::from_text(root, rel.into(), text)))
            .collect();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files.dedup_by(|a, b| a.rel == b.rel);
        Library::build(root, files, Vec::new(), config, None, None)
    }

    /// This library with some files replaced or created (`Some(text)`) or removed (`None`),
    /// in memory. The files that stay as they were are shared with `self`, and so are their
    /// links (only where they lead is looked up again): `tier` proves a plan for 20,000 files
    /// without reading or scanning them twice.
    pub fn with<'a>(
        &self,
        changes: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
    ) -> Library {
        self.replaced(changes.into_iter().map(|(rel, text)| {
            let file = text.map(|t| {
                let mut new = MemFile::from_text(&self.root, rel.to_owned(), t.to_owned());
                if let Some(old) = self.file(rel) {
                    new.symlink = old.symlink;
                }
                new
            });
            (rel, file)
        }))
    }

    /// This library with the files `names` read again from disk, each as [`Library::load`]
    /// reads a file of the folder (one that is gone is removed); the others are shared with
    /// `self`, unread. What `tier --write` proves after writing those files.
    pub fn reread<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Library {
        let cap = self.config.audit.max_file_bytes;
        self.replaced(
            names
                .into_iter()
                .map(|rel| (rel, MemFile::read_named(&self.root, rel, cap))),
        )
    }

    /// [`Library::with`] and [`Library::reread`]: `self` with files replaced, created or
    /// (`None`) removed.
    fn replaced<'a>(
        &self,
        changes: impl IntoIterator<Item = (&'a str, Option<MemFile>)>,
    ) -> Library {
        let mut files = self.files.clone();
        // Per file: its index in `self` when it is the same file, unchanged.
        let mut same: Vec<Option<usize>> = (0..files.len()).map(Some).collect();
        let mut created = false;
        for (rel, file) in changes {
            let at = files.binary_search_by(|f| f.rel.as_str().cmp(rel));
            match (at, file) {
                (Ok(k), Some(new)) => {
                    files[k] = Arc::new(new);
                    same[k] = None;
                }
                (Err(k), Some(new)) => {
                    files.insert(k, Arc::new(new));
                    same.insert(k, None);
                    created = true;
                }
                (Ok(k), None) => {
                    files.remove(k);
                    same.remove(k);
                }
                (Err(_), None) => {}
            }
        }
        let prior = Prior {
            lib: self,
            same,
            created,
        };
        let mut lib = Library::build(
            &self.root,
            files,
            self.walk_errors.clone(),
            self.config.clone(),
            self.home.as_deref(),
            Some(&prior),
        );
        lib.pending = self.pending.clone();
        lib.project = self.project.clone();
        lib
    }

    fn build(
        root: &Path,
        files: Vec<Arc<MemFile>>,
        walk_errors: Vec<WalkError>,
        config: Config,
        home: Option<&Path>,
        prior: Option<&Prior<'_>>,
    ) -> Library {
        // MEMORY.md is measured beside the tables: found by path among the sorted files, it
        // needs none.
        let (tables, index_state) = rayon::join(
            || Tables::of(&files, &config),
            || measure_index(position(&files, crate::constants::INDEX_FILE).map(|i| &*files[i])),
        );
        let mut lib = Library {
            root: root.to_path_buf(),
            abs_root: std::path::absolute(root).ok(),
            files,
            walk_errors,
            config,
            spec: tables.spec,
            index_state,
            pending: None,
            project: None,
            home: home.map(Path::to_path_buf),
            links: Vec::new(),
            spans_dropped: Vec::new(),
            reach: Vec::new(),
            by_name: tables.by_name,
        };
        let dark = dark_lines(&lib.index_state);
        let index = lib.index();
        // Where each file of `prior` is now (its rel is still there, changed or not).
        let moved: Vec<Option<usize>> = prior.map_or_else(Vec::new, |p| {
            (p.lib.files.iter()).map(|f| lib.find(&f.rel)).collect()
        });
        (lib.links, lib.spans_dropped) = (0..lib.files.len())
            .into_par_iter()
            .map(|i| match prior.and_then(|p| p.reusable(i)) {
                Some((old, dropped)) => {
                    let (links, now) = lib.relink(i, old, &moved);
                    (links, dropped || now)
                }
                None => lib.scan_links(i, if Some(i) == index { &dark } else { &[] }),
            })
            .unzip();
        lib.resolve_loose_names();
        lib.reach = lib.compute_reach();
        lib
    }

    /// The index (`MEMORY.md` at the root), if there is one.
    pub fn index(&self) -> Option<usize> {
        self.find(crate::constants::INDEX_FILE)
    }

    /// MEMORY.md's text (empty when there is none or it could not be read).
    pub fn index_text(&self) -> &str {
        self.index()
            .and_then(|i| self.files[i].text())
            .unwrap_or("")
    }

    /// The file with this relative path.
    pub fn find(&self, rel: &str) -> Option<usize> {
        position(&self.files, rel)
    }

    /// The file with this relative path.
    pub fn file(&self, rel: &str) -> Option<&MemFile> {
        self.find(rel).map(|i| &*self.files[i])
    }

    /// The files directly in the folder other than MEMORY.md (what `tier` plans with), by
    /// name.
    pub fn top_level(&self) -> impl Iterator<Item = &MemFile> {
        self.files
            .iter()
            .map(|f| &**f)
            .filter(|f| !f.rel.contains('/') && f.role != Role::Index)
    }

    /// The file whose frontmatter `name` is `name` (the first, by path, when several share it).
    pub fn named(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The links of file `i`.
    pub fn links(&self, i: usize) -> &[FileLink] {
        &self.links[i]
    }

    /// How MEMORY.md reaches each file, by file index.
    pub fn reach(&self) -> &[Reach] {
        &self.reach
    }

    /// The write spec the library is held to.
    pub fn spec(&self) -> Spec {
        self.spec.spec
    }
}

/// The library a new one is built from ([`Library::with`]), and which of its files stay.
struct Prior<'a> {
    lib: &'a Library,
    /// Per new file: its index in `lib` when it is the same file, unchanged.
    same: Vec<Option<usize>>,
    /// Files were created (a link that led nowhere may lead to one now).
    created: bool,
}

impl Prior<'_> {
    /// The prior links of new file `i`, when they can be reused: the file is unchanged, and
    /// no code span of it was left out that a created file could now give a target.
    fn reusable(&self, i: usize) -> Option<(&[FileLink], bool)> {
        let old = self.same[i]?;
        let dropped = self.lib.spans_dropped[old];
        if self.created && dropped {
            return None;
        }
        Some((&self.lib.links[old], dropped))
    }
}

/// `files` (sorted by path) as recovery will leave them: each `.md` file of the interrupted
/// operation replaced, created or removed (its disk time kept when it stays).
fn restore(root: &Path, files: &mut Vec<Arc<MemFile>>, restored: pending::Restored) {
    for (name, content) in restored {
        if !name.ends_with(".md") || name.starts_with('.') || name.contains('/') {
            continue;
        }
        let at = files.binary_search_by(|f| f.rel.as_str().cmp(&name));
        match (at, content) {
            (Ok(k), Some(bytes)) => {
                let old = &files[k];
                let mut new = MemFile::from_bytes(root, name, bytes);
                (new.symlink, new.mtime) = (old.symlink, old.mtime);
                // A file that could not be read has no time; the text recovery leaves may need
                // one (`stale-entry`, where it has no `modified` date).
                if new.mtime.is_none() && new.modified().is_none() {
                    let meta = std::fs::metadata(&old.path).ok();
                    new.mtime = meta.as_ref().and_then(super::file::mtime_of);
                }
                files[k] = Arc::new(new);
            }
            (Err(k), Some(bytes)) => {
                files.insert(k, Arc::new(MemFile::from_bytes(root, name, bytes)));
            }
            (Ok(k), None) => {
                files.remove(k);
            }
            (Err(_), None) => {}
        }
    }
}

/// The file with relative path `rel` among `files` (sorted by path).
fn position(files: &[Arc<MemFile>], rel: &str) -> Option<usize> {
    files.binary_search_by(|f| f.rel.as_str().cmp(rel)).ok()
}

/// MEMORY.md as the client measures it.
fn measure_index(index: Option<&MemFile>) -> IndexState {
    match index {
        None => IndexState::Missing,
        // Text, or decoded as the client decodes it (binary, not UTF-8): the same text.
        Some(f) => match f.client_text() {
            Some(text) => IndexState::Loaded(automem::index::process_file(text.as_bytes()).measure),
            // Not read here (too large, not a regular file…): as the client reads it.
            None if f.mtime.is_some() || f.path.exists() => automem::measure_index(&f.path),
            None => IndexState::Missing,
        },
    }
}

#[cfg(test)]
mod tests;
