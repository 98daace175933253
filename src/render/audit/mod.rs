//! Audit output, chosen in one place ([`Format`]): human (grouped by file, annotated source
//! lines, each finding's one-line fix as its `help:` line), JSON, SARIF 2.1.0 and GitHub
//! workflow annotations (those two, the annotated snippets and a finding's JSON, through the
//! shared [`super::findings`]).
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
//!     "compliant": 250,                 // memory files with no error that the model can reach
//!     "dark": 3,                        // memory files it cannot: linked only past the cut,
//!                                       // or not at all (`ccmem explain compliance`)
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

use super::findings::{Base, Batch, github, sarif};
use crate::rules::Command;
use crate::rules::run::{Audit, Summary};

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

/// The summary over every audited library.
pub fn total(audits: &[Audited]) -> Summary {
    Summary::sum(audits.iter().map(|a| &a.audit.summary))
}

/// Each library's findings, with its SARIF base (`MEMORYROOT`, or `MEMORYROOT1`… with `--all`).
fn batches<'a>(audits: &[Audited<'a>]) -> Vec<Batch<'a>> {
    audits
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let id = if audits.len() == 1 {
                "MEMORYROOT".to_owned()
            } else {
                format!("MEMORYROOT{}", i + 1)
            };
            Batch {
                base: Base::of(a.root, &id),
                diagnostics: &a.audit.diagnostics,
            }
        })
        .collect()
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
        Format::Sarif => sarif::render(out, Command::Audit, &batches(audits)),
        Format::Github => github::render(out, &batches(audits)),
    }
}

// Unix only: a file name that is not UTF-8 (Windows names are UTF-16).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::render::findings::json::Joined;

    #[test]
    fn shown_paths_are_the_joined_paths() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
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
                let shown = Joined {
                    root: &shown_root(root),
                    rel,
                }
                .to_string();
                assert_eq!(shown, root.join(rel).to_string_lossy(), "{root:?} {rel:?}");
            }
        }
    }
}
