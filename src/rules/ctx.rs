//! What a memory-library rule reads ([`Ctx`]: the library, its thresholds, "now", the index as
//! the client measures it, reach) and how it builds its findings.

use std::ops::Range;

use jiff::Timestamp;

use super::{Diagnostic, Rule};
use crate::config::AuditConfig;
use crate::load::automem::IndexState;
use crate::memory::file::Role;
use crate::memory::library::{Library, Reach};
use crate::memory::meta::{Meta, Parsed};

/// Everything a rule may read.
pub struct Ctx<'a> {
    /// The library.
    pub lib: &'a Library,
    /// Thresholds (`lib.config.audit`).
    pub cfg: &'a AuditConfig,
    /// "Now", for staleness.
    pub now: Timestamp,
    /// MEMORY.md as the client measures it (`lib.index_state`).
    pub index_state: &'a IndexState,
    /// How MEMORY.md reaches each file (`lib.reach()`).
    pub reach: &'a [Reach],
}

impl<'a> Ctx<'a> {
    /// The context of `lib`, audited at `now`.
    pub fn new(lib: &'a Library, now: Timestamp) -> Self {
        Ctx {
            lib,
            cfg: &lib.config.audit,
            now,
            index_state: &lib.index_state,
            reach: lib.reach(),
        }
    }

    /// The spec the library is held to.
    pub fn spec(&self) -> crate::memory::Spec {
        self.lib.spec()
    }

    /// File `i` when it is a memory (not MEMORY.md) that could be read: its text, and where
    /// its frontmatter and body are.
    pub fn memory_text(&self, i: usize) -> Option<(&'a str, &'a Parsed)> {
        let file = &self.lib.files[i];
        if file.role == Role::Index {
            return None;
        }
        file.parsed()
    }

    /// [`Ctx::memory_text`] for a memory whose frontmatter parsed: its fields first.
    pub fn memory_front(&self, i: usize) -> Option<(&'a Meta, &'a str, &'a Parsed)> {
        let (text, parsed) = self.memory_text(i)?;
        Some((self.lib.files[i].meta()?, text, parsed))
    }
}

impl Ctx<'_> {
    /// A finding of `rule` on file `file` at `line`.
    pub fn diag(&self, rule: &Rule, file: usize, line: usize, message: String) -> Diagnostic {
        Diagnostic::new(rule, self.lib.files[file].rel.clone(), line, message)
    }

    /// A finding of `rule` on a path of the library that is no file of it (a folder it could
    /// not list, `""` for the library as a whole), at its first line.
    pub fn diag_on(&self, rule: &Rule, path: String, message: String) -> Diagnostic {
        Diagnostic::new(rule, path, 1, message)
    }

    /// A finding about the library as a whole (its path is the folder itself, `""`).
    pub fn library_diag(&self, rule: &Rule, message: String) -> Diagnostic {
        self.diag_on(rule, String::new(), message)
    }

    /// A finding underlining bytes `span` of file `file` (line and column computed).
    pub fn diag_at(
        &self,
        rule: &Rule,
        file: usize,
        span: Range<usize>,
        message: String,
    ) -> Diagnostic {
        self.diag_after(rule, file, (1, 0), span, message)
    }

    /// [`Ctx::diag_at`] for a span that starts at or after byte `from.1` of the file, which is
    /// on line `from.0` (where a link was found): only the lines between are counted, not the
    /// file from its start.
    pub fn diag_after(
        &self,
        rule: &Rule,
        file: usize,
        from: (usize, usize),
        span: Range<usize>,
        message: String,
    ) -> Diagnostic {
        let text = self.lib.files[file].text().unwrap_or("");
        let start = span.start.min(text.len());
        let (from_line, from) = if from.1 <= start { from } else { (1, 0) };
        let line = from_line + crate::memory::file::line_of(&text[from..], start - from) - 1;
        self.diag(rule, file, line, message).at(text, span)
    }
}
