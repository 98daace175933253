//! `ccmem check`: what every start directory of a repository really loads, and the traps that
//! silently drop instructions.
//!
//! Data flow: the repository model ([`crate::repo`]: the walk, the start directories, one
//! loader session each) → the registry's repository rules ([`crate::rules::RULES`]), each
//! reading the walk and the sessions → suppressions ([`crate::rules::suppress`])
//! → a sorted [`Report`].

use std::path::Path;
use std::rc::Rc;

use serde::Serialize;

use super::{Ctx, DirSession, Environment, SizeModel};
use crate::env::ClientFlags;
use crate::repo::{Repo, Texts, sessions};
use crate::rules::{Command, Diagnostic, Target};
use crate::severity::Severity;

/// The versioned schema name of `--json`.
pub const SCHEMA: &str = "ccmem.check/1";

/// Start directories checked at most, unless configured.
pub const DEFAULT_MAX_DIRS: usize = 2_000;

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
    /// A start directory checked whatever it holds and whatever `max_dirs` is (relative to
    /// the root, `""` for the root): the one `receipt` was started in.
    pub given: Option<String>,
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
    pub findings: Vec<Diagnostic>,
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
        let abs = if crate::text::path::is_absolute(self.repo.platform, path) {
            path.to_owned()
        } else {
            self.repo.abs(path)
        };
        self.texts.get(&abs)
    }
}

/// Checks the repository at `root` (a real path).
pub fn check(root: &Path, opts: &Options) -> Report {
    let repo = Repo::walk(&crate::load::git::normalize(root), opts.env.platform());
    let (starts, left_out) = sessions::starts(&repo, opts.max_dirs, opts.given.as_deref());
    let sessions = sessions::load_all(&repo, starts, &opts.env, &opts.flags);
    let texts = Texts::default();
    let ctx = Ctx {
        repo: &repo,
        sessions: &sessions,
        size: opts.size,
        env: &opts.env,
        flags: &opts.flags,
        texts: &texts,
        loaded: std::cell::OnceCell::new(),
        files: std::cell::OnceCell::new(),
        lines: Default::default(),
    };
    let mut findings = Vec::new();
    for rule in crate::rules::of(Command::Check).filter(|r| opts.config.enabled(r.name)) {
        if let Target::Repository(check) = rule.target {
            check(&ctx, &mut findings);
        }
    }
    let suppressed = crate::rules::suppress::apply_to_repo(&ctx, &opts.config, &mut findings);
    findings.sort_by(Diagnostic::order);
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
