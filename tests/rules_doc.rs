//! docs/rules.md is the rule registry's documentation, generated: every audit and check rule
//! with its name (the anchor SARIF's `helpUri` points at), command, category and doc. This
//! test fails when the file is stale; `CCMEM_UPDATE_DOCS=1 cargo test --test rules_doc`
//! rewrites it.

use std::fmt::Write as _;
use std::path::Path;

fn generated() -> String {
    let mut out = String::from(
        "# Rules\n\n<!-- Generated from the rule registry by tests/rules_doc.rs \
         (CCMEM_UPDATE_DOCS=1 cargo test --test rules_doc); do not edit by hand. -->\n\n\
         `ccmem explain NAME` prints any of these. Hard rules report errors, soft rules \
         warnings. Silence one with `<!-- ccmem-ignore: NAME -->` (see docs/check.md).\n",
    );
    let mut section = |title: &str, rules: Vec<(&str, String, String)>| {
        write!(out, "\n## {title}\n\n").unwrap();
        for (name, category, _) in &rules {
            writeln!(out, "- [`{name}`](#{name}) ({category})").unwrap();
        }
        for (name, category, doc) in rules {
            let doc = doc.replace("\n## ", "\n#### ");
            let doc = doc
                .strip_prefix("## ")
                .map_or(doc.clone(), |d| format!("#### {d}"));
            write!(out, "\n### {name}\n\n*{category}*\n\n{}\n", doc.trim_end()).unwrap();
        }
    };
    use ccmem::rules::{Command, of};
    section(
        "ccmem check",
        of(Command::Check)
            .map(|r| (r.name, r.category.as_str().to_owned(), r.doc_text()))
            .collect(),
    );
    section(
        "ccmem audit",
        of(Command::Audit)
            .map(|r| {
                let specs = r.applies().map_or("", |a| a.describe());
                let kind = format!("{}; {specs}", r.category.as_str());
                (r.name, kind, r.doc_text())
            })
            .collect(),
    );
    out
}

#[test]
fn rules_md_is_generated_from_the_registries() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules.md");
    let want = generated();
    if std::env::var_os("CCMEM_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/rules.md is stale: run CCMEM_UPDATE_DOCS=1 cargo test --test rules_doc"
    );
}
