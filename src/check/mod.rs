//! `ccmem check`: what every start directory of a repository really loads, and the traps that
//! silently drop instructions.
//!
//! Data flow: [`repo::Repo::walk`] (one ignore-aware pass over the tree) → [`sessions::starts`]
//! (the root, every directory holding instruction files, every package root; bounded) →
//! [`sessions::load_all`] (one loader run per directory, [`crate::load::Detail::Startup`]: the
//! answers are the loader's, never a second model of the client; what each directory loses
//! against the root, with the loader's reason) → the [`registry`] rules, each reading the walk
//! and the sessions → suppressions ([`suppress`], [`config`]) → a sorted [`Report`].
//!
//! Sessions start in a clean environment by default (no user files, settings or approvals, no
//! managed policy: what a fresh clone shows a new teammate and CI); `--user-config` uses the
//! caller's own.

pub mod registry;
pub mod repo;
pub mod rules;
pub mod sessions;
pub mod size;
pub mod suppress;
mod texts;

#[cfg(test)]
mod testing;

use std::ops::Range;
use std::path::Path;
use std::rc::Rc;

use serde::Serialize;

pub use registry::{RULES, Rule};
pub use sessions::{DirSession, Environment};
pub use size::SizeModel;

use crate::env::ClientFlags;
use crate::severity::Severity;
use repo::Repo;
use texts::Texts;

/// The versioned schema name of `--json`.
pub const SCHEMA: &str = "ccmem.check/1";

/// Start directories checked at most, unless configured.
pub const DEFAULT_MAX_DIRS: usize = 2_000;

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The rule's stable name.
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// The file, relative to the root (`/`-separated), or absolute when outside it.
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters, when the finding is at a point in the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong, in one sentence.
    pub message: String,
    /// The one-line fix.
    pub fix: String,
    /// The start directories where it bites (empty when it does not depend on where a
    /// session starts).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_dirs: Vec<String>,
    /// Byte range in the file to underline.
    #[serde(skip)]
    pub span: Option<Range<usize>>,
}

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
    texts: &'a Texts,
}

impl Ctx<'_> {
    /// The text of a file (relative to the root, or absolute), read once.
    pub fn text(&self, path: &str) -> Option<Rc<str>> {
        self.texts.get(&self.abs(path))
    }

    /// An absolute path for a relative one (absolute ones unchanged).
    pub fn abs(&self, path: &str) -> String {
        if path.starts_with('/') {
            path.to_owned()
        } else {
            self.repo.abs(path)
        }
    }

    /// A finding of `rule` on `path` (a loader path or a relative one) at `line`.
    pub fn finding(
        &self,
        rule: &Rule,
        path: &str,
        line: usize,
        message: String,
        fix: String,
    ) -> Finding {
        Finding {
            rule: rule.name,
            severity: rule.severity(),
            path: self.repo.show(path).to_owned(),
            line,
            column: None,
            message,
            fix,
            start_dirs: Vec::new(),
            span: None,
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
    ) -> Finding {
        let text = self.text(path).unwrap_or_else(|| Rc::from(""));
        let text: &str = &text;
        let start = span.start.min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |k| k + 1);
        let column = text[line_start..start].chars().count() + 1;
        Finding {
            column: Some(column),
            span: Some(span),
            ..self.finding(rule, path, crate::text::line_of(text, start), message, fix)
        }
    }

    /// The root's session.
    pub fn root(&self) -> &DirSession {
        &self.sessions[0]
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

/// What `check` needs besides the root.
#[derive(Debug, Clone)]
pub struct Options {
    /// `[check]` of ccmem.toml.
    pub config: crate::config::CheckConfig,
    /// The size model.
    pub size: SizeModel,
    /// Start directories at most.
    pub max_dirs: usize,
    /// The environment sessions start in.
    pub env: Environment,
    /// Client flags applied to every session.
    pub flags: ClientFlags,
}

/// Counts of the walk.
#[derive(Debug, Clone, Serialize)]
pub struct WalkSummary {
    /// Files seen.
    pub files: usize,
    /// Directories seen.
    pub directories: usize,
    /// Instruction files found.
    pub instruction_files: usize,
    /// Package roots found.
    pub package_roots: usize,
    /// Start directories checked.
    pub start_directories: usize,
    /// Start directories left out by `max-dirs`.
    pub start_directories_left_out: usize,
}

/// Error and warning counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Findings silenced by a comment or `per-file-ignores`.
    pub suppressed: usize,
}

/// A checked repository.
#[derive(Debug)]
pub struct Report {
    /// The walk.
    pub repo: Repo,
    /// One session per start directory (the root first).
    pub sessions: Vec<DirSession>,
    /// Findings, sorted by path, line, column, rule.
    pub findings: Vec<Finding>,
    /// Counts.
    pub summary: Summary,
    /// The walk's counts.
    pub walk: WalkSummary,
    /// The size model used.
    pub size: SizeModel,
    /// The environment's name (`clean` or `user`).
    pub environment: &'static str,
    texts: Texts,
}

impl Report {
    /// The text of a file (relative to the root, or absolute), for renderers.
    pub fn text(&self, path: &str) -> Option<Rc<str>> {
        let abs = if path.starts_with('/') {
            path.to_owned()
        } else {
            self.repo.abs(path)
        };
        self.texts.get(&abs)
    }
}

/// Checks the repository at `root` (a real path).
pub fn check(root: &Path, opts: &Options) -> Report {
    let repo = Repo::walk(&crate::load::git::normalize(root));
    let (starts, left_out) = sessions::starts(&repo, opts.max_dirs);
    let sessions = sessions::load_all(&repo, starts, &opts.env, &opts.flags);
    let texts = Texts::default();
    let ctx = Ctx {
        repo: &repo,
        sessions: &sessions,
        size: opts.size,
        env: &opts.env,
        flags: &opts.flags,
        texts: &texts,
    };
    let mut findings = Vec::new();
    for rule in RULES.iter().filter(|r| opts.config.enabled(r.name)) {
        (rule.check)(&ctx, &mut findings);
    }
    let suppressed = suppress::apply(&ctx, &opts.config, &mut findings);
    findings.sort_by(|a, b| {
        (a.path.as_str(), a.line, a.column, a.rule).cmp(&(
            b.path.as_str(),
            b.line,
            b.column,
            b.rule,
        ))
    });
    findings.dedup();
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let summary = Summary {
        errors,
        warnings: findings.len() - errors,
        suppressed,
    };
    let walk = WalkSummary {
        files: repo.files.len(),
        directories: repo.dirs,
        instruction_files: repo.instructions.len(),
        package_roots: repo.packages.len(),
        start_directories: sessions.len(),
        start_directories_left_out: left_out,
    };
    Report {
        repo,
        sessions,
        findings,
        summary,
        walk,
        size: opts.size,
        environment: opts.env.name(),
        texts,
    }
}

/// Lists at most three start directories, then how many more.
pub fn list_dirs(dirs: &[String]) -> String {
    let shown: Vec<&str> = dirs
        .iter()
        .take(3)
        .map(|d| if d.is_empty() { "." } else { d.as_str() })
        .collect();
    let mut s = shown.join(", ");
    if dirs.len() > 3 {
        s += &format!(" (+{} more)", dirs.len() - 3);
    }
    s
}
