//! SARIF 2.1.0, one run per report: the tool's rules from the command's registry (`id` the
//! stable kebab-case name, `name` its UpperCamelCase form, the documentation as
//! `fullDescription` and `help`), results whose `artifactLocation` is a relative `uri` with a
//! `uriBaseId` resolved by `originalUriBaseIds` (absolute `file://` URIs ending in `/`), and
//! `columnKind: unicodeCodePoints` (columns count characters, as in every ccmem format).
//! The one-line fix of a finding is its result's `properties.fix`.

use std::io::{self, Write};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::{Base, Finding, RuleInfo};

/// Where SARIF consumers find the schema.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Writes one SARIF log with one run.
pub fn render(
    out: &mut dyn Write,
    rules: &[RuleInfo],
    bases: &[Base],
    findings: &[Finding],
) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &log(rules, bases, findings))?;
    writeln!(out)
}

/// The SARIF log as a JSON value.
pub fn log(rules: &[RuleInfo], bases: &[Base], findings: &[Finding]) -> Value {
    let help_base = option_env!("CARGO_PKG_REPOSITORY").filter(|r| !r.is_empty());
    let descriptors: Vec<Value> = rules
        .iter()
        .map(|r| {
            let mut d = json!({
                "id": r.id,
                "name": camel(r.id),
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": r.doc},
                "help": {"text": r.doc, "markdown": r.doc},
                "defaultConfiguration": {"level": r.severity.as_str()},
                "properties": r.properties,
            });
            if let Some(repo) = help_base {
                d["helpUri"] = json!(format!("{repo}/blob/main/docs/rules.md#{}", r.id));
            }
            d
        })
        .collect();
    let results: Vec<Value> = findings
        .iter()
        .map(|f| {
            let mut region = json!({"startLine": f.line});
            if let Some(col) = f.column {
                region["startColumn"] = json!(col);
            }
            let artifact = match f.base.and_then(|b| bases.get(b)) {
                Some(base) => json!({"uri": uri_path(f.path), "uriBaseId": base.id}),
                None => json!({"uri": file_uri(Path::new(f.path), false)}),
            };
            let mut result = json!({
                "ruleId": f.rule,
                "level": f.severity.as_str(),
                "message": {"text": f.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": artifact,
                    "region": region,
                }}],
            });
            if let Some(i) = rules.iter().position(|r| r.id == f.rule) {
                result["ruleIndex"] = json!(i);
            }
            if let Some(fix) = f.fix {
                result["properties"] = json!({"fix": fix});
            }
            result
        })
        .collect();
    let mut original = Map::new();
    for b in bases {
        original.insert(b.id.clone(), json!({"uri": file_uri(&b.dir, true)}));
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
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&b);
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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
