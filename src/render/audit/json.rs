//! The JSON document (schema in the parent module's docs).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::json;

use super::{Audited, shown_root, total};
use crate::render::findings::json::{Fixes, Item};

/// The versioned schema name of the audit's JSON document.
pub(super) const SCHEMA: &str = "ccmem.audit/1";

pub(super) fn render(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    let fixes = Fixes::new()?;
    let roots: Vec<String> = audits.iter().map(|a| shown_root(a.root)).collect();
    let diagnostics: Vec<Item> = audits
        .iter()
        .zip(&roots)
        .flat_map(|(a, root)| {
            a.audit
                .diagnostics
                .iter()
                .map(|d| Item::of(d, root, &fixes))
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
        diagnostics: Vec<Item<'a>>,
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
    // small pieces, and each through `dyn Write` would be a call of its own.
    let mut out = io::BufWriter::with_capacity(1 << 16, out);
    serde_json::to_writer_pretty(&mut out, &doc)?;
    writeln!(out)?;
    out.flush()
}
