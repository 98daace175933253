//! The JSON document (schema in the parent module's docs).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::json;

use super::{Audited, shown_path, total};

/// The versioned schema name of the audit's JSON document.
pub(super) const SCHEMA: &str = "ccmem.audit/1";

#[derive(Serialize)]
struct Diag<'a> {
    rule: &'a str,
    severity: &'a str,
    path: String,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
    fix: &'a str,
}

pub(super) fn render(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    let diagnostics: Vec<Diag> = audits
        .iter()
        .flat_map(|a| {
            a.audit.diagnostics.iter().map(|d| Diag {
                rule: d.rule,
                severity: d.severity.as_str(),
                path: shown_path(a.root, d),
                line: d.line,
                column: d.column,
                message: &d.message,
                fix: d.fix(),
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
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
