//! Audit output, chosen in one place ([`Format`]): human (grouped by file, annotated source
//! lines, each finding's one-line fix as its `help:` line), JSON, SARIF 2.1.0 and GitHub workflow annotations
//! (those two, and the annotated snippets, through the shared [`super::findings`]).
//!
//! # JSON schema (`--json` or `--format json`): `ccmem.audit/1`
//!
//! ```text
//! {
//!   "schema": "ccmem.audit/1",
//!   "diagnostics": [
//!     {
//!       "rule": "broken-link",          // stable kebab-case name (`ccmem explain NAME`)
//!       "severity": "error",            // "error" (hard rules) | "warning" (soft rules)
//!       "path": "memory/MEMORY.md",     // the library folder as given, joined with the file
//!                                       // (the folder itself for a finding about the library)
//!       "line": 12,                     // 1-based
//!       "column": 5,                    // 1-based, in characters; absent for whole-line findings
//!       "message": "link to `x.md`, which does not exist",
//!       "fix": "Point the link at the file's current name, or remove the line if the memory was retired on purpose."
//!                                       // the one-line fix (the human view's `help:` line)
//!     }
//!   ],
//!   "summary": {
//!     "files": 256,                     // memory files audited: every .md but MEMORY.md
//!     "compliant": 250,                 // memory files with no error
//!     "compliance": 97.7,               // compliant / files, percent, one decimal
//!     "band": "marginal",               // "healthy" (>= 95 and no error) | "marginal" (85-95, or
//!                                       // >= 95 with errors) | "out-of-control" (< 85)
//!     "errors": 9,                      // every error, MEMORY.md's included
//!     "warnings": 40
//!   },
//!   "libraries": [                      // one per audited folder
//!     {
//!       "root": "memory",
//!       "spec": "client",               // the write spec audited against:
//!                                       // "client" | "claude-memory-manager"
//!       "spec_configured": false,       // set in ccmem.toml (else detected)
//!       "spec_votes": { "client": 40, "claude-memory-manager": 2 },
//!       "config": "memory/ccmem.toml",  // the ccmem.toml used, or null
//!       "summary": { ... }
//!     }
//!   ]
//! }
//! ```
//!
//! Diagnostics are sorted by path, line, column, rule. A secret's value never appears in any
//! format.

use std::io::{self, Write};
use std::path::Path;

use super::findings::{Base, Finding, RuleInfo};
use crate::rules::run::{Audit, Summary};
use crate::rules::{Diagnostic, RULES, doc_text};

mod human;
mod json;

pub use super::findings::Format;

/// One audited library, as the renderers see it.
pub struct Audited<'a> {
    /// The folder as the user named it (paths are shown joined to it).
    pub root: &'a Path,
    /// The audit.
    pub audit: &'a Audit,
}

/// A diagnostic's path as shown: the root joined with the file.
pub fn shown_path(root: &Path, d: &Diagnostic) -> String {
    Shown {
        root: &shown_root(root),
        rel: &d.path,
    }
    .to_string()
}

/// The text a library's paths are shown under: the folder as the user named it, with the
/// separator `Path::join` puts before a file name (none after an empty folder or one that
/// ends with `/`), made once for all its findings.
fn shown_root(root: &Path) -> String {
    let mut s = root.to_string_lossy().into_owned();
    if !s.is_empty() && !s.ends_with('/') {
        s.push('/');
    }
    s
}

/// A path as shown: `Path::join` of the folder (as [`shown_root`] wrote it) and a file's
/// relative path, written (or serialized) without building the joined path.
struct Shown<'a> {
    root: &'a str,
    rel: &'a str,
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Joined with an absolute path, `Path::join` gives that path.
        if !self.rel.starts_with('/') {
            f.write_str(self.root)?;
        }
        f.write_str(self.rel)
    }
}

impl serde::Serialize for Shown<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The summary over every audited library.
pub fn total(audits: &[Audited]) -> Summary {
    Summary::sum(audits.iter().map(|a| &a.audit.summary))
}

/// The registry as reports describe it.
fn rule_infos() -> Vec<RuleInfo> {
    RULES
        .iter()
        .map(|r| RuleInfo {
            id: r.name,
            summary: r.summary(),
            doc: doc_text(r),
            severity: r.severity(),
            properties: serde_json::json!({"category": r.category}),
        })
        .collect()
}

/// One SARIF base per audited library (`MEMORYROOT`, or `MEMORYROOT1`… with `--all`).
fn bases(audits: &[Audited]) -> Vec<Base> {
    audits
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let id = if audits.len() == 1 {
                "MEMORYROOT".to_owned()
            } else {
                format!("MEMORYROOT{}", i + 1)
            };
            Base::of(a.root, &id)
        })
        .collect()
}

/// Every diagnostic as the shared renderers see it, relative to its library's base.
fn findings<'a>(audits: &'a [Audited]) -> Vec<Finding<'a>> {
    audits
        .iter()
        .enumerate()
        .flat_map(|(i, a)| a.audit.diagnostics.iter().map(move |d| finding(d, Some(i))))
        .collect()
}

/// One diagnostic as the shared renderers see it.
fn finding(d: &Diagnostic, base: Option<usize>) -> Finding<'_> {
    Finding {
        rule: d.rule,
        severity: d.severity,
        base,
        path: &d.path,
        line: d.line,
        column: d.column,
        message: &d.message,
        fix: Some(d.fix()).filter(|f| !f.is_empty()),
        span: d.span.clone(),
        redact: d.redact,
    }
}

/// Writes the audits in `format`. `color` applies to the human format only.
pub fn render(
    out: &mut dyn Write,
    format: Format,
    audits: &[Audited],
    sweep: bool,
) -> io::Result<()> {
    match format {
        Format::Human => human::render(out, audits, sweep),
        Format::Json => json::render(out, audits),
        Format::Sarif => {
            super::findings::sarif::render(out, &rule_infos(), &bases(audits), &findings(audits))
        }
        Format::Github => super::findings::github::render(out, &bases(audits), &findings(audits)),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn shown_paths_are_the_joined_paths() {
        let roots = [
            Path::new(""),
            Path::new("memory"),
            Path::new("memory/"),
            Path::new("/home/u/.claude/projects/x/memory"),
            Path::new("a//"),
            Path::new("."),
            Path::new(OsStr::from_bytes(b"caf\xc3")),
        ];
        for root in roots {
            for rel in ["", "MEMORY.md", "sub/user_x.md", "/abs/x.md"] {
                let shown = Shown {
                    root: &shown_root(root),
                    rel,
                }
                .to_string();
                assert_eq!(shown, root.join(rel).to_string_lossy(), "{root:?} {rel:?}");
            }
        }
    }
}
