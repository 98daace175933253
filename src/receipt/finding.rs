//! The kinds of finding that can make `receipt` exit 1, and which skip is which.

use serde::Serialize;

use crate::load::SkipWhy;

#[cfg(doc)]
use super::Traps;

/// Kinds of finding that can make `receipt` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Finding {
    /// MEMORY.md entries past the cut.
    Dark,
    /// Files that exist but cannot load (too large, not regular, unreadable, non-text,
    /// missing import target).
    Unloadable,
    /// Files blocked by policy (external import not approved, depth, Read deny, protected
    /// folders, automount roots).
    Blocked,
    /// Files switched off by configuration (claudeMdExcludes, setting sources, AGENTS.md mode).
    Excluded,
    /// The client's own size warnings.
    Oversized,
    /// Errors `ccmem check` reports for this start directory ([`Traps`]).
    Trap,
}

impl Finding {
    /// The default set that fails a receipt.
    pub const DEFAULT: [Finding; 4] = [
        Finding::Dark,
        Finding::Unloadable,
        Finding::Blocked,
        Finding::Trap,
    ];

    /// Which finding a skip is, if any (duplicates, empty files and conditional rules are not).
    pub fn of_skip(why: &SkipWhy) -> Option<Finding> {
        use SkipWhy::*;
        match why {
            TooLarge { .. }
            | NotRegular { .. }
            | Unreadable { .. }
            | Missing
            | NonTextExtension { .. } => Some(Finding::Unloadable),
            ExternalNotApproved { .. }
            | DepthLimit
            | DeniedRead { .. }
            | ProtectedFolder { .. }
            | DevicePath
            | AutomountRoot
            | OuterWorktree
            | LocalAgentLink => Some(Finding::Blocked),
            Excluded { .. }
            | SourceDisabled { .. }
            | AgentsModeOff { .. }
            | ManagedOnly
            | AddDirNeedsEnv => Some(Finding::Excluded),
            Empty
            | Duplicate
            | Conditional { .. }
            | AgentsSuppressed { .. }
            | AgentsDuplicate { .. }
            | Other { .. } => None,
        }
    }
}
