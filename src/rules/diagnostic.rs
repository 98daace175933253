//! The one finding type of every rule, whichever command runs it ([`Diagnostic`]), and what
//! makes a run fail ([`FailOn`]).

use std::ops::Range;

use serde::Serialize;

use super::{Rule, find};
use crate::exit::ExitStatus;
use crate::severity::Severity;

/// One finding. Serialized (for a library's user; the commands' documents are
/// [`crate::render`]'s) without its span and without hiding anything: a secret's value is
/// never in a message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// The rule's stable name.
    pub rule: &'static str,
    /// Its severity: its rule's ([`Rule::severity`], from the category).
    pub severity: Severity,
    /// The file, `/`-separated, relative to the folder the command worked on (the memory
    /// folder, the repository root; `""` is that folder itself), or absolute when the file is
    /// outside it ([`Diagnostic::is_absolute`]).
    pub path: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters, when the finding is at a point in the line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong, in one sentence (never the value of a secret).
    pub message: String,
    /// Byte range in the file to underline, when there is one.
    #[serde(skip)]
    pub span: Option<Range<usize>>,
    /// The source line must not be shown (it holds a secret).
    #[serde(skip)]
    pub redact: bool,
    /// A fix for this finding in particular, when it says more than the rule's
    /// ([`Rule::fix`]); read it with [`Diagnostic::fix`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The start directories where it bites, for a repository finding that depends on where a
    /// session starts (else empty).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub start_dirs: Vec<String>,
}

impl Diagnostic {
    /// A finding of `rule` on `path` at `line`, with its rule's severity.
    pub fn new(rule: &Rule, path: String, line: usize, message: String) -> Diagnostic {
        Diagnostic {
            rule: rule.name,
            severity: rule.severity(),
            path,
            line,
            column: None,
            message,
            span: None,
            redact: false,
            fix: None,
            start_dirs: Vec::new(),
        }
    }

    /// The same finding underlining bytes `span` of `text` (the file's): the column is
    /// computed, the line is left as it is.
    pub fn at(self, text: &str, span: Range<usize>) -> Diagnostic {
        let start = span.start.min(text.len());
        let line_start = text[..start].rfind('\n').map_or(0, |k| k + 1);
        Diagnostic {
            column: Some(text[line_start..start].chars().count() + 1),
            span: Some(span),
            ..self
        }
    }

    /// The one-line fix printed beside the finding: its own, else its rule's.
    pub fn fix(&self) -> &str {
        match &self.fix {
            Some(fix) => fix,
            None => find(self.rule).map_or("", Rule::fix),
        }
    }

    /// Whether [`Diagnostic::path`] is absolute (the file is outside the folder worked on).
    pub fn is_absolute(&self) -> bool {
        self.path.starts_with('/')
    }

    /// The order of findings in every report: by path, line, column, rule.
    pub fn order(&self, other: &Diagnostic) -> std::cmp::Ordering {
        (self.path.as_str(), self.line, self.column, self.rule).cmp(&(
            other.path.as_str(),
            other.line,
            other.column,
            other.rule,
        ))
    }
}

/// The least severe finding that fails a run (`check --fail-on`; `audit` fails on errors, and
/// with `--strict` on warnings too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Errors fail (the default).
    Error,
    /// Errors and warnings fail.
    Warning,
    /// Nothing fails (exit 0 unless the check could not run).
    Never,
}

impl FailOn {
    /// Whether a finding of this severity fails the run.
    pub fn fails(self, severity: Severity) -> bool {
        match self {
            FailOn::Error => severity == Severity::Error,
            FailOn::Warning => true,
            FailOn::Never => false,
        }
    }

    /// The exit status of a run that found `findings`: 1 when one of them fails it, else 0.
    pub fn status<'a>(self, findings: impl IntoIterator<Item = &'a Diagnostic>) -> ExitStatus {
        ExitStatus::findings_if(findings.into_iter().any(|d| self.fails(d.severity)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on() {
        use Severity::{Error, Warning};
        let table = [
            (FailOn::Error, [true, false]),
            (FailOn::Warning, [true, true]),
            (FailOn::Never, [false, false]),
        ];
        for (fail_on, [error, warning]) in table {
            assert_eq!(fail_on.fails(Error), error, "{fail_on:?}");
            assert_eq!(fail_on.fails(Warning), warning, "{fail_on:?}");
        }
    }
}
