//! The memory library: one snapshot of a memory folder, read once, that every command works
//! on. One [`Library::load`] gives the files (each read once, in parallel), their frontmatter as
//! the client reads it, the links of every file resolved, which files MEMORY.md reaches from
//! the part the client loads, the index as the client measures it, the write spec the library
//! follows and its `ccmem.toml`.
//!
//! A snapshot can also be built from texts in memory ([`Library::from_texts`]) or from another
//! one with some files replaced ([`Library::with`], how `tier` proves a plan before writing).

mod keyed;
mod order;
mod wiki;

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use keyed::{ByName, ByRel, Keyed, Run};
use order::PathHead;
use wiki::wiki_key;

use super::file::{MemFile, Role, role_of};
use super::meta::KindAt;
use super::pending::{self, Pending};
use super::spec::{Detected, Spec};
use crate::config::{Config, ConfigError};
use crate::fsread::{self, WalkError};
use crate::load::automem::{self, IndexState};
use crate::text::links::{self, Link, Syntax};

/// Where a link leads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A file of the library (its index in [`Library::files`]), named by its path.
    File(usize),
    /// A file of the library matched by name only: a wiki link `[[name]]` that equals a
    /// file's frontmatter `name` (or its topic) but not its file name. Not broken, but it does
    /// not make the file reachable: the model gets a name to search for, not a file to open.
    Named(usize),
    /// An existing path that is not a file of the library (outside the folder, hidden…).
    Outside,
    /// Nothing there.
    Missing,
}

/// A link found in a file, with its position and where it leads.
#[derive(Debug, Clone)]
pub struct FileLink {
    /// 1-based line.
    pub line: usize,
    /// Byte offset of the link in the file.
    pub offset: usize,
    /// The link.
    pub link: Link,
    /// Where it leads.
    pub target: Target,
    /// The line reaches the model: not past the client's cut of MEMORY.md (always true
    /// outside MEMORY.md).
    pub loaded: bool,
}

/// How MEMORY.md reaches a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// The index itself.
    Index,
    /// Linked from the part of MEMORY.md the client loads.
    Direct,
    /// Linked from a hub (this file index) that the loaded part of MEMORY.md links.
    ViaHub(usize),
    /// Linked only from lines of MEMORY.md past the client's cut (or from a hub only those
    /// lines link): on disk, never seen.
    PastCut,
    /// Not reached.
    Unreachable,
}

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
    // foldhash, as in `load::memo`: SipHash's resistance to chosen keys buys nothing for the
    // names of a folder being read.
    by_rel: Keyed<ByRel>,
    by_name: Keyed<ByName>,
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
                    let batch: Vec<(PathHead, Arc<MemFile>)> = (batch.into_iter())
                        .map(|e| {
                            let head = PathHead::of(&e.rel);
                            let read = index.filter(|_| e.rel == crate::constants::INDEX_FILE);
                            let f = read
                                .and_then(|bytes| MemFile::from_read(root, &e, bytes, cap))
                                .unwrap_or_else(|| MemFile::read(root, e, cap));
                            (head, Arc::new(f))
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
        let read = read.into_inner().expect("no reader panics");
        let mut files = order::by_path(read);
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
                    new.mode = old.mode;
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
            || measure_index(index_of(&files).map(|i| &*files[i])),
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
            by_rel: tables.by_rel,
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
        self.by_rel.get(rel)
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
        self.by_name.get(name)
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

    /// The permission bits most of the library's files have (what a new file should get), or
    /// `None` when no file was read from disk.
    pub fn usual_mode(&self) -> Option<u32> {
        let mut counts: HashMap<u32, usize> = HashMap::new();
        for m in self.files.iter().filter_map(|f| f.mode) {
            *counts.entry(m).or_default() += 1;
        }
        counts
            .into_iter()
            .max_by_key(|&(mode, n)| (n, std::cmp::Reverse(mode)))
            .map(|(mode, _)| mode)
    }

    /// The links of file `i` (and whether a code span was left out), `dark` the index's lines
    /// past the client's cut.
    fn scan_links(&self, i: usize, dark: &[(usize, bool)]) -> (Vec<FileLink>, bool) {
        let written = self.files[i].written_links();
        let mut out = Vec::with_capacity(written.len());
        let mut dropped = false;
        for (line, offset, link) in written {
            let loaded = dark.binary_search_by_key(line, |d| d.0).is_err();
            match self.file_link(i, *line, *offset, link.clone(), loaded) {
                Some(l) => out.push(l),
                None => dropped = true,
            }
        }
        (out, dropped)
    }

    /// `link` found in file `from`, resolved; `None` for a code span that is prose.
    fn file_link(
        &self,
        from: usize,
        line: usize,
        offset: usize,
        link: Link,
        loaded: bool,
    ) -> Option<FileLink> {
        let target = self.resolve(from, &link);
        // A code span is a link only where it names a memory: a missing `CLAUDE.md` in
        // backticks is prose about another file.
        if link.syntax == Syntax::CodeSpan
            && target == Target::Missing
            && role_of(link.target.rsplit('/').next().unwrap_or("")) == Role::Other
        {
            return None;
        }
        Some(FileLink {
            line,
            offset,
            link,
            target,
            loaded,
        })
    }

    /// The links of file `i`, an unchanged file whose links in the prior library were `old`:
    /// a link to a file that is still there leads to it (at its new index, `moved`), any other
    /// is resolved again.
    fn relink(&self, i: usize, old: &[FileLink], moved: &[Option<usize>]) -> (Vec<FileLink>, bool) {
        let mut dropped = false;
        let mut out = Vec::with_capacity(old.len());
        for l in old {
            if let Target::File(t) = l.target
                && let Some(now) = moved[t]
            {
                out.push(FileLink {
                    target: Target::File(now),
                    ..l.clone()
                });
                continue;
            }
            match self.file_link(i, l.line, l.offset, l.link.clone(), l.loaded) {
                Some(l) => out.push(l),
                None => dropped = true,
            }
        }
        (out, dropped)
    }

    /// Where `link` in file `from` leads, short of the loose wiki keys: a `[[name]]` that
    /// matches no file and no `name:` is `Missing` until [`Library::resolve_loose_names`].
    fn resolve(&self, from: usize, link: &Link) -> Target {
        let by_path = |target: &str| self.resolve_path(from, target);
        match link.syntax {
            Syntax::Markdown | Syntax::Reference | Syntax::CodeSpan => by_path(&link.target),
            Syntax::Wiki if links::ends_with_md(&link.target) => by_path(&link.target),
            Syntax::Wiki => match by_path(&format!("{}.md", link.target)) {
                // `[[name]]`: the memory whose `name:` it is (the client's own meaning).
                Target::Missing => self
                    .named(link.target.trim())
                    .map_or(Target::Missing, Target::Named),
                found => found,
            },
        }
    }

    /// The wiki links `[[name]]` left `Missing` by [`Library::resolve`]: else the memory whose
    /// file stem or topic (or `name:`) matches, compared case-insensitively with `_` and `-`
    /// alike. All of them at once, after the scan: one pass over the files for the few names
    /// that need it, rather than a table of every file's keys (most libraries never need one).
    fn resolve_loose_names(&mut self) {
        let pending = |l: &FileLink| l.link.syntax == Syntax::Wiki && l.target == Target::Missing;
        let mut keys: foldhash::HashMap<String, Option<usize>> = (self.links.par_iter())
            .flat_map_iter(|links| links.iter().filter(|l| pending(l)))
            .map(|l| (wiki_key(&l.link.target), None))
            .collect();
        if keys.is_empty() {
            return;
        }
        wiki::first_with_keys(&self.files, &self.by_rel, &self.by_name, &mut keys);
        (self.links.par_iter_mut())
            .flat_map_iter(|links| links.iter_mut().filter(|l| pending(l)))
            .for_each(|l| {
                if let Some(&Some(i)) = keys.get(&wiki_key(&l.link.target)) {
                    l.target = Target::Named(i);
                }
            });
    }

    fn resolve_path(&self, from: usize, target: &str) -> Target {
        let from_rel = &self.files[from].rel;
        let dir = from_rel.rfind('/').map_or("", |k| &from_rel[..k + 1]);
        let on_disk: PathBuf = if let Some(rest) = target.strip_prefix("~/") {
            match &self.home {
                Some(home) => home.join(rest),
                // Without HOME nothing can be said about the link.
                None => return Target::Outside,
            }
        } else if target.starts_with('/') {
            PathBuf::from(target)
        } else {
            // The common case, a plain name from a file at the root, needs no path work.
            let plain = dir.is_empty() && !target.contains("./") && !target.starts_with('.');
            if plain && let Some(t) = self.find(target) {
                return Target::File(t);
            }
            if let Some(t) = normalize(&format!("{dir}{target}")).and_then(|j| self.find(&j)) {
                return Target::File(t);
            }
            // Absolute already, so `inside` needs no working directory.
            self.abs_root
                .as_ref()
                .unwrap_or(&self.root)
                .join(dir)
                .join(target)
        };
        if let Some(t) = self.inside(&on_disk) {
            return Target::File(t);
        }
        if std::fs::metadata(&on_disk).is_ok() {
            Target::Outside
        } else {
            Target::Missing
        }
    }

    /// The library file at an absolute or root-relative path, compared lexically.
    fn inside(&self, path: &Path) -> Option<usize> {
        let root = self.abs_root.as_ref()?;
        let path = std::path::absolute(path).ok()?;
        let rel = path.strip_prefix(root).ok()?;
        let rel = normalize(rel.to_str()?)?;
        self.find(&rel)
    }

    fn compute_reach(&self) -> Vec<Reach> {
        let mut reach = vec![Reach::Unreachable; self.files.len()];
        let Some(index) = self.index() else {
            return reach;
        };
        reach[index] = Reach::Index;
        // `Named` links do not count (see `Target::Named`).
        let direct = |loaded: bool| {
            self.links[index]
                .iter()
                .filter_map(move |l| match l.target {
                    Target::File(t) if t != index && l.loaded == loaded => Some(t),
                    _ => None,
                })
        };
        for t in direct(true) {
            reach[t] = Reach::Direct;
        }
        for hub in direct(true).collect::<Vec<_>>() {
            if !matches!(self.files[hub].role, Role::Hub { .. }) {
                continue;
            }
            for l in &self.links[hub] {
                if let Target::File(t) = l.target
                    && reach[t] == Reach::Unreachable
                {
                    reach[t] = Reach::ViaHub(hub);
                }
            }
        }
        for t in direct(false).collect::<Vec<_>>() {
            if reach[t] != Reach::Unreachable {
                continue;
            }
            reach[t] = Reach::PastCut;
            if matches!(self.files[t].role, Role::Hub { .. }) {
                for l in &self.links[t] {
                    if let Target::File(u) = l.target
                        && reach[u] == Reach::Unreachable
                    {
                        reach[u] = Reach::PastCut;
                    }
                }
            }
        }
        reach
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
/// operation replaced, created or removed (its disk mode and time kept when it stays).
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
                (new.symlink, new.mode, new.mtime) = (old.symlink, old.mode, old.mtime);
                // A file that could not be read has no time; the text recovery leaves may need
                // one (`stale-entry`, where it has no `modified` date).
                if new.mtime.is_none() && new.modified().is_none() {
                    let meta = std::fs::metadata(&old.path).ok();
                    new.mtime = meta.as_ref().and_then(super::file::mtime_of);
                    new.mode = meta.as_ref().map(super::file::mode_of);
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

/// The lookup tables of a library and the write spec its files vote for.
struct Tables {
    by_rel: Keyed<ByRel>,
    by_name: Keyed<ByName>,
    spec: Detected,
}

/// Files whose keys and votes one job of [`Tables::of`] gathers.
const RUN: usize = 1024;

impl Tables {
    /// Each file is reached once, on the pool, for its path, its name and its vote; the tables
    /// are then filled side by side from what was gathered.
    fn of(files: &[Arc<MemFile>], config: &Config) -> Tables {
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
            .is_some_and(super::spec::index_marks);
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
            match super::spec::body_marks(body) {
                Some(Spec::Manager) => Some(Vote::Manager),
                Some(Spec::Client) => Some(Vote::Client),
                None => match name {
                    Some(n) if !super::spec::is_kebab_slug(n) => Some(Vote::Client),
                    _ => Some(Vote::Manager),
                },
            }
        }
    }
}

/// The index among `files` (sorted by path), if there is one.
fn index_of(files: &[Arc<MemFile>]) -> Option<usize> {
    let index = crate::constants::INDEX_FILE;
    files.binary_search_by(|f| f.rel.as_str().cmp(index)).ok()
}

/// MEMORY.md as the client measures it.
fn measure_index(index: Option<&MemFile>) -> IndexState {
    match index {
        None => IndexState::Missing,
        Some(f) => match f.text() {
            Some(text) => IndexState::Loaded(automem::index::process_file(text.as_bytes()).measure),
            // Not text here (binary, too large, not UTF-8…): measure it as the client reads
            // it, lossily.
            None if f.mtime.is_some() || f.path.exists() => automem::measure_index(&f.path),
            None => IndexState::Missing,
        },
    }
}

/// The dark lines of the index (file line, partially cut), sorted.
fn dark_lines(state: &IndexState) -> Vec<(usize, bool)> {
    let IndexState::Loaded(m) = state else {
        return Vec::new();
    };
    let mut dark: Vec<(usize, bool)> = m
        .cut
        .iter()
        .flat_map(|c| c.dark.iter().map(|d| (d.line, d.partial)))
        .collect();
    dark.sort_unstable();
    dark
}

/// Resolves `.` and `..` in a relative path; `None` when it leaves the root.
fn normalize(rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in Path::new(rel).components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests;
