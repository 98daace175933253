//! `check` output, chosen in one place ([`Format`]): human (what each start directory loads
//! and loses, then the findings with annotated lines and their fixes), JSON
//! (`ccmem.check/1`, schema in `docs/schemas/ccmem.check.1.schema.json`), and SARIF 2.1.0 and
//! GitHub annotations, through the shared [`super::findings`].

use std::io::{self, Write};

pub use super::findings::Format;
use super::findings::{Base, Batch, github, sarif};
use crate::rules::Command;
use crate::rules::repo::Report;

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

/// The SARIF base of a repository's paths.
const BASE_ID: &str = "%SRCROOT%";

/// Writes the report in `format`.
pub fn render(out: &mut dyn Write, format: Format, report: &Report, view: View) -> io::Result<()> {
    let batch = || Batch {
        base: Base::of(view.given, BASE_ID),
        diagnostics: &report.findings,
    };
    match format {
        Format::Human => human::render(out, report, view),
        Format::Json => json::render(out, report),
        Format::Sarif => sarif::render(out, Command::Check, &[batch()]),
        Format::Github => github::render(out, &[batch()]),
    }
}
