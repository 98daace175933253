//! Conformance of the session shapes with the real client: every case under
//! `tests/oracle/{agents,compact,bash-read}` (captured from Claude Code 2.1.332 with
//! `capture_agent.py`, `capture_compact.py`, `capture_bash_read.py`) replayed through `ccmem
//! context` with the command lines of `conform_sessions.py`, compared as it compares them
//! (`common::shapes`).

mod common;

use common::shapes::{compare_agent, compare_compact, compare_steps};
use common::{cases, check_all};

#[test]
fn subagent_cases_match_the_client() {
    check_all(&cases(&["agents"]), compare_agent);
}

#[test]
fn bash_read_cases_match_the_client() {
    check_all(&cases(&["bash-read"]), compare_steps);
}

#[test]
fn compaction_cases_match_the_client() {
    check_all(&cases(&["compact"]), compare_compact);
}
