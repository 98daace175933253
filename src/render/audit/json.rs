//! The JSON document (schema in the parent module's docs).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::json;
use serde_json::value::RawValue;

use super::{Audited, Shown, total};
use crate::rules::{Diagnostic, RULES};

/// The versioned schema name of the audit's JSON document.
pub(super) const SCHEMA: &str = "ccmem.audit/1";

#[derive(Serialize)]
struct Diag<'a> {
    rule: &'a str,
    severity: &'a str,
    path: Shown<'a>,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
    fix: Fix<'a>,
}

/// A finding's fix: most are their rule's, the same text thousands of times, escaped once.
#[derive(Serialize)]
#[serde(untagged)]
enum Fix<'a> {
    Rule(&'a RawValue),
    Own(&'a str),
}

/// The fix of `d` ([`Diagnostic::fix`]), its rule's from `rule_fixes`.
fn fix_of<'a>(rule_fixes: &'a [(&str, Box<RawValue>)], d: &'a Diagnostic) -> Fix<'a> {
    match &d.fix {
        Some(own) => Fix::Own(own),
        None => rule_fixes
            .iter()
            .find(|(name, _)| *name == d.rule)
            .map_or(Fix::Own(""), |(_, raw)| Fix::Rule(raw)),
    }
}

pub(super) fn render(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    let rule_fixes: Vec<(&str, Box<RawValue>)> = RULES
        .iter()
        .map(|r| Ok((r.name, serde_json::value::to_raw_value(r.fix())?)))
        .collect::<serde_json::Result<_>>()?;
    let roots: Vec<String> = audits.iter().map(|a| super::shown_root(a.root)).collect();
    let diagnostics: Vec<Diag> = audits
        .iter()
        .zip(&roots)
        .flat_map(|(a, root)| {
            a.audit.diagnostics.iter().map(|d| Diag {
                rule: d.rule,
                severity: d.severity.as_str(),
                path: Shown { root, rel: &d.path },
                line: d.line,
                column: d.column,
                message: &d.message,
                fix: fix_of(&rule_fixes, d),
            })
        })
        .collect();
    let libraries: Vec<serde_json::Value> = audits
        .iter()
        .map(|a| {
            let spec = &a.audit.lib.spec;
            json!({
                "root": a.root.to_string_lossy(),
                "spec": spec.spec.name(),
                "spec_configured": spec.configured,
                "spec_votes": {"client": spec.client_votes, "claude-memory-manager": spec.manager_votes},
                "config": a.audit.lib.config.path().map(|p| p.to_string_lossy()),
                "summary": a.audit.summary,
            })
        })
        .collect();
    // Serialized as it stands, without a `Value` tree of the (possibly tens of thousands of)
    // diagnostics first; the field order is the document's.
    #[derive(Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        diagnostics: Vec<Diag<'a>>,
        summary: crate::rules::run::Summary,
        libraries: Vec<serde_json::Value>,
    }
    let doc = Doc {
        schema: SCHEMA,
        diagnostics,
        summary: total(audits),
        libraries,
    };
    // Buffered here, where the writer's type is known: serde_json writes a document in many
    // small pieces, and each through `dyn Write` would be a call of its own. (A buffer of the
    // whole document, megabytes of fresh pages, costs more.)
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, &doc)?;
    writeln!(out)?;
    out.flush()
}
