//! `ccmem explain CODE`: print the documentation of an audit or check rule.

use std::io::Write;

use serde_json::json;

use crate::exit::ExitStatus;
use crate::memory::spec::Applies;
use crate::rules::{self, Category};
use crate::severity::Severity;

/// The schema of `--json`: `{schema, rules: [{rule, command, category, severity, summary | doc}]}`.
const SCHEMA: &str = "ccmem.explain/1";

/// Print the documentation of an audit or check rule (without CODE: list the rules).
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The rule's name, e.g. `broken-link` or `import-outside-start-dir`.
    code: Option<String>,
}

/// One rule of either registry, as explain shows it.
struct Entry {
    command: &'static str,
    name: &'static str,
    category: Category,
    severity: Severity,
    summary: &'static str,
    doc: String,
    /// The write specs an audit rule belongs to (check rules have none).
    spec: Option<Applies>,
}

/// Every rule: the audit's, then the check's (names are unique across both).
fn entries() -> Vec<Entry> {
    let audit = rules::RULES.iter().map(|r| Entry {
        command: "audit",
        name: r.name,
        category: r.category,
        severity: r.severity(),
        summary: r.summary(),
        doc: rules::doc_text(r),
        spec: Some(r.applies),
    });
    let check = crate::check::RULES.iter().map(|r| Entry {
        command: "check",
        name: r.name,
        category: r.category,
        severity: r.severity(),
        summary: r.summary(),
        doc: r.doc_text(),
        spec: None,
    });
    audit.chain(check).collect()
}

/// Runs the command.
pub(super) fn run(args: Args) -> anyhow::Result<ExitStatus> {
    let mut out = super::output::stdout_plain();
    let all = entries();
    let category = |c: Category| format!("{c:?}").to_lowercase();
    let Some(code) = args.code else {
        if super::output::json() {
            let list: Vec<_> = all
                .iter()
                .map(|r| json!({"rule": r.name, "command": r.command, "category": r.category, "severity": r.severity, "spec": r.spec, "summary": r.summary}))
                .collect();
            let v = json!({"schema": SCHEMA, "rules": list});
            writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        } else {
            for r in &all {
                writeln!(
                    out,
                    "{:<30} {:<5} {:<4} {}",
                    r.name,
                    r.command,
                    category(r.category),
                    r.summary
                )?;
            }
        }
        return Ok(ExitStatus::Clean);
    };
    let Some(rule) = all.iter().find(|r| r.name == code) else {
        let names: Vec<&str> = all.iter().map(|r| r.name).collect();
        anyhow::bail!("unknown rule `{code}`; rules: {}", names.join(", "));
    };
    if super::output::json() {
        let v = json!({"schema": SCHEMA, "rules": [{"rule": rule.name, "command": rule.command,
            "category": rule.category, "severity": rule.severity, "spec": rule.spec, "doc": rule.doc}]});
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        let spec = rule
            .spec
            .map(|a| format!(" · {}", a.describe()))
            .unwrap_or_default();
        writeln!(
            out,
            "{} ({}, {}) · ccmem {}{spec}\n\n{}",
            rule.name,
            category(rule.category),
            rule.severity.as_str(),
            rule.command,
            rule.doc.trim_end()
        )?;
    }
    Ok(ExitStatus::Clean)
}
