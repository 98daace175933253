//! What the client attaches when it reads a file during the session (`nested_memory`,
//! SPEC-reading §2–§4; client functions `Q5o` → `iys` → `dfs` / `UHe` → `v5o`).
//!
//! For a read of file F, with C the original working directory:
//! 1. conditional rules of the managed and user rules folders that match F (base C);
//! 2. every folder strictly between C and F, outermost first: its `CLAUDE.md`,
//!    `.claude/CLAUDE.md`, `CLAUDE.local.md`, unconditional rules, then its matching
//!    conditional rules (base: that folder);
//! 3. C and each ancestor up to `/`, outermost first: their matching conditional rules only.
//!
//! Each file goes through the startup per-file procedure (imports follow their importer), and
//! a file already in the session (startup block, an earlier attachment, or a file the model
//! read itself) is not attached again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use foldhash::HashSet;

use super::Session;
use super::git;
use super::model::{Kind, Loaded, Why};
use super::rule_paths::{self, Matcher};
use crate::constants::{CLAUDE_DIR, CLAUDE_LOCAL_MD, CLAUDE_MD, RULES_DIR};
use crate::env::ClientEnv;
use crate::settings::{Settings, Source};

/// One file as the per-file procedure returns it, with the globs of its own `paths:`
/// frontmatter (`None` for an unconditional file).
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The loaded file (imports come right after their importer).
    pub loaded: Loaded,
    /// Its conditional patterns, when its frontmatter makes it conditional.
    pub globs: Option<Vec<String>>,
}

/// The startup loader's per-file procedures, which lazy loading reuses unchanged.
pub trait Procedure {
    /// One file and its imports, pre-order (`cce`); `processed` is the per-read set.
    fn file(&mut self, path: &Path, kind: Kind, processed: &mut HashSet<String>) -> Vec<Candidate>;

    /// Every rule under a rules folder, in raw directory order, each followed by its imports
    /// (`Gze`, before its conditional/unconditional filter). External imports are never
    /// approved here; user files keep their own rule.
    /// `conditional` is the client's `conditionalRule` flag (the pass that keeps rules with
    /// `paths:`).
    fn rules(
        &mut self,
        dir: &Path,
        kind: Kind,
        processed: &mut HashSet<String>,
        conditional: bool,
    ) -> Vec<Candidate>;

    /// Whether a `permissions.deny` Read rule covers `path` for the model's own reads (any
    /// file, whatever its kind): the Read tool refuses it, a Bash read of it is refused too,
    /// and it never triggers nested memory (`cL` in `WQo`; captured: bash-read-denied).
    fn denies_read(&self, _path: &str) -> bool {
        false
    }
}

/// For each read path, in order, the files the client would attach (each is one block).
pub fn load(env: &ClientEnv, session: &Session, reads: &[String]) -> Vec<Vec<Loaded>> {
    super::memo::reset();
    let mut loader = super::instructions::Loader::new(env, &session.settings);
    load_with(env, session, reads, &mut loader)
}

/// [`load`] with an explicit per-file procedure.
pub fn load_with(
    env: &ClientEnv,
    session: &Session,
    reads: &[String],
    procedure: &mut dyn Procedure,
) -> Vec<Vec<Loaded>> {
    let mut attacher = Attacher::new(env, session, procedure);
    reads
        .iter()
        .map(|read| attacher.read(&git::normalize(&env.cwd.join(read))))
        .collect()
}

/// The session's nested-memory state across reads: what it already holds (one dedup shared by
/// Read and Bash reads, `nested_memory` triggers) and the compiled rule patterns.
pub struct Attacher<'a> {
    env: &'a ClientEnv,
    disabled: bool,
    /// Paths the session holds: startup entries, earlier attachments, files read.
    seen: HashSet<String>,
    reader: Reader<'a>,
}

impl<'a> Attacher<'a> {
    /// A session right after start.
    pub fn new(env: &'a ClientEnv, session: &'a Session, procedure: &'a mut dyn Procedure) -> Self {
        Attacher {
            env,
            disabled: session.disabled.is_some() || env.instructions_disabled().is_some(),
            seen: session.entries.iter().map(|e| e.path.clone()).collect(),
            reader: Reader {
                env,
                settings: &session.settings,
                procedure,
                cwd_level: dirs::cwd_level(env),
                matchers: HashMap::new(),
            },
        }
    }

    /// A Read of `file` (absolute, normalized): the files attached, in order. A file a Read
    /// deny rule covers is refused: nothing is recorded or attached.
    pub fn read(&mut self, file: &Path) -> Vec<Loaded> {
        if self.denies(file) {
            return Vec::new();
        }
        // The Read tool records the file before attachments are computed.
        self.seen.insert(file.to_string_lossy().into_owned());
        self.trigger(file)
    }

    /// A nested-memory trigger for `file` (a Bash read records its file itself).
    pub fn trigger(&mut self, file: &Path) -> Vec<Loaded> {
        if self.disabled || !dirs::within_working_dirs(self.env, file) || self.denies(file) {
            return Vec::new();
        }
        self.reader
            .candidates(file)
            .into_iter()
            .filter(|l| self.seen.insert(l.path.clone()))
            .map(apply_cut)
            .collect()
    }

    /// Records `path` as held by the session (a file a Bash read showed).
    pub fn hold(&mut self, path: &Path) {
        self.seen.insert(path.to_string_lossy().into_owned());
    }

    /// Whether the session already holds `path`.
    pub fn holds(&self, path: &str) -> bool {
        self.seen.contains(path)
    }

    /// Whether a Read deny rule covers `file` ([`Procedure::denies_read`]).
    pub fn denies(&self, file: &Path) -> bool {
        self.reader.procedure.denies_read(&file.to_string_lossy())
    }
}

struct Reader<'a> {
    env: &'a ClientEnv,
    settings: &'a Settings,
    procedure: &'a mut dyn Procedure,
    /// The start directory and its ancestors whose conditional rules apply to every read.
    cwd_level: Vec<PathBuf>,
    /// Compiled pattern lists (a session's rules are matched on every read).
    matchers: HashMap<Vec<String>, Matcher>,
}

impl Reader<'_> {
    /// Every candidate for one read, in the client's order, before session dedup (`iys`).
    fn candidates(&mut self, file: &Path) -> Vec<Loaded> {
        let mut processed = HashSet::default();
        let mut out = Vec::new();
        let cwd = self.env.cwd.clone();
        let managed = self.env.managed_dir.join(CLAUDE_DIR).join(RULES_DIR);
        out.extend(self.conditional(file, &managed, &cwd, Kind::Managed, &mut processed));
        if self.settings.is_enabled(Source::User) {
            let user = self.env.config_dir().join(RULES_DIR);
            out.extend(self.conditional(file, &user, &cwd, Kind::User, &mut processed));
        }
        for dir in dirs::nested(self.env, file) {
            out.extend(self.nested(&dir, file, &mut processed));
        }
        if self.settings.is_enabled(Source::Project) {
            for dir in self.cwd_level.clone() {
                let rules = dir.join(CLAUDE_DIR).join(RULES_DIR);
                out.extend(self.conditional(file, &rules, &dir, Kind::Project, &mut processed));
            }
        }
        out
    }

    /// One nested folder (`dfs`).
    fn nested(&mut self, dir: &Path, file: &Path, processed: &mut HashSet<String>) -> Vec<Loaded> {
        let project = self.settings.is_enabled(Source::Project);
        let mut files: Vec<(PathBuf, Kind)> = Vec::new();
        if project {
            files.push((dir.join(CLAUDE_MD), Kind::Project));
            files.push((dir.join(CLAUDE_DIR).join(CLAUDE_MD), Kind::Project));
        }
        if self.settings.is_enabled(Source::Local) {
            files.push((dir.join(CLAUDE_LOCAL_MD), Kind::Local));
        }
        let why = Why::LazyNested {
            dir: dir.to_string_lossy().into_owned(),
        };
        let mut out = Vec::new();
        for (path, kind) in files {
            let got = self.procedure.file(&path, kind, processed);
            out.extend(got.into_iter().map(|c| relabel(c.loaded, &why)));
        }
        if project {
            let rules = dir.join(CLAUDE_DIR).join(RULES_DIR);
            let mut copy = processed.clone();
            let all = self
                .procedure
                .rules(&rules, Kind::Project, &mut copy, false);
            out.extend(
                all.into_iter()
                    .filter(|c| c.globs.is_none())
                    .map(|c| relabel(c.loaded, &why)),
            );
            out.extend(self.conditional(file, &rules, dir, Kind::Project, processed));
            processed.extend(copy);
        }
        out
    }

    /// Conditional rules of `rules` that match `file` relative to `base` (`UHe`).
    fn conditional(
        &mut self,
        file: &Path,
        rules: &Path,
        base: &Path,
        kind: Kind,
        processed: &mut HashSet<String>,
    ) -> Vec<Loaded> {
        let all = self.procedure.rules(rules, kind, processed, true);
        if all.iter().all(|c| c.globs.is_none()) {
            return Vec::new();
        }
        let target = relative_target(base, file);
        let rel = target.as_deref().and_then(|t| {
            rule_paths::relative_on(
                self.env.platform,
                &base.to_string_lossy(),
                &t.to_string_lossy(),
            )
        });
        let dir = rules.to_string_lossy().into_owned();
        let mut out = Vec::new();
        for c in all {
            let (Some(globs), Some(rel)) = (c.globs, rel.as_deref()) else {
                continue;
            };
            let matcher = self
                .matchers
                .entry(globs)
                .or_insert_with_key(|g| Matcher::new(g));
            let Some(pattern) = matcher.matched(rel) else {
                continue;
            };
            let mut loaded = c.loaded;
            if matches!(loaded.why, Why::Rule { .. }) {
                loaded.why = Why::LazyRule {
                    dir: dir.clone(),
                    pattern: pattern.to_owned(),
                };
            }
            out.push(loaded);
        }
        out
    }
}

/// The path tested against `base`: `file` itself when inside `base`, else the file under its
/// folder's real path when that is inside (`UHe`'s symlink fallback); `None` never matches.
fn relative_target(base: &Path, file: &Path) -> Option<PathBuf> {
    if file.starts_with(base) && file != base {
        return Some(file.to_path_buf());
    }
    let real = std::fs::canonicalize(file.parent()?).ok()?;
    let moved = real.join(file.file_name()?);
    (moved.starts_with(base) && moved != base).then_some(moved)
}

/// The size cut (`v5o`): managed files are never cut.
fn apply_cut(mut loaded: Loaded) -> Loaded {
    if loaded.kind != Kind::Managed
        && let Some(text) = cut::cut(
            &loaded.content,
            &loaded.path,
            crate::constants::LAZY_FILE_LIMIT_UTF16,
        )
    {
        loaded.content = text;
    }
    loaded
}

/// The nested folder's own files get [`Why::LazyNested`]; imports keep their import reason.
fn relabel(mut loaded: Loaded, why: &Why) -> Loaded {
    if !matches!(loaded.why, Why::Import { .. }) {
        loaded.why = why.clone();
    }
    loaded
}

mod cut;
pub mod dirs;
mod procedure;

#[cfg(test)]
mod tests;
