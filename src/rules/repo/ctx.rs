//! What a repository rule reads ([`Ctx`]: the walk, the sessions, the texts read once) and how
//! it builds its findings.

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;
use std::rc::Rc;

use crate::env::ClientFlags;
use crate::repo::{DirSession, Environment, Repo, SizeModel, Texts};
use crate::rules::{Diagnostic, Rule};

/// Everything a rule may read.
pub struct Ctx<'a> {
    /// The walk.
    pub repo: &'a Repo,
    /// One session per start directory; the first is the root's.
    pub sessions: &'a [DirSession],
    /// The model the size warnings assume.
    pub size: SizeModel,
    /// The environment sessions start in.
    pub env: &'a Environment,
    /// Client flags of every session.
    pub flags: &'a ClientFlags,
    pub(super) texts: &'a Texts,
    /// Every file some session loads, built on first use ([`Ctx::loads_anywhere`]).
    pub(super) loaded: OnceCell<Loaded>,
    /// The walk's files as a set, built on first use ([`Ctx::has_file`]).
    pub(super) files: OnceCell<HashSet<&'a str>>,
    /// Each file's line breaks, found on its first finding ([`Ctx::finding_at`]): a settings
    /// file or CLAUDE.md with thousands of findings is not read from its start for each.
    pub(super) lines: RefCell<HashMap<String, Rc<crate::text::LineIndex>>>,
}

/// The files the sessions load: by loader path, and by real path (a link's target).
pub(super) struct Loaded {
    paths: HashSet<String>,
    real: HashSet<PathBuf>,
}

impl<'a> Ctx<'a> {
    /// Whether the walk found the file `rel` (relative to the root).
    pub fn has_file(&self, rel: &str) -> bool {
        let files = self
            .files
            .get_or_init(|| self.repo.files.iter().map(String::as_str).collect());
        files.contains(rel)
    }

    /// The files of the walk in the folder `dir` (relative to the root), in walk order, for
    /// each folder of `dirs`: one pass over the walk, however many folders are asked about.
    pub fn files_in(&self, dirs: &HashSet<&str>) -> HashMap<&'a str, Vec<&'a str>> {
        let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
        for p in &self.repo.files {
            let dir = crate::repo::walk::split(p).0;
            if dirs.contains(dir) {
                out.entry(dir).or_default().push(p);
            }
        }
        out
    }

    /// Whether some session loads `abs`, under its own path or a link's. One `realpath` of
    /// `abs` and two lookups: asked once per instruction file, it cost a `realpath` per session
    /// entry, so a monorepo with 400 packages made 2.2 million `readlink` calls (10 s).
    pub fn loads_anywhere(&self, abs: &str) -> bool {
        let loaded = self.loaded.get_or_init(|| {
            let mut loaded = Loaded {
                paths: HashSet::new(),
                real: HashSet::new(),
            };
            for e in self.sessions.iter().flat_map(|s| &s.session.entries) {
                if loaded.paths.insert(e.path.clone())
                    && let Ok(real) = std::fs::canonicalize(&e.path)
                {
                    loaded.real.insert(real);
                }
            }
            loaded
        });
        loaded.paths.contains(abs)
            || std::fs::canonicalize(abs).is_ok_and(|real| loaded.real.contains(&real))
    }

    /// The text of a file (relative to the root, or absolute), read once.
    pub fn text(&self, path: &str) -> Option<Rc<str>> {
        self.texts.get(&self.abs(path))
    }

    /// An absolute path for a relative one (absolute ones, in the model's flavour, unchanged).
    pub fn abs(&self, path: &str) -> String {
        if crate::text::path::is_absolute(self.repo.platform, path) {
            path.to_owned()
        } else {
            self.repo.abs(path)
        }
    }

    /// A finding of `rule` on `path` (a loader path or a relative one) at `line`, with its
    /// fix.
    pub fn finding(
        &self,
        rule: &Rule,
        path: &str,
        line: usize,
        message: String,
        fix: String,
    ) -> Diagnostic {
        Diagnostic {
            fix: Some(fix),
            ..Diagnostic::new(rule, self.repo.show(path).into_owned(), line, message)
        }
    }

    /// The same, underlining bytes `span` of the file (line and column computed).
    pub fn finding_at(
        &self,
        rule: &Rule,
        path: &str,
        span: Range<usize>,
        message: String,
        fix: String,
    ) -> Diagnostic {
        let text = self.text(path).unwrap_or_else(|| Rc::from(""));
        let line = self.lines(path, &text).line_of(span.start.min(text.len()));
        self.finding(rule, path, line, message, fix).at(&text, span)
    }

    /// The line index of `text`, the text of `path`, built on its first use.
    pub fn lines(&self, path: &str, text: &str) -> Rc<crate::text::LineIndex> {
        Rc::clone(
            (self.lines.borrow_mut())
                .entry(path.to_owned())
                .or_insert_with(|| Rc::new(crate::text::LineIndex::new(text))),
        )
    }

    /// The root's session.
    pub fn root(&self) -> &DirSession {
        &self.sessions[0]
    }

    /// The platform model sessions run on.
    pub fn platform(&self) -> crate::platform::Platform {
        self.repo.platform
    }

    /// The home directory sessions see (`~` in imports).
    pub fn home(&self) -> String {
        self.env
            .client_env(self.repo.root.clone(), self.flags)
            .home
            .to_string_lossy()
            .into_owned()
    }
}
