//! `ccmem hook install` / `uninstall`: the diff of the settings file and what was done, for a
//! person or as JSON.
//!
//! JSON (`ccmem.hook-install/1`): `{path, target, scope, action, written, bin, bin_why,
//! warnings, notes, diff}`; `action` is `unchanged`, `write`, `restore` (uninstall after an
//! unchanged install: the bytes from before it) or `delete` (install created the file).

use std::fmt::Write as _;

use serde::Serialize;

use crate::hook::install::Scope;
use crate::hook::install::setup::{Action, Setup};

#[derive(Serialize)]
struct Summary<'a> {
    path: String,
    target: String,
    scope: Scope,
    action: &'a str,
    written: bool,
    bin: Option<&'a str>,
    bin_why: Option<&'a str>,
    warnings: Vec<String>,
    notes: &'a [String],
    diff: &'a str,
}

/// The summary, as JSON (`written`: the file was written).
pub(crate) fn json(s: &Setup, written: bool) -> String {
    let summary = Summary {
        path: s.target.path.display().to_string(),
        target: s.target.real.display().to_string(),
        scope: s.target.scope,
        action: s.action.name(),
        written,
        bin: s.resolved.as_ref().map(|r| r.bin.as_str()),
        bin_why: s.resolved.as_ref().map(|r| r.why.as_str()),
        warnings: s.warnings(),
        notes: &s.plan.notes,
        diff: &s.diff,
    };
    super::json::document("ccmem.hook-install/1", &summary)
}

/// The plan's notes, one line each (after the diff, or after "already installed").
pub(crate) fn notes(s: &Setup) -> String {
    let mut out = String::new();
    for n in &s.plan.notes {
        let _ = writeln!(out, "note: {n}");
    }
    out
}

/// The warnings, for stderr.
pub(crate) fn warnings(s: &Setup) -> Vec<String> {
    s.warnings()
        .iter()
        .map(|w| format!("ccmem: warning: {w}"))
        .collect()
}

/// Nothing to do: the hooks are already installed (or not installed) in the file.
pub(crate) fn unchanged(s: &Setup) -> String {
    let what = if s.installing {
        "already installed in"
    } else {
        "not installed in"
    };
    format!("ccmem hooks {what} {}\n", s.target.path.display())
}

/// The change: the diff, what happens to the file, and the program the hooks run.
pub(crate) fn change(s: &Setup) -> String {
    let mut out = s.diff.clone();
    match &s.action {
        Action::Delete | Action::Restore(None) => {
            out.push_str("(the file is removed: ccmem's install created it)\n");
        }
        Action::Restore(Some(_)) => {
            out.push_str("(the file is put back byte for byte as it was before ccmem's install)\n")
        }
        _ => {}
    }
    if let Some(r) = &s.resolved {
        let _ = writeln!(out, "hooks run: {} ({})", r.bin, r.why);
    }
    out
}

/// The question asked on a terminal before writing.
pub(crate) fn prompt(path: &std::path::Path) -> String {
    format!("Write {}? [y/N] ", path.display())
}

/// What was done, once written.
pub(crate) fn done(s: &Setup) -> String {
    format!("ccmem: {} {}\n", s.action.name(), s.target.path.display())
}
