//! What every findings report shares, whichever command found them (`audit`, `check`):
//! SARIF 2.1.0 ([`sarif`]), GitHub workflow annotations ([`github`]) and annotated source
//! snippets ([`snippet`]). A command maps its registry to [`RuleInfo`] and its findings to
//! [`Finding`]; nothing here knows a rule or decides anything.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::severity::Severity;

pub mod github;
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

/// A rule as reports describe it.
#[derive(Debug, Clone)]
pub struct RuleInfo {
    /// The stable kebab-case name (SARIF `id`, the name users suppress and `explain`).
    pub id: &'static str,
    /// Its first sentence.
    pub summary: &'static str,
    /// The full documentation, Markdown (What it does / Why it matters / Example / Fix).
    pub doc: String,
    /// Default severity.
    pub severity: Severity,
    /// Extra SARIF properties (the rule's category, …).
    pub properties: serde_json::Value,
}

/// One finding as reports show it.
#[derive(Debug, Clone)]
pub struct Finding<'a> {
    /// The rule's name.
    pub rule: &'static str,
    /// Its severity.
    pub severity: Severity,
    /// Which [`Base`] `path` is relative to; `None` when `path` is absolute.
    pub base: Option<usize>,
    /// The file, `/`-separated, relative to its base (or absolute).
    pub path: &'a str,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters, when the finding is at a point in the line.
    pub column: Option<usize>,
    /// What is wrong, in one sentence.
    pub message: &'a str,
    /// The one-line fix, when the rule knows one.
    pub fix: Option<&'a str>,
    /// Byte range of the file to underline.
    pub span: Option<Range<usize>>,
    /// The line must never be shown (it holds a secret).
    pub redact: bool,
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

    /// The path of a file of this base as shown to people: the folder as named, joined.
    pub fn show(&self, rel: &str) -> String {
        if self.shown.is_empty() {
            rel.to_owned()
        } else {
            format!("{}/{rel}", self.shown)
        }
    }
}
