//! The JSON document (schema in the parent module's docs).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::json;

use super::{Audited, shown_path, total};

#[derive(Serialize)]
struct Diag<'a> {
    rule: &'a str,
    severity: &'a str,
    path: String,
    line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
    message: &'a str,
}

pub(super) fn render(out: &mut dyn Write, audits: &[Audited], sweep: bool) -> io::Result<()> {
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
            })
        })
        .collect();
    let mut doc = json!({
        "version": 1,
        "diagnostics": diagnostics,
        "summary": total(audits),
    });
    if sweep {
        doc["projects"] = audits
            .iter()
            .map(|a| json!({"root": a.root.to_string_lossy(), "summary": a.audit.summary}))
            .collect();
    }
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
