//! SARIF 2.1.0, one run per report: the rules the command runs, from the registry (`id` the
//! stable kebab-case name, `name` its UpperCamelCase form, the documentation as
//! `fullDescription` and `help`), results whose `artifactLocation` is a relative `uri` with a
//! `uriBaseId` resolved by `originalUriBaseIds` (absolute `file://` URIs ending in `/`), and
//! `columnKind: unicodeCodePoints` (columns count characters, as in every ccmem format).
//! The one-line fix of a finding is its result's `properties.fix`.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::Batch;
use crate::rules::{self, Command, Rule};

/// Where SARIF consumers find the schema.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Writes one SARIF log with one run: the rules `command` runs, and the findings.
pub fn render(out: &mut dyn Write, command: Command, batches: &[Batch]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &log(command, batches))?;
    writeln!(out)
}

/// The SARIF log as a JSON value.
pub fn log(command: Command, batches: &[Batch]) -> Value {
    let help_base = option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty());
    let rules: Vec<&Rule> = rules::of(command).collect();
    let descriptors: Vec<Value> = rules
        .iter()
        .map(|r| {
            let doc = r.doc_text();
            let mut d = json!({
                "id": r.name,
                "name": camel(r.name),
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": doc},
                "help": {"text": doc, "markdown": doc},
                "defaultConfiguration": {"level": r.severity().as_str()},
                "properties": properties(r),
            });
            if let Some(repo) = help_base {
                d["helpUri"] = json!(format!("{repo}/blob/main/docs/rules.md#{}", r.name));
            }
            d
        })
        .collect();
    let results: Vec<Value> = batches
        .iter()
        .flat_map(|b| b.diagnostics.iter().map(move |d| (&b.base, d)))
        .map(|(base, d)| {
            let mut region = json!({"startLine": d.line});
            if let Some(col) = d.column {
                region["startColumn"] = json!(col);
            }
            let artifact = if d.is_absolute() {
                json!({"uri": file_uri(Path::new(&d.path), false)})
            } else {
                json!({"uri": uri_path(&d.path), "uriBaseId": base.id})
            };
            let mut result = json!({
                "ruleId": d.rule,
                "level": d.severity.as_str(),
                "message": {"text": d.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": artifact,
                    "region": region,
                }}],
            });
            if let Some(i) = rules.iter().position(|r| r.name == d.rule) {
                result["ruleIndex"] = json!(i);
            }
            let fix = d.fix();
            if !fix.is_empty() {
                result["properties"] = json!({"fix": fix});
            }
            result
        })
        .collect();
    let mut original = Map::new();
    for b in batches {
        original.insert(
            b.base.id.clone(),
            json!({"uri": file_uri(&b.base.dir, true)}),
        );
    }
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "ccmem",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": help_base.unwrap_or("https://crates.io/crates/ccmem"),
                "rules": descriptors,
            }},
            "originalUriBaseIds": original,
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

/// A rule's SARIF properties: its category, and for a repository rule its command (the
/// audit's reports never named theirs, and keep their shape).
fn properties(r: &Rule) -> Value {
    match r.command() {
        Command::Audit => json!({"category": r.category}),
        Command::Check => json!({"category": r.category, "command": r.command()}),
    }
}

/// `import-outside-start-dir` → `ImportOutsideStartDir` (SARIF's `name`, distinct from `id`).
pub fn camel(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A relative path as a URI reference: every byte outside RFC 3986's unreserved set, `/`
/// and the sub-delimiters is percent-encoded (UTF-8), so spaces, `#`, `?`, `%` and non-ASCII
/// names survive.
pub fn uri_path(path: &str) -> String {
    super::percent_encode(path, |b| {
        !(b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b))
    })
}

/// `file:///abs/path` (with a final `/` for a folder, as `originalUriBaseIds` requires).
pub fn file_uri(path: &Path, folder: bool) -> String {
    let mut uri = format!("file://{}", uri_path(&path.to_string_lossy()));
    if folder && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_escape_what_would_change_their_meaning() {
        assert_eq!(uri_path("my memory/a#1?.md"), "my%20memory/a%231%3F.md");
        assert_eq!(uri_path("50%/é.md"), "50%25/%C3%A9.md");
        assert_eq!(file_uri(Path::new("/r/x y"), true), "file:///r/x%20y/");
    }

    #[test]
    fn names_differ_from_ids() {
        assert_eq!(camel("import-outside-start-dir"), "ImportOutsideStartDir");
        assert_ne!(camel("broken-link"), "broken-link");
    }
}
