//! What a repository rule reads ([`Ctx`]: the walk, the sessions, the texts read once) and how
//! it builds its findings.

use std::ops::Range;
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
}

impl Ctx<'_> {
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
        let line = crate::text::line_of(&text, span.start.min(text.len()));
        self.finding(rule, path, line, message, fix).at(&text, span)
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
