//! `ccmem explain CODE`: print the documentation of a rule (without CODE: list them).

use crate::exit::ExitStatus;
use crate::render::explain;
use crate::rules::{self, RULES};

/// Print the documentation of an audit or check rule, or `tier`'s policy (without CODE: list
/// the rules).
#[derive(Debug, clap::Args)]
pub(super) struct Args {
    /// The rule's name, e.g. `broken-link` or `import-outside-start-dir`; `tier` for what
    /// `ccmem tier` keeps and moves; `compliance` for how the audit's score is made.
    code: Option<String>,
}

/// Runs the command.
pub(super) fn run(args: Args) -> anyhow::Result<ExitStatus> {
    let mut out = super::output::stdout_plain();
    let json = super::output::json();
    match args.code {
        None if json => explain::list_json(&mut out)?,
        None => explain::list(&mut out)?,
        Some(code) if code == "tier" => explain::tier_policy(&mut out, json)?,
        Some(code) if code == "compliance" => explain::compliance(&mut out, json)?,
        Some(code) => {
            let Some(rule) = rules::find(&code) else {
                let names: Vec<&str> = RULES.iter().map(|r| r.name).collect();
                anyhow::bail!(
                    "unknown rule `{}`; rules: {}; topics: tier, compliance",
                    crate::text::escape::escape(&code),
                    names.join(", ")
                );
            };
            if json {
                explain::rule_json(&mut out, rule)?;
            } else {
                explain::rule(&mut out, rule)?;
            }
        }
    }
    Ok(ExitStatus::Clean)
}
