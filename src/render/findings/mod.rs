//! What every findings report shares, whichever command found them (`audit`, `check`): the
//! format choice ([`Format`]), SARIF 2.1.0 ([`sarif`]), GitHub workflow annotations
//! ([`github`]), annotated source snippets ([`snippet`]) and a finding in a JSON document
//! ([`json`]). They read [`Diagnostic`]s and the rule registry; nothing here decides anything.

use std::path::{Path, PathBuf};

use crate::rules::Diagnostic;

pub mod github;
pub mod json;
pub mod sarif;
pub mod snippet;

/// Output formats of a findings report, chosen in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Grouped by file, with annotated source lines.
    Human,
    /// The command's versioned JSON document.
    Json,
    /// SARIF 2.1.0 (code scanning).
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…`).
    Github,
}

impl Format {
    /// The format of a run given `--format` and the global `--json` (which asks for the JSON
    /// document, and conflicts with another machine format).
    pub fn with_json(self, json: bool) -> Result<Format, &'static str> {
        match (json, self) {
            (false, format) => Ok(format),
            (true, Format::Human | Format::Json) => Ok(Format::Json),
            (true, _) => Err("--json and --format ask for two formats; pick one"),
        }
    }
}

/// A folder findings' paths are relative to.
#[derive(Debug, Clone)]
pub struct Base {
    /// Its SARIF `uriBaseId`.
    pub id: String,
    /// Its absolute path.
    pub dir: PathBuf,
    /// How the user named it, for paths shown to people and to GitHub (`""` for the
    /// current directory).
    pub shown: String,
}

impl Base {
    /// The base of a folder the user named `given`, with SARIF id `id`.
    pub fn of(given: &Path, id: &str) -> Base {
        let dir = std::path::absolute(given).unwrap_or_else(|_| given.to_path_buf());
        let dir = crate::load::git::normalize(&dir);
        let shown = given.to_string_lossy();
        let shown = shown.trim_start_matches("./").trim_end_matches('/');
        let shown = if shown == "." { "" } else { shown };
        Base {
            id: id.to_owned(),
            dir,
            shown: shown.to_owned(),
        }
    }

    /// The path of a finding as shown to people: the folder as named, joined with a relative
    /// path; an absolute one as it is.
    pub fn show(&self, d: &Diagnostic) -> String {
        if d.is_absolute() || self.shown.is_empty() {
            d.path.clone()
        } else {
            format!("{}/{}", self.shown, d.path)
        }
    }
}

/// The findings of one folder a command worked on (a memory library, a repository), with the
/// folder their paths are relative to.
pub struct Batch<'a> {
    /// The folder.
    pub base: Base,
    /// Its findings, in report order.
    pub diagnostics: &'a [Diagnostic],
}

/// `s` with every byte `encode` picks written as `%XX` (upper-case hex): GitHub's command
/// escapes and SARIF's URI references. A character whose bytes are not picked is kept whole.
fn percent_encode(s: &str, encode: impl Fn(u8) -> bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let mut buf = [0; 4];
        let bytes = c.encode_utf8(&mut buf).as_bytes();
        if bytes.iter().any(|&b| encode(b)) {
            for b in bytes {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}
