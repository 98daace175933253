//! SARIF 2.1.0: one run, the tool's rules from the registry (with their documentation as
//! `fullDescription` and `help`), and `columnKind: unicodeCodePoints` (columns count
//! characters, as in every ccmem format).

use std::io::{self, Write};

use serde_json::{Value, json};

use super::{Audited, shown_path};
use crate::rules::{RULES, doc_text};

/// A path as a relative (or absolute-path) URI reference: `%`, spaces, `#` and `?` escaped.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            ' ' => out.push_str("%20"),
            '#' => out.push_str("%23"),
            '?' => out.push_str("%3F"),
            _ => out.push(c),
        }
    }
    out
}

pub(super) fn render(out: &mut dyn Write, audits: &[Audited]) -> io::Result<()> {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            let doc = doc_text(r);
            json!({
                "id": r.name,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": doc},
                "help": {"text": doc, "markdown": doc},
                "defaultConfiguration": {"level": r.severity().as_str()},
                "properties": {"category": r.category},
            })
        })
        .collect();
    let results: Vec<Value> = audits
        .iter()
        .flat_map(|a| {
            a.audit.diagnostics.iter().map(|d| {
                let mut region = json!({"startLine": d.line});
                if let Some(col) = d.column {
                    region["startColumn"] = json!(col);
                }
                json!({
                    "ruleId": d.rule,
                    "ruleIndex": RULES.iter().position(|r| r.name == d.rule),
                    "level": d.severity.as_str(),
                    "message": {"text": d.message},
                    "locations": [{"physicalLocation": {
                        "artifactLocation": {"uri": uri(&shown_path(a.root, d))},
                        "region": region,
                    }}],
                })
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ccmem",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn uris_escape_what_would_change_their_meaning() {
        assert_eq!(super::uri("my memory/a#1?.md"), "my%20memory/a%231%3F.md");
    }
}
