//! `check` output, chosen in one place ([`Format`]): human (what each start directory loads
//! and loses, then the findings with annotated lines and their fixes), JSON
//! (`ccmem.check/1`, schema in `docs/schemas/ccmem.check.1.schema.json`), and SARIF 2.1.0 and
//! GitHub annotations through the shared [`super::findings`].

use std::io::{self, Write};

pub use super::findings::Format;
use super::findings::{self, Base, Finding, RuleInfo};
use crate::check::{RULES, Report};

mod human;
mod json;

/// How the report is shown.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// The root as the user named it.
    pub given: &'a std::path::Path,
    /// List every start directory, not only those that lose something.
    pub all_dirs: bool,
}

/// Writes the report in `format`.
pub fn render(out: &mut dyn Write, format: Format, report: &Report, view: View) -> io::Result<()> {
    let bases = [Base::of(view.given, "%SRCROOT%")];
    let found = shared(report);
    match format {
        Format::Human => human::render(out, report, view),
        Format::Json => json::render(out, report),
        Format::Sarif => findings::sarif::render(out, &rule_infos(), &bases, &found),
        Format::Github => findings::github::render(out, &bases, &found),
    }
}

/// The registry as reports describe it.
fn rule_infos() -> Vec<RuleInfo> {
    RULES
        .iter()
        .map(|r| RuleInfo {
            id: r.name,
            summary: r.summary(),
            doc: r.doc_text(),
            severity: r.severity(),
            properties: serde_json::json!({"category": r.category, "command": "check"}),
        })
        .collect()
}

/// The findings as the shared renderers see them (relative to the root, else absolute).
fn shared(report: &Report) -> Vec<Finding<'_>> {
    report
        .findings
        .iter()
        .map(|f| Finding {
            rule: f.rule,
            severity: f.severity,
            base: (!f.path.starts_with('/')).then_some(0),
            path: &f.path,
            line: f.line,
            column: f.column,
            message: &f.message,
            fix: Some(&f.fix),
            span: f.span.clone(),
            redact: false,
        })
        .collect()
}
