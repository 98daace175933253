//! How serious a finding is: the one vocabulary of `audit`, `check` and their shared renderers
//! (SARIF levels and GitHub annotation commands use the same two words).

use serde::Serialize;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A hard violation: something is lost or broken.
    Error,
    /// A soft signal worth a look.
    Warning,
}

impl Severity {
    /// `error` or `warning` (also the SARIF `level` and the GitHub command name).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}
