//! Subagents: which agents a session can spawn, and what one starts with (SPEC-agents).
//!
//! A subagent's first request carries two kinds of memory:
//! - its system prompt ends with a memory guide and its own `MEMORY.md` when its definition
//!   sets `memory: user|project|local` and auto memory is on ([`memory`]);
//! - its first user message carries the main session's startup block, cached at session start
//!   ([`reminder_entries`]), unless `omitClaudeMd` drops it.
//!
//! Definitions ([`defs`]) come from the built-ins, `~/.claude/agents`, the project's
//! `.claude/agents` folders and `--agents JSON`, as the client's `ZTs` merges them.

pub mod defs;
pub mod memory;

pub use defs::{Definition, Origin, Scope};
pub use memory::AgentMemory;

use super::model::{Kind, Loaded};
use crate::env::ClientEnv;
use crate::settings::Settings;

/// The agent's own memory as its system prompt carries it, or `None` when the prompt has no
/// memory guide: no valid `memory:` scope, or auto memory off (`oS()`; SPEC-agents 2.4).
pub fn system_memory(
    env: &ClientEnv,
    settings: &Settings,
    def: &Definition,
) -> Option<AgentMemory> {
    let scope = def.memory?;
    if super::automem::enabled::off_reason(env, settings).is_some() {
        return None;
    }
    Some(memory::load(env, &def.name, scope))
}

/// The entries of the subagent's first-message reminder, given the main session's startup
/// entries (`op`, chunk-wd547erf).
///
/// - a built-in with `omitClaudeMd` (Explore, Plan): nothing at all (SPEC-agents 5.1);
/// - a custom agent with `omitClaudeMd`: only the Managed entries (`eol`: the managed
///   CLAUDE.md and its rules; SPEC-agents 5.2);
/// - otherwise the whole startup block, MEMORY.md included, as cached at session start
///   (SPEC-agents 4.1: edits made later and files attached lazily are not seen).
pub fn reminder_entries(def: &Definition, startup: &[Loaded]) -> Vec<Loaded> {
    if !def.omit_claude_md {
        return startup.to_vec();
    }
    if def.origin == Origin::BuiltIn {
        return Vec::new();
    }
    startup
        .iter()
        .filter(|e| e.kind == Kind::Managed)
        .cloned()
        .collect()
}

/// What the subagent inherits from the main session, in words (for the receipt).
pub fn inheritance(def: &Definition) -> &'static str {
    match (def.omit_claude_md, def.origin) {
        (false, _) => {
            "the main session's startup block (instruction files and MEMORY.md, as read at session start)"
        }
        (true, Origin::BuiltIn) => {
            "nothing: a built-in agent with omitClaudeMd gets no instructions block"
        }
        (true, _) => {
            "only managed policy files: omitClaudeMd drops project and user files and the main MEMORY.md"
        }
    }
}

#[cfg(test)]
mod tests;
