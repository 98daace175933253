//! `ccmem explain`: the registry's rules as a list, or one rule's documentation.
//!
//! JSON (`--json`), `ccmem.explain/1` (docs/schemas/ccmem.explain.1.schema.json):
//! `{schema, rules: [{rule, command, category, severity, spec, summary | doc}]}`, `summary`
//! in the list, `doc` for one rule; `spec` is the write specs of a memory-library rule, null
//! for a repository rule.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::rules::{RULES, Rule};

/// The versioned schema name of `--json`.
pub const SCHEMA: &str = "ccmem.explain/1";

/// Every rule on one line each: name, command, category, summary.
pub fn list(out: &mut dyn Write) -> io::Result<()> {
    for r in RULES {
        writeln!(
            out,
            "{:<30} {:<5} {:<4} {}",
            r.name,
            r.command().as_str(),
            r.category.as_str(),
            r.summary()
        )?;
    }
    Ok(())
}

/// Every rule with its summary, as JSON.
pub fn list_json(out: &mut dyn Write) -> io::Result<()> {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| entry(r, "summary", r.summary().into()))
        .collect();
    write_json(out, rules)
}

/// One rule's heading (name, category, severity, command, write specs) and documentation.
pub fn rule(out: &mut dyn Write, r: &Rule) -> io::Result<()> {
    let spec = r
        .applies()
        .map(|a| format!(" · {}", a.describe()))
        .unwrap_or_default();
    writeln!(
        out,
        "{} ({}, {}) · ccmem {}{spec}\n\n{}",
        r.name,
        r.category.as_str(),
        r.severity().as_str(),
        r.command().as_str(),
        r.doc_text().trim_end()
    )
}

/// One rule with its documentation, as JSON.
pub fn rule_json(out: &mut dyn Write, r: &Rule) -> io::Result<()> {
    write_json(out, vec![entry(r, "doc", r.doc_text().into())])
}

/// A rule's entry in the document, ending with `key` (`summary` or `doc`).
fn entry(r: &Rule, key: &str, text: Value) -> Value {
    let mut e = json!({
        "rule": r.name,
        "command": r.command(),
        "category": r.category,
        "severity": r.severity(),
        "spec": r.applies(),
    });
    e[key] = text;
    e
}

fn write_json(out: &mut dyn Write, rules: Vec<Value>) -> io::Result<()> {
    let doc = json!({"schema": SCHEMA, "rules": rules});
    writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)
}

/// `ccmem explain tier`: tier's policy (`src/tier/policy.md`), as text or in the explain JSON
/// document (`[{"topic": "tier", "doc": …}]`).
pub fn tier_policy(out: &mut dyn Write, json: bool) -> io::Result<()> {
    topic(out, "tier", crate::tier::POLICY, json)
}

/// `ccmem explain compliance`: how the audit's score is made
/// ([`crate::rules::run::COMPLIANCE_DOC`]), the same way.
pub fn compliance(out: &mut dyn Write, json: bool) -> io::Result<()> {
    topic(out, "compliance", crate::rules::run::COMPLIANCE_DOC, json)
}

/// A topic that is not a rule, as text or in the explain JSON document.
fn topic(out: &mut dyn Write, name: &str, doc: &str, json: bool) -> io::Result<()> {
    if json {
        write_json(out, vec![json!({ "topic": name, "doc": doc })])
    } else {
        writeln!(out, "{}", doc.trim_end())
    }
}
