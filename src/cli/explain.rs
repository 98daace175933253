//! `ccmem explain CODE`: print an audit rule's documentation.

use std::io::Write;

use serde_json::json;

use crate::exit::ExitStatus;
use crate::rules::{self, RULES};

/// Print the documentation of an audit rule (without CODE: list the rules).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The rule's name, e.g. `broken-link`.
    code: Option<String>,
    /// JSON output.
    #[arg(long)]
    json: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<ExitStatus> {
    let mut out = std::io::stdout().lock();
    let Some(code) = args.code else {
        if args.json {
            let list: Vec<_> = RULES
                .iter()
                .map(|r| json!({"rule": r.name, "category": r.category, "severity": r.severity(), "summary": r.summary()}))
                .collect();
            writeln!(out, "{}", serde_json::to_string_pretty(&list)?)?;
        } else {
            for r in RULES {
                writeln!(
                    out,
                    "{:<27} {:<4} {}",
                    r.name,
                    format!("{:?}", r.category).to_lowercase(),
                    r.summary()
                )?;
            }
        }
        return Ok(ExitStatus::Clean);
    };
    let Some(rule) = rules::find(&code) else {
        let names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
        anyhow::bail!("unknown rule `{code}`; rules: {}", names.join(", "));
    };
    let doc = rules::doc_text(rule);
    if args.json {
        let v = json!({"rule": rule.name, "category": rule.category, "severity": rule.severity(), "doc": doc});
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(
            out,
            "{} ({}, {})\n\n{}",
            rule.name,
            format!("{:?}", rule.category).to_lowercase(),
            rule.severity().as_str(),
            doc.trim_end()
        )?;
    }
    Ok(ExitStatus::Clean)
}
