//! Exit status, decided apart from rendering: 0 clean, 1 findings, 2 usage or I/O error.

/// How a command ended, for scripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything is as it should be.
    Clean,
    /// The command ran and found something (dark entries, violations, a mismatch).
    Findings,
    /// Usage error, I/O error, or the command could not run.
    Error,
}

impl ExitStatus {
    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Clean => 0,
            ExitStatus::Findings => 1,
            ExitStatus::Error => 2,
        }
    }

    /// `Findings` when `found`, else `Clean`.
    pub fn findings_if(found: bool) -> Self {
        if found {
            ExitStatus::Findings
        } else {
            ExitStatus::Clean
        }
    }
}
