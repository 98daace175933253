//! A finding in a command's JSON document (an element of `diagnostics` in `ccmem.audit/1`, of
//! `findings` in `ccmem.check/1`):
//!
//! ```text
//! {
//!   "rule": "broken-link",        // stable kebab-case name (`ccmem explain NAME`)
//!   "severity": "error",          // "error" (hard rules) | "warning" (soft rules)
//!   "path": "memory/MEMORY.md",   // the folder (as the document says) joined with the file,
//!                                 // or the absolute path of a file outside it
//!   "line": 12,                   // 1-based
//!   "column": 5,                  // 1-based, in characters; absent for whole-line findings
//!   "message": "…",
//!   "fix": "…",                   // the one-line fix (the human view's `help:` line)
//!   "start_dirs": ["packages/web"] // check only, and only when it depends on where a
//!                                 // session starts
//! }
//! ```

use serde::Serialize;
use serde_json::value::RawValue;

use crate::rules::{Diagnostic, RULES, Severity};

/// One finding as its document shows it.
#[derive(Serialize)]
pub struct Item<'a> {
    rule: &'a str,
    severity: Severity,
    path: Joined<'a>,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
    fix: Fix<'a>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    start_dirs: &'a [String],
}

impl<'a> Item<'a> {
    /// `d` as shown under `root` (see [`Joined`]), its fix from `fixes`.
    pub fn of(d: &'a Diagnostic, root: &'a str, fixes: &'a Fixes) -> Item<'a> {
        Item {
            rule: d.rule,
            severity: d.severity,
            path: Joined { root, rel: &d.path },
            line: d.line,
            column: d.column,
            message: &d.message,
            fix: fixes.of(d),
            start_dirs: &d.start_dirs,
        }
    }
}

/// A path as shown: the text a folder's paths are shown under (as the caller made it, e.g.
/// `memory/`) and a finding's path, written (or serialized) without building the joined path.
/// A path outside the folder is absolute, and shown alone.
pub struct Joined<'a> {
    /// The folder's text, ending in its separator (`""` for none).
    pub root: &'a str,
    /// The finding's path.
    pub rel: &'a str,
}

impl std::fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.rel.starts_with('/') {
            f.write_str(self.root)?;
        }
        f.write_str(self.rel)
    }
}

impl Serialize for Joined<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A finding's fix: most are their rule's, the same text thousands of times, escaped once.
#[derive(Serialize)]
#[serde(untagged)]
enum Fix<'a> {
    Rule(&'a RawValue),
    Own(&'a str),
}

/// Every rule's one-line fix, serialized once.
pub struct Fixes(Vec<(&'static str, Box<RawValue>)>);

impl Fixes {
    /// The fixes of the registry's rules.
    pub fn new() -> serde_json::Result<Fixes> {
        RULES
            .iter()
            .map(|r| Ok((r.name, serde_json::value::to_raw_value(r.fix())?)))
            .collect::<serde_json::Result<_>>()
            .map(Fixes)
    }

    /// The fix of `d` ([`Diagnostic::fix`]): its own, else its rule's.
    fn of<'a>(&'a self, d: &'a Diagnostic) -> Fix<'a> {
        match &d.fix {
            Some(own) => Fix::Own(own),
            None => self
                .0
                .iter()
                .find(|(name, _)| *name == d.rule)
                .map_or(Fix::Own(""), |(_, raw)| Fix::Rule(raw)),
        }
    }
}
